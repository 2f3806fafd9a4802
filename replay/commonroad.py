"""Recordings of the CommonRoad daemon (``engine.commonroad``): format, recorder, replayer.

A CommonRoad recording (ADR 0090) is one UTF-8 JSON object, published in
``replay/recording.schema.json`` beside the four-wheel format::

    {
     "format": "skidpad-commonroad-recording",   always this string
     "version": 1,                               CR_FORMAT_VERSION
     "engine_version": "0.1.0",                  engine.__version__ at record time
     "math_hash": "0123456789abcdef",            math self-test hash at record time, or null
     "model": "st",                              ks | st | std | mb
     "vehicle": 2,                               CommonRoad vehicle id (1, 2, 3)
     "drive": "scripted",                        how the inputs were produced, or null
     "parameters_hash": "...",                   parameters_hash(parameters)
     "parameters": {"vehicle": {...}, "powertrain": {...}, "safety": {...}, "steer_gain": 8.0},
     "initial": {"speed": 0.0},                  CommonRoadDaemon(initial=...)
     "drift": null,                              drift profile override: true, false or null
     "channels": ["dt_us", "steer", "throttle", "brake", "drift_toggle"],
     "steps": 2040,                              number of host steps
     "final_hash": "...",                        state hash after the last step, or null
     "frames": [[count, dt_us, steer, throttle, brake, drift_toggle], ...]
    }

``parameters`` is every number the daemon was configured with: the vehicle
parameter set (``VehicleParams``, reference names), the EV powertrain
(``PowertrainParams``), the safety profiles of the model and the staging
settings, and the steering-controller gain. A replay builds the daemon from
these embedded values, not from today's data files, so a retuned data file
cannot silently change an old recording; ``parameters_hash`` is
``engine.state.hash_bytes`` of the canonical JSON (sorted keys, no spaces,
UTF-8), as for the four-wheel definition.

The host step's integer ``dt_us`` is the first channel, so the variable host
rate is run-length encoded with the inputs and replayed exactly. Loading
validates everything and raises :class:`replay.recording.RecordingError`
naming the field as a JSON pointer; the set-up is checked by *building*
(never stepping) the daemon.

Tracing: the daemon has no probe protocol, so :class:`EmbeddedDaemon` calls
``probe.substep(tick, state)`` after each of its substeps (``tick`` is
``clock.substeps``, 1 for the first substep of a run). There are no stage
values: a diff names the substep and the fields, not a physics stage.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.commonroad import models, params, powertrain, safety
from engine.commonroad.daemon import INPUT_NAMES, INPUTS, CommonRoadDaemon, validate_inputs
from engine.commonroad.scheduler import MAX_HOST_DT_US, MIN_DT_US, plan_steps
from engine.errors import DefinitionError, InputError, SkidpadError
from engine.state import hash_bytes
from replay.recording import (
    MAX_DURATION_S,
    RecordingError,
    _err,
    _is_hex16,
    _is_int,
    _type_name,
    frame_key,
)
from replay.replayer import ReplayResult
from replay.trace import TraceProbe

CR_FORMAT_NAME = "skidpad-commonroad-recording"
CR_FORMAT_VERSION = 1

#: Top-level keys in the order they are written; the loader accepts no others.
CR_KEYS = (
    "format",
    "version",
    "engine_version",
    "math_hash",
    "model",
    "vehicle",
    "drive",
    "parameters_hash",
    "parameters",
    "initial",
    "drift",
    "channels",
    "steps",
    "final_hash",
    "frames",
)
PARAMETER_KEYS = ("vehicle", "powertrain", "safety", "steer_gain")
SAFETY_KEYS = ("normal", "drift", "drift_default", "staging")


def channel_names() -> tuple[str, ...]:
    """``dt_us`` then the daemon's input channels, in frame order."""
    return ("dt_us", *INPUT_NAMES)


