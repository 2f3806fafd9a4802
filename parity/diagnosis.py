"""Where the runs parted (docs/architecture.md §2), after a mismatch: for each recording on
which two runtimes disagree (at most three), start those two again, replay the recording with
a hash per substep up to one interval past the first differing checkpoint, then once more with
stage and state detail for the first differing host step, and diff the two traces
(``replay.diff.diff_traces``: step, substep, fields with ulps, stage).

When no runtime agrees with ``hashes/``, the explanation comes from the mismatching runtime's
own run: the reference runtime traces the recording again (same adapter, same wheel), its
checkpoints against the golden file give the window, and its trace against the same trace
made in this process (the working tree) gives the substep, fields and stage. Every
explanation says which code each side ran (``parity.wheel.code_hash``), and when the traces
agree it says why they cannot explain the mismatch; it never says "identical" under a
mismatch (ADR 0110)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skidpad.engine.errors import SkidpadError
from skidpad.parity import archived
from skidpad.parity.runs import (
    REQUEST_TIMEOUT_S,
    START_TIMEOUT_S,
    Progress,
    RecordingFile,
    RuntimeFactory,
    RuntimeRun,
    stderr_progress,
)
from skidpad.parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable
from skidpad.parity.verdicts import Matrix, first_difference, golden_result

if TYPE_CHECKING:
    from skidpad.parity.wheel import RunningCode
    from skidpad.replay.diff import DiffReport


@dataclass
class Divergence:
    """Where two runs of one recording parted (docs/architecture.md §2), from ``replay.diff``."""

    recording: str
    a: str
    b: str
    lines: list[str]
    report: dict[str, Any] | None = None

    def title(self) -> str:
        other = "the golden hashes" if self.b == "golden" else self.b
        return f"Where {self.a} and {other} parted on {self.recording}"


def disagreeing_pairs(matrix: Matrix, runs: Sequence[RuntimeRun]) -> list[tuple[str, str, str]]:
    """(recording, reference runtime, first runtime that disagrees with it) per recording; or
    (recording, runtime, "golden") when every runtime agrees but the golden file does not."""
    usable = [r for r in runs if r.status == "ok"]
    pairs = []
    for rec in matrix.recordings:
        results = [(r, r.recordings.get(rec)) for r in usable]
        results = [(r, res) for r, res in results if res is not None and "error" not in res]
        if not results:
            continue
        ref_run, ref = results[0]
        other = next((r for r, res in results[1:] if first_difference(ref, res)[1]), None)
        if other is not None:
            pairs.append((rec, ref_run.name, other.name))
        elif matrix.cells[ref_run.name][rec].status == "mismatch":
            pairs.append((rec, ref_run.name, "golden"))
    return pairs


TraceRequest = Callable[[dict[str, Any]], dict[str, Any]]

#: the first line of the explanation when every runtime agrees but ``hashes/`` does not
AGREE_LINE = (
    "every runtime agrees; they differ from the golden hashes: "
    "the physics changed since the last bless, or the wheel is not this checkout"
)


def _trace_with(
    run_request: TraceRequest, who: str, rec: RecordingFile, every: int, trace: dict
) -> dict:
    from skidpad.replay.trace import load_trace_document

    request = {
        "selftest": False,
        "recordings": [{"name": rec.name, "text": rec.text}],
        "checkpoint_every": every,
        "trace": trace,
    }
    result = run_request(request)["recordings"][rec.name]
    if "error" in result:
        raise RuntimeFailed(who, f"tracing {rec.name}: {result['error']}")
    # through the trace file reader, exactly as `skidpad diff` reads a trace from disk
    return load_trace_document(json.dumps(result["trace"]), f"{who} trace of {rec.name}")


def _trace_in(
    runtime: Runtime, rec: RecordingFile, every: int, trace: dict, timeout_s: float
) -> dict:
    def run_request(request: dict[str, Any]) -> dict[str, Any]:
        return runtime.run(request, timeout_s=timeout_s)

    return _trace_with(run_request, runtime.name, rec, every, trace)


def _trace_here(rec: RecordingFile, every: int, trace: dict) -> dict:
    """The same trace in this process, from the code it imports: the reference trace."""
    from skidpad.parity.worker import run_request

    return _trace_with(run_request, "this process", rec, every, trace)


def _traced_diff(
    trace_a: Callable[[dict], dict],
    trace_b: Callable[[dict], dict],
    labels: tuple[str, str],
    stop: int | None,
    progress: Progress,
    rec_name: str,
) -> tuple[DiffReport, list[dict]]:
    """Trace both sides up to ``stop`` with a hash per substep and diff them; when a substep
    differs, trace that one host step again with stage and state detail and diff again."""
    from skidpad.replay.diff import diff_traces

    trace: dict[str, Any] = {"stop_after": stop, "detail_steps": None}
    docs = [trace_a(trace), trace_b(trace)]
    report = diff_traces(docs[0], docs[1], *labels)
    if report.step is not None and not report.fields:
        k = report.step
        progress(f"[diff] {rec_name}: first differing substep in host step {k}; detail pass")
        trace = {"stop_after": stop, "detail_steps": [k, k + 1]}
        docs = [trace_a(trace), trace_b(trace)]
        report = diff_traces(docs[0], docs[1], *labels)
    return report, docs


def _code_of(run: RuntimeRun | None, name: str) -> str:
    """ "node ran code 1a2b... (wheel skidpad-....whl)": which project code a runtime ran."""
    info = run.info if run is not None else {}
    text = f"{name} ran code {info.get('code_hash') or 'of unknown content hash'}"
    notes = [info[k] for k in ("source", "code_hash_from") if info.get(k)]
    return text + (f" ({'; '.join(notes)})" if notes else "")


def fill_code_from_wheel(runs: Sequence[RuntimeRun], wheel: Path) -> None:
    """A worker from before ``code_hash`` does not report its code: name the wheel's instead,
    and say where that hash comes from."""
    from skidpad.parity.wheel import wheel_code_hash

    silent = [r for r in runs if r.status == "ok" and not r.info.get("code_hash")]
    if not silent:
        return
    try:
        code = wheel_code_hash(wheel)
    except (OSError, zipfile.BadZipFile):
        return
    for run in silent:
        run.info["code_hash"] = code
        run.info["code_hash_from"] = "hash read from the wheel file: the runtime does not report it"


def _pair_code_line(runs: Sequence[RuntimeRun | None], names: tuple[str, str]) -> str:
    hashes = [r.info.get("code_hash") if r is not None else None for r in runs]
    if hashes[0] is not None and hashes[0] == hashes[1]:
        return f"{names[0]} and {names[1]} ran the same code {hashes[0]}"
    return "; ".join(_code_of(r, n) for r, n in zip(runs, names, strict=True))


def diagnose_pair(
    rec: RecordingFile,
    names: tuple[str, str],
    first_step: int | None,
    factory: RuntimeFactory,
    checkpoint_every: int = 100,
    start_timeout_s: float = START_TIMEOUT_S,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    progress: Progress = stderr_progress,
    runs: Sequence[RuntimeRun | None] = (None, None),
) -> Divergence:
    """Re-run ``rec`` with tracing in both runtimes and diff the traces: a pass with a hash per
    substep up to the first differing checkpoint finds the substep, a second pass with stage
    and state detail for that one host step names the fields and the stage. ``runs`` (the two
    runtimes' first runs) say which code each ran."""
    runtimes: list[Runtime] = []
    head = [_pair_code_line(runs, names)]
    try:
        for name in names:
            progress(f"[diff] starting {name} to trace {rec.name}")
            runtime = factory(name)
            runtimes.append(runtime)
            runtime.start(timeout_s=start_timeout_s)
        # one interval past the first differing checkpoint, so the trace still has it as a
        # checkpoint (not as its final state) and the diff reports it as such
        stop = None if first_step is None else first_step + checkpoint_every
        a, b = runtimes
        report, _ = _traced_diff(
            lambda t: _trace_in(a, rec, checkpoint_every, t, request_timeout_s),
            lambda t: _trace_in(b, rec, checkpoint_every, t, request_timeout_s),
            names,
            stop,
            progress,
            rec.name,
        )
    except (RuntimeFailed, RuntimeUnavailable) as exc:
        return Divergence(rec.name, names[0], names[1], [*head, f"diff failed: {exc}"])
    finally:
        for runtime in runtimes:
            runtime.stop()
    if report.identical:  # never "identical" under a mismatch: say what did not reproduce
        until = "the end" if stop is None else f"step {stop}"
        lines = [
            *head,
            f"not reproduced: the traced re-runs of {names[0]} and {names[1]} agree on every "
            f"checkpoint and substep hash up to {until}, but their first runs differed "
            f"(at step {first_step}): one of them did not compute the same twice",
        ]
        document = {**report.to_json(), "explained": False}
        return Divergence(rec.name, names[0], names[1], lines, document)
    document = {**report.to_json(), "explained": True}
    return Divergence(rec.name, names[0], names[1], head + report.lines(), document)


def _vs_golden(doc: dict, golden_doc: dict) -> tuple[int | None, int | None]:
    """(last equal, first differing checkpoint step) of a trace against the golden file; a
    trace that ran to the end and differs only in its final hash differs at its last step."""
    from skidpad.replay.diff import first_differing_checkpoint

    golden_points = [(int(s), str(h)) for s, h in golden_doc["checkpoints"]]
    eq, first = first_differing_checkpoint(doc["checkpoints"], golden_points)
    ran_to_the_end = doc["steps"] == golden_doc["steps"]
    if first is None and ran_to_the_end and doc["final"] != golden_doc["final"]:
        first = doc["steps"]
    return eq, first


def _not_explained(
    run: RuntimeRun, here: RunningCode, rec: RecordingFile, golden_doc: dict, steps: int
) -> list[str]:
    """Why a reference trace equal to the runtime's cannot explain the golden mismatch."""
    theirs = run.info.get("code_hash")
    lines = [
        f"not explained by a reference trace: {run.name}'s trace and this process's agree on "
        f"every checkpoint and substep hash up to step {steps}, and both differ from the "
        "golden hashes"
    ]
    if golden_doc.get("recording_sha256") != rec.sha256:
        lines.append("the recording file changed since it was blessed (sha256 differs)")
    if theirs is not None and theirs != here.hash:
        lines.append(
            f"this process runs {here.describe()}, the runtime ran code {theirs}: they differ, "
            "but not on this recording; the golden file is stale (blessed from other physics)"
        )
    else:
        lines.append(
            f"both ran the same code ({here.hash}): the golden file is stale (blessed from other "
            "physics); bless deliberately if the change is intended"
        )
    return lines


def _window_line(
    name: str, eq: int | None, first: int | None, first_step: int | None, traced: int
) -> str:
    """Where the runtime's traced re-run parted from the golden checkpoints."""
    if first is None:
        return (
            f"not reproduced: {name}'s traced re-run agrees with the golden checkpoints up to "
            f"step {traced}, but its first run differed (at step {first_step}): {name} did not "
            "compute the same twice"
        )
    return (
        f"{name} vs golden: first differing checkpoint: step {first} (equal at step {eq}): "
        f"they parted in host steps {eq or 0}..{first - 1}"
    )


def _reference_line(ref_first: int | None, traced: int) -> str:
    """What the reference trace stands for: the blessed physics, or only this process's code."""
    if ref_first is None:
        return (
            f"this process agrees with the golden checkpoints up to step {traced}: "
            "the reference trace is the blessed physics"
        )
    return (
        f"this process differs from the golden hashes too (first at step {ref_first}): "
        "the reference trace is this process's code, not the blessed physics"
    )


def explain_golden_mismatch(
    rec: RecordingFile,
    run: RuntimeRun,
    golden_doc: dict,
    first_step: int | None,
    factory: RuntimeFactory,
    headline: str | None = None,
    checkpoint_every: int = 100,
    start_timeout_s: float = START_TIMEOUT_S,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    progress: Progress = stderr_progress,
) -> Divergence:
    """Why ``run`` differs from the golden file, computed from that runtime's own run: trace the
    recording in it again (the same factory, so the same wheel), find the window against the
    golden checkpoints, and diff that trace with the same trace made in this process (the
    reference) for the substep, fields and stage. Says which code each side ran, and when
    the two traces agree, that the mismatch is not explained by them and why."""
    from skidpad.parity.wheel import running_code

    here = running_code()
    head = [headline] if headline else []
    head.append(f"{_code_of(run, run.name)}; this process runs {here.describe()}")
    stop = None if first_step is None else first_step + checkpoint_every
    runtime: Runtime | None = None
    try:
        progress(f"[diff] starting {run.name} to trace {rec.name} against the golden hashes")
        runtime = factory(run.name)
        runtime.start(timeout_s=start_timeout_s)
        started = runtime
        report, (theirs, mine) = _traced_diff(
            lambda t: _trace_in(started, rec, checkpoint_every, t, request_timeout_s),
            lambda t: _trace_here(rec, checkpoint_every, t),
            (run.name, f"this process ({here.kind})"),
            stop,
            progress,
            rec.name,
        )
    except (RuntimeFailed, RuntimeUnavailable) as exc:
        return Divergence(rec.name, run.name, "golden", [*head, f"diff failed: {exc}"])
    finally:
        if runtime is not None:
            runtime.stop()
    eq, first = _vs_golden(theirs, golden_doc)
    _, ref_first = _vs_golden(mine, golden_doc)
    lines = [*head, _window_line(run.name, eq, first, first_step, theirs["steps"])]
    explained = first is not None and not report.identical
    if report.identical:
        if first is not None:
            lines += _not_explained(run, here, rec, golden_doc, theirs["steps"])
    else:
        lines += [_reference_line(ref_first, mine["steps"]), *report.lines()]
    document = {
        "runtime": run.name,
        "runtime_code": run.info.get("code_hash"),
        "reference": here.describe(),
        "reference_code": here.hash,
        "equal_checkpoint": eq,
        "differing_checkpoint": first,
        "reference_differing_checkpoint": ref_first,
        "explained": explained,
        "diff": report.to_json(),
    }
    return Divergence(rec.name, run.name, "golden", lines, document)


def _usable_golden(hashes_dir: Path, name: str, checkpoint_every: int) -> dict | None:
    """The golden file of ``name`` when its checkpoints can be compared with this run's."""
    from skidpad.replay import golden

    try:
        doc = golden.read_golden(Path(hashes_dir) / f"{name}.json")
    except SkidpadError:  # already reported among the problems
        return None
    if doc is None or doc.get("checkpoint_every") != checkpoint_every:
        return None
    return doc


def _golden_headline(names: Sequence[str]) -> str:
    if len(names) > 1:
        return AGREE_LINE
    return (
        f"{names[0]} (the only runtime run) differs from the golden hashes: "
        "the physics changed since the last bless, or the wheel is not this checkout"
    )


def diagnose(
    matrix: Matrix,
    runs: Sequence[RuntimeRun],
    recordings: Sequence[RecordingFile],
    hashes_dir: Path,
    factory: RuntimeFactory,
    max_recordings: int = 3,
    **options: Any,
) -> list[Divergence]:
    """The mismatch diff for the first ``max_recordings`` recordings whose runs disagree: the two
    runtimes that disagree, traced; and when no runtime agrees with the golden file, the
    reference runtime's own trace against it."""
    by_name = {r.name: r for r in recordings}
    by_run = {r.name: r for r in runs}
    every = options.get("checkpoint_every", 100)
    found = []
    pairs = [p for p in disagreeing_pairs(matrix, runs) if not archived.is_archived(by_name[p[0]])]
    for rec_name, a, b in pairs[:max_recordings]:
        rec = by_name[rec_name]
        if b != "golden":
            pair = (by_run[a], by_run[b])
            step, _ = first_difference(pair[0].recordings[rec_name], pair[1].recordings[rec_name])
            found.append(diagnose_pair(rec, (a, b), step, factory, runs=pair, **options))
        golden_doc = _usable_golden(hashes_dir, rec_name, every)
        if golden_doc is None:
            continue
        blessed = golden_result(golden_doc)
        verdicts = {
            run.name: first_difference(run.recordings[rec_name], blessed)
            for run in runs
            if run.status == "ok" and "error" not in run.recordings.get(rec_name, {"error": ""})
        }
        if any(not why for _, why in verdicts.values()):
            continue  # a runtime agrees with the golden file: the pair diff above explains it
        headline = _golden_headline(list(verdicts)) if b == "golden" else None
        found.append(
            explain_golden_mismatch(
                rec, by_run[a], golden_doc, verdicts[a][0], factory, headline, **options
            )
        )
    return found

