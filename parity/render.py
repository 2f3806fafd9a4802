"""The parity table and reports: the terminal table (runtime x recording, with start-up and
wall times), the problem lines, ``build/parity/report.json`` and ``report.md`` (written
atomically, checked writable before any runtime starts)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from skidpad.parity.runs import RecordingFile, RuntimeRun
from skidpad.parity.verdicts import Cell, Matrix
from skidpad.replay.table import format_table

__all__ = [
    "format_table",
    "markdown_report",
    "preflight_reports",
    "problem_lines",
    "report_document",
    "table_rows",
    "write_reports",
]


_MARK = {
    "match": "ok",
    "mismatch": "MISMATCH",
    "error": "ERROR",
    "no-golden": "no golden",
    "stale-golden": "stale golden",
    "skipped": "-",
    "sampled-out": "(full)",
}


def _cell_text(cell: Cell, wall_s: float | None = None) -> str:
    text = _MARK.get(cell.status, cell.status)
    if cell.status == "mismatch" and cell.first_step is not None:
        text += f" @{cell.first_step}"
    if cell.status not in ("error", "skipped", "sampled-out") and wall_s is not None:
        text += f" {wall_s:.1f}s"
    return text


def table_rows(matrix: Matrix, runs: Sequence[RuntimeRun]) -> list[list[str]]:
    """Header + one row per runtime: startup, math hash, each recording, total replay time,
    the runtime's whole wall time."""
    header = ["runtime", "version", "startup", "math", "fast=readable", *matrix.recordings]
    # what each runtime costs: its replays, and its whole wall time (start-up, self-test,
    # fast-path check and replays) on this machine
    header += ["replay total", "runtime wall"]
    physics = ["physics", "", "", "", "", *(matrix.physics.get(r, "?") for r in matrix.recordings)]
    rows = [header, [*physics, "", ""]]
    by_name = {r.name: r for r in runs}
    for name in matrix.runtimes:
        run = by_name[name]
        if run.status != "ok":
            rows.append(
                [name, run.status.upper(), "-", "-", "-", *("-" for _ in matrix.recordings), "-",
                 f"{run.wall_s:.1f}s"]
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
                _cell_text(matrix.fastpath.get(name, Cell("skipped"))),
                *cells,
                f"{run.replay_s:.1f}s",
                f"{run.wall_s:.1f}s",
            ]
        )
    return rows



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
    for name, cell in matrix.fastpath.items():
        if cell.status not in ("match", "skipped"):
            lines.append(f"{name}: fast path vs readable {_MARK[cell.status]}: {cell.detail}")
    for name, row in matrix.cells.items():
        for rec, cell in row.items():
            if cell.status not in ("match", "skipped", "sampled-out"):
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
        "recordings": [
            {"name": r.name, "path": r.path, "sha256": r.sha256,
             "physics": matrix.physics.get(r.name)}
            for r in recordings
        ],
        "runtimes": [
            {
                **asdict(run),
                "replay_s": run.replay_s,
                "math_verdict": asdict(matrix.math[run.name]),
                "fastpath_verdict": asdict(matrix.fastpath[run.name]),
                "verdicts": {k: asdict(v) for k, v in matrix.cells[run.name].items()},
            }
            for run in runs
        ],
        "problems": problem_lines(matrix, runs),
        "divergences": [asdict(d) for d in matrix.divergences],
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
    for d in matrix.divergences:
        out += ["", f"## {d.title()}", "", "```", *d.lines, "```"]
    for run in runs:
        if run.status == "failed" and run.log:
            out += ["", f"## {run.name} console output (tail)", "", "```", run.log[-20000:], "```"]
    return "\n".join(out) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    from skidpad.replay import output

    output.make_directory(path.parent)
    output.write_text(path, text)


def preflight_reports(report_dir: Path, inputs: Sequence[Path]) -> None:
    """The reports can be written (before any runtime starts); OutputError in one line if not."""
    from skidpad.replay import output

    if report_dir.is_dir():
        output.preflight([report_dir / "report.json", report_dir / "report.md"], inputs)
    else:
        parent = report_dir.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        output.check_directory(parent)


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
