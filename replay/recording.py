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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.errors import DefinitionError, InputError, SkidpadError

FORMAT_NAME = "skidpad-recording"
FORMAT_VERSION = 1
#: The CommonRoad daemon's recordings (``replay.commonroad``, ADR 0090).
CR_FORMAT_NAME = "skidpad-commonroad-recording"

#: Files larger than this are refused before they are read (bytes).
MAX_BYTES = 64 * 1024 * 1024
#: Longest drive a recording may declare, in seconds of simulated time.
MAX_DURATION_S = 24 * 3600
MAX_RATE_HZ = 1_000_000

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
    "final_hash",
    "frames",
)


class RecordingError(SkidpadError, ValueError):
    """A recording is unreadable or invalid; the message names the field (JSON pointer)."""


@dataclass(frozen=True)
class Recording:
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

    def inputs(self) -> Iterator[tuple]:
        """Every host step's input tuple, in order."""
        for count, values in self.frames:
            for _ in range(count):
                yield values

    def with_final_hash(self, final_hash: str | None) -> Recording:
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


def _err(path: str, message: str) -> RecordingError:
    return RecordingError(f"{path or '/'}: {message}")


def _type_name(v: Any) -> str:
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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_hex16(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 16 and all(c in _HEX16 for c in v)


# ----------------------------------------------------------------------------- parsing


def _reject_constant(name: str) -> float:
    raise _err("", f"{name} is not allowed in a recording (JSON has no NaN or infinity)")


def _parse_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise _err("", f"number {text[:40]} overflows to infinity")
    return v


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _err("", f"key {k!r} appears twice in one object")
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
            raise _err("", f"truncated: the JSON ends early ({exc.msg})") from None
        raise _err(
            "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise _err("", "not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than int() accepts
        raise _err("", f"not valid JSON: {exc}") from None


# ----------------------------------------------------------------------------- validation


def _engine_channels(input_version: int, path: str) -> tuple:
    from engine import inputs as engine_inputs

    if input_version != engine_inputs.INPUT_VERSION:
        raise _err(
            path,
            f"input version {input_version} is not supported by this engine "
            f"(it reads input version {engine_inputs.INPUT_VERSION})",
        )
    return tuple(engine_inputs.CHANNELS)


def _check_value(v: Any, ch: Any, path: str) -> float | int:
    if ch.kind == "i":
        if not _is_int(v):
            raise _err(path, f"{ch.name} must be an integer, not {_type_name(v)} {v!r}"[:200])
    else:
        if not (isinstance(v, float) or _is_int(v)):
            raise _err(path, f"{ch.name} must be a number, not {_type_name(v)}")
    # Python compares int and float exactly, so a huge int is caught here, before float().
    if not (ch.lo <= v <= ch.hi):
        shown = repr(v) if not _is_int(v) or abs(v) < 10**30 else f"{str(v)[:12]}..."
        raise _err(path, f"{ch.name} = {shown} is outside its range [{ch.lo!r}, {ch.hi!r}]")
    return int(v) if ch.kind == "i" else float(v)


def _validate_frames(frames: Any, channels: tuple, steps: int) -> tuple:
    from engine import inputs as engine_inputs

    if not isinstance(frames, list):
        raise _err("/frames", f"must be an array, not {_type_name(frames)}")
    width = 1 + len(channels)
    out = []
    total = 0
    for i, frame in enumerate(frames):
        p = f"/frames/{i}"
        if not isinstance(frame, list):
            raise _err(
                p, f"must be an array [count, {len(channels)} values], not {_type_name(frame)}"
            )
        if len(frame) != width:
            raise _err(
                p, f"has {len(frame)} entries, expected {width} (count + {len(channels)} channels)"
            )
        count = frame[0]
        if not _is_int(count):
            raise _err(p + "/0", f"run-length count must be an integer, not {_type_name(count)}")
        if count <= 0:
            raise _err(p + "/0", f"run-length count must be positive, not {count}")
        values = tuple(
            _check_value(v, ch, f"{p}/{j + 1}")
            for j, (v, ch) in enumerate(zip(frame[1:], channels, strict=False))
        )
        try:
            values = tuple(engine_inputs.validate_inputs(values))
        except InputError as exc:
            raise _err(p, str(exc)) from None
        total += count
        if total > steps:
            raise _err(
                p + "/0", f"run-length counts add up to more than the declared {steps} steps"
            )
        out.append((count, values))
    if total != steps:
        raise _err(
            "/frames", f"run-length counts add up to {total} steps, but /steps declares {steps}"
        )
    return tuple(out)


def _validate_definition(definition: Any, declared_hash: Any) -> dict:
    from engine import definition as engine_definition

    if not isinstance(definition, dict):
        raise _err("/definition", f"must be an object, not {_type_name(definition)}")
    if not _is_hex16(declared_hash):
        raise _err("/definition_hash", "must be 16 lowercase hex digits")
    try:
        normalised = engine_definition.validate_definition(definition)
    except DefinitionError as exc:
        raise _err("/definition", f"invalid vehicle definition: {exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise _err(
            "/definition", f"invalid vehicle definition: {type(exc).__name__}: {exc}"
        ) from None
    actual = engine_definition.definition_hash(definition)
    if actual != declared_hash:
        raise _err(
            "/definition_hash",
            f"{declared_hash} does not match the embedded definition (which hashes to {actual}): "
            "the definition was edited or the file is corrupt",
        )
    return normalised


def _validate_setup(definition: dict, host_hz: int, substep_hz: int, initial: dict) -> None:
    """Let the engine check the rates and initial conditions: build (never step) the simulation."""
    from engine.simulation import Simulation

    try:
        Simulation(definition, substep_hz=substep_hz, host_hz=host_hz, initial=initial or None)
    except SkidpadError as exc:
        text = str(exc)
        where = "/initial" if text.startswith("initial") else "/host_hz"
        raise _err(where, f"the engine refuses this set-up: {text}") from None


def _validate_json_data(v: Any, path: str, depth: int = 0) -> None:
    """Initial conditions are plain data: objects, arrays, strings, finite numbers, booleans."""
    if depth > 16:
        raise _err(path, "nested too deeply")
    if isinstance(v, dict):
        for k, x in v.items():
            _validate_json_data(x, f"{path}/{k}", depth + 1)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            _validate_json_data(x, f"{path}/{i}", depth + 1)
    elif isinstance(v, float) and not math.isfinite(v):
        raise _err(path, "must be finite")


def from_document(doc: Any) -> Recording:
    """Validate a parsed JSON document and build the :class:`Recording` (or, for the
    CommonRoad format, the :class:`replay.commonroad.CommonRoadRecording`)."""
    if not isinstance(doc, dict):
        raise _err("", f"a recording is a JSON object, not {_type_name(doc)}")
    fmt = doc.get("format")
    if fmt == CR_FORMAT_NAME:  # a drive of the CommonRoad daemon (ADR 0090)
        from replay import commonroad

        return commonroad.from_document(doc)
    if fmt != FORMAT_NAME:
        if "format" not in doc:
            raise _err(
                "/format",
                f"missing: this is not a Skidpad recording (expected format {FORMAT_NAME!r})",
            )
        raise _err(
            "/format",
            f"{str(fmt)[:60]!r} is not a Skidpad recording "
            f"(expected {FORMAT_NAME!r} or {CR_FORMAT_NAME!r})",
        )
    version = doc.get("version")
    if version != FORMAT_VERSION or not _is_int(version):
        if "version" not in doc:
            raise _err("/version", "missing")
        raise _err(
            "/version",
            f"format version {str(version)[:40]} is not supported "
            f"(this build reads version {FORMAT_VERSION})",
        )
    for k in KEYS:
        if k not in doc:
            raise _err(f"/{k}", "missing required field")
    for k in doc:
        if k not in KEYS:
            raise _err(f"/{k}", "unknown field (not part of recording format version 1)")

    def want(key: str, ok: bool, what: str) -> None:
        if not ok:
            raise _err(f"/{key}", f"must be {what}, not {_type_name(doc[key])}")

    want("engine_version", isinstance(doc["engine_version"], str), "a string")
    want(
        "math_hash",
        doc["math_hash"] is None or _is_hex16(doc["math_hash"]),
        "16 lowercase hex digits or null",
    )
    want(
        "final_hash",
        doc["final_hash"] is None or _is_hex16(doc["final_hash"]),
        "16 lowercase hex digits or null",
    )
    for key in ("preset", "drive", "track"):
        v = doc[key]
        want(
            key,
            v is None or (isinstance(v, str) and 0 < len(v) <= 200),
            "a non-empty string or null",
        )
    for key, top in (("host_hz", MAX_RATE_HZ), ("substep_hz", MAX_RATE_HZ)):
        v = doc[key]
        want(key, _is_int(v), "an integer")
        if not (1 <= v <= top):
            raise _err(f"/{key}", f"{v} Hz is outside [1, {top}]")
    want("input_version", _is_int(doc["input_version"]), "an integer")
    want("steps", _is_int(doc["steps"]), "an integer")
    steps = doc["steps"]
    if steps < 0:
        raise _err("/steps", f"must be >= 0, not {steps}")
    if steps > MAX_DURATION_S * doc["host_hz"]:
        raise _err(
            "/steps", f"{steps} host steps is longer than {MAX_DURATION_S // 3600} h of driving"
        )
    want("initial", isinstance(doc["initial"], dict), "an object")
    _validate_json_data(doc["initial"], "/initial")

    channels = doc["channels"]
    want(
        "channels",
        isinstance(channels, list) and all(isinstance(c, str) for c in channels),
        "an array of strings",
    )
    engine_channels = _engine_channels(doc["input_version"], "/input_version")
    expected = [c.name for c in engine_channels]
    if channels != expected:
        raise _err(
            "/channels",
            f"{channels[:20]} do not match the channels of input version "
            f"{doc['input_version']}: {expected}",
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
        channels=tuple(channels),
        frames=frames,
        steps=steps,
        preset=doc["preset"],
        initial=doc["initial"],
        track=doc["track"],
        drive=doc["drive"],
        engine_version=doc["engine_version"],
        math_hash=doc["math_hash"],
        final_hash=doc["final_hash"],
    )


# ----------------------------------------------------------------------------- public API


def loads(text: str) -> Recording:
    """Parse and validate a recording from its JSON text."""
    if not isinstance(text, str):
        raise RecordingError(f"a recording is text, not {type(text).__name__}")
    if len(text) > MAX_BYTES:
        raise _err("", f"too large ({len(text)} characters; the limit is {MAX_BYTES} bytes)")
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
        "final_hash": rec.final_hash,
        "frames": [[c, *v] for c, v in rec.frames],
    }


def _dump(v: Any, indent: int | None = None) -> str:
    # json uses float.__repr__ for floats: the shortest round-trip form.
    return json.dumps(v, ensure_ascii=False, allow_nan=False, indent=indent)


def dumps(rec: Recording) -> str:
    """The recording as JSON text: one header field per line, one frame per line."""
    if not isinstance(rec, Recording):  # a CommonRoad recording writes itself
        from replay import commonroad

        return commonroad.dumps(rec)
    doc = to_document(rec)
    lines = []
    for k in KEYS:
        if k == "frames":
            continue
        value = _dump(doc[k], indent=1 if k in ("definition", "initial") else None)
        value = value.replace("\n", "\n ")
        lines.append(f" {_dump(k)}: {value}")
    frames = ",\n  ".join(_dump(f) for f in doc["frames"])
    lines.append(f' "frames": [\n  {frames}\n ]' if frames else ' "frames": []')
    return "{\n" + ",\n".join(lines) + "\n}\n"


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
