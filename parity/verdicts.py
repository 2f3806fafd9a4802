"""The parity verdicts: every runtime's math hash, fast-path check and recording hashes
against ``hashes/`` and against the reference runtime (the first usable one), one ``Cell``
each in a ``Matrix`` (ADR 0028). Pure functions of the runs: nothing here starts a runtime."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.parity import archived
from skidpad.parity.runs import RecordingFile, RuntimeRun


@dataclass
class Cell:
    """One verdict. ``status``: match | mismatch | error | no-golden | stale-golden | skipped
    | sampled-out (not in this runtime's share of the test command's sample, ADR 0243)."""

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
    fastpath: dict[str, Cell] = field(default_factory=dict)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    runtime_status: dict[str, Cell] = field(default_factory=dict)
    #: each recording's physics version (its stamp, or the manifest's for its bytes), as text
    physics: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # filled by ``parity.diagnosis.diagnose`` with its ``Divergence`` records (not imported
    # here: diagnosis builds on these verdicts, so the dependency runs one way)
    divergences: list[Any] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and all(c.ok for c in self.runtime_status.values())
            and all(c.ok for c in self.math.values())
            and all(c.ok or c.status == "skipped" for c in self.fastpath.values())
            and all(c.ok or c.status == "sampled-out" for row in self.cells.values()
                    for c in row.values())
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


def golden_result(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "checkpoints": [list(c) for c in doc["checkpoints"]],
        "final": doc["final"],
        "steps": doc["steps"],
    }


def physics_of_file(rec: RecordingFile) -> str:
    """The physics version the matrix replays ``rec`` under: the archived version it asks
    for (``parity.archived``: a stamp, or the manifest inside ``recordings/history/``), else
    today's (ADR 0205, 0243)."""
    from skidpad.engine.physics import PHYSICS_VERSION

    version = archived.archived_version(rec)
    return str(PHYSICS_VERSION if version is None else version)


def compare_runs(
    runs: Sequence[RuntimeRun],
    recordings: Sequence[RecordingFile],
    hashes_dir: Path,
    checkpoint_every: int = 100,
) -> Matrix:
    """Every runtime against ``hashes/`` and against the reference (first usable) runtime."""
    from skidpad.replay import golden  # the golden-file format belongs to the replay package

    names = [r.name for r in recordings]
    matrix = Matrix([r.name for r in runs], names, None)
    matrix.physics = {r.name: physics_of_file(r) for r in recordings}
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
        matrix.fastpath[run.name] = fastpath_cell(run)
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
    if golden_hash is not None and run.math_hash != golden_hash:
        return Cell("mismatch", f"{run.math_hash} != golden {golden_hash}")
    if reference is not None and reference.math_hash not in (None, run.math_hash):
        return Cell("mismatch", f"{run.math_hash} != {reference.name} {reference.math_hash}")
    if golden_hash is None:
        return Cell("no-golden", f"{run.math_hash}; hashes/math.json is missing")
    return Cell("match", run.math_hash)


def fastpath_cell(run: RuntimeRun) -> Cell:
    """The runtime's fast path against its readable stages (``parity.fastpath_check``)."""
    from skidpad.parity.fastpath_check import describe

    check = run.fastpath
    if run.status != "ok" or check is None:
        return Cell("skipped", run.status if run.status != "ok" else "not run")
    if "error" in check:
        return Cell("error", str(check["error"]))
    presets = check.get("presets", {})
    commonroad = check.get("commonroad", {})
    compared = {**presets, **commonroad}
    parted = {n: r for n, r in compared.items() if r.get("first_difference")}
    if parted or not check.get("ok"):
        text = "; ".join(describe(n, r) for n, r in parted.items()) or "not ok"
        steps = [r["first_difference"].get("host_step") for r in parted.values()]
        return Cell("mismatch", text, min(steps) if steps else None)
    also = f" and {', '.join(commonroad)}" if commonroad else ""
    wall = check.get("wall_s", 0.0)
    return Cell("match", f"identical, {len(presets)} presets{also} in {wall:.1f}s")


def _recording_cell(
    run: RuntimeRun,
    rec: RecordingFile,
    golden_doc: dict[str, Any] | None,
    reference: RuntimeRun | None,
    checkpoint_every: int,
) -> Cell:
    if run.planned is not None and rec.name not in run.planned:
        return Cell("sampled-out", "in the full matrix only (nox -s parity -- --all)")
    if archived.is_archived(rec):  # judged by its own claims under its own physics
        return archived.recording_cell(run, rec, reference, Cell, first_difference)
    if run.status != "ok":
        return Cell("skipped", run.status)
    result = run.recordings.get(rec.name)
    if result is None:
        return Cell("error", "not run")
    if "error" in result:
        return Cell("error", result["error"])
    interval = golden_doc.get("checkpoint_every") if golden_doc is not None else None
    usable_golden = interval == checkpoint_every
    if usable_golden:
        step, why = first_difference(result, golden_result(golden_doc))
        if why:
            return Cell("mismatch", f"vs golden: {why}", step)
    if reference is not None and reference is not run:
        ref = reference.recordings.get(rec.name)
        if ref is not None and "error" not in ref:
            step, why = first_difference(result, ref)
            if why:
                return Cell("mismatch", f"vs {reference.name}: {why}", step)
    if golden_doc is None:
        return Cell("no-golden", f"final {result['final']}; hashes/{rec.name}.json is missing")
    if not usable_golden:
        return Cell("stale-golden", f"golden checkpoints every {interval}, here {checkpoint_every}")
    if golden_doc.get("recording_sha256") != rec.sha256:
        return Cell("stale-golden", "the recording changed since it was blessed (sha256 differs)")
    return Cell("match", result["final"])

