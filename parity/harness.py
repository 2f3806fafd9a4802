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

On a mismatch it then finds where the runs parted (docs/architecture.md §2): for each recording on
which two runtimes disagree (at most three), it starts those two again, replays the
recording with a hash per substep up to one interval past the first differing checkpoint,
then once more with stage and state detail for the first differing host step, and prints
``replay.diff.diff_traces`` of the two traces (step, substep, fields with ulps, stage).
When no runtime agrees with ``hashes/`` (every runtime agrees with the others, or none
does), the explanation comes from the mismatching runtime's own run: the reference runtime
traces the recording again (same adapter, same wheel), its checkpoints against the golden
file give the window, and its trace against the same trace made in this process (the
working tree) gives the substep, fields and stage. Every explanation says which code each
side ran (``parity.wheel.code_hash``, reported by the worker from inside the runtime), and
when the traces agree it says why they cannot explain the mismatch; it never says
"identical" under a mismatch (ADR 0110).

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
``compare_runs(runs, recordings, hashes_dir) -> Matrix``
    The verdicts; ``Matrix.ok`` is the overall result.
``diagnose(matrix, runs, recordings, hashes_dir, factory) -> list[Divergence]``
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
import hashlib
import json
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skidpad.engine.errors import SkidpadError
from skidpad.parity import archived
from skidpad.parity.runtimes import browser
from skidpad.parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable

if TYPE_CHECKING:
    from skidpad.parity.wheel import RunningCode
    from skidpad.replay.diff import DiffReport

CPYTHON_RUNTIMES = ("cpython3.11", "cpython3.12", "cpython3.13")
BROWSER_RUNTIMES = browser.RUNTIME_NAMES
RUNTIME_NAMES = (*CPYTHON_RUNTIMES, "node", *BROWSER_RUNTIMES)

START_TIMEOUT_S = 240.0  # Pyodide boots in 3-9 s; a loaded 2-core machine can be far slower
REQUEST_TIMEOUT_S = 1800.0  # per recording


class HarnessError(SkidpadError):
    """Bad harness input (unknown runtime, unreadable recording); the message names it."""


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
    fastpath: dict[str, Any] | None = None  # the worker's fast-vs-readable check (self-test)
    recordings: dict[str, dict[str, Any]] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def replay_s(self) -> float:
        return sum(r.get("wall_s", 0.0) for r in self.recordings.values() if "error" not in r)


Progress = Callable[[str], None]
RuntimeFactory = Callable[[str], Runtime]


def _stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


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
    progress: Progress = _stderr_progress,
    factory: RuntimeFactory | None = None,
    tick: Callable[[], None] = _no_tick,
    selftest: bool = True,
) -> RuntimeRun:
    """Start ``name``, run its self-test and every recording, stop it. Never raises for a
    runtime that is unavailable or fails: the returned run says what happened.
    ``factory(name)`` replaces ``make_runtime`` (tests plant a perturbed runtime with it).
    ``tick()`` is called after the self-test and after each recording (a progress count).
    Without ``selftest`` the math hash is not computed (a batch whose runtime another task
    self-tests)."""
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
            {"selftest": selftest, "recordings": []}, timeout_s=request_timeout_s
        )
        run.math_hash = response.get("math_hash")
        run.math_error = response.get("math_error")
        run.fastpath = response.get("fastpath")
        run.info.setdefault("python", response.get("python"))
        run.info.setdefault("platform", response.get("platform"))
        run.info.setdefault("code_hash", response.get("code_hash"))
        if selftest:
            progress(f"[{name}] math hash {run.math_hash or 'ERROR: ' + str(run.math_error)}")
            progress(f"[{name}] fast path vs readable: {_fastpath_cell(run).detail}")
            tick()
        for i, rec in enumerate(recordings, 1):
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
    fastpath: dict[str, Cell] = field(default_factory=dict)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)
    runtime_status: dict[str, Cell] = field(default_factory=dict)
    #: each recording's physics version (its stamp, or the manifest's for its bytes), as text
    physics: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)  # filled by ``diagnose``

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and all(c.ok for c in self.runtime_status.values())
            and all(c.ok for c in self.math.values())
            and all(c.ok or c.status == "skipped" for c in self.fastpath.values())
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


