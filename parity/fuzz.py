"""A fuzz campaign: random drives replayed in several runtimes, every disagreement kept.

Drive ``i`` of a campaign is ``scenarios.random_drive.random_setup(drive_seed(seed, i))``: a
random preset, host and substep rate, surface, grades and initial motion, with random inputs.
The campaign is cut into tasks of one runtime x one batch of ``batch`` drives (the log's
"cell" lines; each drive x runtime of it is one cell of the matrix). A task
(``parity.executor``) records its drives (the recorder of the worker running it),
starts its runtime once, replays them and returns one result per drive (checkpoint and final
hashes, and the recording's sha256). Cells stream back as they finish; each is appended to
``DIR/cells.jsonl`` as one line, and when every runtime's cell of a batch is in, each drive of
the batch is judged: every runtime must agree with the first (same recording, same
checkpoints, same final hash). A drive on which they disagree is saved under
``DIR/divergences/drive-NNNNNN/``: the recording, the setup, both runtimes' traces (traced
again on the executor up to one interval past the first differing checkpoint, then with
detail for the first differing host step) and the ``skidpad diff`` report of the two traces,
as text and JSON. Its verdict line is appended to the log only after that folder is complete.

The log's first line is the campaign's settings; a campaign started again with the same
``DIR`` and the same settings skips every cell and verdict already in the log (a campaign can
be stopped and resumed), and different settings are refused. A last line cut short by a stop
is ignored. Results per cell arrive once per finished task, so a cell that dask re-ran after
its worker died is still logged and counted once.
"""

from __future__ import annotations

import functools
import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skidpad.parity.harness import run_runtime
from skidpad.parity.runs import (
    REQUEST_TIMEOUT_S,
    START_TIMEOUT_S,
    HarnessError,
    RecordingFile,
    RuntimeFactory,
)
from skidpad.parity.verdicts import first_difference
from skidpad.replay import output

LOG_NAME = "cells.jsonl"
LOG_FORMAT = "skidpad-fuzz-log"
DIVERGENCES = "divergences"
Say = Callable[[str], None]


