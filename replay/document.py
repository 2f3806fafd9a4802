"""What every recording format shares: strict JSON, field checks, run-length frames, files.

See docs/architecture.md §2 and §4. The formats themselves are entries of the registry in
:mod:`replay.recording` (the four-wheel format there, the CommonRoad format in
:mod:`replay.commonroad`); both check their documents with the functions here, so the two
word the same problem the same way, and neither imports the other.

* Parsing (:func:`parse_json`): strict JSON — no NaN or infinity, no number that
  overflows, no key twice in one object; an integer of any length parses, so the field
  checks can name the field it is in.
* Field checks (:func:`require`, :func:`exact_keys`, :func:`check_version_and_keys`,
  :func:`check_runs`, ...): each failure is a :class:`RecordingError` whose message starts
  with the field's JSON pointer (``/frames/12/3: steer = 1.5 is outside [-1.0, 1.0]``).
* Frames: one tuple of values per host step, run-length encoded by their bits
  (:func:`run_length`), so ``0.0`` and ``-0.0`` are never merged; checked a column at a
  time, so loading is linear in the file's size.
* Files: only a regular file is read, with a size limit, before it is parsed
  (:func:`read_bytes_limited`); text is written one header field per line and one frame
  per line (:func:`dump_document`), so two recordings diff line by line.
* Provenance: :func:`current_math_hash`, the math self-test hash a recording made here
  carries.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import math
import os
import re
import struct
from array import array
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, NamedTuple, Self

from skidpad.engine.errors import SkidpadError
from skidpad.engine.files import read_regular_file
from skidpad.replay.budget import DEFAULT_BUDGET, Budget, BudgetExceeded

_HEX16 = frozenset("0123456789abcdef")

#: Files larger than this are refused before they are read (bytes), unless a budget says more.
MAX_BYTES = DEFAULT_BUDGET.max_file_bytes

#: Integers beyond this magnitude are no valid value of any field (2**53: exact as a float).
MAX_EXACT_INT = 2**53
#: Frames are checked this many at a time (bounds the memory of the column checks).
_CHUNK = 65536


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
    for kind, name in _JSON_TYPE_NAMES:
        if isinstance(v, kind):
            return name
    return type(v).__name__


#: Python type -> JSON type name, bool before int (a bool is an int to isinstance)
_JSON_TYPE_NAMES = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


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


def _constant_refused(what: str) -> Callable[[str], float]:
    """``json.loads``'s ``parse_constant`` for ``what`` (a recording, a definition file):
    NaN and Infinity refused, naming the document."""

    def refuse(name: str) -> float:
        raise invalid("", f"{name} is not allowed in {what} (JSON has no NaN or infinity)")

    return refuse


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


def parse_json(text: str, what: str = "a recording") -> Any:
    """Strict JSON: no NaN/Infinity, no overflowing numbers, no duplicate keys (``what`` the
    document is, for the messages).

    An integer of any length parses (the field checks then name the field it is in);
    Python's own limit on converting long integer literals never shows through.
    """
    try:
        return _loads(text, int, what)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        return _loads(text, _parse_int_any_length, what)


def _loads(text: str, parse_int: Callable[[str], int], what: str) -> Any:
    try:
        return json.loads(
            text,
            parse_constant=_constant_refused(what),
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

    ``engine.fourwheel.inputs.Channel`` has the same attributes, so the four-wheel channels
    serve as is.
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


def check_numbers(
    v: Any, path: str, depth: int = 0, *, max_depth: int = 32, allow_huge_ints: bool = False
) -> None:
    """Every number under ``v`` is finite and, unless ``allow_huge_ints``, an integer is no
    longer than a float holds exactly: a field's own range check can then compare and print
    it safely. Objects and arrays nest at most ``max_depth`` deep."""
    if depth > max_depth:
        raise invalid(path, "nested too deeply")
    if isinstance(v, (dict, list)):
        children = v.items() if isinstance(v, dict) else enumerate(v)
        for k, x in children:
            where = f"{path}/{k}"
            check_numbers(x, where, depth + 1, max_depth=max_depth, allow_huge_ints=allow_huge_ints)
    elif not allow_huge_ints and is_huge_int(v):
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


def check_frame(frame: Any, columns: Sequence[Any], p: str) -> tuple[int, tuple]:
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
            runs = [check_frame(f, columns, f"/frames/{start + i}") for i, f in enumerate(chunk)]
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


@contextmanager
def collector_paused() -> Iterator[None]:
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


def read_bytes_limited(path: str | os.PathLike, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, refusing anything larger than ``limit`` or
    not a regular file with a :class:`RecordingError` (:func:`engine.files.read_regular_file`:
    one reader for every file the tool reads)."""
    return read_regular_file(path, limit, RecordingError, "a recording file")


def decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(
            f"{source}: not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def read_text(path: str | os.PathLike, limit: int) -> str:
    # The bytes are dropped as soon as they are decoded: only the text and then the
    # parsed document are held, which keeps a large recording's peak memory down.
    return decode_utf8(read_bytes_limited(path, limit), str(path))


def file_sha256(path: str | os.PathLike) -> str:
    """Full SHA-256 hex digest of a file's bytes (bounded read)."""
    return hashlib.sha256(read_bytes_limited(path)).hexdigest()


def _dump(v: Any, indent: int | None = None) -> str:
    # json uses float.__repr__ for floats: the shortest round-trip form.
    return json_escape_surrogates(json.dumps(v, ensure_ascii=False, allow_nan=False, indent=indent))


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as a ``\\uXXXX`` escape.

    ``"\\ud800"`` is valid JSON and parses to a string no UTF-8 encoder can write; written
    back with ``ensure_ascii=False`` it would make the file unwritable. In a Python string a
    surrogate is always lone (a pair is one character) and only occurs inside a JSON string,
    where the escape means the same string.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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


@functools.lru_cache(maxsize=1)
def current_math_hash() -> str:
    """The math self-test hash of this runtime (what a recording made here carries)."""
    from skidpad.engine.smath import selftest

    return selftest.selftest_hash()