def physics_of_file(rec: RecordingFile) -> str:
    """The physics version a recording names (format 3), else the one the manifest of
    committed recordings gives for its bytes, else ``?`` (ADR 0205)."""
    from skidpad.replay.archive import known_recordings

    try:
        stamp = json.loads(rec.text).get("physics_version")
    except (ValueError, AttributeError):
        stamp = None
    if isinstance(stamp, int):
        return str(stamp)
    known = known_recordings().get(rec.sha256)
    return str(known["version"]) if known else "?"


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
        matrix.fastpath[run.name] = _fastpath_cell(run)
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


def _fastpath_cell(run: RuntimeRun) -> Cell:
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
        step, why = first_difference(result, _golden_result(golden_doc))
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


# ---------------------------------------------------------------------------- diagnose


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


def _fill_code_from_wheel(runs: Sequence[RuntimeRun], wheel: Path) -> None:
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
    progress: Progress = _stderr_progress,
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
    progress: Progress = _stderr_progress,
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
        blessed = _golden_result(golden_doc)
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
    if cell.status not in ("error", "skipped") and wall_s is not None:
        text += f" {wall_s:.1f}s"
    return text


def table_rows(matrix: Matrix, runs: Sequence[RuntimeRun]) -> list[list[str]]:
    """Header + one row per runtime: startup, math hash, each recording, total replay time."""
    header = ["runtime", "version", "startup", "math", "fast=readable", *matrix.recordings]
    header.append("replay total")
    physics = ["physics", "", "", "", "", *(matrix.physics.get(r, "?") for r in matrix.recordings)]
    rows = [header, [*physics, ""]]
    by_name = {r.name: r for r in runs}
    for name in matrix.runtimes:
        run = by_name[name]
        if run.status != "ok":
            rows.append(
                [name, run.status.upper(), "-", "-", "-", *("-" for _ in matrix.recordings), "-"]
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
    for name, cell in matrix.fastpath.items():
        if cell.status not in ("match", "skipped"):
            lines.append(f"{name}: fast path vs readable {_MARK[cell.status]}: {cell.detail}")
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


def _preflight_reports(report_dir: Path, inputs: Sequence[Path]) -> None:
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
    **options: Any,
) -> list[RuntimeRun]:
    """One task per runtime and batch of recordings, on the executor; one run per runtime, in
    the order of ``names``. The first batch of each runtime also runs its self-test.

    Runtimes are separate processes (interpreters, Node, browsers), so with ``jobs`` > 1 they
    share the machine's cores and the table's wall times are those of a shared machine. A task
    on a cluster cannot print here: its progress counts when it finishes, once, even when dask
    re-ran it after a worker died."""
    from skidpad.parity.executor import make_executor

    remote = scheduler is not None
    tick = _no_tick if counter is None or remote else counter.advance
    batches = _batches(recordings, batch)
    cells = [(name, b) for name in names for b in range(len(batches))]
    tasks = [
        functools.partial(
            run_runtime,
            name,
            batches[b],
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
                progress(f"[{name}] task {b + 1}/{len(batches)} {run.status} in {run.wall_s:.2f} s")
                if counter is not None:
                    counter.advance(len(batches[b]) + (b == 0))
    finally:
        executor.close()
    return [_merge_runs(name, [parts[name, b] for b in range(len(batches))]) for name in names]


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
    progress: Progress = _stderr_progress,
    factory: RuntimeFactory | None = None,
    jobs: int = 1,
    counter: Any = None,
    scheduler: str | None = None,
    batch: int | None = None,
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
    _preflight_reports(report_dir, [r.path for r in recordings])
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

    if counter is not None:
        counter.start(len(names) * (1 + len(recordings)))

    runs = _run_runtimes(
        names,
        recordings,
        factory,
        scheduler,
        jobs,
        progress,
        counter,
        batch=batch,
        checkpoint_every=checkpoint_every,
        **timeouts,
    )
    if wheel is not None and factory_is_ours:
        _fill_code_from_wheel(runs, wheel)
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
