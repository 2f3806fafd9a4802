"""The CommonRoad family: its recording format's entry in the registry, its model, its recorder.

A CommonRoad recording (ADR 0090) is one UTF-8 JSON object (schema:
``replay/commonroad-recording.schema.json``, beside the four-wheel format's)::

    {
     "format": "skidpad-commonroad-recording",   always this string
     "version": 2,                               CR_FORMAT_VERSION (1: no physics_version)
     "engine_version": "0.1.0",                  engine.__version__ at record time
     "math_hash": "0123456789abcdef",            math self-test hash at record time, or null
     "physics_version": 8,                       the physics that made it (version 2 on)
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
validates everything with the field checks of ``replay.recording`` and raises
:class:`replay.recording.RecordingError` naming the field as a JSON pointer.
The embedded values are built into the daemon's parameter objects by the
engine's own builders (``params.build_vehicle_params``,
``powertrain.build_powertrain``, ``safety.build_safety``), which check each
value's valid range and name the parameter
(``/parameters/vehicle: vehicle parameter tire/p_dy1 must be > 0, not 0.0``);
the set-up is then checked by *building* (never stepping) the daemon, which
takes them through its ``parameters=`` argument.

:data:`FORMAT` is this format's entry in ``replay.recording.FORMATS`` (loader,
dumper, model factory); :class:`CommonRoadModel` is the daemon as a
:class:`replay.model.VehicleModel`. The daemon's own probe serves the trace and
the diff: it reports each stage of a substep (``engine.commonroad.daemon.STAGES``)
and the state after it, with ``tick`` = ``clock.substeps`` (1 for the first
substep of a run). Its host steps vary in length, so the model says how many
substeps each ran (:meth:`CommonRoadModel.step_ticks`). This module imports the
document checks of :mod:`replay.document` and nothing else of replay/'s formats,
recorder or replayer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from skidpad.engine.commonroad.inputs import INPUT_NAMES, INPUTS, STAGES
from skidpad.engine.commonroad.scheduler import MAX_HOST_DT_US, MIN_DT_US, plan_steps
from skidpad.engine.errors import DefinitionError, SkidpadError
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.engine.state import StateLayout, hash_bytes
from skidpad.replay.budget import DEFAULT_BUDGET, Budget
from skidpad.replay.document import (
    Column,
    RecordingError,
    RunLengthFrames,
    check_budget,
    check_channels,
    check_embedded_hash,
    check_header_numbers,
    check_label,
    check_provenance,
    check_runs,
    check_steps,
    check_version_and_keys,
    current_math_hash,
    dump_document,
    exact_keys,
    invalid,
    is_hex16,
    is_int,
    require,
    run_length,
    type_name,
)
from skidpad.replay.model import Format, Probe

from skidpad import engine

if TYPE_CHECKING:
    from skidpad.engine.commonroad.daemon import CommonRoadDaemon, DaemonParameters

# The models, the daemon and their parameter modules are imported where a CommonRoad
# recording is read, built or recorded, so a process that only ever sees four-wheel
# recordings (the sandbox page) does not load them; they never import replay/.

CR_FORMAT_NAME = "skidpad-commonroad-recording"
#: the version ``skidpad record`` writes: 2 stamps the physics version (ADR 0208); version 1
#: files (every CommonRoad file written before it) still load, and are identified by trial
CR_FORMAT_VERSION = 2
#: the largest physics version a file may name (a bound on hostile input, not a plan)
MAX_PHYSICS_VERSION = 1_000_000

#: Top-level keys in the order they are written; the loader accepts no others.
CR_KEYS = (
    "format",
    "version",
    "engine_version",
    "math_hash",
    "physics_version",
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
#: the keys of a version 1 file: no physics version
CR_KEYS_V1 = tuple(k for k in CR_KEYS if k != "physics_version")
CR_KEYS_OF = {1: CR_KEYS_V1, 2: CR_KEYS}
PARAMETER_KEYS = ("vehicle", "powertrain", "safety", "steer_gain")

#: The values of a frame after its count: the host step's ``dt_us``, then the daemon's inputs.
COLUMNS = (Column("dt_us", 0, MAX_HOST_DT_US, "i"), *(Column(*c) for c in INPUTS))


def channel_names() -> tuple[str, ...]:
    """``dt_us`` then the daemon's input channels, in frame order."""
    return ("dt_us", *INPUT_NAMES)


