"""The friendly face of Skidpad: the functions of the public API (``skidpad.__all__``).

Each function is a thin, typed wrapper over the internal module that does the work, so a
program needs one import and no knowledge of the package layout. Bad input raises a
:class:`skidpad.SkidpadError` subclass whose message names what is wrong; anything else
escaping is a bug.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import definition as _definition
from skidpad.replay import document as _document
from skidpad.replay import recording as _recording
from skidpad.replay.budget import DEFAULT_BUDGET, from_seconds
from skidpad.replay.diff import DiffReport, diff_recordings
from skidpad.replay.recorder import record_drive
from skidpad.replay.recording import Recording
from skidpad.replay.replayer import ReplayResult
from skidpad.replay.replayer import replay as _replay

__all__ = [
    "diff",
    "load_definition",
    "load_preset",
    "load_recording",
    "preset_names",
    "record",
    "replay",
    "save_recording",
    "verify",
]

#: a definition file larger than this is refused before it is parsed
MAX_DEFINITION_BYTES = 4 * 1024 * 1024

Inputs = Sequence[float | int] | Mapping[str, float | int]


def preset_names() -> tuple[str, ...]:
    """The names of the built-in vehicle presets (``hatchbackFwd``, ``kart``, ...)."""
    return tuple(_definition.PRESET_NAMES)


def load_preset(name: str) -> dict:
    """The validated vehicle definition of the built-in preset ``name``.

    Raises :class:`skidpad.DefinitionError` for an unknown name (the message lists the
    known ones)."""
    return _definition.load_preset(name)


def load_definition(path: str | os.PathLike) -> dict:
    """A vehicle definition read from a JSON file and validated (every field named on error).

    The file is read as strictly as a recording: size-limited, UTF-8, no duplicate keys,
    no NaN or infinity. Raises :class:`skidpad.DefinitionError` or
    :class:`skidpad.RecordingError` (a file that is not JSON) naming the problem."""
    text = _document.read_text(path, MAX_DEFINITION_BYTES)
    data = _document.parse_json(text)
    if not isinstance(data, dict):
        raise DefinitionError(f"{os.fspath(path)}: a vehicle definition is a JSON object")
    return _definition.validate_definition(data)


class _FrameDriver:
    """A driver that plays a fixed list of host-step inputs (what :func:`record` drives)."""

    def __init__(self, frames: list, host_hz: int, track: str | None, drive: str) -> None:
        self.frames = frames
        self.host_hz = host_hz
        self.track = track
        self.drive = drive

    def initial(self) -> dict:
        return {}

    def max_steps(self) -> int:
        return len(self.frames)

    def inputs(self, step: int, telemetry: Any) -> Inputs:
        return self.frames[step]

    def finished(self, step: int, telemetry: Any) -> bool:
        return False


def record(
    car: str | Mapping,
    inputs: Iterable[Inputs],
    *,
    host_hz: int = 100,
    track: str | None = None,
    drive: str = "api",
) -> Recording:
    """Drive ``car`` (a preset name or a definition) with one input per host step.

    Each input is a mapping of channel names (``throttle``, ``brake``, ``steer``, ...; a
    channel left out keeps its default) or a sequence in channel order. The recording
    embeds the definition, the inputs and the final state hash and lap claims, so
    :func:`save_recording` writes a file any Skidpad can verify."""
    preset = car if isinstance(car, str) else None
    definition = load_preset(car) if isinstance(car, str) else _definition.validate_definition(
        dict(car)
    )
    driver = _FrameDriver(list(inputs), host_hz, track, drive)
    rec, _sim = record_drive(definition, driver, preset=preset)
    return rec


def save_recording(rec: Any, path: str | os.PathLike) -> None:
    """Write a recording as JSON, atomically (the file is whole or untouched)."""
    _recording.save(rec, path)


def load_recording(path: str | os.PathLike, max_sim_seconds: float | None = None) -> Any:
    """Read and validate a recording of any format (every field checked before use).

    ``max_sim_seconds`` bounds the simulated time a file may ask for (default: the
    built-in budget). Raises :class:`skidpad.RecordingError` naming the bad field."""
    budget = DEFAULT_BUDGET if max_sim_seconds is None else from_seconds(max_sim_seconds)
    return _recording.load(path, budget)


def replay(rec: Any, checkpoint_every: int = 100) -> ReplayResult:
    """Replay a loaded recording here; the result carries the checkpoint and final hashes."""
    return _replay(rec, checkpoint_every=checkpoint_every)


def verify(path: str | os.PathLike, max_sim_seconds: float = 3600.0) -> dict[str, Any]:
    """Check every claim of the recording at ``path`` by replaying it (``skidpad verify``).

    Returns one report line: ``verdict`` (``"verified"``, ``"MISMATCH"``, ``"nothing
    claimed"``, ``"REFUSED"``, ``"FAILED"``, ``"ERROR"`` or ``"UNKNOWN PHYSICS"``), each
    claim with its own verdict, the physics it was replayed under, the final hash and the
    problems found. Never raises for a bad file: its verdict says so."""
    from skidpad.replay.verify import verify_file

    return verify_file(path, max_sim_seconds)


def diff(a: Any, b: Any, checkpoint_every: int = 100) -> DiffReport:
    """Where two recordings' runs part: the first differing checkpoint, host step,
    substep, state fields and physics stage (``skidpad diff``); ``report.text()`` is the
    text the command prints."""
    return diff_recordings(a, b, checkpoint_every=checkpoint_every)
