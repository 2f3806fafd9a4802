"""The recording format: a drive's inputs, and everything needed to replay them.

See docs/architecture.md §4.

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

(version 1; version 2 has a ``claims`` block instead of ``final_hash``, and a run
with an external host an optional ``host`` block before ``frames``: the wheels
it owned and the speeds it returned per host step, run-length encoded,
:func:`load_host_block`, ADR 0202.)

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

import gc
import hashlib
import json
import math
import os
import stat
import struct
from array import array
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, Self

from engine.definition import SUBSTEP_HZ_MAX, SUBSTEP_HZ_MIN
from engine.errors import DefinitionError, SkidpadError
from engine.ticks import ticks_before
from replay import output
from replay.budget import DEFAULT_BUDGET, Budget, BudgetExceeded

FORMAT_NAME = "skidpad-recording"
#: the version ``skidpad record`` writes; version 1 files still load
FORMAT_VERSION = 2
#: The CommonRoad daemon's recordings (``replay.commonroad``, ADR 0090).
CR_FORMAT_NAME = "skidpad-commonroad-recording"

#: Files larger than this are refused before they are read (bytes), unless a budget says more.
MAX_BYTES = DEFAULT_BUDGET.max_file_bytes
#: Longest lap time a recording may claim, in seconds (the drive itself is budgeted).
MAX_DURATION_S = 24 * 3600
#: Integers beyond this magnitude are no valid value of any field (2**53: exact as a float).
MAX_EXACT_INT = 2**53
#: Frames are checked this many at a time (bounds the memory of the column checks).
_CHUNK = 65536
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
#: version 2 with the optional ``host`` block of an external host's run (ADR 0202)
KEYS_WITH_HOST = (*KEYS[:-1], "host", "frames")
#: the fields of the ``host`` block, in the order they are written
HOST_KEYS = ("wheels", "host", "signals", "omega")
#: the names a ``host`` block may give its host (the reference hosts, or a foreign one)
HOST_NAME_MAX = 60
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
    #: an external host's run: the wheels it owned and the speeds it returned (ADR 0202)
    host: HostBlock | None = None


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


def is_huge_int(v: Any) -> bool:
    """An integer no field can hold: beyond :data:`MAX_EXACT_INT` in magnitude."""
    return is_int(v) and not -MAX_EXACT_INT <= v <= MAX_EXACT_INT


def shown(v: Any) -> str:
    """``v`` for a message: an integer of hundreds of digits is described, not printed."""
    if is_huge_int(v):
        digits = getattr(v, "digits", None) or len(str(abs(v)))
        return f"an integer of {digits} digits"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


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


class _LongInt(int):
    """Stands in for an integer literal too long for ``int()``; it knows how long it was."""

    digits: int

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"

    __str__ = __repr__


def _parse_int_any_length(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits <= 4000:
        return int(text)
    # Python refuses to convert such a literal at all; the field checks refuse the stand-in
    # (far beyond MAX_EXACT_INT) at its JSON path.
    v = _LongInt(-(10**100) if text.startswith("-") else 10**100)
    v.digits = digits
    return v


def parse_json(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no overflowing numbers, no duplicate keys.

    An integer of any length parses (the field checks then name the field it is in);
    Python's own limit on converting long integer literals never shows through.
    """
    try:
        return _loads(text, int)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        return _loads(text, _parse_int_any_length)


def _loads(text: str, parse_int: Callable[[str], int]) -> Any:
    try:
        return json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            parse_int=parse_int,
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
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise  # parse_json parses it again with integers of any length
        raise invalid("", f"not valid JSON: {str(exc)[:200]}") from None


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


def check_steps(doc: dict, budget: Budget) -> int:
    """The declared number of host steps, within the budget's step limit."""
    require(doc, "steps", is_int(doc["steps"]), "an integer")
    steps = doc["steps"]
    if steps < 0:
        raise invalid("/steps", f"must be >= 0, not {shown(steps)}")
    check_budget(budget, "/steps", 0, steps, 0)
    return steps


