"""How far apart two runs are: ``skidpad diff --stats`` (ADR 0150).

Two runs that legitimately differ (a physics change, two presets on the same inputs) are
compared by how far apart they are, not by where they parted (that is ``replay.diff``): per
state field, over every host step both runs hold, the RMSE of the difference, the largest
absolute difference and the host step where it first occurs, judged against optional
per-field tolerances on that largest difference.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.replay.diff import TwoRuns
from skidpad.replay.replayer import start_model
from skidpad.replay.table import format_table
from skidpad.replay.trace import TraceProbe


@dataclass
class StateSeries:
    """One run's state after host steps, in increasing step order, with its layout.

    ``samples()`` yields ``(host step, state values in layout order)``; a recording's replay
    yields every host step 0..steps, a trace file the steps it holds states for.
    """

    label: str
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    layout_version: Any
    steps: int
    host_hz: int | None
    samples: Any  # zero-argument callable returning an iterator of (step, values)
    every_step: bool = True


def recording_series(rec: Any, label: str, hook: Any = None) -> StateSeries:
    """Replay ``rec`` here, sampling its full state after every host step; ``hook`` (a
    probe) sees every stage and substep first, as in :func:`diff_recordings`."""
    model = start_model(rec)
    layout = model.layout
    if hook is not None:
        model.attach(TraceProbe(layout, hook=hook, hash_substeps=False))

    def samples() -> Any:
        yield 0, tuple(model.state)
        n = 0
        for values in rec.inputs():
            model.step(values)
            n += 1
            yield n, tuple(model.state)

    return StateSeries(
        label,
        tuple(layout.names),
        tuple(layout.kinds),
        layout.version,
        rec.steps,
        model.host_hz or None,
        samples,
    )


def _state_value(v: Any, where: str) -> float | int:
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SkidpadError(f"{where}: {v!r} is not a number")
    return v


def trace_series(doc: dict, label: str) -> StateSeries:
    """The named states a trace file holds (``skidpad replay REC --trace --state-at ...``)."""
    names = tuple(n for n, _ in doc["layout"]["fields"])
    kinds = tuple(k for _, k in doc["layout"]["fields"])
    raw = doc.get("states") or {}
    if not isinstance(raw, dict) or not raw:
        raise SkidpadError(
            f"{label}: the trace holds no states; write it with "
            "skidpad replay RECORDING --trace --state-at 0,1,2,... -o FILE"
        )
    steps = int(doc["steps"])
    table: dict[int, tuple] = {}
    for key, state in raw.items():
        where = f"{label}: /states/{key}"
        if not (isinstance(key, str) and key.isdigit()) or int(key) > steps:
            raise SkidpadError(f"{where}: not a host step 0..{steps}")
        if not isinstance(state, dict) or set(state) != set(names):
            raise SkidpadError(f"{where}: not a state of the trace's layout")
        table[int(key)] = tuple(_state_value(state[n], f"{where}/{n}") for n in names)
    host_hz = doc.get("host_hz") or None

    def samples() -> Any:
        for k in sorted(table):
            yield k, table[k]

    every = len(table) == steps + 1
    return StateSeries(
        label, names, kinds, doc["layout"].get("version"), steps, host_hz, samples, every
    )


def check_comparable(a: StateSeries, b: StateSeries) -> None:
    """Refuse (one line) two runs whose states cannot be compared field by field."""
    if a.names != b.names or a.kinds != b.kinds:
        only_a = [n for n in a.names if n not in b.names]
        only_b = [n for n in b.names if n not in a.names]
        raise SkidpadError(
            f"--stats: A and B have different state layouts ({len(a.names)} vs {len(b.names)} "
            f"fields; only in A: {', '.join(only_a[:3]) or '-'}; "
            f"only in B: {', '.join(only_b[:3]) or '-'}): fields cannot be compared one to one"
        )
    if a.host_hz and b.host_hz and a.host_hz != b.host_hz:
        raise SkidpadError(
            f"--stats: A runs {a.host_hz} host steps a second, B {b.host_hz}: "
            "host step k is not the same time in both"
        )


def parse_tolerances(specs: Sequence[str], names: Sequence[str]) -> dict[str, float]:
    """``FIELD=VALUE`` items (comma lists, repeatable; FIELD may be a glob such as
    ``wheel.*.omega``) as ``{field: tolerance}``; a later item overrides an earlier one."""
    out: dict[str, float] = {}
    for text in specs:
        for item in text.split(","):
            item = item.strip()
            pattern, sep, number = item.partition("=")
            pattern, number = pattern.strip(), number.strip()
            if not sep or not pattern or not number:
                raise SkidpadError(f"--tolerance {item!r}: expected FIELD=VALUE")
            try:
                value = float(number)
            except ValueError:
                raise SkidpadError(f"--tolerance {item!r}: {number!r} is not a number") from None
            if not math.isfinite(value) or value < 0.0:
                raise SkidpadError(f"--tolerance {item!r}: a tolerance is a finite number >= 0")
            matched = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
            if not matched:
                raise SkidpadError(
                    f"--tolerance {item!r}: no state field is named {pattern!r} "
                    f"(fields: {', '.join(names[:6])}, ...)"
                )
            for n in matched:
                out[n] = value
    return out


@dataclass
class FieldStats:
    name: str
    kind: str
    rmse: float
    max_abs: float
    at_step: int | None  # first host step with the largest difference; None: never differs
    a: float | int | None  # both values at that step
    b: float | int | None
    tolerance: float | None = None

    @property
    def exceeded(self) -> bool:
        return self.tolerance is not None and not (self.max_abs <= self.tolerance)

    def verdict(self) -> str:
        if self.tolerance is None:
            return ""
        return "EXCEEDED" if self.exceeded else "ok"

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "rmse": self.rmse,
            "max_abs": self.max_abs,
            "at_step": self.at_step,
            "a": self.a,
            "b": self.b,
            "tolerance": self.tolerance,
            "exceeded": self.exceeded,
        }


@dataclass
class StatsReport(TwoRuns):
    compared_steps: int = 0  # host steps whose states both runs hold
    first_step: int | None = None
    last_step: int | None = None
    fields: list[FieldStats] = field(default_factory=list)

    @property
    def exceeded(self) -> list[str]:
        return [f.name for f in self.fields if f.exceeded]

    def lines(self) -> list[str]:
        out = self.head_lines()
        out.append(
            f"compared the states after {self.compared_steps} host steps "
            f"({self.first_step}..{self.last_step})"
        )
        head = ("field", "RMSE", "max |A-B|", "at step", "A there", "B there", "tolerance", "")
        rows = [head]
        for f in self.fields:
            rows.append(
                (
                    f.name,
                    _num(f.rmse),
                    _num(f.max_abs),
                    "-" if f.at_step is None else str(f.at_step),
                    "-" if f.a is None else _num(f.a),
                    "-" if f.b is None else _num(f.b),
                    "-" if f.tolerance is None else _num(f.tolerance),
                    f.verdict(),
                )
            )
        out.append(format_table(rows, right=range(1, len(head)), rule=False))
        differ = sum(1 for f in self.fields if f.at_step is not None)
        judged = sum(1 for f in self.fields if f.tolerance is not None)
        summary = f"{differ} of {len(self.fields)} fields differ; {judged} with a tolerance"
        if self.exceeded:
            summary += f", exceeded by {len(self.exceeded)}: {', '.join(self.exceeded)}"
        elif judged:
            summary += ", every one within it"
        out.append(summary)
        return out

    def to_json(self) -> dict:
        return {
            "a": self.a_label,
            "b": self.b_label,
            "notes": self.notes,
            "compared_steps": self.compared_steps,
            "first_step": self.first_step,
            "last_step": self.last_step,
            "fields": [f.to_json() for f in self.fields],
            "exceeded": self.exceeded,
        }


def _num(v: float | int) -> str:
    return str(v) if isinstance(v, int) else f"{v:.6g}"


def _distance(x: float | int, y: float | int) -> float:
    if x == y:
        return 0.0
    d = abs(x - y)
    return float(d) if d == d else float("inf")  # a NaN on one side is as far as it gets


def state_stats(
    a: StateSeries, b: StateSeries, tolerances: dict[str, float] | None = None
) -> StatsReport:
    """Per-field RMSE and largest difference of two runs over the host steps both hold."""
    check_comparable(a, b)
    tolerances = tolerances or {}
    report = StatsReport(a.label, b.label)
    if a.layout_version != b.layout_version:
        report.notes.append(
            f"the layout versions differ ({a.layout_version} vs {b.layout_version}) "
            "with the same fields"
        )
    if a.steps != b.steps:
        report.notes.append(
            f"the runs have different lengths ({a.steps} vs {b.steps} host steps): "
            f"only the first {min(a.steps, b.steps)} are compared"
        )
    n = len(a.names)
    squares = [0.0] * n
    worst = [0.0] * n
    where: list[int | None] = [None] * n
    values: list[tuple] = [(None, None)] * n
    count = 0
    ia, ib = a.samples(), b.samples()
    sa, sb = next(ia, None), next(ib, None)
    while sa is not None and sb is not None:
        if sa[0] < sb[0]:
            sa = next(ia, None)
            continue
        if sb[0] < sa[0]:
            sb = next(ib, None)
            continue
        step, xa, xb = sa[0], sa[1], sb[1]
        if report.first_step is None:
            report.first_step = step
        report.last_step = step
        count += 1
        for i in range(n):
            d = _distance(xa[i], xb[i])
            squares[i] += d * d
            if d > worst[i]:
                worst[i], where[i], values[i] = d, step, (xa[i], xb[i])
        sa, sb = next(ia, None), next(ib, None)
    if count == 0:
        raise SkidpadError("--stats: A and B hold no state at the same host step")
    if not (a.every_step and b.every_step):
        report.notes.append(
            "a trace holds states at chosen host steps only: the statistics cover the steps "
            "both runs hold"
        )
    report.compared_steps = count
    for i, name in enumerate(a.names):
        report.fields.append(
            FieldStats(
                name,
                a.kinds[i],
                math.sqrt(squares[i] / count),
                worst[i],
                where[i],
                values[i][0],
                values[i][1],
                tolerances.get(name),
            )
        )
    return report