@dataclass(frozen=True)
class CommonRoadRecording:
    """A validated CommonRoad recording; ``frames`` is ``((count, (dt_us, inputs...)), ...)``."""

    model: str
    vehicle: int
    parameters: dict
    parameters_hash: str
    channels: tuple[str, ...]
    frames: tuple[tuple[int, tuple], ...]
    steps: int
    initial: dict
    drift: bool | None = None
    drive: str | None = None
    engine_version: str = ""
    math_hash: str | None = None
    final_hash: str | None = None

    @property
    def preset(self) -> str:
        """What the replay table shows in its preset column."""
        return f"commonroad:{self.model}:{self.vehicle}"

    @property
    def sim_s(self) -> float:
        """Simulated seconds (sub-millisecond requests are clamped up, as the daemon does)."""
        us = sum(count * max(values[0], MIN_DT_US) for count, values in self.frames)
        return us / 1_000_000

    def inputs(self) -> Iterator[tuple]:
        """``(dt_us, steer, throttle, brake, drift_toggle)`` of every host step, in order."""
        for count, values in self.frames:
            for _ in range(count):
                yield values

    def with_final_hash(self, final_hash: str | None) -> CommonRoadRecording:
        return replace(self, final_hash=final_hash)


# ----------------------------------------------------------------------------- parameters