@dataclass(frozen=True)
class CommonRoadRecording(RunLengthFrames):
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
    #: the physics version that made it (format 2), None for a version 1 file
    physics_version: int | None = None

    # no checkpoints or laps are claimed
    checkpoint_every = None
    checkpoints = ()
    laps = None

    @property
    def version(self) -> int:
        """The format version it is written as: 2 when stamped with its physics, else 1."""
        return CR_FORMAT_VERSION if self.physics_version is not None else 1

    @property
    def format(self) -> Format:
        """Its entry in the registry (``replay.recording.FORMATS``)."""
        return FORMAT_OF_VERSION[self.version]

    @property
    def embedded_hash(self) -> str:
        """The hash of the embedded parameters."""
        return self.parameters_hash

    @property
    def preset(self) -> str:
        """What the replay table shows in its preset column."""
        return f"commonroad:{self.model}:{self.vehicle}"

    @property
    def sim_s(self) -> float:
        """Simulated seconds (sub-millisecond requests are clamped up, as the daemon does)."""
        us = sum(count * max(values[0], MIN_DT_US) for count, values in self.frames)
        return us / 1_000_000


# ----------------------------------------------------------------------------- parameters


def parameters_hash(parameters: dict) -> str:
    """hash_bytes of the canonical JSON of ``parameters`` (sorted keys, compact, UTF-8)."""
    text = json.dumps(
        parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return hash_bytes(text.encode("utf-8"))


def parameters_of(daemon: Any) -> dict:
    """Every number ``daemon`` is configured with, as plain JSON data."""
    from skidpad.engine.commonroad import safety

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


def _number(v: Any, path: str) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise invalid(path, f"must be a number, not {type_name(v)}")
    if not math.isfinite(v):
        raise invalid(path, "must be finite")


def _check_dataclass_data(v: Any, cls: type, path: str) -> None:
    """``v`` has exactly the fields of ``cls``; nested blocks recurse; leaves are numbers.

    This names a wrong key or type by its JSON pointer; the values' ranges are the
    engine's to check (:func:`_engine_built`).
    """
    from skidpad.engine.commonroad import params

    names = [f.name for f in fields(cls)]
    exact_keys(v, names, path)
    hints = {f.name: f.type for f in fields(cls)}
    for name in names:
        where = f"{path}/{name}"
        if cls is params.VehicleParams and name in params.BLOCKS:
            _check_dataclass_data(v[name], params.BLOCKS[name], where)
        elif hints[name] in ("int", int):
            if not is_int(v[name]):
                raise invalid(where, f"must be an integer, not {type_name(v[name])}")
        elif hints[name] in ("str", str):
            if not isinstance(v[name], str):
                raise invalid(where, f"must be a string, not {type_name(v[name])}")
        else:
            _number(v[name], where)


def _check_profile_data(v: Any, path: str) -> None:
    from skidpad.engine.commonroad import safety

    exact_keys(v, safety.METRICS, path)
    for name in safety.METRICS:
        pair = v[name]
        if not (isinstance(pair, list) and len(pair) == 2):
            raise invalid(f"{path}/{name}", "must be [magnitude, rate]")
        for j, x in enumerate(pair):
            _number(x, f"{path}/{name}/{j}")


def _engine_built(build: Callable[[Any], Any], data: Any, path: str) -> Any:
    """``build(data)``: the engine's own builder checks every value's range, once; its
    DefinitionError (naming the parameter) is reported at ``path``."""
    try:
        return build(data)
    except DefinitionError as exc:
        raise invalid(path, str(exc)) from None


def build_parameters(parameters: Any, vehicle: int) -> tuple[DaemonParameters, float]:
    """The daemon's parameter objects and steering gain, from a recording's embedded data."""
    from skidpad.engine.commonroad import params, powertrain, safety
    from skidpad.engine.commonroad.daemon import DaemonParameters

    exact_keys(parameters, PARAMETER_KEYS, "/parameters")
    vdata = parameters["vehicle"]
    _check_dataclass_data(vdata, params.VehicleParams, "/parameters/vehicle")
    if vdata["vehicle_id"] != vehicle:
        raise invalid(
            "/parameters/vehicle/vehicle_id",
            f"{vdata['vehicle_id']} is not the recording's vehicle {vehicle}",
        )
    vp = _engine_built(params.build_vehicle_params, vdata, "/parameters/vehicle")

    pdata = parameters["powertrain"]
    _check_dataclass_data(pdata, powertrain.PowertrainParams, "/parameters/powertrain")
    pp = _engine_built(powertrain.build_powertrain, pdata, "/parameters/powertrain")

    sdata = parameters["safety"]
    exact_keys(sdata, safety.SAFETY_KEYS, "/parameters/safety")
    _check_profile_data(sdata["normal"], "/parameters/safety/normal")
    _check_profile_data(sdata["drift"], "/parameters/safety/drift")
    _check_dataclass_data(sdata["staging"], safety.Staging, "/parameters/safety/staging")
    if not isinstance(sdata["drift_default"], bool):
        raise invalid(
            "/parameters/safety/drift_default",
            f"must be true or false, not {type_name(sdata['drift_default'])}",
        )
    sc = _engine_built(safety.build_safety, sdata, "/parameters/safety")

    gain = parameters["steer_gain"]
    _number(gain, "/parameters/steer_gain")
    if not gain > 0.0:
        raise invalid("/parameters/steer_gain", f"must be > 0, not {gain!r}")
    return DaemonParameters(vp, pp, sc), float(gain)


# ----------------------------------------------------------------------------- the daemon


def build_daemon(rec: CommonRoadRecording) -> CommonRoadDaemon:
    """The fresh daemon a replay of ``rec`` starts from: the embedded parameters, not the
    data files (the model and vehicle a recording names never change during its replay)."""
    from skidpad.engine.commonroad.daemon import CommonRoadDaemon

    given, steer_gain = build_parameters(rec.parameters, rec.vehicle)
    try:
        return CommonRoadDaemon(
            model=rec.model,
            vehicle=rec.vehicle,
            initial=dict(rec.initial),
            drift=rec.drift,
            steer_gain=steer_gain,
            parameters=given,
        )
    except SkidpadError as exc:
        text = str(exc)
        where = "/initial" if text.startswith("initial") else "/parameters"
        raise invalid(where, f"the daemon refuses this set-up: {text}") from None


# ----------------------------------------------------------------------------- validation


def _validate_frames(frames: Any, steps: int, model: str, budget: Budget, consume: bool) -> tuple:
    """The runs checked by column (the daemon's own input table), then the drive they
    declare, simulated time and substeps counted from the run lengths, against ``budget``."""
    from skidpad.engine.commonroad import models

    runs = check_runs(frames, COLUMNS, steps, consume)
    max_dt = models.MODELS[model].max_dt_us
    substeps_of: dict[int, int] = {}
    sim_us = substeps = 0
    for count, values in runs:
        dt = values[0]
        if dt not in substeps_of:
            substeps_of[dt] = plan_steps(dt, max_dt).substeps
        sim_us += count * max(dt, MIN_DT_US)  # the daemon clamps a shorter step up
        substeps += count * substeps_of[dt]
    check_budget(budget, "/frames", sim_us, steps, substeps)
    return runs


def from_document(
    doc: dict, budget: Budget = DEFAULT_BUDGET, consume: bool = False
) -> CommonRoadRecording:
    """Validate a parsed ``skidpad-commonroad-recording`` document; its drive must fit
    ``budget`` (``consume``: as ``replay.recording.from_document``)."""
    from skidpad.engine.commonroad import models, params

    declared = doc.get("version")
    version = declared if is_int(declared) and declared in CR_KEYS_OF else CR_FORMAT_VERSION
    check_version_and_keys(doc, version, CR_KEYS_OF[version], "CommonRoad recording version")
    physics = _physics_version(doc["physics_version"]) if version >= 2 else None
    check_header_numbers(doc)
    check_provenance(doc)
    require(doc, "parameters_hash", is_hex16(doc["parameters_hash"]), "16 lowercase hex digits")
    check_label(doc, "drive")
    drift = doc["drift"]
    require(doc, "drift", drift is None or isinstance(drift, bool), "true, false or null")
    model = doc["model"]
    require(doc, "model", isinstance(model, str), "a string")
    if model not in models.MODELS:
        raise invalid(
            "/model", f"{model[:40]!r} is not a CommonRoad model; known: {', '.join(models.MODELS)}"
        )
    vehicle = doc["vehicle"]
    require(doc, "vehicle", is_int(vehicle), "an integer")
    if vehicle not in params.VEHICLES:
        known = ", ".join(f"{v} ({n})" for v, (_, n) in params.VEHICLES.items())
        raise invalid(
            "/vehicle", f"{str(vehicle)[:20]} is not a CommonRoad vehicle; known: {known}"
        )
    steps = check_steps(doc, budget)
    # a host step simulates at least MIN_DT_US and runs at least one substep
    check_budget(budget, "/steps", steps * MIN_DT_US, steps, steps)
    require(doc, "initial", isinstance(doc["initial"], dict), "an object")
    channels = check_channels(doc, channel_names(), "the daemon's channels")
    parameters = doc["parameters"]
    require(doc, "parameters", isinstance(parameters, dict), "an object")
    try:
        actual = parameters_hash(parameters)
    except (TypeError, ValueError) as exc:
        raise invalid("/parameters", f"not plain finite data: {exc}") from None
    check_embedded_hash("parameters_hash", doc["parameters_hash"], actual, "parameters")
    rec = CommonRoadRecording(
        model=model,
        vehicle=vehicle,
        parameters=parameters,
        parameters_hash=doc["parameters_hash"],
        channels=channels,
        frames=_validate_frames(doc["frames"], steps, model, budget, consume),
        steps=steps,
        initial=doc["initial"],
        drift=drift,
        drive=doc["drive"],
        engine_version=doc["engine_version"],
        math_hash=doc["math_hash"],
        final_hash=doc["final_hash"],
        physics_version=physics,
    )
    build_daemon(rec)  # parameters and initial conditions: the engine has the last word
    return rec


def _physics_version(value: Any) -> int:
    """``/physics_version``: a positive integer within :data:`MAX_PHYSICS_VERSION`."""
    if not (is_int(value) and 1 <= value <= MAX_PHYSICS_VERSION):
        raise invalid(
            "/physics_version",
            f"must be an integer within 1..{MAX_PHYSICS_VERSION}, not {str(value)[:40]}",
        )
    return value


def to_document(rec: CommonRoadRecording) -> dict:
    """The document of ``rec``: version 2, stamped with its physics, or version 1 for a file
    whose physics is not known (an unstamped file rewritten)."""
    doc = {
        "format": CR_FORMAT_NAME,
        "version": rec.version,
        "engine_version": rec.engine_version,
        "math_hash": rec.math_hash,
        "physics_version": rec.physics_version,
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
    if rec.physics_version is None:
        del doc["physics_version"]
    return doc


def dumps(rec: CommonRoadRecording) -> str:
    """The recording as JSON text: one header field per line, one frame per line."""
    return dump_document(to_document(rec), CR_KEYS_OF[rec.version], ("parameters",))


# ----------------------------------------------------------------------------- recording


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
        """Feed and record one host step; returns the daemon's telemetry.

        The daemon validates the inputs and ``dt_us`` (refusing a bad one before anything is
        recorded) and keeps the values it applied, which is what is recorded.
        """
        tel = self.daemon.step_us(inputs, dt_us)
        self._frames.append((dt_us, *self.daemon.inputs))
        return tel

    def recording(self, with_final_hash: bool = True) -> CommonRoadRecording:
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
            physics_version=PHYSICS_VERSION,
        )


def parse_drive(spec: str) -> tuple[str, int]:
    """``commonroad:MODEL:VEHICLE`` -> (model, vehicle id); SkidpadError naming what is wrong."""
    from skidpad.engine.commonroad import models, params

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
    from skidpad.engine.commonroad import scripted
    from skidpad.engine.commonroad.daemon import CommonRoadDaemon

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
    from skidpad.engine.commonroad import models

    max_dt = models.MODELS[rec.model].max_dt_us
    out = []
    total = 0
    for count, values in rec.frames:
        n = plan_steps(values[0], max_dt).substeps
        for _ in range(count):
            total += n
            out.append(total)
    return out


def tick_window(ticks: Sequence[int], steps: range) -> range:
    """The ticks ``probe.substep`` reports during host steps ``steps`` (0-based).

    ``ticks`` is :func:`step_ticks`; tick ``t`` is the ``t``-th substep of the run (1-based).
    """

    def done_after(k: int) -> int:  # substeps done after the first k host steps
        k = min(k, len(ticks))
        return ticks[k - 1] if k > 0 else 0

    first = done_after(steps.start)
    return range(first + 1, max(first, done_after(steps.stop)) + 1)


class CommonRoadModel:
    """A CommonRoad recording's replay: the daemon built from the embedded parameters, fed
    one recorded frame ``(dt_us, steer, throttle, brake, drift_toggle)`` per host step."""

    stages = STAGES
    #: the host step varies in length: no fixed rates
    host_hz = 0
    substep_hz = 0
    #: progress is reported every this many host steps
    report_every = 1000

    def __init__(self, rec: CommonRoadRecording, use_preset: bool = False) -> None:
        if use_preset:
            raise RecordingError(
                "--use-preset: a CommonRoad recording has no preset; it replays with its "
                "embedded parameters"
            )
        self.daemon = build_daemon(rec)
        self.layout: StateLayout = self.daemon.layout
        self.used_preset = False
        self.probe: Probe | None = None
        self._ticks = step_ticks(rec)

    @property
    def state(self) -> list:
        return self.daemon.state

    def step(self, values: tuple) -> Any:
        return self.daemon.step_us(values[1:], values[0], self.probe)

    def state_hash(self) -> str:
        return self.daemon.state_hash()

    def snapshot(self) -> dict:
        return self.daemon.snapshot()

    def restore(self, snap: dict) -> None:
        self.daemon.restore(snap)

    def telemetry(self) -> Any:
        return self.daemon.telemetry()

    def attach(self, probe: Probe | None) -> None:
        self.probe = probe

    def observe_pose(self, observer: Any) -> None:
        raise RecordingError("a CommonRoad drive is not on a circuit: it has no laps to time")

    def tick_window(self, steps: range) -> range:
        return tick_window(self._ticks, steps)

    def step_ticks(self, steps: int) -> list[int] | None:
        return self._ticks[:steps]

    def ticks(self) -> int:
        return self.daemon.state[self.layout.index["clock.substeps"]]

    def sim_us(self) -> int | None:
        return self.daemon.time_us


def _format(version: int) -> Format:
    """The entry of CommonRoad format ``version``: both read through one loader (which
    checks the version's own keys) and are written as :data:`CR_FORMAT_VERSION`."""
    return Format(
        CR_FORMAT_NAME,
        version,
        load=from_document,
        dump=dumps,
        model=CommonRoadModel,
        family="CommonRoad",
        embedded="embedded parameters",
        setup=("model", "vehicle", "drift", "steps", "initial"),
        writes=CR_FORMAT_VERSION,
    )


#: The CommonRoad format's entries in the registry (``replay.recording.FORMATS``), by version.
FORMAT_OF_VERSION = {1: _format(1), 2: _format(2)}
#: the entry of the version written today
FORMAT = FORMAT_OF_VERSION[CR_FORMAT_VERSION]
