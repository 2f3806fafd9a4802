"""Recording formats: the one table of them, and the four-wheel format's versions 1 to 3.

See docs/architecture.md §2 and §4, ADR 0166.

:data:`FORMATS` maps each format name and version to its loader, its dumper and the
factory of the :class:`replay.model.VehicleModel` a replay runs: the four-wheel
``skidpad-recording`` versions 1 and 2 (below) and the CommonRoad format
(``replay.commonroad.FORMAT``). :func:`load`, :func:`loads`, :func:`dumps`,
:func:`save` and :func:`build_model` work for every format through that table; the
field checks every format shares are in :mod:`replay.document`.

A four-wheel recording is one UTF-8 JSON object (schema: ``replay/recording.schema.json``)::

    {
     "format": "skidpad-recording",        always this string
     "version": 1,                         format version (FORMAT_VERSION)
     "engine_version": "0.1.0",            engine.__version__ at record time
     "math_hash": "0123456789abcdef",      math self-test hash at record time, or null
     "preset": "sportsRwd",                preset the definition came from, or null
     "drive": "scripted",                  how the inputs were produced (informational), or null
     "track": "sandbox",                   track name, or null
     "definition_hash": "...",             engine.fourwheel.definition.definition_hash(definition)
     "definition": {...},                  the full vehicle definition, embedded
     "initial": {...},                     initial conditions and environment
     "host_hz": 100,                       host steps per second
     "substep_hz": 1000,                   physics substeps per second
     "input_version": 1,                   engine.fourwheel.inputs.INPUT_VERSION
     "channels": ["steer", ...],           channel names, in engine.fourwheel.inputs.CHANNELS order
     "steps": 3000,                        number of host steps
     "final_hash": "...",                  state hash after the last step at record time, or null
     "frames": [[count, v1, v2, ...], ...] run-length encoded host-step inputs
    }

(version 1; version 2 has a ``claims`` block instead of ``final_hash``, and a run
with an external host an optional ``host`` block before ``frames``: the wheels
it owned and the speeds it returned per host step, run-length encoded,
:func:`load_host_block`, ADR 0202. Version 3 adds ``physics_version`` after
``math_hash``: the physics version, ``engine.physics.PHYSICS_VERSION``, of the
engine that made it, which ``skidpad verify`` replays it under, ADR 0205.)

Floats are written with ``repr`` (the shortest string that reads back to the
same double, which Python and JavaScript agree on) and read back exactly,
so ``-0.0`` stays ``-0.0`` and a replay feeds the engine the very bits the
recorder fed it. Run-length encoding compares frames by their bits, so a run
never merges ``0.0`` and ``-0.0``.

Loading validates everything and raises :class:`RecordingError` with one
message naming the field as a JSON pointer (``/frames/12/3: steer = 1.5 is
outside [-1.0, 1.0]``). A recording is untrusted input: it is checked against
a :class:`replay.budget.Budget` (file size, simulated time, host steps,
substeps, counted arithmetically from the declared run lengths) before a
frame is expanded, only a regular file is read (a FIFO or device is refused
from its ``stat``, never opened), and every number is range-checked, however
many digits it has. Loading is linear in the file's size: the frames are
checked a column at a time. Writing goes through :mod:`replay.output`
(temporary file beside the target, fsync, rename), so a reader never sees a
half-written recording. Recordings are data: no pickle, no eval, no code.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from skidpad.engine.errors import DefinitionError, SkidpadError
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import inputs as engine_inputs
from skidpad.engine.fourwheel.definition import SUBSTEP_HZ_MAX, SUBSTEP_HZ_MIN
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.replay import commonroad, fourwheel, output
from skidpad.replay.budget import DEFAULT_BUDGET, Budget
from skidpad.replay.document import (  # noqa: F401  (the field checks, re-exported for their callers)
    MAX_BYTES,
    MAX_EXACT_INT,
    Column,
    RecordingError,
    RunLengthFrames,
    check_budget,
    check_channels,
    check_embedded_hash,
    check_frame,
    check_header_numbers,
    check_label,
    check_numbers,
    check_provenance,
    check_runs,
    check_steps,
    check_version_and_keys,
    collector_paused,
    decode_utf8,
    dump_document,
    exact_keys,
    file_sha256,
    frame_key,
    invalid,
    is_hex16,
    is_huge_int,
    is_int,
    parse_json,
    read_bytes_limited,
    read_text,
    require,
    run_length,
    shown,
    type_name,
)
from skidpad.replay.fourwheel import definition_for_replay  # noqa: F401  (re-exported)
from skidpad.replay.model import Format

FORMAT_NAME = "skidpad-recording"
#: the version ``skidpad record`` writes; version 1 and 2 files still load
FORMAT_VERSION = 3
#: the largest physics version a recording may name (a bound for hostile files)
MAX_PHYSICS_VERSION = 1_000_000

#: Longest lap time a recording may claim, in seconds (the drive itself is budgeted).
MAX_DURATION_S = 24 * 3600
#: host steps between the checkpoint hashes a recording claims
CHECKPOINT_EVERY = 100

#: Top-level keys in the order they are written; the loader accepts no others.
KEYS = (
    "format",
    "version",
    "engine_version",
    "math_hash",
    "physics_version",
    "preset",
    "drive",
    "track",
    "definition_hash",
    "definition",
    "initial",
    "host_hz",
    "substep_hz",
    "input_version",
    "channels",
    "steps",
    "claims",
    "frames",
)
#: version 2: no physics stamp (ADR 0205)
KEYS_V2 = tuple(k for k in KEYS if k != "physics_version")
#: version 1: version 2's fields with a top-level ``final_hash`` instead of ``claims``
KEYS_V1 = tuple("final_hash" if k == "claims" else k for k in KEYS_V2)
#: the keys of each version (without the optional fields)
KEYS_OF = {1: KEYS_V1, 2: KEYS_V2, 3: KEYS}
#: the optional top-level fields of versions 2 and 3, in the order they are written (before
#: ``frames``): ``driven`` says how a drive's inputs were paced when it was not the clock
#: (ADR 0221), ``host`` is an external host's run (ADR 0202)
OPTIONAL_KEYS = ("driven", "host")
#: the values ``driven`` may take: ``stepped`` is the sandbox page's stepping mode, in which
#: an automation client, not the clock, advanced the drive host step by host step
DRIVEN_VALUES = ("stepped",)


def keys_of(present: Any, keys: tuple[str, ...] = KEYS) -> tuple[str, ...]:
    """A version's top-level keys (the newest by default) with the optional fields named in
    ``present``, in the order they are written."""
    return (*keys[:-1], *(k for k in OPTIONAL_KEYS if k in present), "frames")


#: version 3 with the ``host`` block
KEYS_WITH_HOST = keys_of(("host",))
#: the fields of the ``host`` block, in the order they are written
HOST_KEYS = ("wheels", "host", "signals", "omega")
#: the longest name a ``host`` block may give its host (the reference hosts, or a foreign one)
HOST_NAME_MAX = 60
#: the fields of the ``claims`` block, in the order they are written
CLAIM_KEYS = ("final_hash", "checkpoint_every", "checkpoints", "laps")
LAP_KEYS = ("lap", "time_s", "sectors_s", "valid", "reason")


class HostBlock(NamedTuple):
    """The ``host`` block: the wheels the host owned (FL, FR, RL, RR order), its name, and
    ``((count, (ω per owned wheel, ...)), ...)``: the speeds ω[k] it returned after each
    host step k, run-length encoded like the frames."""

    wheels: tuple[str, ...]
    host: str
    omega: tuple[tuple[int, tuple], ...]

    def speeds(self) -> Iterator[tuple]:
        """ω[k] for every host step, in order (the runs expanded)."""
        for count, values in self.omega:
            for _ in range(count):
                yield values


@dataclass(frozen=True)
class Recording(RunLengthFrames):
    """A validated recording. ``frames`` is ``((count, values), ...)`` with ``values`` a tuple
    in channel order; :meth:`inputs` expands it to one tuple per host step."""

    definition: dict
    definition_hash: str
    host_hz: int
    substep_hz: int
    input_version: int
    channels: tuple[str, ...]
    frames: tuple[tuple[int, tuple], ...]
    steps: int
    preset: str | None = None
    initial: dict = field(default_factory=dict)
    track: str | None = None
    drive: str | None = None
    engine_version: str = ""
    math_hash: str | None = None
    final_hash: str | None = None
    #: the claims block (version 2): checkpoint interval and ``((step, hash), ...)``; the
    #: completed laps as dicts of :data:`LAP_KEYS`, or None where laps are not claimed
    checkpoint_every: int | None = None
    checkpoints: tuple[tuple[int, str], ...] = ()
    laps: tuple[dict, ...] | None = None
    #: the format version the recording was read from (what :func:`dumps` writes is 3)
    version: int = FORMAT_VERSION
    #: the physics version that made it (version 3), None for an unstamped recording
    physics_version: int | None = None
    #: an external host's run: the wheels it owned and the speeds it returned (ADR 0202)
    host: HostBlock | None = None
    #: how the drive was paced when not by the clock (:data:`DRIVEN_VALUES`), else None
    driven: str | None = None

    @property
    def format(self) -> Format:
        """Its entry in :data:`FORMATS`."""
        return FORMAT_OF[(FORMAT_NAME, self.version)]

    @property
    def embedded_hash(self) -> str:
        """The hash of the embedded vehicle definition."""
        return self.definition_hash

    @property
    def sim_s(self) -> float:
        """Simulated seconds."""
        return self.steps / self.host_hz


def _engine_channels(input_version: int, path: str) -> tuple:
    if input_version != engine_inputs.INPUT_VERSION:
        raise invalid(
            path,
            f"input version {input_version} is not supported by this engine "
            f"(it reads input version {engine_inputs.INPUT_VERSION})",
        )
    return tuple(engine_inputs.CHANNELS)


def check_rates(doc: dict) -> tuple[int, int]:
    """``(host_hz, substep_hz)``: the substep rate within the range a definition allows
    (``engine.fourwheel.definition.SUBSTEP_HZ_MIN..MAX``), the host rate from 1 Hz up to it."""
    for key in ("substep_hz", "host_hz"):
        require(doc, key, is_int(doc[key]), "an integer")
    substep_hz = doc["substep_hz"]
    if not SUBSTEP_HZ_MIN <= substep_hz <= SUBSTEP_HZ_MAX:
        raise invalid(
            "/substep_hz",
            f"{shown(substep_hz)} Hz is outside the substep rates a vehicle definition allows "
            f"[{SUBSTEP_HZ_MIN}, {SUBSTEP_HZ_MAX}]",
        )
    host_hz = doc["host_hz"]
    if not 1 <= host_hz <= substep_hz:
        raise invalid(
            "/host_hz", f"{shown(host_hz)} Hz is outside [1, {substep_hz}] (up to /substep_hz)"
        )
    return host_hz, substep_hz


def _validate_definition(definition: Any, declared_hash: Any) -> dict:
    if not isinstance(definition, dict):
        raise invalid("/definition", f"must be an object, not {type_name(definition)}")
    if not is_hex16(declared_hash):
        raise invalid("/definition_hash", "must be 16 lowercase hex digits")
    try:
        normalised = engine_definition.validate_definition(definition)
    except DefinitionError as exc:
        raise invalid("/definition", f"invalid vehicle definition: {exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise invalid(
            "/definition", f"invalid vehicle definition: {type(exc).__name__}: {exc}"
        ) from None
    actual = engine_definition.definition_hash(definition)
    check_embedded_hash("definition_hash", declared_hash, actual, "definition")
    return normalised


def _validate_setup(definition: dict, host_hz: int, substep_hz: int, initial: dict) -> None:
    """Let the engine check the rates and initial conditions: build (never step) the simulation."""
    try:
        Simulation(definition, substep_hz=substep_hz, host_hz=host_hz, initial=initial or None)
    except SkidpadError as exc:
        text = str(exc)
        where = "/initial" if text.startswith("initial") else "/host_hz"
        raise invalid(where, f"the engine refuses this set-up: {text}") from None


def from_four_wheel_document(doc: dict, budget: Budget, consume: bool) -> Recording:
    """Validate a parsed ``skidpad-recording`` document (version 1, 2 or 3) into a
    :class:`Recording`: the loader of every four-wheel entry of :data:`FORMATS`."""
    version = doc.get("version")
    if is_int(version) and version in KEYS_OF:
        keys = KEYS_OF[version]
        if version >= 2:
            keys = keys_of(doc, keys)
        check_version_and_keys(doc, version, keys, "recording format version")
    else:  # the newest version's check names what is wrong
        check_version_and_keys(doc, FORMAT_VERSION, keys_of(doc), "recording format version")
    check_header_numbers(doc)
    physics = _validate_physics_version(doc["physics_version"]) if version >= 3 else None
    claims = _validate_claims(doc["claims"], doc.get("steps")) if version >= 2 else None
    check_provenance({**doc, "final_hash": claims["final_hash"]} if claims else doc)
    for key in ("preset", "drive", "track"):
        check_label(doc, key)
    host_hz, substep_hz = check_rates(doc)
    require(doc, "input_version", is_int(doc["input_version"]), "an integer")
    steps = check_steps(doc, budget)
    sim_us = -(-steps * 1_000_000 // host_hz)
    check_budget(budget, "/steps", sim_us, steps, steps * substep_hz // host_hz)
    require(doc, "initial", isinstance(doc["initial"], dict), "an object")
    # initial conditions are plain data: objects, arrays, strings, finite numbers, booleans
    check_numbers(doc["initial"], "/initial", max_depth=16, allow_huge_ints=True)
    engine_channels = _engine_channels(doc["input_version"], "/input_version")
    channels = check_channels(
        doc,
        [c.name for c in engine_channels],
        f"the channels of input version {doc['input_version']}",
    )
    definition = _validate_definition(doc["definition"], doc["definition_hash"])
    _validate_setup(definition, doc["host_hz"], doc["substep_hz"], doc["initial"])
    host = load_host_block(doc["host"], steps, definition) if "host" in doc else None
    driven = doc.get("driven")
    if "driven" in doc and driven not in DRIVEN_VALUES:
        raise invalid("/driven", f"must be one of {list(DRIVEN_VALUES)}")
    frames = check_runs(doc["frames"], engine_channels, steps, consume)
    if claims and claims["laps"] is not None:
        _check_laps_fit(claims["laps"], doc["track"], steps)
    return Recording(
        definition=definition,
        definition_hash=doc["definition_hash"],
        host_hz=doc["host_hz"],
        substep_hz=doc["substep_hz"],
        input_version=doc["input_version"],
        channels=channels,
        frames=frames,
        steps=steps,
        preset=doc["preset"],
        initial=doc["initial"],
        track=doc["track"],
        drive=doc["drive"],
        engine_version=doc["engine_version"],
        math_hash=doc["math_hash"],
        final_hash=claims["final_hash"] if claims else doc["final_hash"],
        checkpoint_every=claims["checkpoint_every"] if claims else None,
        checkpoints=claims["checkpoints"] if claims else (),
        laps=claims["laps"] if claims else None,
        version=version,
        host=host,
        physics_version=physics,
        driven=driven,
    )


def _check_laps_fit(laps: tuple[dict, ...], track: Any, steps: int) -> None:
    """Claimed laps need a track to be timed on, and are bounded by the drive's own length:
    a lap spans at least one host step, so a drive of N steps completes at most N laps. (A
    lap that the drive did not complete is a wrong claim, which verify reports, exit 1.)"""
    if not laps:
        return
    if track is None:
        raise invalid("/claims/laps", f"claims {len(laps)} laps, but the drive has no track")
    if len(laps) > steps:
        raise invalid(
            "/claims/laps",
            f"claims {len(laps)} laps, more than the drive's {steps} host steps could complete",
        )


def _validate_physics_version(value: Any) -> int:
    """``/physics_version``: a positive integer within :data:`MAX_PHYSICS_VERSION`."""
    if not (is_int(value) and 1 <= value <= MAX_PHYSICS_VERSION):
        raise invalid(
            "/physics_version", f"must be an integer within 1..{MAX_PHYSICS_VERSION}, not "
            f"{shown(value)}"
        )
    return value


def _validate_claims(claims: Any, steps: Any) -> dict:
    """The claims block of a version 2 recording (``/claims``), normalised."""
    exact_keys(claims, CLAIM_KEYS, "/claims")
    final = claims["final_hash"]
    if not (final is None or is_hex16(final)):
        raise invalid("/claims/final_hash", "must be 16 lowercase hex digits or null")
    every = claims["checkpoint_every"]
    if not (is_int(every) and 1 <= every <= 1_000_000):
        raise invalid("/claims/checkpoint_every", "must be an integer within 1..1000000")
    marks = claims["checkpoints"]
    if not isinstance(marks, list):
        raise invalid("/claims/checkpoints", f"must be an array, not {type_name(marks)}")
    last = steps if is_int(steps) and steps >= 0 else 0
    # counted, not listed: the declared steps are not yet checked against the budget
    expected = last // every + 1 if marks else 0  # [] claims none
    if len(marks) != expected:
        raise invalid(
            "/claims/checkpoints",
            f"{len(marks)} checkpoints, but {last} steps every {every} make {expected}",
        )
    checkpoints = []
    for i, (mark, n) in enumerate(zip(marks, range(0, expected * every, every), strict=True)):
        where = f"/claims/checkpoints/{i}"
        ok = isinstance(mark, list) and len(mark) == 2 and mark[0] == n and is_int(mark[0])
        if not ok or not is_hex16(mark[1]):
            raise invalid(where, f"must be [{n}, <16 hex digits>]")
        checkpoints.append((n, mark[1]))
    laps = claims["laps"]
    if laps is not None:
        if not isinstance(laps, list):
            raise invalid("/claims/laps", f"must be an array or null, not {type_name(laps)}")
        laps = tuple(_validate_lap(lap, i) for i, lap in enumerate(laps))
    return {
        "final_hash": final,
        "checkpoint_every": every,
        "checkpoints": tuple(checkpoints),
        "laps": laps,
    }


def load_host_block(block: Any, steps: int, definition: dict) -> HostBlock:
    """The ``host`` block (``/host``) validated against the recording's steps and definition.

    The wheels must be a set the engine lets a host own (a whole axle or all
    four); ``signals`` must name ``omega.<wheel>`` for each, in order; every run is
    ``[count, ω...]`` with one finite speed per wheel within the engine's limit
    (``engine.fourwheel.host.SURFACE_SPEED_LIMIT`` over the wheel's radius), and the counts
    add up to the recording's steps.
    """
    from skidpad.engine.fourwheel import host as engine_host

    exact_keys(block, HOST_KEYS, "/host")
    wheels = block["wheels"]
    if not (isinstance(wheels, list) and wheels and all(isinstance(w, str) for w in wheels)):
        raise invalid("/host/wheels", "must be a non-empty array of wheel names")
    try:
        owned = engine_host.owned_wheels(wheels)
        sim = Simulation(definition, host_wheels=list(wheels))
    except SkidpadError as exc:
        raise invalid("/host/wheels", str(exc)) from None
    names = tuple(engine_host.WHEELS[i] for i in owned)
    if tuple(wheels) != names:
        raise invalid("/host/wheels", f"must list the wheels in the order {list(names)}")
    name = block["host"]
    if not (isinstance(name, str) and 0 < len(name) <= HOST_NAME_MAX and name.isprintable()):
        raise invalid("/host/host", f"must be a printable name of 1..{HOST_NAME_MAX} characters")
    signals = [f"omega.{w}" for w in names]
    if block["signals"] != signals:
        raise invalid("/host/signals", f"must be {signals} for these wheels")
    columns = [
        Column(sig, -lim, lim, "f") for sig, lim in zip(signals, sim.host_link.limits, strict=True)
    ]
    runs = block["omega"]
    if not isinstance(runs, list):
        raise invalid("/host/omega", f"must be an array, not {type_name(runs)}")
    out = []
    total = 0
    for i, run in enumerate(runs):
        count, values = check_frame(run, columns, f"/host/omega/{i}")
        total += count
        if total > steps:
            raise invalid(
                f"/host/omega/{i}/0",
                f"run-length counts add up to more than the declared {steps} steps",
            )
        out.append((count, values))
    if total != steps:
        raise invalid(
            "/host/omega",
            f"run-length counts add up to {total} steps, but /steps declares {steps}",
        )
    return HostBlock(names, name, tuple(out))


def dump_host_block(block: HostBlock) -> dict:
    """The ``host`` block as JSON data (the inverse of :func:`load_host_block`)."""
    return {
        "wheels": list(block.wheels),
        "host": block.host,
        "signals": [f"omega.{w}" for w in block.wheels],
        "omega": [[c, *v] for c, v in block.omega],
    }


def _validate_lap(lap: Any, i: int) -> dict:
    where = f"/claims/laps/{i}"
    exact_keys(lap, LAP_KEYS, where)
    if not (is_int(lap["lap"]) and lap["lap"] == i + 1):
        raise invalid(f"{where}/lap", f"must be {i + 1}")
    times = [lap["time_s"], *lap["sectors_s"]] if isinstance(lap["sectors_s"], list) else []
    if len(times) != 4 or not all(
        isinstance(v, float) and math.isfinite(v) and 0.0 < v < MAX_DURATION_S for v in times
    ):
        raise invalid(where, "time_s and three sectors_s must be positive numbers of seconds")
    if not isinstance(lap["valid"], bool):
        raise invalid(f"{where}/valid", "must be true or false")
    if not (isinstance(lap["reason"], str) and len(lap["reason"]) <= 500):
        raise invalid(f"{where}/reason", "must be a string (empty for a valid lap)")
    return {k: lap[k] for k in LAP_KEYS}


# ----------------------------------------------------------------------------- four-wheel


def to_document(rec: Recording) -> dict:
    """The document of ``rec``: version 3, stamped with its physics version, or version 2
    for a recording whose physics is not known (an unstamped file rewritten)."""
    doc = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION if rec.physics_version is not None else 2,
        "engine_version": rec.engine_version,
        "math_hash": rec.math_hash,
        "physics_version": rec.physics_version,
        "preset": rec.preset,
        "drive": rec.drive,
        "track": rec.track,
        "definition_hash": rec.definition_hash,
        "definition": rec.definition,
        "initial": rec.initial,
        "host_hz": rec.host_hz,
        "substep_hz": rec.substep_hz,
        "input_version": rec.input_version,
        "channels": list(rec.channels),
        "steps": rec.steps,
        "claims": {
            "final_hash": rec.final_hash,
            "checkpoint_every": rec.checkpoint_every or CHECKPOINT_EVERY,
            "checkpoints": [[n, h] for n, h in rec.checkpoints],
            "laps": None if rec.laps is None else [dict(lap) for lap in rec.laps],
        },
        "frames": [[c, *v] for c, v in rec.frames],
    }
    if rec.physics_version is None:
        del doc["physics_version"]
    if rec.driven is not None:
        doc["driven"] = rec.driven
    if rec.host is not None:
        doc["host"] = dump_host_block(rec.host)
    return doc


def dumps_four_wheel(rec: Recording) -> str:
    """A four-wheel recording as JSON text, in format version 3 (2 when unstamped) whatever
    it was read from: one header field per line, one frame per line."""
    doc = to_document(rec)
    return dump_document(doc, keys_of(doc, KEYS_OF[doc["version"]]), ("definition", "initial"))


# ----------------------------------------------------------------------------- the registry
#
# Every recording format and version, declared once (ADR 0165): what reads a document of
# that name and version, what writes a recording, and what builds the model a replay runs.
# Nothing else in replay/ compares a format name or asks which family a recording is.
# A new version (or an optional block of one) is one entry's loader and dumper.

FOUR_WHEEL = "four-wheel"


def _four_wheel_format(version: int) -> Format:
    """The entry of four-wheel format ``version``: every version reads through one loader
    (which checks the version's own keys) and is written as :data:`FORMAT_VERSION`."""
    return Format(
        FORMAT_NAME,
        version,
        load=from_four_wheel_document,
        dump=dumps_four_wheel,
        model=fourwheel.build_model,
        family=FOUR_WHEEL,
        embedded="vehicle definitions",
        setup=("host_hz", "substep_hz", "steps", "initial"),
        writes=FORMAT_VERSION,
    )


FORMATS: tuple[Format, ...] = (
    _four_wheel_format(1),
    _four_wheel_format(2),
    _four_wheel_format(3),
    *commonroad.FORMAT_OF_VERSION.values(),
)

#: ``(name, version)`` -> entry
FORMAT_OF: dict[tuple[str, int], Format] = {(f.name, f.version): f for f in FORMATS}
#: every format name a recording may declare, in table order
FORMAT_NAMES: tuple[str, ...] = tuple(dict.fromkeys(f.name for f in FORMATS))


def entry_for(doc: dict) -> Format:
    """The entry a parsed document's ``format`` and ``version`` select; a known name with an
    unknown version gets the name's newest entry, whose loader says what it reads."""
    fmt = doc.get("format")
    if fmt not in FORMAT_NAMES:
        expected = " or ".join(repr(n) for n in FORMAT_NAMES)
        if "format" not in doc:
            raise invalid(
                "/format",
                f"missing: this is not a Skidpad recording (expected format {FORMAT_NAME!r})",
            )
        raise invalid(
            "/format", f"{str(fmt)[:60]!r} is not a Skidpad recording (expected {expected})"
        )
    version = doc.get("version")
    if is_int(version) and (fmt, version) in FORMAT_OF:
        return FORMAT_OF[(fmt, version)]
    return max((f for f in FORMATS if f.name == fmt), key=lambda f: f.version)


# ----------------------------------------------------------------------------- public API


def from_document(doc: Any, budget: Budget = DEFAULT_BUDGET, consume: bool = False) -> Any:
    """Validate a parsed JSON document into the recording its format's entry reads (a
    :class:`Recording`, a ``replay.commonroad.CommonRoadRecording``); the drive it declares
    must fit ``budget``. With ``consume`` the document's frames are used up
    (:func:`check_runs`): for a document nobody else holds."""
    if not isinstance(doc, dict):
        raise invalid("", f"a recording is a JSON object, not {type_name(doc)}")
    return entry_for(doc).load(doc, budget, consume)


def loads(text: str, budget: Budget = DEFAULT_BUDGET) -> Any:
    """Parse and validate a recording from its JSON text; it must fit ``budget``."""
    if not isinstance(text, str):
        raise RecordingError(f"a recording is text, not {type(text).__name__}")
    if len(text) > budget.max_file_bytes:
        raise invalid(
            "",
            f"too large ({len(text)} characters; the limit is {budget.max_file_bytes} bytes)",
        )
    with collector_paused():
        return from_document(parse_json(text), budget, consume=True)


def load(path: str | os.PathLike, budget: Budget = DEFAULT_BUDGET) -> Any:
    """Read, parse and validate the recording at ``path`` within ``budget``; errors name
    the file and the field."""
    try:
        return loads(read_text(path, budget.max_file_bytes), budget)
    except RecordingError as exc:
        if str(exc).startswith(f"{path}: "):
            raise
        raise RecordingError(f"{path}: {exc}") from None


def dumps(rec: Any) -> str:
    """A recording of any format as JSON text (its entry's dumper)."""
    return rec.format.dump(rec)


def save(rec: Any, path: str | os.PathLike) -> None:
    """Write ``rec`` to ``path`` through :mod:`replay.output` (never a half-written file)."""
    output.write_text(path, dumps(rec))


def build_model(rec: Any, use_preset: bool = False) -> Any:
    """The fresh :class:`replay.model.VehicleModel` a replay of ``rec`` starts from."""
    return rec.format.model(rec, use_preset)
