"""The parity harness: every recording in every runtime, compared (docs/architecture.md §5).

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

On a mismatch it then finds where the runs parted (``parity.diagnosis``): the two runtimes
that disagree are traced again and their traces diffed; when no runtime agrees with the golden
file, the reference runtime's trace is diffed with this process's (ADR 0110).

The parts, one module each:

* ``parity.runs``: what is run and what a run produced (``RecordingFile``, ``RuntimeRun``);
* ``parity.harness`` (this module): the orchestration, starting and stopping runtimes;
* ``parity.verdicts``: the comparison, one ``Cell`` per runtime and recording in a ``Matrix``;
* ``parity.diagnosis``: the explanation of a mismatch (traces and their diff);
* ``parity.render``: the table, the problem lines and the report files.

Runtime names: ``cpython3.11``, ``cpython3.12``, ``cpython3.13``, ``node`` (this file's
siblings ``runtimes/cpython.py`` and ``runtimes/node.py``) and ``chromium``, ``firefox``,
``webkit`` (``runtimes/browser.py``, one module each: ``runtimes/chromium.py``,
``runtimes/firefox.py``, ``runtimes/webkit.py``).

Entry points for other modules
------------------------------
``make_runtime(name, wheel=..., pyodide_dir=...) -> Runtime``
    The adapter for a runtime name; raises ``RuntimeUnavailable`` with the install hint.
    Browser adapters come from ``parity.runtimes.browser.make_runtime(name, **kwargs)``
    (and its ``unavailable_reason(name)`` is asked first).
``run_runtime(name, recordings, ...) -> RuntimeRun``
    Start, self-test, replay, stop one runtime; never raises for runtime failures.
``parity.verdicts.compare_runs(runs, recordings, hashes_dir) -> Matrix``
    The verdicts; ``Matrix.ok`` is the overall result.
``parity.diagnosis.diagnose(matrix, runs, recordings, hashes_dir, factory) -> list[Divergence]``
    The diff of the disagreeing pairs (``factory(name) -> Runtime``), and
    ``explain_golden_mismatch`` when no runtime agrees with the golden file.
``run_parity(names, ...) -> int``
    All of it, plus table and reports: what ``skidpad parity`` and the nox sessions call.
    ``factory=`` swaps the adapters (the planted-mismatch tests use an in-process one).
    ``scheduler=`` and ``batch=`` run the runtimes' tasks on dask.distributed
    (``parity.executor``, ADR 0145); without them, a local pool as always.
A new adapter needs only ``start``/``run``/``stop`` of ``parity.runtimes.base.Runtime`` and
a branch in ``make_runtime``.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.parity import archived
from skidpad.parity.diagnosis import diagnose, fill_code_from_wheel
from skidpad.parity.render import (
    format_table,
    preflight_reports,
    problem_lines,
    table_rows,
    write_reports,
)
from skidpad.parity.runs import (
    REQUEST_TIMEOUT_S,
    START_TIMEOUT_S,
    HarnessError,
    Progress,
    RecordingFile,
    RuntimeFactory,
    RuntimeRun,
    load_recordings,
    stderr_progress,
)
from skidpad.parity.runtimes import browser
from skidpad.parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable
from skidpad.parity.verdicts import compare_runs, fastpath_cell

CPYTHON_RUNTIMES = ("cpython3.11", "cpython3.12", "cpython3.13")
BROWSER_RUNTIMES = browser.RUNTIME_NAMES
RUNTIME_NAMES = (*CPYTHON_RUNTIMES, "node", *BROWSER_RUNTIMES)


# ---------------------------------------------------------------------------- runtimes


def make_runtime(name: str, wheel: Path | None = None, pyodide_dir: Path | None = None) -> Runtime:
    """The adapter for runtime ``name``; RuntimeUnavailable if it cannot run here."""
    if name in CPYTHON_RUNTIMES:
        from skidpad.parity.runtimes.cpython import CPythonRuntime

        return CPythonRuntime(name.removeprefix("cpython"), wheel=wheel)
    if name == "node":
        from skidpad.parity.runtimes.node import NodeRuntime

        return NodeRuntime(wheel=wheel, pyodide_dir=pyodide_dir)
    if name in BROWSER_RUNTIMES:
        reason = browser.unavailable_reason(name)
        if reason:
            raise RuntimeUnavailable(f"{name}: {reason}")
        kwargs: dict[str, Any] = {"wheel": wheel}
        if pyodide_dir is not None:
            kwargs["pyodide_dir"] = pyodide_dir
        return browser.make_runtime(name, **kwargs)
    raise HarnessError(f"unknown runtime {name!r}; known: {', '.join(RUNTIME_NAMES)}")


def _no_tick() -> None:
    """Default for ``tick``: nobody counts the units of work done."""


def run_runtime(
    name: str,
    recordings: Sequence[RecordingFile],
    *,
    wheel: Path | None = None,
    pyodide_dir: Path | None = None,
    checkpoint_every: int = 100,
    start_timeout_s: float = START_TIMEOUT_S,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    progress: Progress = stderr_progress,
    factory: RuntimeFactory | None = None,
    tick: Callable[[], None] = _no_tick,
    selftest: bool = True,
    fastpath: bool | None = None,
) -> RuntimeRun:
    """Start ``name``, run its self-test and every recording, stop it. Never raises for a
    runtime that is unavailable or fails: the returned run says what happened. Recordings
    of the same bytes asked of the same physics are replayed once; the others take that
    result, marked ``same_as``.
    ``factory(name)`` replaces ``make_runtime`` (tests plant a perturbed runtime with it).
    ``tick()`` is called after the self-test and after each recording (a progress count).
    Without ``selftest`` the math hash is not computed (a batch whose runtime another task
    self-tests). ``fastpath`` (default: as ``selftest``) asks for the fast-path check too,
    the self-test's costly half (seconds in Pyodide); a caller proving something else of
    the runtime (the network proofs) leaves it to the parity matrix."""
    run = RuntimeRun(name)
    began = time.perf_counter()
    runtime: Runtime | None = None
    try:
        progress(f"[{name}] starting")
        if factory is None:
            runtime = make_runtime(name, wheel=wheel, pyodide_dir=pyodide_dir)
        else:
            runtime = factory(name)
        run.info = dict(runtime.start(timeout_s=start_timeout_s))
        progress(
            f"[{name}] ready in {run.info.get('startup_s', 0.0):.2f} s ({run.info.get('version')}"
            + (f"; {run.info['source']})" if run.info.get("source") else ")")
        )
        response = runtime.run(
            {"selftest": selftest, "fastpath": selftest if fastpath is None else fastpath,
             "recordings": []},
            timeout_s=request_timeout_s,
        )
        run.math_hash = response.get("math_hash")
        run.math_error = response.get("math_error")
        run.fastpath = response.get("fastpath")
        run.info.setdefault("python", response.get("python"))
        run.info.setdefault("platform", response.get("platform"))
        run.info.setdefault("code_hash", response.get("code_hash"))
        if selftest:
            progress(f"[{name}] math hash {run.math_hash or 'ERROR: ' + str(run.math_error)}")
            progress(f"[{name}] fast path vs readable: {fastpath_cell(run).detail}")
            tick()
        # (sha256, physics) -> the recording of those bytes already run under that physics
        replayed: dict[tuple[str, int | None], str] = {}
        for i, rec in enumerate(recordings, 1):
            job = (rec.sha256, archived.archived_version(rec))
            if job in replayed:  # the same bytes under the same physics: replay once
                first = replayed[job]
                shared = {**run.recordings[first], "wall_s": 0.0, "same_as": first}
                run.recordings[rec.name] = shared
                progress(f"[{name}] {rec.name}: the same bytes as {first}: its result")
                tick()
                continue
            replayed[job] = rec.name
            progress(f"[{name}] {rec.name} ({i}/{len(recordings)})")
            request = {
                "selftest": False,
                "recordings": [archived.request_item(rec)],
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
            tick()
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

# ------------------------------------------------------------------------------ main


def _validate_recordings(recordings: Sequence[RecordingFile]) -> None:
    """Load every recording here first: a bad file is bad input (one line, exit 2), found
    before any runtime starts, never a row of per-runtime errors."""
    from skidpad.replay.recording import loads

    for rec in recordings:
        try:
            loads(rec.text)
        except SkidpadError as exc:
            raise HarnessError(f"recording {rec.path}: {exc}") from None


def _all_installed(names: Sequence[str]) -> bool:
    """True when every runtime asked for runs the installed package (no wheel needed)."""
    from skidpad.parity.runtimes.cpython import installed_harness

    here = f"cpython{sys.version_info[0]}.{sys.version_info[1]}"
    return installed_harness() and all(n == here for n in names)


def _quiet(_message: str) -> None:
    """Progress of a task on a cluster: its lines would print on the worker, not here."""


def _batches(recordings: Sequence[RecordingFile], batch: int | None) -> list[list[RecordingFile]]:
    """The recordings in tasks of ``batch`` (all in one when None); always one task at least."""
    items = list(recordings)
    if batch is None or not items:
        return [items]
    return [items[i : i + batch] for i in range(0, len(items), batch)]


def _merge_runs(name: str, parts: Sequence[RuntimeRun]) -> RuntimeRun:
    """One runtime's run from its tasks: the first task's start-up and self-test, every task's
    recordings, the sum of their wall times, and the first failure (as a failure mid-way)."""
    first = parts[0]
    run = RuntimeRun(
        name,
        info=dict(first.info),
        math_hash=first.math_hash,
        math_error=first.math_error,
        fastpath=first.fastpath,
    )
    for part in parts:
        run.recordings.update(part.recordings)
        run.wall_s += part.wall_s
        if part.status != "ok" and run.status == "ok":
            run.status, run.error, run.log = part.status, part.error, part.log
    return run


def _run_runtimes(
    names: Sequence[str],
    recordings: Sequence[RecordingFile],
    factory: RuntimeFactory,
    scheduler: str | None,
    jobs: int,
    progress: Progress,
    counter: Any,
    batch: int | None = None,
    plan: dict[str, list[RecordingFile]] | None = None,
    **options: Any,
) -> list[RuntimeRun]:
    """One task per runtime and batch of recordings, on the executor; one run per runtime, in
    the order of ``names``. The first batch of each runtime also runs its self-test.
    ``plan[name]`` (the sample, ``parity.sampling``) replaces ``recordings`` for a runtime.

    Runtimes are separate processes (interpreters, Node, browsers), so with ``jobs`` > 1 they
    share the machine's cores and the table's wall times are those of a shared machine. A task
    on a cluster cannot print here: its progress counts when it finishes, once, even when dask
    re-ran it after a worker died."""
    from skidpad.parity.executor import make_executor

    remote = scheduler is not None
    tick = _no_tick if counter is None or remote else counter.advance
    shares = plan or {}
    batches = {name: _batches(shares.get(name, recordings), batch) for name in names}
    cells = [(name, b) for name in names for b in range(len(batches[name]))]
    tasks = [
        functools.partial(
            run_runtime,
            name,
            batches[name][b],
            factory=factory,
            progress=_quiet if remote else progress,
            tick=tick,
            selftest=b == 0,
            **options,
        )
        for name, b in cells
    ]

    def lost(i: int, exc: BaseException) -> RuntimeRun:
        name = cells[i][0]
        error = f"{name}: the task did not finish on the cluster ({type(exc).__name__}: {exc})"
        return RuntimeRun(name, status="failed", error=error)

    executor = make_executor(scheduler, jobs)
    parts: dict[tuple[str, int], RuntimeRun] = {}
    try:
        if remote:
            progress(f"[parity] running on {executor.description}")
        for i, run in executor.run(tasks, lost):
            name, b = cells[i]
            parts[name, b] = run
            if remote:
                total = len(batches[name])
                progress(f"[{name}] task {b + 1}/{total} {run.status} in {run.wall_s:.2f} s")
                if counter is not None:
                    counter.advance(len(batches[name][b]) + (b == 0))
    finally:
        executor.close()
    runs = [_merge_runs(n, [parts[n, b] for b in range(len(batches[n]))]) for n in names]
    for run in runs:
        if run.name in shares:  # the verdicts tell a recording left out from one not run
            run.planned = [r.name for r in shares[run.name]]
    return runs


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
    diff: bool = True,
    out: Callable[[str], None] = print,
    progress: Progress = stderr_progress,
    factory: RuntimeFactory | None = None,
    jobs: int = 1,
    counter: Any = None,
    scheduler: str | None = None,
    batch: int | None = None,
    sample: bool = False,
    fastpath: bool = True,
) -> int:
    """Run ``names``, print the table (or the JSON report), write the reports; 0 if all ok.

    ``jobs`` runtimes run at the same time (each is its own process; the default runs them
    one after the other, so wall times are those of an otherwise idle machine). Each runtime
    is one task of ``parity.executor``: a thread here by default, or a task on a dask cluster
    with ``scheduler`` ("local": a LocalCluster of ``jobs`` workers; "tcp://HOST:PORT": an
    existing one; ADR 0145). ``batch`` recordings go to one task (default: all of a
    runtime's), so a cluster can spread one runtime's recordings over several workers. The
    report is the same either way.

    With ``diff`` (the default), recordings on which the runtimes disagree are re-run with
    tracing in the two runtimes that disagree and the §10 diff is printed (at most three).
    ``factory(name)`` replaces ``make_runtime`` (tests use it to plant a perturbed runtime).
    ``counter`` (a ``replay.progress.Progress``) counts the self-tests and recordings run.
    With ``sample`` each runtime replays its share of the stated sample (``parity.sampling``,
    ADR 0243: every recording in the reference runtime); the others' cells are "full only".
    Without ``fastpath`` the self-test leaves out the fast-path check (its cells show
    "skipped"): for callers that ask about something else.
    """
    from skidpad.parity.executor import check_scheduler

    unknown = [n for n in names if n not in RUNTIME_NAMES]
    if unknown:
        raise HarnessError(
            f"unknown runtime(s) {', '.join(unknown)}; known: {', '.join(RUNTIME_NAMES)}"
        )
    check_scheduler(scheduler)
    recordings = [] if selftest_only else load_recordings(recording_paths, root)
    _validate_recordings(recordings)
    report_dir = report_dir or root / "build" / "parity"
    preflight_reports(report_dir, [r.path for r in recordings])
    if factory is None and wheel is None and not _all_installed(names):
        from skidpad.parity.wheel import build_wheel

        wheel = build_wheel(root=root)
    pyodide_dir = root / "node_modules" / "pyodide"
    factory_is_ours = factory is None
    if factory is None:
        factory = functools.partial(
            make_runtime, wheel=wheel, pyodide_dir=pyodide_dir if pyodide_dir.is_dir() else None
        )
    timeouts = {"start_timeout_s": start_timeout_s, "request_timeout_s": request_timeout_s}

    plan = None
    if sample and not selftest_only:
        from skidpad.parity import sampling

        plan = sampling.sample_plan(names, recordings)
        progress(f"[parity] {sampling.describe(plan, len(recordings))}")
    if counter is not None:
        shares = plan or {name: recordings for name in names}
        counter.start(sum(1 + len(shares[name]) for name in names))

    runs = _run_runtimes(
        names,
        recordings,
        factory,
        scheduler,
        jobs,
        progress,
        counter,
        batch=batch,
        plan=plan,
        checkpoint_every=checkpoint_every,
        # None: with the self-test, so in each runtime's first batch only
        fastpath=None if fastpath else False,
        **timeouts,
    )
    if wheel is not None and factory_is_ours:
        fill_code_from_wheel(runs, wheel)
    hashes_dir = hashes_dir or root / "hashes"
    matrix = compare_runs(runs, recordings, hashes_dir, checkpoint_every)
    if diff and not matrix.ok:
        matrix.divergences = diagnose(
            matrix,
            runs,
            recordings,
            hashes_dir,
            factory,
            checkpoint_every=checkpoint_every,
            progress=progress,
            **timeouts,
        )
    if counter is not None:
        counter.close()  # the table starts on a line of its own
    report_path = write_reports(report_dir, matrix, runs, recordings)
    if as_json:
        out(report_path.read_text("utf-8").rstrip("\n"))
    else:
        out(format_table(table_rows(matrix, runs)))
        problems = problem_lines(matrix, runs)
        if not recordings and not selftest_only:
            out("(no recordings found: only the math self-test was compared)")
        for line in problems:
            out(f"  {line}")
        for d in matrix.divergences:
            out(d.title()[0].lower() + d.title()[1:] + ":")
            out("\n".join(f"  {line}" for line in d.lines))
        out(f"parity: {'PASS' if matrix.ok else 'FAIL'} (report: {report_path})")
    return 0 if matrix.ok else 1
