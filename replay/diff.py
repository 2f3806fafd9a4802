"""Where two runs parted (docs/architecture.md §2).

The search narrows in three steps:

1. the first checkpoint (host step ``n``) whose state hashes differ — the
   previous checkpoint ``p`` was still equal, so the runs parted in host
   steps ``p .. n-1``;
2. inside that segment, the first substep whose per-substep hash (or state,
   compared bit for bit) differs;
3. at that substep, every state field that differs — name, both values in
   decimal (``repr``) and hex (``float.hex``), and their distance in ulps
   (``engine.floatbits.ulp_distance``; plain difference for integer fields) —
   and the first physics stage, in the engine's fixed stage order, whose
   probe values differ. When every stage of that substep agrees (the
   difference entered after the last stage, e.g. from outside the physics),
   the report names that and the first later substep/stage that differs.

Three sources of runs:

* :func:`diff_recordings`: two recordings (or one recording twice with a
  hook on one side) replayed here, automatically: a checkpoint pass, then a
  detailed replay of just the diverging segment in both;
* :func:`diff_traces`: two trace files (``skidpad replay --trace -o FILE``,
  possibly from two runtimes or two commits) — the checkpoint and substep
  searches use their hashes; field and stage detail needs both files to
  hold the detail window (``--detail-steps``), and the report says how to
  get it when they do not;
* :func:`diff_against_golden`: a recording replayed here against its
  golden file in ``hashes/``, which holds checkpoint hashes only.

How far apart two runs that are meant to differ are (``skidpad diff --stats``) is the other
tool of ``skidpad diff``: ``replay.stats``.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skidpad.engine.floatbits import ulp_distance
from skidpad.engine.ticks import step_of_tick, ticks_before
from skidpad.replay.replayer import replay, start_model
from skidpad.replay.trace import SubstepDetail

#: host steps the detailed replay runs past the first differing checkpoint
LATER_STAGE_STEPS = 20


@dataclass
class FieldDiff:
    name: str
    kind: str
    a: float | int
    b: float | int

    @property
    def ulps(self) -> int:
        if self.kind == "i" or not (isinstance(self.a, float) and isinstance(self.b, float)):
            return abs(int(self.a) - int(self.b))
        return ulp_distance(self.a, self.b)

    def line(self, width: int = 24) -> str:
        if self.kind == "i":
            return f"  {self.name:<{width}} a={self.a}  b={self.b}  (int, differ by {self.ulps})"
        return (
            f"  {self.name:<{width}} a={self.a!r} ({float.hex(self.a)})  "
            f"b={self.b!r} ({float.hex(self.b)})  {self.ulps} ulp"
        )

    def to_json(self) -> dict:
        hx = (lambda v: float.hex(v)) if self.kind == "f" else (lambda v: None)
        return {
            "name": self.name,
            "kind": self.kind,
            "a": self.a,
            "b": self.b,
            "a_hex": hx(self.a),
            "b_hex": hx(self.b),
            "ulps": self.ulps,
        }


@dataclass
class StageDiff:
    tick: int
    name: str
    index: int | None  # index of the first differing value; None if the stage order itself differs
    a: Any
    b: Any
    note: str = ""

    def line(self) -> str:
        if self.index is None:
            return f"stage {self.name} at tick {self.tick}: {self.note}"
        a, b = self.a, self.b
        ah = float.hex(a) if isinstance(a, float) else a
        bh = float.hex(b) if isinstance(b, float) else b
        head = f"stage {self.name} (tick {self.tick}), value {self.index}"
        return f"{head}: a={a!r} ({ah})  b={b!r} ({bh})"

    def to_json(self) -> dict:
        return {
            "tick": self.tick,
            "stage": self.name,
            "index": self.index,
            "a": self.a,
            "b": self.b,
            "note": self.note,
        }


@dataclass
class TwoRuns:
    """What every comparison report shares: the labels of A and B, notes, and its text."""

    a_label: str
    b_label: str
    notes: list[str] = field(default_factory=list)

    def head_lines(self) -> list[str]:
        return [f"A: {self.a_label}", f"B: {self.b_label}", *(f"note: {n}" for n in self.notes)]

    def lines(self) -> list[str]:
        return self.head_lines()

    def text(self) -> str:
        return "\n".join(self.lines()) + "\n"


@dataclass
class DiffReport(TwoRuns):
    identical: bool = False
    equal_checkpoint: int | None = None  # last checkpoint (host steps) where both agree
    differing_checkpoint: int | None = (
        None  # first checkpoint where they differ (None: the final state)
    )
    step: int | None = None  # 0-based host step of the first differing substep
    tick: int | None = None  # the engine's tick of the first differing substep
    substep_in_step: int | None = None
    substeps_in_step: int | None = None
    fields: list[FieldDiff] = field(default_factory=list)
    stage: StageDiff | None = None  # first differing stage inside that substep
    later_stage: StageDiff | None = None  # when none differs inside it: the first one after
    transient: bool = False  # substeps differed, but every checkpoint and the final state agree

    def lines(self) -> list[str]:
        out = self.head_lines()
        if self.identical:
            out.append("identical: every checkpoint and the final hash agree")
            return out
        if self.differing_checkpoint is not None:
            eq = (
                "" if self.equal_checkpoint is None else f" (equal at step {self.equal_checkpoint})"
            )
            out.append(f"first differing checkpoint: step {self.differing_checkpoint}{eq}")
        elif self.equal_checkpoint is not None and not self.transient:
            out.append(
                f"checkpoints agree up to step {self.equal_checkpoint}; the final state differs"
            )
        if self.tick is not None:
            where = ""
            if self.step is not None:
                where = f" = host step {self.step} (0-based)"
                if self.substep_in_step is not None:
                    where += f", substep {self.substep_in_step + 1} of {self.substeps_in_step}"
            out.append(f"first differing substep: tick {self.tick}{where}")
        if self.fields:
            width = max(len(f.name) for f in self.fields)
            out.append(f"state fields that differ ({len(self.fields)}):")
            out += [f.line(width) for f in self.fields]
        if self.stage is not None:
            out.append("first differing physics stage: " + self.stage.line())
        elif self.fields:
            out.append(
                "every physics stage of that substep agrees: "
                "the difference entered after the last stage"
            )
            if self.later_stage is not None:
                out.append("first stage that differs after it: " + self.later_stage.line())
        return out

    def to_json(self) -> dict:
        return {
            "a": self.a_label,
            "b": self.b_label,
            "identical": self.identical,
            "notes": self.notes,
            "equal_checkpoint": self.equal_checkpoint,
            "differing_checkpoint": self.differing_checkpoint,
            "step": self.step,
            "tick": self.tick,
            "substep_in_step": self.substep_in_step,
            "substeps_in_step": self.substeps_in_step,
            "transient": self.transient,
            "fields": [f.to_json() for f in self.fields],
            "stage": self.stage.to_json() if self.stage else None,
            "later_stage": self.later_stage.to_json() if self.later_stage else None,
        }


# ----------------------------------------------------------------------------- primitives


def _bits(v: Any) -> Any:
    return struct.pack("<d", v) if isinstance(v, float) else v


def same_bits(a: Sequence, b: Sequence) -> bool:
    return len(a) == len(b) and all(_bits(x) == _bits(y) for x, y in zip(a, b, strict=False))


def first_differing_checkpoint(
    a: Sequence[tuple[int, str]], b: Sequence[tuple[int, str]]
) -> tuple[int | None, int | None]:
    """``(last equal step, first differing step)`` over the checkpoints both runs have."""
    bd = dict(b)
    last_equal = None
    for s, h in a:
        if s not in bd:
            continue
        if bd[s] != h:
            return last_equal, s
        last_equal = s
    return last_equal, None


def first_differing_index(a: Sequence, b: Sequence) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare_states(
    names: Sequence[str], kinds: Sequence[str], a: Sequence, b: Sequence
) -> list[FieldDiff]:
    """Every field whose bits differ, in layout order."""
    return [
        FieldDiff(n, k, x, y)
        for n, k, x, y in zip(names, kinds, a, b, strict=False)
        if _bits(x) != _bits(y)
    ]


def compare_stages(
    tick: int, a: Sequence[tuple[str, tuple]], b: Sequence[tuple[str, tuple]]
) -> StageDiff | None:
    """The first stage (in the engine's order) whose values differ bit for bit."""
    for (na, va), (nb, vb) in zip(a, b, strict=False):
        if na != nb:
            return StageDiff(
                tick, na, None, None, None, f"stage order differs: A ran {na}, B ran {nb}"
            )
        if len(va) != len(vb):
            return StageDiff(tick, na, None, None, None, f"A has {len(va)} values, B has {len(vb)}")
        for i, (x, y) in enumerate(zip(va, vb, strict=False)):
            if _bits(x) != _bits(y):
                return StageDiff(tick, na, i, x, y)
    if len(a) != len(b):
        longer = a if len(a) > len(b) else b
        name = longer[min(len(a), len(b))][0]
        return StageDiff(tick, name, None, None, None, f"A ran {len(a)} stages, B ran {len(b)}")
    return None


def _step_of(index: int, host_hz: int, substep_hz: int, step_ticks: Sequence[int] | None) -> int:
    """The host step (0-based) running substep ``index`` (0-based).

    ``step_ticks`` (substeps done after each host step) is given for a run whose host
    steps have different lengths (the CommonRoad daemon, ADR 0090), else the rates decide.
    """
    if step_ticks is not None:
        return bisect.bisect_right(step_ticks, index)
    return step_of_tick(index, host_hz, substep_hz)


def _before(k: int, host_hz: int, substep_hz: int, step_ticks: Sequence[int] | None) -> int:
    """Substeps done before host step ``k`` (0-based)."""
    if step_ticks is not None:
        k = min(k, len(step_ticks))
        return step_ticks[k - 1] if k > 0 else 0
    return ticks_before(k, host_hz, substep_hz)


def _locate(
    report: DiffReport,
    host_hz: int,
    substep_hz: int,
    tick_base: int,
    step_ticks: Sequence[int] | None = None,
) -> None:
    index = report.tick - tick_base
    k = _step_of(index, host_hz, substep_hz, step_ticks)
    first = _before(k, host_hz, substep_hz, step_ticks)
    report.step = k
    report.substep_in_step = index - first
    report.substeps_in_step = _before(k + 1, host_hz, substep_hz, step_ticks) - first


def _from_detail(
    report: DiffReport,
    names: Sequence[str],
    kinds: Sequence[str],
    da: Sequence[SubstepDetail],
    db: Sequence[SubstepDetail],
    start_tick: int | None = None,
) -> bool:
    """Fill fields and stages from two detail windows; False if they have no differing substep."""
    bmap = {d.tick: d for d in db}
    pairs = [
        (d, bmap[d.tick])
        for d in da
        if d.tick in bmap and (start_tick is None or d.tick >= start_tick)
    ]
    for i, (x, y) in enumerate(pairs):
        if same_bits(x.state, y.state):
            continue
        report.tick = x.tick
        report.fields = compare_states(names, kinds, x.state, y.state)
        report.stage = compare_stages(x.tick, x.stages, y.stages)
        if report.stage is None:
            for x2, y2 in pairs[i + 1 :]:
                s = compare_stages(x2.tick, x2.stages, y2.stages)
                if s is not None:
                    report.later_stage = s
                    break
        return True
    return False


# ------------------------------------------------------------- two recordings, in process


def describe_inputs(rec_a: Any, rec_b: Any, notes: list[str]) -> None:
    fa, fb = rec_a.format, rec_b.format
    if fa.family != fb.family:
        notes.append(f"the recordings are of different kinds ({fa.family} vs {fb.family})")
        return
    what, ha, hb = fa.embedded, rec_a.embedded_hash, rec_b.embedded_hash
    keys = fa.setup
    if ha != hb:
        notes.append(f"the {what} differ ({ha} vs {hb})")
    for k in keys:
        if getattr(rec_a, k) != getattr(rec_b, k):
            notes.append(f"{k} differs: {getattr(rec_a, k)!r} vs {getattr(rec_b, k)!r}")
    for n, (x, y) in enumerate(zip(rec_a.inputs(), rec_b.inputs(), strict=False)):
        if not same_bits(x, y):
            ch = next(i for i, (p, q) in enumerate(zip(x, y, strict=False)) if _bits(p) != _bits(q))
            notes.append(
                f"the inputs first differ at host step {n} (0-based), "
                f"channel {rec_a.channels[ch]}: "
                f"{x[ch]!r} vs {y[ch]!r}"
            )
            break


def diff_recordings(
    rec_a: Any,
    rec_b: Any,
    *,
    a_label: str = "A",
    b_label: str = "B",
    checkpoint_every: int = 100,
    hook_a: Any = None,
    hook_b: Any = None,
    hook_factory_a: Any = None,
    hook_factory_b: Any = None,
    paths: tuple[str, str] = ("readable", "readable"),
) -> DiffReport:
    """Replay both here: checkpoints first, then the diverging segment in full detail.

    ``paths`` are the paths A's and B's probed steps run ("readable", or "fast": the fast
    path's probed variant), so a difference that only the fast path has is named by stage.

    Hooks are probes that see every substep first (tests plant divergences
    with them); pass ``hook_factory_*`` (a zero-argument callable) when the
    hook keeps state, so the detailed second pass gets a fresh one.
    """
    report = DiffReport(a_label, b_label)
    describe_inputs(rec_a, rec_b, report.notes)

    def hook(fixed: Any, factory: Any) -> Any:
        return factory() if factory is not None else fixed

    # pass 1: checkpoints and a hash per substep (which also sees a difference that rounding
    # absorbs again before the next checkpoint)
    pa, pb = paths
    ra = replay(
        rec_a, checkpoint_every, trace=True, hook=hook(hook_a, hook_factory_a), probed_path=pa
    )
    rb = replay(
        rec_b, checkpoint_every, trace=True, hook=hook(hook_b, hook_factory_b), probed_path=pb
    )
    names, kinds = ra.layout.names, ra.layout.kinds
    if ra.layout.names != rb.layout.names or ra.layout.version != rb.layout.version:
        report.notes.append("the state layouts differ; fields cannot be compared one to one")
    eq, first = first_differing_checkpoint(ra.checkpoints, rb.checkpoints)
    same_substeps = ra.substep_hashes == rb.substep_hashes
    if first is None and ra.final_hash == rb.final_hash and same_substeps:
        report.identical = True
        report.equal_checkpoint = eq
        return report
    report.equal_checkpoint, report.differing_checkpoint = eq, first
    if first is None and ra.final_hash == rb.final_hash:
        report.transient = True
        report.notes.append(
            "every checkpoint and the final hash agree, but substep hashes differ: "
            "the runs parted and met again (a difference absorbed by rounding)"
        )
    if first == 0:  # the initial states differ: compare them directly
        sa, sb = start_model(rec_a), start_model(rec_b)
        if ra.layout.names == rb.layout.names:
            report.fields = compare_states(names, kinds, sa.state, sb.state)
        report.notes.append(
            "the runs differ before the first step (initial conditions or definition)"
        )
        return report
    steps = min(ra.steps, rb.steps)
    i = first_differing_index(ra.substep_hashes or [], rb.substep_hashes or [])
    if i is not None and i < min(len(ra.substep_hashes), len(rb.substep_hashes)):
        start = _step_of(i, ra.host_hz, ra.substep_hz, ra.step_ticks)
    else:
        start = eq or 0
    # pass 2: full detail from that host step, a little further on, so the first stage to
    # differ after the substep can be named
    stop = min(start + 1 + LATER_STAGE_STEPS, steps)
    window = range(start, stop)
    da = replay(
        rec_a,
        checkpoint_every,
        hook=hook(hook_a, hook_factory_a),
        detail_steps=window,
        stop_after=stop,
        probed_path=pa,
    )
    db = replay(
        rec_b,
        checkpoint_every,
        hook=hook(hook_b, hook_factory_b),
        detail_steps=window,
        stop_after=stop,
        probed_path=pb,
    )
    if _from_detail(report, names, kinds, da.detail or [], db.detail or []):
        ticks = da.step_ticks
        base = _tick_base(da.detail or [], window, da.host_hz, da.substep_hz, ticks)
        _locate(report, da.host_hz, da.substep_hz, base, ticks)
    elif ra.steps != rb.steps:
        report.notes.append(
            f"the runs have different lengths ({ra.steps} vs {rb.steps} host steps)"
        )
    else:
        report.notes.append(
            "no substep differs inside the segment (the difference is in the step counter)"
        )
    return report


def _tick_base(
    detail: Sequence[SubstepDetail],
    window: range,
    host_hz: int,
    substep_hz: int,
    step_ticks: Sequence[int] | None = None,
) -> int:
    """The engine's tick number of substep index 0, from the first detailed substep."""
    if not detail:
        return 1
    return detail[0].tick - _before(window.start, host_hz, substep_hz, step_ticks)


# ----------------------------------------------------------------------------- trace files


def diff_traces(a: dict, b: dict, a_label: str = "A", b_label: str = "B") -> DiffReport:
    """Compare two trace documents (see :mod:`replay.trace`)."""
    report = DiffReport(a_label, b_label)
    ra, rb = a.get("recording", {}), b.get("recording", {})
    if ra.get("sha256") and rb.get("sha256") and ra["sha256"] != rb["sha256"]:
        report.notes.append(
            f"the traces replay different recordings ({ra.get('name')} vs {rb.get('name')})"
        )
    if a.get("math_hash") != b.get("math_hash"):
        report.notes.append(
            f"math self-test hashes differ ({a.get('math_hash')} vs {b.get('math_hash')}): "
            "the strict math itself computes differently, "
            "so every later difference may follow from it"
        )
    ra_rt, rb_rt = a.get("runtime", {}), b.get("runtime", {})
    if ra_rt != rb_rt:
        report.notes.append(
            f"runtimes: A {ra_rt.get('implementation')} {ra_rt.get('python')}, "
            f"B {rb_rt.get('implementation')} {rb_rt.get('python')}"
        )
    fa, fb = a["layout"]["fields"], b["layout"]["fields"]
    same_layout = fa == fb and a["layout"].get("version") == b["layout"].get("version")
    if not same_layout:
        na, nb = [n for n, _ in fa], [n for n, _ in fb]
        added = [n for n in nb if n not in na]
        removed = [n for n in na if n not in nb]
        report.notes.append(
            f"the state layouts differ (version {a['layout'].get('version')} "
            f"vs {b['layout'].get('version')}; only in B: {added[:8]}; only in A: {removed[:8]}); "
            "every hash differs for that reason alone"
        )
    if (a["host_hz"], a["substep_hz"]) != (b["host_hz"], b["substep_hz"]):
        report.notes.append(
            "the traces ran at different rates; compare substep hashes by tick only"
        )
    eq, first = first_differing_checkpoint(a["checkpoints"], b["checkpoints"])
    ha, hb = a.get("substep_hashes"), b.get("substep_hashes")
    if first is None and a["final"] == b["final"]:
        if not (ha and hb) or ha == hb:
            report.identical = True
            report.equal_checkpoint = eq
            return report
        report.notes.append(
            "every checkpoint and the final hash agree, but substep hashes differ: "
            "the runs parted and met again (a difference absorbed by rounding)"
        )
        report.transient = True
    report.equal_checkpoint, report.differing_checkpoint = eq, first
    if not (ha and hb):
        report.notes.append(
            "a trace has no substep hashes; rerun both with skidpad replay --trace -o FILE"
        )
        return report
    if a.get("first_tick") != b.get("first_tick"):
        report.notes.append("the traces number their substeps differently")
    i = first_differing_index(ha, hb)
    if i is None:
        report.notes.append("every substep hash agrees; the difference is in the step counter")
        return report
    base = a.get("first_tick") or 1
    report.tick = base + i
    _locate(report, a["host_hz"], a["substep_hz"], base, a.get("step_ticks"))
    names = [n for n, _ in fa]
    kinds = [k for _, k in fa]
    dta, dtb = a.get("detail"), b.get("detail")
    covered = [d for d in (dta, dtb) if d and any(s.tick == report.tick for s in d["substeps"])]
    if len(covered) == 2 and same_layout:
        tick = report.tick
        _from_detail(report, names, kinds, dta["substeps"], dtb["substeps"], start_tick=tick)
        report.tick = tick
    else:
        k = report.step
        report.notes.append(
            "field and stage detail needs both traces to cover that substep: rerun both with "
            f"skidpad replay RECORDING --trace --detail-steps {k}:{k + 1} -o FILE, then diff again"
        )
    return report


# ----------------------------------------------------------------------------- golden hashes


def diff_against_golden(
    rec: Any, golden: dict, recording_sha256: str, label: str, here: str | None = None
) -> DiffReport:
    """A recording replayed here (A) against its golden checkpoints (B); ``here`` names the
    code that replays it (e.g. "the working tree /src, code 1a2b...")."""
    where = f"replayed here ({here})" if here else "replayed here"
    report = DiffReport(f"{label} {where}", f"golden hashes of {golden.get('recording', label)}")
    if golden.get("recording_sha256") != recording_sha256:
        report.notes.append("the recording file changed since it was blessed (sha256 differs)")
    every = int(golden["checkpoint_every"])
    r = replay(rec, every)
    eq, first = first_differing_checkpoint(r.checkpoints, golden["checkpoints"])
    if first is None and r.final_hash == golden["final"]:
        report.identical = True
        report.equal_checkpoint = eq
        return report
    report.equal_checkpoint, report.differing_checkpoint = eq, first
    start = eq or 0
    stop = first if first is not None else r.steps
    report.notes.append(
        "the golden file holds checkpoint hashes only: "
        f"the runs parted in host steps {start}..{stop - 1}. "
        "For the substep, field and stage, write a trace at the blessed commit and here "
        f"(skidpad replay RECORDING --trace --detail-steps {start}:{stop} -o FILE) "
        "and diff the two traces"
    )
    return report
