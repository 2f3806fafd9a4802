"""The recording format (DESIGN §7): a drive's inputs, and everything needed to replay them.

A recording is one UTF-8 JSON object (schema: ``replay/recording.schema.json``)::

    {
     "format": "skidpad-recording",        always this string
     "version": 1,                         format version (FORMAT_VERSION)
     "engine_version": "0.1.0",            engine.__version__ at record time
     "math_hash": "0123456789abcdef",      math self-test hash at record time, or null
     "preset": "sportsRwd",                preset the definition came from, or null
     "drive": "scripted",                  how the inputs were produced (informational), or null
     "track": "sandbox",                   track name, or null
     "definition_hash": "...",             engine.definition.definition_hash(definition)
     "definition": {...},                  the full vehicle definition, embedded
     "initial": {...},                     initial conditions and environment
     "host_hz": 100,                       host steps per second
     "substep_hz": 1000,                   physics substeps per second
     "input_version": 1,                   engine.inputs.INPUT_VERSION
     "channels": ["steer", ...],           channel names, in engine.inputs.CHANNELS order
     "steps": 3000,                        number of host steps
     "final_hash": "...",                  state hash after the last step at record time, or null
     "frames": [[count, v1, v2, ...], ...] run-length encoded host-step inputs
    }

Floats are written with ``repr`` (the shortest string that reads back to the
same double, which Python and JavaScript agree on) and read back exactly,
so ``-0.0`` stays ``-0.0`` and a replay feeds the engine the very bits the
recorder fed it. Run-length encoding compares frames by their bits, so a run
never merges ``0.0`` and ``-0.0``.

Loading validates everything and raises :class:`RecordingError` with one
message naming the field as a JSON pointer (``/frames/12/3: steer = 1.5 is
outside [-1.0, 1.0]``). Files above :data:`MAX_BYTES` are refused before they
are read. Writing is atomic (temporary file in the same directory, fsync,
rename), so a reader never sees a half-written recording. Recordings are
data: no pickle, no eval, no code.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, Self

from engine.errors import DefinitionError, InputError, SkidpadError

FORMAT_NAME = "skidpad-recording"
#: the version ``skidpad record`` writes; version 1 files still load
FORMAT_VERSION = 2
#: The CommonRoad daemon's recordings (``replay.commonroad``, ADR 0090).
CR_FORMAT_NAME = "skidpad-commonroad-recording"

#: Files larger than this are refused before they are read (bytes).
MAX_BYTES = 64 * 1024 * 1024
#: Longest drive a recording may declare, in seconds of simulated time.
MAX_DURATION_S = 24 * 3600
MAX_RATE_HZ = 1_000_000
#: host steps between the checkpoint hashes a recording claims
CHECKPOINT_EVERY = 100

_HEX16 = frozenset("0123456789abcdef")

#: Top-level keys in the order they are written; the loader accepts no others.
KEYS = (
    "format",
    "version",
    "engine_version",
    "math_hash",
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
#: version 1: the same fields with a top-level ``final_hash`` instead of ``claims``
KEYS_V1 = tuple("final_hash" if k == "claims" else k for k in KEYS)
#: the fields of the ``claims`` block, in the order they are written
CLAIM_KEYS = ("final_hash", "checkpoint_every", "checkpoints", "laps")
LAP_KEYS = ("lap", "time_s", "sectors_s", "valid", "reason")


class RecordingError(SkidpadError, ValueError):
    """A recording is unreadable or invalid; the message names the field (JSON pointer)."""


class RunLengthFrames:
    """What both recording kinds do with their run-length ``frames`` and their ``final_hash``.

    A mixin (no fields of its own) for :class:`Recording` and
    ``replay.commonroad.CommonRoadRecording``, which hold ``frames`` as
    ``((count, values), ...)`` with ``values`` a tuple in channel order.
    """

    def inputs(self) -> Iterator[tuple]:
        """Every host step's values, in order (the runs expanded)."""
        for count, values in self.frames:
            for _ in range(count):
                yield values

    def with_final_hash(self, final_hash: str | None) -> Self:
        """A copy with ``final_hash`` set: the recorder learns it only after the last step."""
        return replace(self, final_hash=final_hash)


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
    #: the format version the recording was read from (what :func:`dumps` writes is 2)
    version: int = FORMAT_VERSION


# ----------------------------------------------------------------------------- helpers