def check_budget(budget: Budget, path: str, sim_us: int, steps: int, substeps: int) -> None:
    """The declared drive fits ``budget``; the refusal is reported at ``path``."""
    try:
        budget.check_drive(sim_us, steps, substeps)
    except BudgetExceeded as exc:
        raise invalid(path, f"the recording {exc}") from None


def check_numbers(v: Any, path: str, depth: int = 0) -> None:
    """Every number under ``v`` is finite and, if an integer, no longer than a float holds
    exactly: a field's own range check can then compare and print it safely."""
    if depth > 32:
        raise invalid(path, "nested too deeply")
    if isinstance(v, dict):
        for k, x in v.items():
            check_numbers(x, f"{path}/{k}", depth + 1)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            check_numbers(x, f"{path}/{i}", depth + 1)
    elif is_huge_int(v):
        raise invalid(path, f"{shown(v)} is far outside the range of any field")
    elif isinstance(v, float) and not math.isfinite(v):
        raise invalid(path, "must be finite")


def check_header_numbers(doc: dict) -> None:
    """:func:`check_numbers` over every field but the frames (which check their own)."""
    for key, value in doc.items():
        if key != "frames":
            check_numbers(value, f"/{key}")


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
            raise invalid(path, f"{col.name} must be an integer, not {type_name(v)} {shown(v)}")
    else:
        if not (isinstance(v, float) or is_int(v)):
            raise invalid(path, f"{col.name} must be a number, not {type_name(v)}")
    # Python compares int and float exactly, so a huge int is caught here, before float().
    if not (col.lo <= v <= col.hi):
        raise invalid(
            path, f"{col.name} = {shown(v)} is outside its range [{col.lo!r}, {col.hi!r}]"
        )
    return int(v) if col.kind == "i" else float(v)


def _check_frame(frame: Any, columns: Sequence[Any], p: str) -> tuple[int, tuple]:
    """One run ``[count, *values]`` checked value by value (the path of the first problem)."""
    if not isinstance(frame, list):
        raise invalid(p, f"must be an array [count, {len(columns)} values], not {type_name(frame)}")
    if len(frame) != 1 + len(columns):
        raise invalid(
            p,
            f"has {len(frame)} entries, expected {1 + len(columns)} "
            f"(count + {len(columns)} channels)",
        )
    count = frame[0]
    if not is_int(count):
        raise invalid(p + "/0", f"run-length count must be an integer, not {type_name(count)}")
    if count <= 0:
        raise invalid(p + "/0", f"run-length count must be positive, not {shown(count)}")
    values = tuple(
        _check_value(v, col, f"{p}/{j + 1}")
        for j, (v, col) in enumerate(zip(frame[1:], columns, strict=True))
    )
    return count, values


_NUMBER_TYPES = frozenset((float, int))
_INT_TYPES = frozenset((int,))


def _checked_column(values: tuple, col: Any) -> tuple | None:
    """One column's values normalised (a float column's integers as floats), or None unless
    every value has the column's kind and lies in its range (C-speed checks)."""
    types = set(map(type, values))
    if not types <= (_INT_TYPES if col.kind == "i" else _NUMBER_TYPES):
        return None
    if not (col.lo <= min(values) and max(values) <= col.hi):
        return None
    if col.kind == "i":
        return values
    if int in types:
        values = tuple(map(float, values))
    # One float object per distinct value, keyed by its bits (so -0.0 stays apart from
    # 0.0), as a recording repeats a few values (0.0, 1.0) in most of its frames.
    bits = array("Q", array("d", values).tobytes()).tolist()
    pool: dict[int, float] = {}
    return tuple(map(pool.setdefault, bits, values))


def _checked_chunk(chunk: list, columns: Sequence[Any]) -> list[tuple[int, tuple]] | None:
    """The runs of ``chunk`` normalised (floats as floats), or None if any run is bad."""
    width = 1 + len(columns)
    if set(map(type, chunk)) != {list} or set(map(len, chunk)) != {width}:
        return None
    counts, *cols = zip(*chunk, strict=True)
    if set(map(type, counts)) != {int} or min(counts) <= 0:
        return None
    checked = [_checked_column(values, col) for values, col in zip(cols, columns, strict=True)]
    if None in checked:
        return None
    return list(zip(counts, zip(*checked, strict=True), strict=True))