@dataclass(frozen=True)
class Campaign:
    """What a campaign runs; the log's first line, compared on resume."""

    drives: int
    presets: tuple[str, ...]
    runtimes: tuple[str, ...]
    seed: int
    duration_s: float
    batch: int = 10
    checkpoint_every: int = 10
    max_substep_hz: int = 20000

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["presets"], doc["runtimes"] = list(self.presets), list(self.runtimes)
        return doc

    @property
    def batches(self) -> int:
        return -(-self.drives // self.batch)

    def batch_drives(self, batch: int) -> range:
        return range(batch * self.batch, min(self.drives, (batch + 1) * self.batch))

    def cells(self) -> list[tuple[str, int]]:
        """Every (runtime, batch), batch-major so a batch's verdicts come early."""
        return [(rt, b) for b in range(self.batches) for rt in self.runtimes]

    def setup(self, index: int) -> Any:
        from skidpad.scenarios.random_drive import drive_seed, random_setup

        return random_setup(drive_seed(self.seed, index), self.presets, self.max_substep_hz)


def drive_name(index: int) -> str:
    return f"drive-{index:06d}"


def record_drive_text(campaign: Campaign, index: int) -> str:
    """The recording of drive ``index`` (JSON text), made in this process."""
    from skidpad.engine.fourwheel import definition as engine_definition
    from skidpad.replay.recorder import record_drive
    from skidpad.replay.recording import dumps
    from skidpad.scenarios.random_drive import RandomDriver

    setup = campaign.setup(index)
    definition = engine_definition.load_preset(setup.preset)
    driver = RandomDriver(setup.seed, setup.host_hz, campaign.duration_s, setup.initial)
    rec, _ = record_drive(definition, driver, preset=setup.preset, substep_hz=setup.substep_hz)
    return dumps(rec)


def _recording_file(campaign: Campaign, index: int) -> RecordingFile | str:
    """The drive as a harness recording, or the error that stopped its recording."""
    import hashlib

    try:
        text = record_drive_text(campaign, index)
    except Exception as exc:  # the recorder failing is itself a finding, never a crash
        return f"recording failed: {type(exc).__name__}: {exc}"
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return RecordingFile(drive_name(index), drive_name(index), text, sha)


def _quiet(_message: str) -> None:
    """A task's progress lines would print on its worker, not here."""


def run_cell(
    campaign: Campaign, runtime: str, batch: int, factory: RuntimeFactory, timeouts: dict
) -> dict[str, Any]:
    """One cell (a task): record the batch's drives, replay them in ``runtime`` (started once)."""
    began, cpu = time.perf_counter(), _cpu_s()
    made = {i: _recording_file(campaign, i) for i in campaign.batch_drives(batch)}
    recordings = [r for r in made.values() if isinstance(r, RecordingFile)]
    run = run_runtime(
        runtime,
        recordings,
        checkpoint_every=campaign.checkpoint_every,
        progress=_quiet,
        factory=factory,
        selftest=False,
        **timeouts,
    )
    results: dict[str, Any] = {}
    for i, rec in made.items():
        if not isinstance(rec, RecordingFile):
            results[str(i)] = {"error": rec}
        elif run.status != "ok":
            results[str(i)] = {"error": f"{run.status}: {run.error}", "sha256": rec.sha256}
        else:
            replayed = run.recordings.get(rec.name, {"error": "not run"})
            kept = {
                k: replayed[k] for k in ("checkpoints", "final", "steps", "error") if k in replayed
            }
            results[str(i)] = {**kept, "sha256": rec.sha256}
    return {
        "cell": [runtime, batch],
        "status": run.status,
        "error": run.error,
        "version": run.info.get("version"),
        "code_hash": run.info.get("code_hash"),
        "wall_s": time.perf_counter() - began,
        "cpu_s": _cpu_s() - cpu,
        "results": results,
    }


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children (the runtime it stopped):
    what a cell costs, apart from how busy the machine was."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def lost_cell(runtime: str, batch: int, exc: BaseException) -> dict[str, Any]:
    """The result of a cell whose task could not finish (its workers kept dying)."""
    error = f"the task did not finish ({type(exc).__name__}: {exc})"
    return {"cell": [runtime, batch], "status": "failed", "error": error, "results": {}}


# ------------------------------------------------------------------------------ verdicts


@dataclass
class Verdict:
    """``verdict``: agree | diverge | error. ``a``/``b``: the runtimes that parted."""

    drive: int
    verdict: str
    detail: str = ""
    a: str | None = None
    b: str | None = None
    first_step: int | None = None


def judge(campaign: Campaign, index: int, cells: dict[str, dict[str, Any]]) -> Verdict:
    """Every runtime's result of drive ``index`` against the first runtime's."""
    key = str(index)
    results = [
        (rt, cells[rt]["results"].get(key, {"error": "no result"})) for rt in campaign.runtimes
    ]
    ref_rt, ref = results[0]
    if all("error" in r for _, r in results) and len({r["error"] for _, r in results}) == 1:
        return Verdict(index, "error", ref["error"], ref_rt)
    unrecorded = [(rt, r) for rt, r in results if "sha256" not in r]
    if 0 < len(unrecorded) < len(results):  # a task failed before any runtime ran the drive
        rt, res = unrecorded[0]
        why = f"{rt}'s task could not record the drive ({res.get('error', 'no result')})"
        return Verdict(index, "error", why, rt)
    for rt, res in results[1:]:
        if res.get("sha256") != ref.get("sha256"):
            return Verdict(
                index, "diverge", "the recordings made by the two tasks differ", ref_rt, rt
            )
        if ("error" in res) != ("error" in ref) or res.get("error") != ref.get("error"):
            why = f"{ref_rt}: {ref.get('error', 'ok')}; {rt}: {res.get('error', 'ok')}"
            return Verdict(index, "diverge", why, ref_rt, rt)
        if "error" in ref:
            continue
        step, why = first_difference(ref, res)
        if why:
            return Verdict(index, "diverge", why, ref_rt, rt, step)
    if "error" in ref:
        return Verdict(index, "error", ref["error"], ref_rt)
    return Verdict(index, "agree")


# --------------------------------------------------------------------------------- log


class CampaignLog:
    """``DIR/cells.jsonl``: the settings line, then one line per finished cell or verdict."""

    def __init__(self, out: Path, campaign: Campaign) -> None:
        self.path = out / LOG_NAME
        self.campaign = campaign
        self.cells: dict[tuple[str, int], dict[str, Any]] = {}
        self.verdicts: dict[int, Verdict] = {}

    def open(self) -> None:
        """Read what a previous run of this campaign finished; refuse another campaign's log.

        The log is untrusted input (ADR 0210): it must be a regular file of strict JSON
        lines; every line is checked field by field, a cell line that proves nothing (a
        result without its hashes) or a verdict line its cells contradict is refused, and a
        verdict whose cells are not in the log is dropped (the drive is judged again)."""
        folder = self.path.parent
        if folder.exists() and not folder.is_dir():
            raise HarnessError(f"--out {folder}: exists and is not a folder")
        if not self.path.exists() and not self.path.is_symlink():
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise HarnessError(f"--out {folder}: cannot create it: {exc.strerror}") from None
            header = {"format": LOG_FORMAT, "version": 1, "campaign": self.campaign.to_json()}
            self._append(header)
            return
        text = _read_log_text(self.path)
        lines = text.split("\n")
        docs = _read_lines(lines, self.path)
        head = docs[0][1] if docs else {}
        if not isinstance(head, dict) or head.get("format") != LOG_FORMAT:
            raise HarnessError(f"{self.path}:1: not a skidpad fuzz log")
        if head.get("campaign") != self.campaign.to_json():
            raise HarnessError(
                f"{self.path}: holds a campaign with other settings ({_settings(head)}); "
                "use another --out or the same settings to resume it"
            )
        verdicts = []
        for n, doc in docs[1:]:
            where = f"{self.path}:{n}"
            if isinstance(doc, dict) and "cell" in doc:
                cell = check_cell_line(doc, self.campaign, where)
                self.cells.setdefault(cell, doc)
            elif isinstance(doc, dict) and "drive" in doc:
                verdicts.append((where, check_verdict_line(doc, self.campaign, where)))
            else:
                raise HarnessError(f"{where}: neither a cell nor a verdict line")
        for where, verdict in verdicts:
            self._trust_verdict(verdict, where)
        if lines and lines[-1] and len(docs) < sum(1 for line in lines if line.strip()):
            # the last line was cut short by a stop: drop it, so the next line starts clean
            output.write_text(self.path, "".join(line + "\n" for line in lines[:-1]))

    def _trust_verdict(self, verdict: Verdict, where: str) -> None:
        """Keep a logged verdict only if the logged cells give it too."""
        batch = verdict.drive // self.campaign.batch
        cells = {rt: self.cells.get((rt, batch)) for rt in self.campaign.runtimes}
        if any(c is None for c in cells.values()):
            return  # not proven by this log: the drive is judged again once its cells are in
        again = judge(self.campaign, verdict.drive, cells)  # type: ignore[arg-type]
        if again.verdict != verdict.verdict:
            raise HarnessError(
                f"{where}: /verdict: says {verdict.verdict!r} but the logged cells give "
                f"{again.verdict!r}; the log was edited or is corrupt"
            )
        self.verdicts[verdict.drive] = verdict

    def add_cell(self, doc: dict[str, Any]) -> bool:
        """Log a finished cell; False if it was already logged (never counted twice)."""
        key = (doc["cell"][0], doc["cell"][1])
        if key in self.cells:
            return False
        self.cells[key] = doc
        self._append(doc)
        return True

    def add_verdict(self, verdict: Verdict) -> None:
        self.verdicts[verdict.drive] = verdict
        self._append(asdict(verdict))

    def _append(self, doc: dict[str, Any]) -> None:
        line = (json.dumps(doc, separators=(",", ":")) + "\n").encode("utf-8")
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self.path, flags, 0o666)
        except OSError as exc:
            raise HarnessError(f"{self.path}: cannot write the log: {exc.strerror}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device swapped in
                raise HarnessError(f"{self.path}: is not a regular file; the log is not written")
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            raise HarnessError(f"{self.path}: cannot write the log: {exc.strerror}") from None
        finally:
            os.close(fd)


#: A fuzz log larger than this is refused unread (bytes).
MAX_LOG_BYTES = 256 * 1024 * 1024


def _read_log_text(path: Path) -> str:
    """The log's text: a regular file (a FIFO or device refused from its stat, never opened),
    at most :data:`MAX_LOG_BYTES`, strict UTF-8."""
    from skidpad.replay.document import RecordingError, decode_utf8, read_bytes_limited

    try:
        return decode_utf8(read_bytes_limited(path, MAX_LOG_BYTES), str(path))
    except RecordingError as exc:
        raise HarnessError(f"{exc} (the fuzz log)") from None


def _read_lines(lines: list[str], path: Path) -> list[tuple[int, Any]]:
    """Each non-empty line's strict JSON document, with its line number; the last line may
    have been cut short by a stop (it is then left out)."""
    from skidpad.replay.strict import parse_text

    docs = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = parse_text(line, f"{path}:{n}", HarnessError)
        except HarnessError:
            if n == len(lines):  # the last line, cut short when a run was stopped
                break
            raise
        docs.append((n, doc))
    return docs


_CELL_KEYS = ("cell", "status", "error", "results")
_CELL_OPTIONAL = ("version", "code_hash", "wall_s", "cpu_s")
_RESULT_KEYS = ("checkpoints", "final", "steps", "error", "sha256")
_VERDICTS = ("agree", "diverge", "error")


def check_cell_line(doc: dict, campaign: Campaign, where: str) -> tuple[str, int]:
    """A cell line checked field by field; its ``(runtime, batch)``. A cell whose status is
    ok must prove each drive of its batch: an error, or hashes (never counted as agreeing
    on hashes it does not hold)."""
    from skidpad.replay.strict import Checker

    c = Checker(where, HarnessError)
    c.object(doc, "", _CELL_KEYS, _CELL_OPTIONAL)
    cell = c.array(doc["cell"], "/cell", 2)
    if len(cell) != 2:
        c.fail("/cell", "must be a pair [runtime, batch]")
    runtime = c.string(cell[0], "/cell/0", 40)
    if runtime not in campaign.runtimes:
        c.fail("/cell/0", f"{shown_text(runtime)} is not a runtime of this campaign")
    batch = c.integer(cell[1], "/cell/1", 0, campaign.batches - 1)
    c.string(doc["status"], "/status", 40)
    c.string(doc["error"], "/error", 100_000, nullable=True)
    for key in ("version", "code_hash"):
        if key in doc:
            c.string(doc[key], f"/{key}", 200, nullable=True)
    for key in ("wall_s", "cpu_s"):
        if key in doc:
            c.number(doc[key], f"/{key}", 0.0)
    results = c.object(
        doc["results"], "/results", (), [str(i) for i in campaign.batch_drives(batch)]
    )
    if doc["status"] == "ok":
        for i in campaign.batch_drives(batch):
            if str(i) not in results:
                c.fail(f"/results/{i}", "missing: the cell does not prove this drive")
    for key, res in results.items():
        _check_result(c, res, f"/results/{key}")
    return runtime, batch


def _check_result(c: Any, res: Any, path: str) -> None:
    c.object(res, path, (), _RESULT_KEYS)
    if "sha256" in res:
        c.hash64(res["sha256"], f"{path}/sha256")
    if "error" in res:
        c.string(res["error"], f"{path}/error", 100_000)
        return
    for key in ("checkpoints", "final", "steps", "sha256"):
        if key not in res:
            c.fail(f"{path}/{key}", "missing: a result without an error must hold its hashes")
    steps = c.integer(res["steps"], f"{path}/steps")
    c.checkpoints(res["checkpoints"], f"{path}/checkpoints", steps)
    c.hash16(res["final"], f"{path}/final")


def check_verdict_line(doc: dict, campaign: Campaign, where: str) -> Verdict:
    from skidpad.replay.strict import Checker

    c = Checker(where, HarnessError)
    c.object(doc, "", ("drive", "verdict"), ("detail", "a", "b", "first_step"))
    c.integer(doc["drive"], "/drive", 0, campaign.drives - 1)
    if doc["verdict"] not in _VERDICTS:
        c.fail("/verdict", f"must be one of {', '.join(_VERDICTS)}")
    c.string(doc.get("detail", ""), "/detail", 100_000)
    for key in ("a", "b"):
        c.string(doc.get(key), f"/{key}", 40, nullable=True)
    if doc.get("first_step") is not None:
        c.integer(doc["first_step"], "/first_step")
    return Verdict(**doc)


def shown_text(v: str) -> str:
    from skidpad.replay.terminal import printable

    return repr(printable(v))[:60]


def _settings(head: dict[str, Any]) -> str:
    c = head.get("campaign") or {}
    return ", ".join(f"{k} {c[k]}" for k in ("drives", "seed", "duration_s", "runtimes") if k in c)


# ------------------------------------------------------------------------- divergences


def _trace_task(
    runtime: str,
    rec: RecordingFile,
    every: int,
    trace: dict,
    factory: RuntimeFactory,
    timeouts: dict,
) -> dict[str, Any]:
    """A task: trace ``rec`` in ``runtime``; the worker's trace document, or ``{"error"}``."""
    from skidpad.parity.runtimes.base import RuntimeFailed, RuntimeUnavailable

    runtime_ = factory(runtime)
    try:
        runtime_.start(timeout_s=timeouts["start_timeout_s"])
        request = {
            "selftest": False,
            "recordings": [{"name": rec.name, "text": rec.text}],
            "checkpoint_every": every,
            "trace": trace,
        }
        response = runtime_.run(request, timeout_s=timeouts["request_timeout_s"])
        result = response.get("recordings", {}).get(rec.name, {"error": "no result"})
    except (RuntimeFailed, RuntimeUnavailable) as exc:
        return {"error": str(exc)}
    finally:
        runtime_.stop()
    return {"trace": result["trace"]} if "trace" in result else {"error": result.get("error")}


@dataclass
class Saved:
    folder: Path
    lines: list[str] = field(default_factory=list)


def save_divergence(
    out: Path,
    campaign: Campaign,
    verdict: Verdict,
    executor: Any,
    factory: RuntimeFactory,
    timeouts: dict,
) -> Saved:
    """Write the drive's folder: recording, setup, both traces and their diff report."""
    from skidpad.replay.diff import diff_traces
    from skidpad.replay.trace import dumps_trace, load_trace_document

    folder = out / DIVERGENCES / drive_name(verdict.drive)
    folder.mkdir(parents=True, exist_ok=True)
    rec = _recording_file(campaign, verdict.drive)
    setup = campaign.setup(verdict.drive).to_json()
    output.write_text(
        folder / "setup.json", json.dumps({**setup, "verdict": asdict(verdict)}, indent=1) + "\n"
    )
    if not isinstance(rec, RecordingFile):
        output.write_text(folder / "diff.txt", rec + "\n")
        return Saved(folder, [rec])
    output.write_text(folder / "recording.json", rec.text)
    names = (verdict.a or campaign.runtimes[0], verdict.b or campaign.runtimes[-1])
    every = campaign.checkpoint_every
    stop = None if verdict.first_step is None else verdict.first_step + every

    def traces(trace: dict) -> list[dict[str, Any]]:
        tasks = [
            functools.partial(_trace_task, name, rec, every, trace, factory, timeouts)
            for name in names
        ]
        docs: list[dict[str, Any]] = [{}, {}]
        for i, doc in executor.run(
            tasks, lambda _i, exc: {"error": f"{type(exc).__name__}: {exc}"}
        ):
            docs[i] = doc
        return docs

    docs = traces({"stop_after": stop, "detail_steps": None})
    failed = [f"{n}: {d['error']}" for n, d in zip(names, docs, strict=True) if "error" in d]
    if failed:
        lines = [f"diff failed: {'; '.join(failed)}"]
        output.write_text(folder / "diff.txt", "\n".join(lines) + "\n")
        return Saved(folder, lines)
    loaded = [
        load_trace_document(json.dumps(d["trace"]), n) for n, d in zip(names, docs, strict=True)
    ]
    report = diff_traces(loaded[0], loaded[1], *names)
    if report.step is not None and not report.fields:
        k = report.step
        docs = traces({"stop_after": stop, "detail_steps": [k, k + 1]})
        if not any("error" in d for d in docs):
            loaded = [
                load_trace_document(json.dumps(d["trace"]), n)
                for n, d in zip(names, docs, strict=True)
            ]
            report = diff_traces(loaded[0], loaded[1], *names)
    for name, doc in zip(names, docs, strict=True):
        if "trace" in doc:
            output.write_text(folder / f"{name}.trace.json", dumps_trace(doc["trace"]))
    output.write_text(folder / "diff.txt", report.text())
    output.write_text(folder / "diff.json", json.dumps(report.to_json(), indent=1) + "\n")
    return Saved(folder, report.lines())


# ---------------------------------------------------------------------------- campaign


@dataclass
class Outcome:
    cells_run: int = 0
    replays_run: int = 0
    cpu_s: float = 0.0
    cells_resumed: int = 0
    agree: int = 0
    diverge: int = 0
    errors: int = 0
    wall_s: float = 0.0
    verdicts: list[Verdict] = field(default_factory=list)


def run_campaign(
    campaign: Campaign,
    out: Path,
    executor: Any,
    factory: RuntimeFactory,
    *,
    start_timeout_s: float = START_TIMEOUT_S,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
    say: Say = print,
    bar: Any = None,
) -> Outcome:
    """Run (or resume) ``campaign`` on ``executor``, logging to ``out``; see the module doc."""
    began = time.perf_counter()
    timeouts = {"start_timeout_s": start_timeout_s, "request_timeout_s": request_timeout_s}
    log = CampaignLog(out, campaign)
    log.open()
    todo = [cell for cell in campaign.cells() if cell not in log.cells]
    outcome = Outcome(cells_resumed=len(campaign.cells()) - len(todo))
    if bar is not None:
        bar.start(len(campaign.cells()))
        bar.advance(outcome.cells_resumed)

    def judge_batch(batch: int) -> None:
        cells = {rt: log.cells.get((rt, batch)) for rt in campaign.runtimes}
        if any(c is None for c in cells.values()):
            return
        for i in campaign.batch_drives(batch):
            if i in log.verdicts:
                continue
            verdict = judge(campaign, i, cells)  # type: ignore[arg-type]
            if verdict.verdict != "agree":
                saved = save_divergence(out, campaign, verdict, executor, factory, timeouts)
                say(_finding_line(campaign, verdict, saved.folder))
            log.add_verdict(verdict)

    for b in range(campaign.batches):
        judge_batch(b)  # batches whose cells were all logged before a stop
    tasks = [functools.partial(run_cell, campaign, rt, b, factory, timeouts) for rt, b in todo]

    def lost(i: int, exc: BaseException) -> dict[str, Any]:
        return lost_cell(todo[i][0], todo[i][1], exc)

    for i, doc in executor.run(tasks, lost):
        if log.add_cell(doc):
            outcome.cells_run += 1
            outcome.replays_run += len(campaign.batch_drives(todo[i][1]))
            outcome.cpu_s += doc.get("cpu_s", 0.0)
            if bar is not None:
                bar.note(f"{todo[i][0]} batch {todo[i][1]}")
                bar.advance()
        judge_batch(todo[i][1])
    for verdict in sorted(log.verdicts.values(), key=lambda v: v.drive):
        outcome.verdicts.append(verdict)
        if verdict.verdict == "agree":
            outcome.agree += 1
        elif verdict.verdict == "diverge":
            outcome.diverge += 1
        else:
            outcome.errors += 1
    outcome.wall_s = time.perf_counter() - began
    return outcome


def _finding_line(campaign: Campaign, verdict: Verdict, folder: Path) -> str:
    s = campaign.setup(verdict.drive)
    what = f"{s.preset}, {s.host_hz}/{s.substep_hz} Hz, {s.initial['surface']}"
    if verdict.verdict == "diverge":
        where = f" at step {verdict.first_step}" if verdict.first_step is not None else ""
        head = f"{verdict.a} and {verdict.b} parted{where}: {verdict.detail}"
    else:
        head = f"error in every runtime: {verdict.detail}"
    return f"{drive_name(verdict.drive)} ({what}): {head}; saved to {folder}"


def summary_line(campaign: Campaign, outcome: Outcome) -> str:
    rate = outcome.replays_run / outcome.wall_s if outcome.wall_s > 0 else 0.0
    resumed = f", {outcome.cells_resumed} resumed" if outcome.cells_resumed else ""
    return (
        f"fuzz: {campaign.drives} drives x {len(campaign.runtimes)} runtimes: "
        f"{outcome.diverge} divergences, {outcome.errors} errors, {outcome.agree} agree "
        f"({outcome.cells_run} tasks run{resumed}, {outcome.replays_run} drive-runtime cells, "
        f"{outcome.wall_s:.1f} s, {rate:.2f} cells/s, {outcome.cpu_s:.1f} CPU s in them)"
    )