def frame_key(values: Sequence) -> tuple:
    """Bitwise identity of one frame: ``0.0`` and ``-0.0`` are different frames."""
    return tuple(
        ("f", struct.pack("<d", v)) if isinstance(v, float) else ("i", int(v)) for v in values
    )


def run_length(frames: Sequence[Sequence]) -> tuple[tuple[int, tuple], ...]:
    """Run-length encode per-step input tuples (bitwise equality)."""
    out: list[list] = []
    last_key = None
    for values in frames:
        key = frame_key(values)
        if out and key == last_key:
            out[-1][0] += 1
        else:
            out.append([1, tuple(values)])
            last_key = key
    return tuple((c, v) for c, v in out)


def invalid(path: str, message: str) -> RecordingError:
    """The error for a bad field: ``message`` after its JSON pointer (``/`` for the root)."""
    return RecordingError(f"{path or '/'}: {message}")


def type_name(v: Any) -> str:
    """The JSON name of ``v``'s type, so a message can say what it found instead."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def is_int(v: Any) -> bool:
    """A JSON integer: Python's ``True`` and ``False`` are ints, but not in a recording."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_hex16(v: Any) -> bool:
    """A hash as recordings write it: exactly 16 lowercase hex digits."""
    return isinstance(v, str) and len(v) == 16 and all(c in _HEX16 for c in v)


# ----------------------------------------------------------------------------- parsing


def _reject_constant(name: str) -> float:
    raise invalid("", f"{name} is not allowed in a recording (JSON has no NaN or infinity)")


def _parse_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise invalid("", f"number {text[:40]} overflows to infinity")
    return v


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise invalid("", f"key {k!r} appears twice in one object")
        out[k] = v
    return out