def check_runs(
    frames: Any, columns: Sequence[Any], steps: int, consume: bool = False
) -> tuple[tuple[int, tuple], ...]:
    """Validate run-length ``frames`` (``[count, *values]``) into ``((count, values), ...)``.

    ``columns`` (:class:`Column`-like: the engine's own channel table) give each
    value's name, range and kind; a float column's integers become floats. The
    counts must add up to ``steps``. The checks run a column at a time over a
    chunk of runs; a chunk with a problem is checked again run by run, so the
    message names the first bad value by its JSON pointer. With ``consume`` each
    checked chunk of ``frames`` is replaced by ``None``s, so the parsed runs are
    freed as their checked copies are made (a large recording is not held twice).
    """
    if not isinstance(frames, list):
        raise invalid("/frames", f"must be an array, not {type_name(frames)}")
    out: list[tuple[int, tuple]] = []
    total = 0
    for start in range(0, len(frames), _CHUNK):
        chunk = frames[start : start + _CHUNK]
        runs = _checked_chunk(chunk, columns)
        if runs is None:
            runs = [_check_frame(f, columns, f"/frames/{start + i}") for i, f in enumerate(chunk)]
        chunk_total = sum(count for count, _ in runs)
        if total + chunk_total > steps:
            for i, (count, _) in enumerate(runs):
                total += count
                if total > steps:
                    raise invalid(
                        f"/frames/{start + i}/0",
                        f"run-length counts add up to more than the declared {steps} steps",
                    )
        total += chunk_total
        out.extend(runs)
        if consume:
            frames[start : start + _CHUNK] = [None] * len(chunk)
        del chunk
    if total != steps:
        raise invalid(
            "/frames", f"run-length counts add up to {total} steps, but /steps declares {steps}"
        )
    return tuple(out)


def _engine_channels(input_version: int, path: str) -> tuple:
    from engine import inputs as engine_inputs

    if input_version != engine_inputs.INPUT_VERSION:
        raise invalid(
            path,
            f"input version {input_version} is not supported by this engine "
            f"(it reads input version {engine_inputs.INPUT_VERSION})",
        )
    return tuple(engine_inputs.CHANNELS)


def check_rates(doc: dict) -> tuple[int, int]:
    """``(host_hz, substep_hz)``: the substep rate within the range a definition allows
    (``engine.definition.SUBSTEP_HZ_MIN..MAX``), the host rate from 1 Hz up to it."""
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


