"""The parity harness: every recording in every runtime, compared (DESIGN §9).

For each runtime asked for, the harness starts its adapter once, asks it for the math
self-test hash, then replays each recording in it (one worker request per recording, so
progress and time limits are per recording), and stops it. It then compares

* every runtime's math hash with ``hashes/math.json`` and with the other runtimes', and
* every recording's checkpoint and final hashes with ``hashes/<stem>.json`` and with the
  reference runtime (the first one asked for that produced a result),

prints one table (runtime x recording, with startup and wall times), writes
``build/parity/report.json`` and ``build/parity/report.md`` (atomically), and returns 1 if
anything failed: a mismatch, a runtime that is unavailable or failed, a recording that
errored, or a missing golden file (the hash is printed and the file named, so the lead
can bless it deliberately).

Runtime names: ``cpython3.11``, ``cpython3.12``, ``cpython3.13``, ``node`` (this file's
siblings ``runtimes/cpython.py`` and ``runtimes/node.py``) and ``chromium``, ``firefox``,
``webkit`` (``runtimes/browser.py``, imported lazily: if it is missing those runtimes are
"unavailable").

Entry points for other modules
------------------------------
``make_runtime(name, wheel=..., pyodide_dir=...) -> Runtime``
    The adapter for a runtime name; raises ``RuntimeUnavailable`` with the install hint.
    Browser adapters come from ``parity.runtimes.browser.make_runtime(name, **kwargs)``
    (and its ``unavailable_reason(name)``, if present, is asked first).
``run_runtime(name, recordings, ...) -> RuntimeRun``
    Start, self-test, replay, stop one runtime; never raises for runtime failures.
``compare_runs(runs, recordings, hashes_dir) -> Matrix``
    The verdicts; ``Matrix.ok`` is the overall result.
``run_parity(names, ...) -> int``
    All of it, plus table and reports: what ``skidpad parity`` and the nox sessions call.
A new adapter needs only ``start``/``run``/``stop`` of ``parity.runtimes.base.Runtime`` and
a branch in ``make_runtime``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import SkidpadError
from parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable

CPYTHON_RUNTIMES = ("cpython3.11", "cpython3.12", "cpython3.13")
BROWSER_RUNTIMES = ("chromium", "firefox", "webkit")
RUNTIME_NAMES = (*CPYTHON_RUNTIMES, "node", *BROWSER_RUNTIMES)

START_TIMEOUT_S = 240.0  # Pyodide boots in 3-9 s; a loaded 2-core machine can be far slower
REQUEST_TIMEOUT_S = 1800.0  # per recording


class HarnessError(SkidpadError):
    """Bad harness input (unknown runtime, unreadable recording); the message names it."""


# ---------------------------------------------------------------------------- runtimes


def make_runtime(name: str, wheel: Path | None = None, pyodide_dir: Path | None = None) -> Runtime:
    """The adapter for runtime ``name``; RuntimeUnavailable if it cannot run here."""
    if name in CPYTHON_RUNTIMES:
        from parity.runtimes.cpython import CPythonRuntime

        return CPythonRuntime(name.removeprefix("cpython"), wheel=wheel)
    if name == "node":
        from parity.runtimes.node import NodeRuntime

        return NodeRuntime(wheel=wheel, pyodide_dir=pyodide_dir)
    if name in BROWSER_RUNTIMES:
        try:
            from parity.runtimes import browser
        except ImportError as exc:
            raise RuntimeUnavailable(f"{name}: browser adapters not available ({exc})") from exc
        reason = getattr(browser, "unavailable_reason", lambda _name: None)(name)
        if reason:
            raise RuntimeUnavailable(f"{name}: {reason}")
        kwargs: dict[str, Any] = {"wheel": wheel}
        if pyodide_dir is not None:
            kwargs["pyodide_dir"] = pyodide_dir
        return browser.make_runtime(name, **kwargs)
    raise HarnessError(f"unknown runtime {name!r}; known: {', '.join(RUNTIME_NAMES)}")


# -------------------------------------------------------------------------- recordings


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


# -------------------------------------------------------------------------------- runs


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
    recordings: dict[str, dict[str, Any]] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def replay_s(self) -> float:
        return sum(r.get("wall_s", 0.0) for r in self.recordings.values() if "error" not in r)


Progress = Callable[[str], None]


def _stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_runtime(
    name: str,
    recordings: Sequence[RecordingFile],
    *,
    wheel: Path | None = None,
    pyodide_dir: Path | None = None,
    checkpoint_every: int = 100,
    start_timeout_s: float = START_TIMEOUT_S,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    progress: Progress = _stderr_progress,
) -> RuntimeRun:
    """Start ``name``, run its self-test and every recording, stop it. Never raises for a
    runtime that is unavailable or fails: the returned run says what happened."""
    run = RuntimeRun(name)
    began = time.perf_counter()
    runtime: Runtime | None = None
    try:
        progress(f"[{name}] starting")
        runtime = make_runtime(name, wheel=wheel, pyodide_dir=pyodide_dir)
        run.info = dict(runtime.start(timeout_s=start_timeout_s))
        progress(
            f"[{name}] ready in {run.info.get('startup_s', 0.0):.2f} s ({run.info.get('version')}"
            + (f"; {run.info['source']})" if run.info.get("source") else ")")
        )
        response = runtime.run({"selftest": True, "recordings": []}, timeout_s=request_timeout_s)
        run.math_hash = response.get("math_hash")
        run.math_error = response.get("math_error")
        run.info.setdefault("python", response.get("python"))
        run.info.setdefault("platform", response.get("platform"))
        progress(f"[{name}] math hash {run.math_hash or 'ERROR: ' + str(run.math_error)}")
        for i, rec in enumerate(recordings, 1):
            progress(f"[{name}] {rec.name} ({i}/{len(recordings)})")
            request = {
                "selftest": False,
                "recordings": [{"name": rec.name, "text": rec.text}],
                "checkpoint_every": checkpoint_every,
            }
            response = runtime.run(request, timeout_s=request_timeout_s)
            result = response.get("recordings", {}).get(rec.name)
            if not isinstance(result, dict):
                result = {"error": "the runtime returned no result for this recording"}
            run.recordings[rec.name] = result
            if "error" in result:
                progress(f"[{name}] {rec.name}: ERROR {result['error']}")
            else:
                wall = result.get("wall_s", 0.0)
                progress(f"[{name}] {rec.name}: final {result.get('final')} in {wall:.2f} s")
    except RuntimeUnavailable as exc:
        run.status, run.error = "unavailable", str(exc)
        progress(f"[{name}] unavailable: {exc}")
    except RuntimeFailed as exc:
        run.status, run.error, run.log = "failed", str(exc), exc.log
        progress(f"[{name}] FAILED: {exc}")
    finally:
        if runtime is not None:
            try:
                runtime.stop()
            except Exception as exc:  # a failing stop must not hide the results
                progress(f"[{name}] stop failed: {exc}")
        run.wall_s = time.perf_counter() - began
    return run


# --------------------------------------------------------------------------- compare


@dataclass
class Cell:
    """One verdict. ``status``: match | mismatch | error | no-golden | stale-golden | skipped."""

    status: str
    detail: str = ""
    first_step: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "match"


@dataclass
class Matrix:
    """Verdicts per runtime: ``math[runtime]`` and ``cells[runtime][recording]``."""

    runtimes: list[str]
    recordings: list[str]
    math_golden: str | None
    math: dict[str, Cell] = field(default_factory=dict)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    runtime_status: dict[str, Cell] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and all(c.ok for c in self.runtime_status.values())
            and all(c.ok for c in self.math.values())
            and all(c.ok for row in self.cells.values() for c in row.values())
        )


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> tuple[int | None, str]:
    """(first differing host step or None, description) between two replay results."""
    mine, theirs = (
        dict(map(tuple, a.get("checkpoints", []))),
        dict(map(tuple, b.get("checkpoints", []))),
    )
    for step in sorted(set(mine) | set(theirs)):
        if mine.get(step) != theirs.get(step):
            return step, f"checkpoint at step {step}: {mine.get(step)} vs {theirs.get(step)}"
    if a.get("steps") != b.get("steps"):
        return None, f"steps {a.get('steps')} vs {b.get('steps')}"
    if a.get("final") != b.get("final"):
        return a.get("steps"), f"final {a.get('final')} vs {b.get('final')}"
    return None, ""


def _golden_result(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "checkpoints": [list(c) for c in doc["checkpoints"]],
        "final": doc["final"],
        "steps": doc["steps"],
    }


def compare_runs(
    runs: Sequence[RuntimeRun],
    recordings: Sequence[RecordingFile],
    hashes_dir: Path,
    checkpoint_every: int = 100,
) -> Matrix:
    """Every runtime against ``hashes/`` and against the reference (first usable) runtime."""
    from replay import golden  # the golden-file format belongs to the replay package

    names = [r.name for r in recordings]
    matrix = Matrix([r.name for r in runs], names, None)
    try:
        matrix.math_golden = golden.read_math(hashes_dir)
    except SkidpadError as exc:
        matrix.problems.append(str(exc))
    goldens: dict[str, dict[str, Any] | None] = {}
    for rec in recordings:
        try:
            goldens[rec.name] = golden.read_golden(Path(hashes_dir) / f"{rec.name}.json")
        except SkidpadError as exc:
            matrix.problems.append(str(exc))
            goldens[rec.name] = None
    usable = [r for r in runs if r.status == "ok"]
    reference = usable[0] if usable else None
    for run in runs:
        matrix.runtime_status[run.name] = (
            Cell("match") if run.status == "ok" else Cell("error", run.error or run.status)
        )
        matrix.math[run.name] = _math_cell(run, matrix.math_golden, reference)
        row: dict[str, Cell] = {}
        for rec in recordings:
            row[rec.name] = _recording_cell(
                run, rec, goldens[rec.name], reference, checkpoint_every
            )
        matrix.cells[run.name] = row
    return matrix


def _math_cell(run: RuntimeRun, golden_hash: str | None, reference: RuntimeRun | None) -> Cell:
    if run.status != "ok":
        return Cell("skipped", run.status)
    if run.math_hash is None:
        return Cell("error", run.math_error or "no math hash")
    if golden_hash is None:
        return Cell("no-golden", f"{run.math_hash}; hashes/math.json is missing")
    if run.math_hash != golden_hash:
        return Cell("mismatch", f"{run.math_hash} != golden {golden_hash}")
    if reference is not None and reference.math_hash not in (None, run.math_hash):
        return Cell("mismatch", f"{run.math_hash} != {reference.name} {reference.math_hash}")
    return Cell("match", run.math_hash)


def _recording_cell(
    run: RuntimeRun,
    rec: RecordingFile,
    golden_doc: dict[str, Any] | None,
    reference: RuntimeRun | None,
    checkpoint_every: int,
) -> Cell:
    if run.status != "ok":
        return Cell("skipped", run.status)
    result = run.recordings.get(rec.name)
    if result is None:
        return Cell("error", "not run")
    if "error" in result:
        return Cell("error", result["error"])
    if golden_doc is None:
        return Cell("no-golden", f"final {result['final']}; hashes/{rec.name}.json is missing")
    if golden_doc.get("checkpoint_every") != checkpoint_every:
        return Cell(
            "stale-golden", f"golden checkpoints every {golden_doc.get('checkpoint_every')}"
        )
    step, why = first_difference(result, _golden_result(golden_doc))
    if why:
        return Cell("mismatch", f"vs golden: {why}", step)
    if golden_doc.get("recording_sha256") != rec.sha256:
        return Cell("stale-golden", "the recording changed since it was blessed (sha256 differs)")
    if reference is not None and reference is not run:
        ref = reference.recordings.get(rec.name)
        if ref is not None and "error" not in ref:
            step, why = first_difference(result, ref)
            if why:
                return Cell("mismatch", f"vs {reference.name}: {why}", step)
    return Cell("match", result["final"])


# ---------------------------------------------------------------------------- report


_MARK = {
    "match": "ok",
    "mismatch": "MISMATCH",
    "error": "ERROR",
    "no-golden": "no golden",
    "stale-golden": "stale golden",
    "skipped": "-",
}


def _cell_text(cell: Cell, wall_s: float | None = None) -> str:
    text = _MARK.get(cell.status, cell.status)
    if cell.status == "mismatch" and cell.first_step is not None:
        text += f" @{cell.first_step}"
    if cell.ok and wall_s is not None:
        text += f" {wall_s:.1f}s"
    return text


def table_rows(matrix: Matrix, runs: Sequence[RuntimeRun]) -> list[list[str]]:
    """Header + one row per runtime: startup, math hash, each recording, total replay time."""
    header = ["runtime", "version", "startup", "math", *matrix.recordings, "replay total"]
    rows = [header]
    by_name = {r.name: r for r in runs}
    for name in matrix.runtimes:
        run = by_name[name]
        if run.status != "ok":
            rows.append(
                [name, run.status.upper(), "-", "-", *("-" for _ in matrix.recordings), "-"]
            )
            continue
        math = matrix.math[name]
        math_text = _cell_text(math) + (f" {run.math_hash}" if run.math_hash else "")
        cells = [
            _cell_text(matrix.cells[name][rec], run.recordings.get(rec, {}).get("wall_s"))
            for rec in matrix.recordings
        ]
        startup = run.info.get("startup_s")
        rows.append(
            [
                name,
                str(run.info.get("version", "?")),
                f"{startup:.2f}s" if isinstance(startup, (int, float)) else "?",
                math_text,
                *cells,
                f"{run.replay_s:.1f}s",
            ]
        )
    return rows


def format_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def problem_lines(matrix: Matrix, runs: Sequence[RuntimeRun]) -> list[str]:
    """Everything that is not ok, one line each, most fundamental first."""
    lines = list(matrix.problems)
    for run in runs:
        if run.status != "ok":  # adapter errors already start with the runtime's name
            error = run.error or run.status
            lines.append(error if error.startswith(run.name + ":") else f"{run.name}: {error}")
    for name, cell in matrix.math.items():
        if cell.status not in ("match", "skipped"):
            lines.append(f"{name}: math self-test {_MARK[cell.status]}: {cell.detail}")
    for name, row in matrix.cells.items():
        for rec, cell in row.items():
            if cell.status not in ("match", "skipped"):
                lines.append(f"{name}: {rec}: {_MARK[cell.status]}: {cell.detail}")
    return lines


def report_document(
    matrix: Matrix, runs: Sequence[RuntimeRun], recordings: Sequence[RecordingFile]
) -> dict:
    return {
        "format": "skidpad-parity-report",
        "version": 1,
        "ok": matrix.ok,
        "math_golden": matrix.math_golden,
        "recordings": [{"name": r.name, "path": r.path, "sha256": r.sha256} for r in recordings],
        "runtimes": [
            {
                **asdict(run),
                "replay_s": run.replay_s,
                "math_verdict": asdict(matrix.math[run.name]),
                "verdicts": {k: asdict(v) for k, v in matrix.cells[run.name].items()},
            }
            for run in runs
        ],
        "problems": problem_lines(matrix, runs),
    }


def markdown_report(matrix: Matrix, runs: Sequence[RuntimeRun]) -> str:
    rows = table_rows(matrix, runs)
    out = ["# Skidpad parity report", "", f"Overall: **{'PASS' if matrix.ok else 'FAIL'}**", ""]
    out.append("| " + " | ".join(rows[0]) + " |")
    out.append("|" + "---|" * len(rows[0]))
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    problems = problem_lines(matrix, runs)
    if problems:
        out += ["", "## Problems", ""] + [f"- {p}" for p in problems]
    for run in runs:
        if run.status == "failed" and run.log:
            out += ["", f"## {run.name} console output (tail)", "", "```", run.log[-20000:], "```"]
    return "\n".join(out) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_reports(
    report_dir: Path,
    matrix: Matrix,
    runs: Sequence[RuntimeRun],
    recordings: Sequence[RecordingFile],
) -> Path:
    """Write ``report.json`` and ``report.md``; return the JSON path."""
    doc = report_document(matrix, runs, recordings)
    _atomic_write(report_dir / "report.json", json.dumps(doc, indent=1) + "\n")
    _atomic_write(report_dir / "report.md", markdown_report(matrix, runs))
    return report_dir / "report.json"


# ------------------------------------------------------------------------------ main


def _all_installed(names: Sequence[str]) -> bool:
    """True when every runtime asked for runs the installed package (no wheel needed)."""
    from parity.runtimes.cpython import installed_harness

    here = f"cpython{sys.version_info[0]}.{sys.version_info[1]}"
    return installed_harness() and all(n == here for n in names)


def run_parity(
    names: Sequence[str],
    *,
    root: Path,
    recording_paths: Sequence[Path] | None = None,
    selftest_only: bool = False,
    wheel: Path | None = None,
    hashes_dir: Path | None = None,
    report_dir: Path | None = None,
    checkpoint_every: int = 100,
    start_timeout_s: float = START_TIMEOUT_S,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    as_json: bool = False,
    out: Callable[[str], None] = print,
    progress: Progress = _stderr_progress,
) -> int:
    """Run ``names``, print the table (or the JSON report), write the reports; 0 if all ok."""
    unknown = [n for n in names if n not in RUNTIME_NAMES]
    if unknown:
        raise HarnessError(
            f"unknown runtime(s) {', '.join(unknown)}; known: {', '.join(RUNTIME_NAMES)}"
        )
    recordings = [] if selftest_only else load_recordings(recording_paths, root)
    if wheel is None and not _all_installed(names):
        from parity.wheel import build_wheel

        wheel = build_wheel(root=root)
    pyodide_dir = root / "node_modules" / "pyodide"
    runs = [
        run_runtime(
            name,
            recordings,
            wheel=wheel,
            pyodide_dir=pyodide_dir if pyodide_dir.is_dir() else None,
            checkpoint_every=checkpoint_every,
            start_timeout_s=start_timeout_s,
            request_timeout_s=request_timeout_s,
            progress=progress,
        )
        for name in names
    ]
    matrix = compare_runs(runs, recordings, hashes_dir or root / "hashes", checkpoint_every)
    report_path = write_reports(report_dir or root / "build" / "parity", matrix, runs, recordings)
    if as_json:
        out(report_path.read_text("utf-8").rstrip("\n"))
    else:
        out(format_table(table_rows(matrix, runs)))
        problems = problem_lines(matrix, runs)
        if not recordings and not selftest_only:
            out("(no recordings found: only the math self-test was compared)")
        for line in problems:
            out(f"  {line}")
        out(f"parity: {'PASS' if matrix.ok else 'FAIL'} (report: {report_path})")
    return 0 if matrix.ok else 1
