"""``skidpad compare commonroad-mb``: our four-wheel car against CommonRoad MB, metric by metric.

:func:`run` drives both models through every manoeuvre
(:mod:`scenarios.comparison.manoeuvres`), computes the same metrics of each
(:mod:`scenarios.comparison.metrics`) and judges every metric against its
tolerance (:mod:`scenarios.comparison.tolerances`). The time series of the
two models are also set against each other channel by channel with the
statistics of ``skidpad diff --stats`` (``replay.stats.state_stats``: RMSE,
largest difference and where): the road-wheel angle and the speed carry
tolerances there (the comparison's premise: the same inputs), the handling
channels are reported.

``definition`` and ``mb_params`` may replace the car on either side (a test
plants a change that way); by default our side is
:func:`scenarios.comparison.vehicle.build_definition` of the reference data
and MB's side is that data with camber-blind tires
(:func:`scenarios.comparison.vehicle.camber_blind`): our model has no camber yet, so
the judged reference is MB without the one mechanism ours lacks. MB as published
(``published``) is run beside it, and each metric reports the share of the
difference to it that the camber accounts for (ADR 0263).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from skidpad.engine.commonroad.params import load_vehicle
from skidpad.replay.stats import (
    StateSeries,
    StatsReport,
    state_stats,
)
from skidpad.scenarios.comparison import drive as drv
from skidpad.scenarios.comparison import manoeuvres as mv
from skidpad.scenarios.comparison.metrics import metrics
from skidpad.scenarios.comparison.tolerances import (
    CHANGES_AFTER_FIRST_RUN,
    METRICS,
    SERIES_TOLERANCES,
    Metric,
)
from skidpad.scenarios.comparison.vehicle import VEHICLE_ID, build_definition, camber_blind

#: The models one can compare against (the command's positional argument).
MODELS = ("commonroad-mb",)
STATS_CHANNELS = ("delta", "speed", "yaw_rate", "lat_accel", "side_slip", "roll")

Note = Callable[[str], None]


@dataclass
class Row:
    metric: Metric
    ours: float
    mb: float  # the judged reference: MB with camber-blind tires
    bound: float
    published: float | None = None  # MB as published (camber on), when it was run

    @property
    def passed(self) -> bool:
        d = abs(self.ours - self.mb)
        return math.isfinite(d) and d <= self.bound

    @property
    def camber_share(self) -> float | None:
        """The share of the difference between ours and MB as published that MB's camber
        accounts for: (published − camber-blind)/(published − ours); 1 is all of it."""
        if self.published is None or self.published == self.ours:
            return None
        return (self.published - self.mb) / (self.published - self.ours)

    def to_json(self) -> dict:
        return {
            "metric": self.metric.key,
            "label": self.metric.label,
            "unit": self.metric.unit,
            "ours": self.ours,
            "mb": self.mb,
            "tolerance": self.bound,
            "tolerance_absolute": self.metric.tolerance.absolute,
            "tolerance_relative": self.metric.tolerance.relative,
            "passed": self.passed,
            "mb_published": self.published,
            "camber_share": self.camber_share,
        }


@dataclass
class Result:
    rows: list[Row] = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # manoeuvre -> StatsReport
    series: dict = field(default_factory=dict)  # (model, manoeuvre) -> Series
    figures: dict = field(default_factory=dict)  # (model, manoeuvre) -> all metrics

    @property
    def failed(self) -> list[str]:
        out = [r.metric.key for r in self.rows if not r.passed]
        out += [f"{m}:{name}" for m, rep in self.stats.items() for name in rep.exceeded]
        return out

    def to_json(self) -> dict:
        return {
            "model": MODELS[0],
            "reference": "CommonRoad MB, vehicle 2, tires blind to camber (ADR 0263)",
            "metrics": [r.to_json() for r in self.rows],
            "series": {m: rep.to_json() for m, rep in self.stats.items()},
            "changes_after_first_run": [
                {"change": c, "why": w} for c, w in CHANGES_AFTER_FIRST_RUN
            ],
            "failed": self.failed,
            "passed": not self.failed,
        }


def _state_series(s: drv.Series, label: str) -> StateSeries:
    d = drv.derived(s)
    cols = [s.channels[c] if c in s.channels else d[c] for c in STATS_CHANNELS]
    n = len(s.t)

    def samples() -> object:
        for k in range(n):
            yield k, tuple(col[k] for col in cols)

    return StateSeries(
        label,
        STATS_CHANNELS,
        tuple("f" for _ in STATS_CHANNELS),
        "comparison-1",
        n - 1,
        mv.HOST_HZ,
        samples,
    )


def series_stats(ours: drv.Series, mb: drv.Series) -> StatsReport:
    """Channel-by-channel RMSE and largest difference of the two runs (``diff --stats``)."""
    return state_stats(
        _state_series(ours, f"ours {ours.manoeuvre}"),
        _state_series(mb, f"CommonRoad MB {mb.manoeuvre}"),
        dict(SERIES_TOLERANCES),
    )


def run(
    definition: dict | None = None,
    mb_params: object = None,
    note: Note | None = None,
    manoeuvres: tuple[str, ...] = mv.MANOEUVRES,
    mb_series: dict | None = None,
    published: bool = True,
) -> Result:
    """Both models through ``manoeuvres``; the judged metrics and the series statistics.

    ``mb_series`` (a :attr:`Result.series` of an earlier run) reuses MB's runs from it
    instead of driving MB again: a change planted on our side needs only our runs. With
    ``published``, MB as published (camber on) runs too, for the camber's share.
    """
    if definition is None:
        definition = build_definition()
    if mb_params is None:
        mb_params = camber_blind()
    wheelbase = definition["geometry"]["wheelbase_m"]
    result = Result()
    for name in manoeuvres:
        m = mv.manoeuvre(name, wheelbase)
        if note:
            note(f"{name}: our car")
        ours = drv.drive_ours(definition, m)
        if mb_series is not None and ("mb", name) in mb_series:
            mb = mb_series[("mb", name)]
        else:
            if note:
                note(f"{name}: CommonRoad MB")
            mb = drv.drive_mb(m, mb_params)
        result.series[("ours", name)] = ours
        result.series[("mb", name)] = mb
        result.figures[("ours", name)] = metrics(ours, m, wheelbase)
        result.figures[("mb", name)] = metrics(mb, m, wheelbase)
        result.stats[name] = series_stats(ours, mb)
        if published:
            if mb_series is not None and ("mb-published", name) in mb_series:
                pub = mb_series[("mb-published", name)]
            else:
                if note:
                    note(f"{name}: CommonRoad MB as published")
                pub = drv.drive_mb(m, load_vehicle(VEHICLE_ID))
            result.series[("mb-published", name)] = pub
            result.figures[("mb-published", name)] = metrics(pub, m, wheelbase)
    for metric in METRICS:
        man, key = metric.key.split(".")
        if man not in manoeuvres:
            continue
        a = result.figures[("ours", man)][key]
        b = result.figures[("mb", man)][key]
        pub = result.figures.get(("mb-published", man), {}).get(key)
        result.rows.append(Row(metric, a, b, metric.tolerance.bound(b), pub))
    return result


#: relaxation lengths (m) the sensitivity of the estimate is shown at (ours 0.1 m)
RELAXATION_LENGTHS_M = (0.05, 0.1, 0.2, 0.4)


def relaxation_sensitivity(definition: dict | None = None) -> list[dict]:
    """Our step-steer figures at each of :data:`RELAXATION_LENGTHS_M`: how much the
    estimated tire relaxation length (MB has none) decides the transient metrics."""
    if definition is None:
        definition = build_definition()
    out = []
    for sigma in RELAXATION_LENGTHS_M:
        d = copy.deepcopy(definition)
        for axle in ("front", "rear"):
            d["tires"][axle]["relaxation_length_x_m"] = sigma
            d["tires"][axle]["relaxation_length_y_m"] = sigma
        m = mv.manoeuvre("step", d["geometry"]["wheelbase_m"])
        figures = metrics(drv.drive_ours(d, m), m, d["geometry"]["wheelbase_m"])
        out.append({"relaxation_length_m": sigma, **figures})
    return out


def table(result: Result) -> str:
    """The human table: metric, ours, MB (camber-blind), tolerance, verdict, then MB as
    published and the camber's share of the difference to it; the series statistics."""
    head = ("metric", "unit", "ours", "MB", "tolerance", "", "MB published", "camber share")
    rows = [head]
    for r in result.rows:
        share = r.camber_share
        rows.append(
            (
                r.metric.key,
                r.metric.unit,
                f"{r.ours:.4g}",
                f"{r.mb:.4g}",
                f"±{r.bound:.3g}",
                "pass" if r.passed else "FAIL",
                "-" if r.published is None else f"{r.published:.4g}",
                "-" if share is None else f"{share:.0%}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        "our four-wheel car against CommonRoad MB (vehicle 2, BMW 320i), its tires blind to "
        "camber (ours has none); MB published: with camber"
    ]
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [c.rjust(w) for c, w in zip(row[2:], widths[2:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    for name, rep in result.stats.items():
        lines.append("")
        lines.append(f"time series, {name} (as skidpad diff --stats):")
        lines += ["  " + ln for ln in rep.lines()[2:]]
    failed = result.failed
    n = len(result.rows)
    passed = len([r for r in result.rows if r.passed])
    lines.append("")
    lines.append(
        f"{passed} of {n} metrics within tolerance"
        + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    return "\n".join(lines) + "\n"