def from_document(doc: Any, budget: Budget = DEFAULT_BUDGET, consume: bool = False) -> Recording:
    """Validate a parsed JSON document and build the :class:`Recording` (or, for the
    CommonRoad format, the :class:`replay.commonroad.CommonRoadRecording`); the drive it
    declares must fit ``budget``. With ``consume`` the document's frames are used up
    (:func:`check_runs`): for a document nobody else holds."""
    if not isinstance(doc, dict):
        raise invalid("", f"a recording is a JSON object, not {type_name(doc)}")
    fmt = doc.get("format")
    if fmt == CR_FORMAT_NAME:  # a drive of the CommonRoad daemon (ADR 0090)
        from replay import commonroad

        return commonroad.from_document(doc, budget, consume)
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
        keys = KEYS_WITH_HOST if "host" in doc else KEYS
        check_version_and_keys(doc, FORMAT_VERSION, keys, "recording format version")
    check_header_numbers(doc)
    claims = _validate_claims(doc["claims"], doc.get("steps")) if version == 2 else None
    check_provenance({**doc, "final_hash": claims["final_hash"]} if claims else doc)
    for key in ("preset", "drive", "track"):
        check_label(doc, key)
    host_hz, substep_hz = check_rates(doc)
    require(doc, "input_version", is_int(doc["input_version"]), "an integer")
    steps = check_steps(doc, budget)
    sim_us = -(-steps * 1_000_000 // host_hz)
    check_budget(budget, "/steps", sim_us, steps, ticks_before(steps, host_hz, substep_hz))
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
    host = load_host_block(doc["host"], steps, definition) if "host" in doc else None
    frames = check_runs(doc["frames"], engine_channels, steps, consume)
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


def load_host_block(block: Any, steps: int, definition: dict) -> HostBlock:
    """The ``host`` block (``/host``) validated against the recording's steps and definition.

    The wheels must be a set the engine lets a host own (a whole axle or all
    four); ``signals`` must name ``omega.<wheel>`` for each, in order; every run is
    ``[count, ω...]`` with one finite speed per wheel within the engine's limit
    (``engine.host.SURFACE_SPEED_LIMIT`` over the wheel's radius), and the counts
    add up to the recording's steps.
    """
    from engine import host as engine_host
    from engine.simulation import Simulation

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
        count, values = _check_frame(run, columns, f"/host/omega/{i}")
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


# ----------------------------------------------------------------------------- public API


def loads(text: str, budget: Budget = DEFAULT_BUDGET) -> Recording:
    """Parse and validate a recording from its JSON text; it must fit ``budget``."""
    if not isinstance(text, str):
        raise RecordingError(f"a recording is text, not {type(text).__name__}")
    if len(text) > budget.max_file_bytes:
        raise invalid(
            "",
            f"too large ({len(text)} characters; the limit is {budget.max_file_bytes} bytes)",
        )
    with _collector_paused():
        return from_document(parse_json(text), budget, consume=True)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a recording is parsed and checked.

    JSON data has no reference cycles, but a large recording is millions of lists and
    tuples, and every collection would walk all of them again: that, not the parsing,
    made a large load slow. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes_limited(path: str | os.PathLike, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refusing anything larger than ``limit``.

    A FIFO, device, socket or directory is refused from its ``stat``, before it is
    opened (opening a FIFO for reading waits for a writer); the file is opened
    non-blocking and checked again, so one swapped in meanwhile cannot hang the read.
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise RecordingError(f"{p}: no such file") from None
    except OSError as exc:
        raise RecordingError(f"{p}: cannot read: {exc.strerror or exc}") from None
    _refuse_irregular(p, st, limit)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise RecordingError(f"{p}: cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        _refuse_irregular(p, os.fstat(fd), limit)
        try:
            data = fh.read(limit + 1)  # bounded even if the file grows or lies about its size
        except OSError as exc:
            raise RecordingError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise RecordingError(f"{p}: too large (more than {limit} bytes)")
    return data


def _refuse_irregular(p: Path, st: os.stat_result, limit: int) -> None:
    kind = _not_regular(st.st_mode)
    if kind is not None:
        raise RecordingError(f"{p}: is {kind}, not a recording file")
    if st.st_size > limit:
        raise RecordingError(
            f"{p}: too large ({st.st_size} bytes; recordings are limited to {limit} bytes)"
        )


def decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(
            f"{source}: not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def _read_text(path: str | os.PathLike, limit: int) -> str:
    # The bytes are dropped as soon as they are decoded: only the text and then the
    # parsed document are held, which keeps a large recording's peak memory down.
    return decode_utf8(read_bytes_limited(path, limit), str(path))


def load(path: str | os.PathLike, budget: Budget = DEFAULT_BUDGET) -> Recording:
    """Read, parse and validate the recording at ``path`` within ``budget``; errors name
    the file and the field."""
    try:
        return loads(_read_text(path, budget.max_file_bytes), budget)
    except RecordingError as exc:
        if str(exc).startswith(f"{path}: "):
            raise
        raise RecordingError(f"{path}: {exc}") from None


def file_sha256(path: str | os.PathLike) -> str:
    """Full SHA-256 hex digest of a file's bytes (bounded read)."""
    return hashlib.sha256(read_bytes_limited(path)).hexdigest()


def to_document(rec: Recording) -> dict:
    doc = {
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
    if rec.host is not None:
        doc["host"] = dump_host_block(rec.host)
    return doc


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
    keys = KEYS if rec.host is None else KEYS_WITH_HOST
    return dump_document(to_document(rec), keys, ("definition", "initial"))


def save(rec: Recording, path: str | os.PathLike) -> None:
    """Write ``rec`` to ``path`` through :mod:`replay.output` (never a half-written file)."""
    output.write_text(path, dumps(rec))


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
