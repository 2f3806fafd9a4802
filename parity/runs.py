"""What the parity harness runs and what a run produced: the recordings (``RecordingFile``,
``load_recordings``), one runtime's results (``RuntimeRun``), the time limits and the bad-input
error. The harness (``parity.harness``) fills these; ``parity.verdicts`` judges them,
``parity.diagnosis`` explains a mismatch, ``parity.render`` prints and writes them."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.parity import archived
from skidpad.parity.runtimes.base import Runtime

START_TIMEOUT_S = 240.0  # Pyodide boots in 3-9 s; a loaded 2-core machine can be far slower
REQUEST_TIMEOUT_S = 1800.0  # per recording


class HarnessError(SkidpadError):
    """Bad harness input (unknown runtime, unreadable recording); the message names it."""


@dataclass(frozen=True)
class RecordingFile:
    """One recording to replay: ``name`` is the file stem, which names its golden file."""

    name: str
    path: str
    text: str
    sha256: str


def load_recordings(paths: Sequence[Path] | None, root: Path) -> list[RecordingFile]:
    """The given recording files, or every ``recordings/*.json`` of the checkout, sorted."""
    if paths is None:
        folder = root / "recordings"
        paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
        paths += archived.history_paths(root)  # recordings of earlier physics (ADR 0207)
    files: list[RecordingFile] = []
    seen: dict[str, Path] = {}
    for path in paths:
        path = Path(path)
        try:
            data = path.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise HarnessError(f"recording {path}: cannot read it ({exc})") from None
        if path.stem in seen:
            raise HarnessError(f"recordings {seen[path.stem]} and {path}: same name {path.stem!r}")
        seen[path.stem] = path
        files.append(RecordingFile(path.stem, str(path), text, hashlib.sha256(data).hexdigest()))
    return files



@dataclass
class RuntimeRun:
    """What one runtime produced. ``status``: ok | unavailable | failed."""

    name: str
    status: str = "ok"
    error: str | None = None
    log: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    math_hash: str | None = None
    math_error: str | None = None
    fastpath: dict[str, Any] | None = None  # the worker's fast-vs-readable check (self-test)
    recordings: dict[str, dict[str, Any]] = field(default_factory=dict)
    wall_s: float = 0.0
    #: the recordings this runtime was asked for (the sample, ADR 0243); None: every one
    planned: list[str] | None = None

    @property
    def replay_s(self) -> float:
        return sum(r.get("wall_s", 0.0) for r in self.recordings.values() if "error" not in r)


Progress = Callable[[str], None]
RuntimeFactory = Callable[[str], Runtime]



def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