def parameters_hash(parameters: dict) -> str:
    """hash_bytes of the canonical JSON of ``parameters`` (sorted keys, compact, UTF-8)."""
    text = json.dumps(
        parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return hash_bytes(text.encode("utf-8"))


def parameters_of(daemon: Any) -> dict:
    """Every number ``daemon`` is configured with, as plain JSON data."""
    cfg = daemon.safety

    def profile(p: Any) -> dict:
        return {
            name: [mag, rate] for name, (mag, rate) in zip(safety.METRICS, p.limits, strict=True)
        }

    return {
        "vehicle": asdict(daemon.params),
        "powertrain": asdict(daemon.powertrain),
        "safety": {
            "normal": profile(cfg.normal),
            "drift": profile(cfg.drift),
            "drift_default": bool(cfg.drift_default),
            "staging": asdict(cfg.staging),
        },
        "steer_gain": float(daemon.steer_gain),
    }


def _exact_keys(v: Any, keys: Iterable[str], path: str) -> None:
    if not isinstance(v, dict):
        raise _err(path, f"must be an object, not {_type_name(v)}")
    keys = list(keys)
    for k in keys:
        if k not in v:
            raise _err(f"{path}/{k}", "missing required field")
    for k in v:
        if k not in keys:
            raise _err(f"{path}/{k}", "unknown field")


def _number(v: Any, path: str) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _err(path, f"must be a number, not {_type_name(v)}")
    if not math.isfinite(v):
        raise _err(path, "must be finite")


def _check_dataclass_data(v: Any, cls: type, path: str) -> None:
    """``v`` has exactly the fields of ``cls``; nested dataclasses recurse; leaves are numbers."""
    names = [f.name for f in fields(cls)]
    _exact_keys(v, names, path)
    hints = {f.name: f.type for f in fields(cls)}
    for name in names:
        sub = _NESTED.get((cls.__name__, name))
        where = f"{path}/{name}"
        if sub is not None:
            _check_dataclass_data(v[name], sub, where)
        elif hints[name] in ("int", int):
            if not _is_int(v[name]):
                raise _err(where, f"must be an integer, not {_type_name(v[name])}")
        elif hints[name] in ("str", str):
            if not isinstance(v[name], str):
                raise _err(where, f"must be a string, not {_type_name(v[name])}")
        else:
            _number(v[name], where)


_NESTED = {
    ("VehicleParams", "steering"): params.SteeringParams,
    ("VehicleParams", "longitudinal"): params.LongitudinalParams,
    ("VehicleParams", "tire"): params.TireParams,
}


def _profile_data(v: Any, path: str) -> Any:
    _exact_keys(v, safety.METRICS, path)
    for name in safety.METRICS:
        pair = v[name]
        if not (isinstance(pair, list) and len(pair) == 2):
            raise _err(f"{path}/{name}", "must be [magnitude, rate]")
        for j, x in enumerate(pair):
            _number(x, f"{path}/{name}/{j}")
    try:
        # the engine's own profile builder checks the thresholds (> 0)
        return safety._profile(v, path.lstrip("/").replace("/", "."))
    except DefinitionError as exc:
        raise _err(path, str(exc)) from None


def build_parameters(parameters: Any, model: str, vehicle: int) -> tuple:
    """(VehicleParams, PowertrainParams, SafetyConfig, steer_gain) from embedded data."""
    _exact_keys(parameters, PARAMETER_KEYS, "/parameters")
    vdata = parameters["vehicle"]
    _check_dataclass_data(vdata, params.VehicleParams, "/parameters/vehicle")
    if vdata["vehicle_id"] != vehicle:
        raise _err(
            "/parameters/vehicle/vehicle_id",
            f"{vdata['vehicle_id']} is not the recording's vehicle {vehicle}",
        )
    try:
        vp = params._build(params.VehicleParams, vdata, "parameters.vehicle")
    except DefinitionError as exc:
        raise _err("/parameters/vehicle", str(exc)) from None

    pdata = parameters["powertrain"]
    _check_dataclass_data(pdata, powertrain.PowertrainParams, "/parameters/powertrain")
    try:
        # every field given as an override: the engine's loader validates the whole set
        pp = powertrain.load_powertrain(vehicle, pdata)
    except DefinitionError as exc:
        raise _err("/parameters/powertrain", str(exc)) from None

    sdata = parameters["safety"]
    _exact_keys(sdata, SAFETY_KEYS, "/parameters/safety")
    _check_dataclass_data(sdata["staging"], safety.Staging, "/parameters/safety/staging")
    if not isinstance(sdata["drift_default"], bool):
        raise _err(
            "/parameters/safety/drift_default",
            f"must be true or false, not {_type_name(sdata['drift_default'])}",
        )
    try:
        base = safety.load_safety(model, sdata["staging"])
    except DefinitionError as exc:
        raise _err("/parameters/safety/staging", str(exc)) from None
    sc = safety.SafetyConfig(
        _profile_data(sdata["normal"], "/parameters/safety/normal"),
        _profile_data(sdata["drift"], "/parameters/safety/drift"),
        sdata["drift_default"],
        base.staging,
    )
    gain = parameters["steer_gain"]
    _number(gain, "/parameters/steer_gain")
    if not gain > 0.0:
        raise _err("/parameters/steer_gain", f"must be > 0, not {gain!r}")
    return vp, pp, sc, float(gain)


# ----------------------------------------------------------------------------- the daemon


class EmbeddedDaemon(CommonRoadDaemon):
    """The daemon configured from a recording's embedded parameters, with a substep probe.

    ``CommonRoadDaemon`` loads its parameters from the data files in
    ``_configure``; this subclass puts the embedded ones in their place
    (the model and vehicle a recording names never change during its
    replay), and reports every substep to ``probe``.
    """

    def __init__(self, rec: CommonRoadRecording, built: tuple) -> None:
        self._embedded = built
        self.probe: Any = None
        super().__init__(
            model=rec.model,
            vehicle=rec.vehicle,
            initial=dict(rec.initial),
            drift=rec.drift,
            steer_gain=built[3],
        )
        self._tick_index = self.layout.index["clock.substeps"]

    def _configure(self, spec: Any, vid: int) -> None:
        super()._configure(spec, vid)
        self.params, self.powertrain, self.safety = self._embedded[:3]

    def _substep(self, *args: Any) -> Any:
        out = super()._substep(*args)
        if self.probe is not None:
            self.probe.substep(self.state[self._tick_index], self.state)
        return out


def build_daemon(rec: CommonRoadRecording) -> Any:
    """The fresh daemon a replay of ``rec`` starts from (embedded parameters)."""
    built = build_parameters(rec.parameters, rec.model, rec.vehicle)
    try:
        return EmbeddedDaemon(rec, built)
    except SkidpadError as exc:
        text = str(exc)
        where = "/initial" if text.startswith("initial") else "/parameters"
        raise _err(where, f"the daemon refuses this set-up: {text}") from None


# ----------------------------------------------------------------------------- validation


def _validate_frames(frames: Any, steps: int) -> tuple:
    if not isinstance(frames, list):
        raise _err("/frames", f"must be an array, not {_type_name(frames)}")
    width = 2 + len(INPUTS)
    out = []
    total = 0
    sim_us = 0
    for i, frame in enumerate(frames):
        p = f"/frames/{i}"
        if not isinstance(frame, list):
            raise _err(p, f"must be an array [count, dt_us, {len(INPUTS)} inputs]")
        if len(frame) != width:
            raise _err(p, f"has {len(frame)} entries, expected {width} (count, dt_us, inputs)")
        count, dt_us = frame[0], frame[1]
        if not _is_int(count):
            raise _err(p + "/0", f"run-length count must be an integer, not {_type_name(count)}")
        if count <= 0:
            raise _err(p + "/0", f"run-length count must be positive, not {count}")
        if not _is_int(dt_us):
            raise _err(
                p + "/1", f"dt_us must be an integer number of microseconds, not {dt_us!r}"[:200]
            )
        if not 0 <= dt_us <= MAX_HOST_DT_US:
            raise _err(p + "/1", f"dt_us = {dt_us} is outside [0, {MAX_HOST_DT_US}]"[:200])
        values = []
        for j, ((name, lo, hi, kind), v) in enumerate(zip(INPUTS, frame[2:], strict=True)):
            where = f"{p}/{j + 2}"
            if kind == "i" and not _is_int(v):
                raise _err(where, f"{name} must be an integer, not {_type_name(v)}")
            if kind == "f" and not (isinstance(v, float) or _is_int(v)):
                raise _err(where, f"{name} must be a number, not {_type_name(v)}")
            if not lo <= v <= hi:
                shown = repr(v) if not _is_int(v) or abs(v) < 10**30 else f"{str(v)[:12]}..."
                raise _err(where, f"{name} = {shown} is outside its range [{lo!r}, {hi!r}]")
            values.append(int(v) if kind == "i" else float(v))
        try:
            inputs = validate_inputs(values)
        except InputError as exc:
            raise _err(p, str(exc)) from None
        total += count
        if total > steps:
            raise _err(
                p + "/0", f"run-length counts add up to more than the declared {steps} steps"
            )
        sim_us += count * max(dt_us, MIN_DT_US)
        if sim_us > MAX_DURATION_S * 1_000_000:
            raise _err(p, f"the drive is longer than {MAX_DURATION_S // 3600} h")
        out.append((count, (dt_us, *inputs)))
    if total != steps:
        raise _err(
            "/frames", f"run-length counts add up to {total} steps, but /steps declares {steps}"
        )
    return tuple(out)


def from_document(doc: dict) -> CommonRoadRecording:
    """Validate a parsed ``skidpad-commonroad-recording`` document."""
    version = doc.get("version")
    if version != CR_FORMAT_VERSION or not _is_int(version):
        if "version" not in doc:
            raise _err("/version", "missing")
        raise _err(
            "/version",
            f"CommonRoad recording version {str(version)[:40]} is not supported "
            f"(this build reads version {CR_FORMAT_VERSION})",
        )
    for k in CR_KEYS:
        if k not in doc:
            raise _err(f"/{k}", "missing required field")
    for k in doc:
        if k not in CR_KEYS:
            raise _err(f"/{k}", "unknown field (not part of CommonRoad recording version 1)")

    def want(key: str, ok: bool, what: str) -> None:
        if not ok:
            raise _err(f"/{key}", f"must be {what}, not {_type_name(doc[key])}")

    want("engine_version", isinstance(doc["engine_version"], str), "a string")
    for key in ("math_hash", "final_hash"):
        want(key, doc[key] is None or _is_hex16(doc[key]), "16 lowercase hex digits or null")
    want("parameters_hash", _is_hex16(doc["parameters_hash"]), "16 lowercase hex digits")
    d = doc["drive"]
    want("drive", d is None or (isinstance(d, str) and 0 < len(d) <= 200), "a string or null")
    want("drift", doc["drift"] is None or isinstance(doc["drift"], bool), "true, false or null")
    model = doc["model"]
    want("model", isinstance(model, str), "a string")
    if model not in models.MODELS:
        raise _err(
            "/model", f"{model[:40]!r} is not a CommonRoad model; known: {', '.join(models.MODELS)}"
        )
    vehicle = doc["vehicle"]
    want("vehicle", _is_int(vehicle), "an integer")
    if vehicle not in params.VEHICLES:
        known = ", ".join(f"{v} ({n})" for v, (_, n) in params.VEHICLES.items())
        raise _err("/vehicle", f"{str(vehicle)[:20]} is not a CommonRoad vehicle; known: {known}")
    want("steps", _is_int(doc["steps"]), "an integer")
    steps = doc["steps"]
    if not 0 <= steps <= MAX_DURATION_S * 1000:
        raise _err("/steps", f"{steps} is outside [0, {MAX_DURATION_S * 1000}]")
    want("initial", isinstance(doc["initial"], dict), "an object")
    channels = doc["channels"]
    want(
        "channels",
        isinstance(channels, list) and all(isinstance(c, str) for c in channels),
        "an array of strings",
    )
    expected = list(channel_names())
    if channels != expected:
        raise _err("/channels", f"{channels[:20]} are not the daemon's channels {expected}")
    parameters = doc["parameters"]
    want("parameters", isinstance(parameters, dict), "an object")
    try:
        actual = parameters_hash(parameters)
    except (TypeError, ValueError) as exc:
        raise _err("/parameters", f"not plain finite data: {exc}") from None
    if actual != doc["parameters_hash"]:
        raise _err(
            "/parameters_hash",
            f"{doc['parameters_hash']} does not match the embedded parameters (which hash to "
            f"{actual}): the parameters were edited or the file is corrupt",
        )
    frames = _validate_frames(doc["frames"], steps)
    rec = CommonRoadRecording(
        model=model,
        vehicle=vehicle,
        parameters=parameters,
        parameters_hash=doc["parameters_hash"],
        channels=tuple(channels),
        frames=frames,
        steps=steps,
        initial=doc["initial"],
        drift=doc["drift"],
        drive=doc["drive"],
        engine_version=doc["engine_version"],
        math_hash=doc["math_hash"],
        final_hash=doc["final_hash"],
    )
    build_daemon(rec)  # parameters and initial conditions: the engine has the last word
    return rec


def to_document(rec: CommonRoadRecording) -> dict:
    return {
        "format": CR_FORMAT_NAME,
        "version": CR_FORMAT_VERSION,
        "engine_version": rec.engine_version,
        "math_hash": rec.math_hash,
        "model": rec.model,
        "vehicle": rec.vehicle,
        "drive": rec.drive,
        "parameters_hash": rec.parameters_hash,
        "parameters": rec.parameters,
        "initial": rec.initial,
        "drift": rec.drift,
        "channels": list(rec.channels),
        "steps": rec.steps,
        "final_hash": rec.final_hash,
        "frames": [[c, *v] for c, v in rec.frames],
    }


def dumps(rec: CommonRoadRecording) -> str:
    """The recording as JSON text: one header field per line, one frame per line."""
    doc = to_document(rec)
    lines = []
    for k in CR_KEYS:
        if k == "frames":
            continue
        value = json.dumps(
            doc[k], ensure_ascii=False, allow_nan=False, indent=1 if k == "parameters" else None
        )
        lines.append(f" {json.dumps(k)}: {value.replace(chr(10), chr(10) + ' ')}")
    frames = ",\n  ".join(json.dumps(f, allow_nan=False) for f in doc["frames"])
    lines.append(f' "frames": [\n  {frames}\n ]' if frames else ' "frames": []')
    return "{\n" + ",\n".join(lines) + "\n}\n"


# ----------------------------------------------------------------------------- recording


def run_length(frames: Sequence[Sequence]) -> tuple[tuple[int, tuple], ...]:
    """Run-length encode ``(dt_us, inputs...)`` tuples (bitwise equality, like the inputs)."""
    out: list[list] = []
    last = None
    for values in frames:
        key = frame_key(values)
        if out and key == last:
            out[-1][0] += 1
        else:
            out.append([1, tuple(values)])
            last = key
    return tuple((c, v) for c, v in out)


class CommonRoadRecorder:
    """Wraps a fresh ``CommonRoadDaemon``; :meth:`step_us` feeds and records one host step.

    It has the daemon's ``step_us`` and ``time_us``, so a driver written for the
    daemon (``engine.commonroad.scripted.drive_steps``) can drive the recorder.
    ``initial`` must be what the daemon was built with.
    """

    def __init__(
        self, daemon: Any, initial: dict, drift: bool | None = None, drive: str | None = None
    ) -> None:
        if daemon.step_count != 0:
            raise ValueError("a recorder must wrap a daemon that has not stepped yet")
        self.daemon = daemon
        self.initial = dict(initial)
        self.drift = drift
        self.drive = drive
        self.parameters = parameters_of(daemon)  # before the first step: what it starts with
        self.model = daemon.model
        self.vehicle = daemon.vehicle_id
        self._frames: list[tuple] = []

    @property
    def time_us(self) -> int:
        return self.daemon.time_us

    @property
    def step_count(self) -> int:
        return self.daemon.step_count

    def step_us(self, inputs: Mapping | Sequence, dt_us: int) -> Any:
        """Normalise, record and feed one host step; returns the daemon's telemetry."""
        if isinstance(dt_us, bool) or not isinstance(dt_us, int):
            raise InputError(f"dt_us: must be an integer number of microseconds, got {dt_us!r}")
        values = validate_inputs(inputs)
        tel = self.daemon.step_us(values, dt_us)  # refuses a bad dt_us before it is recorded
        self._frames.append((dt_us, *values))
        return tel

    def recording(self, with_final_hash: bool = True) -> CommonRoadRecording:
        import engine
        from replay.recorder import current_math_hash

        if (self.daemon.model, self.daemon.vehicle_id) != (self.model, self.vehicle):
            raise ValueError("the daemon swapped model or vehicle: not recordable (ADR 0090)")
        return CommonRoadRecording(
            model=self.model,
            vehicle=self.vehicle,
            parameters=self.parameters,
            parameters_hash=parameters_hash(self.parameters),
            channels=channel_names(),
            frames=run_length(self._frames),
            steps=len(self._frames),
            initial=self.initial,
            drift=self.drift,
            drive=self.drive,
            engine_version=engine.__version__,
            math_hash=current_math_hash(),
            final_hash=self.daemon.state_hash() if with_final_hash else None,
        )


def parse_drive(spec: str) -> tuple[str, int]:
    """``commonroad:MODEL:VEHICLE`` -> (model, vehicle id); SkidpadError naming what is wrong."""
    parts = spec.split(":")
    if len(parts) != 3 or parts[0] != "commonroad":
        raise SkidpadError(
            f"--drive {spec!r}: expected commonroad:MODEL:VEHICLE, e.g. commonroad:st:2"
        )
    model = parts[1].lower()
    if model not in models.MODELS:
        raise SkidpadError(
            f"--drive {spec!r}: unknown CommonRoad model {parts[1]!r}; "
            f"known: {', '.join(models.MODELS)}"
        )
    try:
        vid = params.vehicle_id(int(parts[2]) if parts[2].isdigit() else parts[2])
    except DefinitionError as exc:
        raise SkidpadError(f"--drive {spec!r}: {exc}") from None
    return model, vid


def record_scripted(
    model: str, vehicle: int, duration_us: int | None = None
) -> tuple[CommonRoadRecording, Any]:
    """The scripted drive of ``engine.commonroad.scripted`` as a recording (and the daemon)."""
    from engine.commonroad import scripted

    full = scripted.DURATION_US
    duration = full if duration_us is None else duration_us
    daemon = CommonRoadDaemon(model=model, vehicle=vehicle, initial=dict(scripted.INITIAL))
    drive = "scripted" if duration == full else f"scripted:{duration}us"
    rec = CommonRoadRecorder(daemon, scripted.INITIAL, drive=drive)
    for _ in scripted.drive_steps(rec, duration):
        pass
    return rec.recording(), daemon


# ----------------------------------------------------------------------------- replay


def step_ticks(rec: CommonRoadRecording) -> list[int]:
    """Substeps done after each host step (``[n_1, n_1 + n_2, ...]``), from the scheduler."""
    max_dt = models.MODELS[rec.model].max_dt_us
    out = []
    total = 0
    for count, values in rec.frames:
        n = plan_steps(values[0], max_dt).substeps
        for _ in range(count):
            total += n
            out.append(total)
    return out


@dataclass
class CommonRoadReplayResult(ReplayResult):
    """A CommonRoad replay: the host dt varies, so time and substeps come from the run.

    ``host_hz`` and ``substep_hz`` are 0; ``step_ticks[k]`` is the number of
    substeps done after host step ``k + 1``.
    """

    sim_us: int = 0
    step_ticks: list[int] | None = None

    @property
    def sim_s(self) -> float:
        return self.sim_us / 1_000_000


def tick_window(ticks: Sequence[int], steps: range) -> range:
    """The ticks ``probe.substep`` reports during host steps ``steps`` (0-based).

    ``ticks`` is :func:`step_ticks`; tick ``t`` is the ``t``-th substep of the run (1-based).
    """

    def done_after(k: int) -> int:  # substeps done after the first k host steps
        k = min(k, len(ticks))
        return ticks[k - 1] if k > 0 else 0

    first = done_after(steps.start)
    return range(first + 1, max(first, done_after(steps.stop)) + 1)


def replay(
    rec: CommonRoadRecording,
    checkpoint_every: int = 100,
    use_preset: bool = False,
    trace: bool = False,
    progress: Callable[[int, int], None] | None = None,
    *,
    state_at: Iterable[int] = (),
    detail_steps: range | None = None,
    hook: Any = None,
    stop_after: int | None = None,
) -> Any:
    """Replay ``rec`` as :func:`replay.replayer.replay` does a four-wheel recording."""
    if use_preset:
        raise RecordingError(
            "--use-preset: a CommonRoad recording has no preset; it replays with its embedded "
            "parameters"
        )
    daemon = build_daemon(rec)
    layout = daemon.layout
    ticks = step_ticks(rec)
    want_states = {int(s) for s in state_at}
    states: dict[int, dict] = {}
    probe = None
    if trace or hook is not None or detail_steps is not None:
        window = tick_window(ticks, detail_steps) if detail_steps is not None else None
        probe = TraceProbe(layout, hook=hook, detail_ticks=window, hash_substeps=trace)
        daemon.probe = probe
    total = rec.steps if stop_after is None else min(rec.steps, stop_after)
    checkpoints = [(0, daemon.state_hash())]
    if 0 in want_states:
        states[0] = layout.as_dict(daemon.state)
    step = daemon.step_us
    n = 0
    t0 = time.perf_counter()
    for values in rec.inputs():
        if n >= total:
            break
        step(values[1:], values[0])
        n += 1
        if n % checkpoint_every == 0:
            checkpoints.append((n, daemon.state_hash()))
        if n in want_states:
            states[n] = layout.as_dict(daemon.state)
        if progress is not None and n % 1000 == 0:
            progress(n, total)
    wall = time.perf_counter() - t0
    return CommonRoadReplayResult(
        checkpoints=checkpoints,
        final_hash=daemon.state_hash(),
        steps=n,
        wall_s=wall,
        host_hz=0,
        substep_hz=0,
        ticks=daemon.state[layout.index["clock.substeps"]],
        checkpoint_every=checkpoint_every,
        layout=layout,
        substep_hashes=probe.hashes if (probe is not None and trace) else None,
        states=states if (trace or want_states) else None,
        detail=probe.detail if (probe is not None and detail_steps is not None) else None,
        detail_steps=detail_steps,
        used_preset=False,
        sim_us=daemon.time_us,
        step_ticks=ticks[:n],
    )