def parse_json(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no overflowing numbers, no duplicate keys."""
    try:
        return json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            object_pairs_hook=_no_duplicates,
        )
    except RecordingError:
        raise
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            raise invalid("", f"truncated: the JSON ends early ({exc.msg})") from None
        raise invalid(
            "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise invalid("", "not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than int() accepts
        raise invalid("", f"not valid JSON: {exc}") from None


# ----------------------------------------------------------------------------- validation
#
# The field checks both recording formats use (``replay.commonroad`` for the CommonRoad
# one), so the two loaders word the same problem the same way.


class Column(NamedTuple):
    """One value of a frame: name, inclusive range, kind ("f" a number, "i" an integer).

    ``engine.inputs.Channel`` has the same attributes, so the four-wheel channels serve as is.
    """

    name: str
    lo: float
    hi: float
    kind: str


def require(doc: dict, key: str, ok: bool, what: str) -> None:
    """Refuse the top-level field ``key`` unless ``ok``, saying what it must be and what it is."""
    if not ok:
        raise invalid(f"/{key}", f"must be {what}, not {type_name(doc[key])}")


def exact_keys(v: Any, keys: Sequence[str], path: str, unknown: str = "unknown field") -> None:
    """``v`` is an object with every one of ``keys`` and no other (``unknown`` says why not)."""
    if not isinstance(v, dict):
        raise invalid(path, f"must be an object, not {type_name(v)}")
    for k in keys:
        if k not in v:
            raise invalid(f"{path}/{k}", "missing required field")
    for k in v:
        if k not in keys:
            raise invalid(f"{path}/{k}", unknown)


def check_version_and_keys(doc: dict, version: int, keys: Sequence[str], noun: str) -> None:
    """The document declares ``version`` and has exactly the top-level ``keys``.

    ``noun`` names the format's versions in the messages ("recording format version").
    """
    declared = doc.get("version")
    if declared != version or not is_int(declared):
        if "version" not in doc:
            raise invalid("/version", "missing")
        raise invalid(
            "/version",
            f"{noun} {str(declared)[:40]} is not supported (this build reads version {version})",
        )
    exact_keys(doc, keys, "", f"unknown field (not part of {noun} {version})")


def check_provenance(doc: dict) -> None:
    """The fields every recording carries about the build that made it and where it ended."""
    require(doc, "engine_version", isinstance(doc["engine_version"], str), "a string")
    for key in ("math_hash", "final_hash"):
        v = doc[key]
        require(doc, key, v is None or is_hex16(v), "16 lowercase hex digits or null")


def check_label(doc: dict, key: str) -> None:
    """An informational name (preset, drive, track): a short non-empty string, or null."""
    v = doc[key]
    ok = v is None or (isinstance(v, str) and 0 < len(v) <= 200)
    require(doc, key, ok, "a non-empty string or null")


def check_steps(doc: dict, most: int) -> int:
    """The declared number of host steps; ``most`` is how many fit in :data:`MAX_DURATION_S`."""
    require(doc, "steps", is_int(doc["steps"]), "an integer")
    steps = doc["steps"]
    if steps < 0:
        raise invalid("/steps", f"must be >= 0, not {steps}")
    if steps > most:
        raise invalid(
            "/steps", f"{steps} host steps is longer than {MAX_DURATION_S // 3600} h of driving"
        )
    return steps


def check_channels(doc: dict, expected: Sequence[str], whose: str) -> tuple[str, ...]:
    """``/channels`` names exactly ``expected``, in order (``whose`` channels those are)."""
    channels = doc["channels"]
    names = isinstance(channels, list) and all(isinstance(c, str) for c in channels)
    require(doc, "channels", names, "an array of strings")
    if channels != list(expected):
        raise invalid("/channels", f"{channels[:20]} do not match {whose}: {list(expected)}")
    return tuple(channels)


def check_embedded_hash(key: str, declared: str, actual: str, what: str) -> None:
    """Embedded data (``what``) hashes to what the recording declares under ``key``."""
    if actual != declared:
        raise invalid(
            f"/{key}",
            f"{declared} does not match the hash of the embedded {what} ({actual}): "
            f"the {what} or the hash was edited, or the file is corrupt",
        )


def _check_value(v: Any, col: Any, path: str) -> float | int:
    if col.kind == "i":
        if not is_int(v):
            raise invalid(path, f"{col.name} must be an integer, not {type_name(v)} {v!r}"[:200])
    else:
        if not (isinstance(v, float) or is_int(v)):
            raise invalid(path, f"{col.name} must be a number, not {type_name(v)}")
    # Python compares int and float exactly, so a huge int is caught here, before float().
    if not (col.lo <= v <= col.hi):
        shown = repr(v) if not is_int(v) or abs(v) < 10**30 else f"{str(v)[:12]}..."
        raise invalid(path, f"{col.name} = {shown} is outside its range [{col.lo!r}, {col.hi!r}]")
    return int(v) if col.kind == "i" else float(v)


def check_runs(
    frames: Any, columns: Sequence[Any], steps: int, check_inputs: Callable[[tuple], Sequence]
) -> Iterator[tuple[str, int, tuple]]:
    """Validate run-length ``frames`` (``[count, *values]``), yielding ``(path, count, values)``.

    ``columns`` (:class:`Column`-like) give each value's name, range and kind;
    ``check_inputs`` is the engine's own check of one frame's values (its
    ``InputError`` is reported at the frame). The counts must add up to
    ``steps``; that last check runs when the caller exhausts the runs, after any
    check the caller makes of each run, so exhaust it.
    """
    if not isinstance(frames, list):
        raise invalid("/frames", f"must be an array, not {type_name(frames)}")
    width = 1 + len(columns)
    total = 0
    for i, frame in enumerate(frames):
        p = f"/frames/{i}"
        if not isinstance(frame, list):
            raise invalid(
                p, f"must be an array [count, {len(columns)} values], not {type_name(frame)}"
            )
        if len(frame) != width:
            raise invalid(
                p, f"has {len(frame)} entries, expected {width} (count + {len(columns)} channels)"
            )
        count = frame[0]
        if not is_int(count):
            raise invalid(p + "/0", f"run-length count must be an integer, not {type_name(count)}")
        if count <= 0:
            raise invalid(p + "/0", f"run-length count must be positive, not {count}")
        values = tuple(
            _check_value(v, col, f"{p}/{j + 1}")
            for j, (v, col) in enumerate(zip(frame[1:], columns, strict=False))
        )
        try:
            values = tuple(check_inputs(values))
        except InputError as exc:
            raise invalid(p, str(exc)) from None
        total += count
        if total > steps:
            raise invalid(
                p + "/0", f"run-length counts add up to more than the declared {steps} steps"
            )
        yield p, count, values
    if total != steps:
        raise invalid(
            "/frames", f"run-length counts add up to {total} steps, but /steps declares {steps}"
        )


def _engine_channels(input_version: int, path: str) -> tuple:
    from engine import inputs as engine_inputs

    if input_version != engine_inputs.INPUT_VERSION:
        raise invalid(
            path,
            f"input version {input_version} is not supported by this engine "
            f"(it reads input version {engine_inputs.INPUT_VERSION})",
        )
    return tuple(engine_inputs.CHANNELS)


def _validate_frames(frames: Any, channels: tuple, steps: int) -> tuple:
    from engine import inputs as engine_inputs

    runs = check_runs(frames, channels, steps, engine_inputs.validate_inputs)
    return tuple((count, values) for _, count, values in runs)


def _validate_definition(definition: Any, declared_hash: Any) -> dict:
    from engine import definition as engine_definition

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
    from engine.simulation import Simulation

    try:
        Simulation(definition, substep_hz=substep_hz, host_hz=host_hz, initial=initial or None)
    except SkidpadError as exc:
        text = str(exc)
        where = "/initial" if text.startswith("initial") else "/host_hz"
        raise invalid(where, f"the engine refuses this set-up: {text}") from None


def _validate_json_data(v: Any, path: str, depth: int = 0) -> None:
    """Initial conditions are plain data: objects, arrays, strings, finite numbers, booleans."""
    if depth > 16:
        raise invalid(path, "nested too deeply")
    if isinstance(v, dict):
        for k, x in v.items():
            _validate_json_data(x, f"{path}/{k}", depth + 1)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _validate_json_data(x, f"{path}/{i}", depth + 1)
    elif isinstance(v, float) and not math.isfinite(v):
        raise invalid(path, "must be finite")


def from_document(doc: Any) -> Recording:
    """Validate a parsed JSON document and build the :class:`Recording` (or, for the
    CommonRoad format, the :class:`replay.commonroad.CommonRoadRecording`)."""
    if not isinstance(doc, dict):
        raise invalid("", f"a recording is a JSON object, not {type_name(doc)}")
    fmt = doc.get("format")
    if fmt == CR_FORMAT_NAME:  # a drive of the CommonRoad daemon (ADR 0090)
        from replay import commonroad

        return commonroad.from_document(doc)
    if fmt != FORMAT_NAME:
        if "format" not in doc:
            raise invalid(
                "/format",
                f"missing: this is not a Skidpad recording (expected format {FORMAT_NAME!r})",
            )
        raise invalid(
            "/format",
            f"{str(fmt)[:60]!r} is not a Skidpad recording "
            f"(expected {FORMAT_NAME!r} or {CR_FORMAT_NAME!r})",
        )
    version = doc.get("version")
    if version == 1 and is_int(version):
        check_version_and_keys(doc, 1, KEYS_V1, "recording format version")
    else:
        check_version_and_keys(doc, FORMAT_VERSION, KEYS, "recording format version")
    claims = _validate_claims(doc["claims"], doc.get("steps")) if version == 2 else None
    check_provenance({**doc, "final_hash": claims["final_hash"]} if claims else doc)
    for key in ("preset", "drive", "track"):
        check_label(doc, key)
    for key in ("host_hz", "substep_hz"):
        v = doc[key]
        require(doc, key, is_int(v), "an integer")
        if not (1 <= v <= MAX_RATE_HZ):
            raise invalid(f"/{key}", f"{v} Hz is outside [1, {MAX_RATE_HZ}]")
    require(doc, "input_version", is_int(doc["input_version"]), "an integer")
    steps = check_steps(doc, MAX_DURATION_S * doc["host_hz"])
    require(doc, "initial", isinstance(doc["initial"], dict), "an object")
    _validate_json_data(doc["initial"], "/initial")
    engine_channels = _engine_channels(doc["input_version"], "/input_version")
    channels = check_channels(
        doc,
        [c.name for c in engine_channels],
        f"the channels of input version {doc['input_version']}",
    )
    definition = _validate_definition(doc["definition"], doc["definition_hash"])
    _validate_setup(definition, doc["host_hz"], doc["substep_hz"], doc["initial"])
    frames = _validate_frames(doc["frames"], engine_channels, steps)
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
    )


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
    last = steps if is_int(steps) else 0
    expected = [n for n in range(0, last + 1, every)] if marks else []  # [] claims none
    if len(marks) != len(expected):
        raise invalid(
            "/claims/checkpoints",
            f"{len(marks)} checkpoints, but {last} steps every {every} make {len(expected)}",
        )
    checkpoints = []
    for i, (mark, n) in enumerate(zip(marks, expected, strict=True)):
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


# ----------------------------------------------------------------------------- public API


def loads(text: str) -> Recording:
    """Parse and validate a recording from its JSON text."""
    if not isinstance(text, str):
        raise RecordingError(f"a recording is text, not {type(text).__name__}")
    if len(text) > MAX_BYTES:
        raise invalid("", f"too large ({len(text)} characters; the limit is {MAX_BYTES} bytes)")
    return from_document(parse_json(text))


def read_bytes_limited(path: str | os.PathLike, limit: int = MAX_BYTES) -> bytes:
    """The bytes of ``path``, refusing anything larger than ``limit`` before reading it."""
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise RecordingError(f"{p}: no such file") from None
    except OSError as exc:
        raise RecordingError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if p.is_dir():
        raise RecordingError(f"{p}: is a directory, not a recording")
    if st.st_size > limit:
        raise RecordingError(
            f"{p}: too large ({st.st_size} bytes; recordings are limited to {limit} bytes)"
        )
    try:
        with open(p, "rb") as fh:
            data = fh.read(limit + 1)  # bounded even if the file grows or lies about its size
    except OSError as exc:
        raise RecordingError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise RecordingError(f"{p}: too large (more than {limit} bytes)")
    return data


def decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(
            f"{source}: not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def load(path: str | os.PathLike) -> Recording:
    """Read, parse and validate the recording at ``path``; errors name the file and the field."""
    data = read_bytes_limited(path)
    text = decode_utf8(data, str(path))
    try:
        return loads(text)
    except RecordingError as exc:
        raise RecordingError(f"{path}: {exc}") from None


def file_sha256(path: str | os.PathLike) -> str:
    """Full SHA-256 hex digest of a file's bytes (bounded read)."""
    return hashlib.sha256(read_bytes_limited(path)).hexdigest()


def to_document(rec: Recording) -> dict:
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "engine_version": rec.engine_version,
        "math_hash": rec.math_hash,
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


def _dump(v: Any, indent: int | None = None) -> str:
    # json uses float.__repr__ for floats: the shortest round-trip form.
    return json.dumps(v, ensure_ascii=False, allow_nan=False, indent=indent)


def dump_document(doc: dict, keys: Sequence[str], spread: Collection[str]) -> str:
    """JSON text of a recording document: one top-level field per line (``spread`` ones
    indented over several), then one frame per line, so two recordings diff line by line."""
    lines = []
    for k in keys:
        if k == "frames":
            continue
        value = _dump(doc[k], indent=1 if k in spread else None)
        value = value.replace("\n", "\n ")
        lines.append(f" {_dump(k)}: {value}")
    frames = ",\n  ".join(_dump(f) for f in doc["frames"])
    lines.append(f' "frames": [\n  {frames}\n ]' if frames else ' "frames": []')
    return "{\n" + ",\n".join(lines) + "\n}\n"


def dumps(rec: Recording) -> str:
    """The recording as JSON text: one header field per line, one frame per line."""
    if not isinstance(rec, Recording):  # a CommonRoad recording writes itself
        from replay import commonroad

        return commonroad.dumps(rec)
    return dump_document(to_document(rec), KEYS, ("definition", "initial"))


def _file_mode(path: Path) -> int:
    """The mode a rewritten file keeps, or what a new file gets from the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically: temp file in the same directory, fsync, rename."""
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise SkidpadError(f"{p}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, _file_mode(p))  # mkstemp makes 0600; give the file its usual mode
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def save(rec: Recording, path: str | os.PathLike) -> None:
    """Write ``rec`` to ``path`` atomically (never a half-written file)."""
    atomic_write_text(path, dumps(rec))


def definition_for_replay(rec: Recording, use_preset: bool = False) -> dict:
    """The definition a replay runs with: the embedded one, or (explicitly) today's preset."""
    if not use_preset:
        return rec.definition
    from engine import definition as engine_definition

    if rec.preset is None:
        raise RecordingError(
            "/preset: the recording names no preset, so it cannot replay with today's preset"
        )
    try:
        return engine_definition.load_preset(rec.preset)
    except DefinitionError as exc:
        raise RecordingError(f"/preset: {exc}") from None
