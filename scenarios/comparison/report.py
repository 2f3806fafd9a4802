"""Generate ``docs/comparison.md`` and its plots from a comparison run (never edited by hand).

``write(result)`` takes a :class:`scenarios.comparison.compare.Result` of all
three manoeuvres and writes, through the output helper (temp file beside the
target, then rename):

* ``docs/comparison.md``: the metric table (ours, MB, tolerance, verdict), the
  time-series statistics, how the manoeuvres are driven and measured, the car
  (every mapped and every estimated value), and every change made to the
  comparison after its first run;
* ``docs/comparison/step.png`` and ``sine.png``: yaw rate and lateral
  acceleration against time, both models;
* ``docs/comparison/ramp.png``: steer past the Ackermann angle and roll against
  lateral acceleration in the slowly increasing steer;
* ``docs/comparison/side_slip.png``: side slip in all three manoeuvres.

matplotlib (Agg) is imported only to draw them (:mod:`scenarios.plots`).
"""

from __future__ import annotations

from pathlib import Path

from skidpad.scenarios import plots
from skidpad.scenarios.comparison import manoeuvres as mv
from skidpad.scenarios.comparison import tolerances as tol
from skidpad.scenarios.comparison import vehicle
from skidpad.scenarios.comparison.drive import (
    LOSS_OF_CONTROL_BETA,
    LOSS_OF_CONTROL_SLIP,
    derived,
)
from skidpad.scenarios.comparison.metrics import (
    FIT_HI,
    FIT_LO,
    LIMIT_WINDOW_S,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "comparison.md"
PNG_DIR = ROOT / "docs" / "comparison"
PLOTS = ("step", "sine", "ramp", "side_slip")
OUTPUTS = (DOC, *(PNG_DIR / f"{p}.png" for p in PLOTS))

G = 9.80665
DEG = 57.29577951308232
LABELS = {
    "ours": "Skidpad four-wheel",
    "mb": "CommonRoad MB, camber-blind tires (judged)",
    "mb-published": "CommonRoad MB as published",
}
STYLE = {"ours": "-", "mb": "--", "mb-published": ":"}
DPI = 110


def _models(result: object, manoeuvre: str) -> list[str]:
    """The runs of ``manoeuvre`` to draw: ours, the judged MB, and MB as published if run."""
    return [m for m in LABELS if (m, manoeuvre) in result.series]


def _time_plot(plt: object, result: object, name: str, title: str) -> Path:
    fig, axes = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    for model in _models(result, name):
        s = result.series[(model, name)]
        t = [x - mv.SETTLE_S for x in s.t]
        axes[0].plot(t, s.channels["yaw_rate"], STYLE[model], label=LABELS[model])
        axes[1].plot(t, s.channels["lat_accel"], STYLE[model], label=LABELS[model])
    axes[0].set_ylabel("yaw rate (rad/s)")
    axes[1].set_ylabel("lateral acceleration (m/s²)")
    axes[1].set_xlabel("time from the start of the steer (s)")
    axes[0].set_title(title)
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend()
        ax.set_xlim(-0.5, None)
    return plots.save_png(fig, PNG_DIR / f"{name}.png", dpi=DPI)


def _ramp_plot(plt: object, result: object, wheelbase: float) -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for model in _models(result, "ramp"):
        s = result.series[(model, "ramp")]
        ch = s.channels
        first = int(mv.SETTLE_S * mv.HOST_HZ)
        ay = [a / G for a in ch["lat_accel"][first:]]
        steer = [
            (ch["delta"][k] - wheelbase * ch["yaw_rate"][k] / ch["speed"][k]) * DEG
            for k in range(first, len(ch["delta"]))
        ]
        delta = [d * DEG for d in ch["delta"][first:]]
        axes[0].plot(ay, delta, STYLE[model], label=f"{LABELS[model]}: road-wheel angle")
        axes[0].plot(ay, steer, STYLE[model], alpha=0.6, label=f"{LABELS[model]}: past Ackermann")
        axes[1].plot(ay, [r * DEG for r in ch["roll"][first:]], STYLE[model], label=LABELS[model])
    axes[0].set_xlabel("lateral acceleration (g)")
    axes[0].set_ylabel("steer (deg)")
    axes[0].set_title("slowly increasing steer at 80 km/h")
    axes[1].set_xlabel("lateral acceleration (g)")
    axes[1].set_ylabel("roll (deg, body out of the turn)")
    axes[1].set_title("roll")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    return plots.save_png(fig, PNG_DIR / "ramp.png", dpi=DPI)


def _side_slip_plot(plt: object, result: object) -> Path:
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    first = int(mv.SETTLE_S * mv.HOST_HZ)
    for model in _models(result, "ramp"):
        ramp = result.series[(model, "ramp")]
        beta = [b * DEG for b in derived(ramp)["side_slip"][first:]]
        ay = [a / G for a in ramp.channels["lat_accel"][first:]]
        axes[0].plot(ay, beta, STYLE[model], label=LABELS[model])
        for ax, name in ((axes[1], "step"), (axes[2], "sine")):
            s = result.series[(model, name)]
            t = [x - mv.SETTLE_S for x in s.t]
            ax.plot(
                t, [b * DEG for b in derived(s)["side_slip"]], STYLE[model], label=LABELS[model]
            )
    axes[0].set_xlabel("lateral acceleration (g)")
    axes[0].set_title("ramp: side slip against a_y")
    axes[1].set_title("step steer")
    axes[2].set_title("sine steer, 1 Hz")
    for ax in axes:
        ax.set_ylabel("side slip β (deg)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[1].set_xlabel("time from the start of the steer (s)")
    axes[2].set_xlabel("time from the start of the steer (s)")
    return plots.save_png(fig, PNG_DIR / "side_slip.png", dpi=DPI)


def _plots(result: object, wheelbase: float) -> list[Path]:
    plt = plots.pyplot()
    return [
        _time_plot(plt, result, "step", "ISO 7401 step steer at 80 km/h"),
        _time_plot(plt, result, "sine", "sine steer at 1 Hz, 80 km/h"),
        _ramp_plot(plt, result, wheelbase),
        _side_slip_plot(plt, result),
    ]


def _cell(text: str) -> str:
    """Text for a table cell: a ``|`` would end the cell."""
    return text.replace("|", "\\|")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _num(v: object) -> str:
    if isinstance(v, str):
        return v
    return f"{v:.4g}"


def _metric_table(result: object) -> list[str]:
    out = [
        "| metric | unit | ours | CommonRoad MB (camber-blind tires) | tolerance | result "
        "| MB as published | camber's share |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for r in result.rows:
        t = r.metric.tolerance
        how = []
        if t.absolute:
            how.append(f"{t.absolute:g} {r.metric.unit}")
        if t.relative:
            how.append(f"{100.0 * t.relative:g} %")
        share = r.camber_share
        out.append(
            f"| {r.metric.label} (`{r.metric.key}`) | {r.metric.unit} | {_num(r.ours)} | "
            f"{_num(r.mb)} | ±{_num(r.bound)} ({' or '.join(how)}) | "
            f"{'pass' if r.passed else '**FAIL**'} | "
            f"{'—' if r.published is None else _num(r.published)} | "
            f"{'—' if share is None else f'{100.0 * share:.0f} %'} |"
        )
    return out


def _stats_tables(result: object) -> list[str]:
    out = []
    for name, rep in result.stats.items():
        out.append(
            f"**{name}** — {rep.compared_steps} host steps compared"
            + (f"; {'; '.join(rep.notes)}" if rep.notes else "")
        )
        out.append("")
        out.append(
            "| channel | RMSE | max \\|ours − MB\\| | at step | ours there | MB there | bound |"
        )
        out.append("|---|---:|---:|---:|---:|---:|---|")
        for f in rep.fields:
            bound = "—" if f.tolerance is None else f"{f.tolerance:g} ({f.verdict()})"
            out.append(
                f"| {f.name} | {f.rmse:.3g} | {f.max_abs:.3g} | {f.at_step} | "
                f"{_num(f.a) if f.a is not None else '—'} | "
                f"{_num(f.b) if f.b is not None else '—'} | {bound} |"
            )
        out.append("")
    return out


def _ends(result: object) -> list[str]:
    out = []
    settle = mv.SETTLE_S
    for (model, name), s in result.series.items():
        if s.lost_at is not None:
            out.append(
                f"- {LABELS[model]}, {name}: the run ended {s.lost_at / mv.HOST_HZ - settle:.3f} s "
                "into the steer, the car having lost control."
            )
    return out or ["- no run lost control before its end."]


def _sensitivity(rows: list) -> list[str]:
    if not rows:
        return []
    out = [
        "## How much the estimated relaxation length decides",
        "",
        "MB has no tire relaxation; ours is estimated at 0.1 m. Our step steer at other",
        "lengths (MB's figures in the metric table above):",
        "",
        "| relaxation length (m) | yaw response (s) | overshoot (%) | a_y response (s) "
        "| yaw-rate gain (1/s) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['relaxation_length_m']:g} | {r['yaw_response_time']:.3f} | "
            f"{r['yaw_overshoot']:.2f} | {r['lat_accel_response_time']:.3f} | "
            f"{r['yaw_rate_gain']:.3f} |"
        )
    out.append("")
    return out


def markdown(result: object, sensitivity: list | None = None) -> str:
    p_map = vehicle.mapping()
    passed = len([r for r in result.rows if r.passed])
    lines = [
        "# Skidpad against CommonRoad MB",
        "",
        "<!-- generated by `skidpad compare commonroad-mb --docs`; do not edit by hand -->",
        "",
        "An independent-simulator comparison: Skidpad's four-wheel model, with the car built",
        "from CommonRoad's vehicle 2 (BMW 320i) parameters, and CommonRoad's multi-body model",
        "MB (29 states; our port in `engine/commonroad/mb.py`, held to the reference package",
        "`vehiclemodels` to 1e-7) driven through the same manoeuvres with the same road-wheel",
        "angle against time. Tolerances were fixed in `scenarios/comparison/tolerances.py`",
        "before the first run and committed on their own; every change after that run is",
        "listed at the end. Decisions: ADR 0190 (the car), ADR 0191 (the comparison), ADR",
        "0263 (the judged reference's tires are blind to camber; tolerances sized by plants).",
        "",
        f"**{passed} of {len(result.rows)} metrics within tolerance.** A metric passes when",
        "|ours − MB| ≤ max(absolute, relative × |MB|).",
        "",
        "MB's wheels camber with the body's roll and their travel, and its tire answers",
        "camber. So the judged reference is MB with its tire's camber",
        "coefficients zeroed (`vehicle.camber_blind`: the same equations, tires that do not",
        "see the camber). MB as published is run beside it; *camber's share* is",
        "(published − camber-blind) / (published − ours): the part of our difference to MB as",
        "published that MB's camber accounts for (100 %: all of it). The step's side slip and",
        "response time, and the ramp's side-slip gradient, differ from MB as published by",
        "camber. Our model can camber (ADR 0265), but the judged MB stays blind to it: MB's",
        "camber force points away from the wheel's lean (its angle is positive leaning left,",
        "its tire reads positive as leaning right). Our car with MB's camber geometry moves the",
        "step as MB's camber does only with its camber force reversed (ADR 0267).",
        "",
        *_metric_table(result),
        "",
        "## Plots",
        "",
        "![step steer](comparison/step.png)",
        "",
        "![sine steer](comparison/sine.png)",
        "",
        "![ramp steer](comparison/ramp.png)",
        "",
        "![side slip](comparison/side_slip.png)",
        "",
        "## The time series, channel by channel",
        "",
        "The statistics of `skidpad diff --stats` (ADR 0150) over the host steps both runs",
        "hold: RMSE and the largest difference, where it occurs and both values there.",
        "Road-wheel angle (rad) and speed (m/s) carry bounds: they are the comparison's",
        "premise (the same inputs). Yaw rate (rad/s), lateral acceleration (m/s²), side",
        "slip and roll (rad) are reported; the metrics above judge them.",
        "",
        *_stats_tables(result),
        "## How it is driven and measured",
        "",
        f"- Every manoeuvre starts straight at 80 km/h and settles for {mv.SETTLE_S:g} s; both",
        f"  models run at {mv.HOST_HZ} host steps and substeps a second.",
        f"- **Slowly increasing steer** (ISO 4138, constant speed): {mv.RAMP_RATE_DEG_S:g}°/s of",
        f"  road-wheel angle for up to {mv.RAMP_S:g} s. Understeer gradient: slope of the steer",
        "  past the Ackermann angle of the path driven (δ − L·r/V) against a_y; roll and side",
        f"  slip gradients likewise, all over {FIT_LO:g}–{FIT_HI:g} m/s². Limit: the largest",
        f"  |a_y| averaged over {LIMIT_WINDOW_S:g} s.",
        f"- **Step steer** (ISO 7401): the neutral-steer angle for {mv.STEP_AY:g} m/s²",
        f"  (L·a_y/V²) reached in {mv.STEP_RISE_S:g} s and held {mv.STEP_HOLD_S:g} s; time zero at",
        "  50 % of the steer; response time = first reach of 90 % of the steady value (mean",
        "  of the last second); overshoot past it in % of it.",
        f"- **Sine steer** (ISO 7401): {mv.SINE_PERIODS} periods at {mv.SINE_HZ:g} Hz of the",
        "  step's amplitude; each signal's first harmonic over the periods after the first gives",
        "  the yaw-rate gain, its lag behind the steer and the side-slip amplitude.",
        "- **Controllers.** The same speed PI on both (throttle or brake from the speed",
        f"  error, k_p = {mv.SPEED_KP:g}, k_i = {mv.SPEED_KI:g}): our car's pedals drive its motor",
        "  and brakes; the MB daemon's pedals its longitudinal stack, which gives MB its",
        "  acceleration input. MB's steering-rate input comes from the daemon's",
        "  proportional controller with gain 1/h: each 1 ms substep it commands the rate",
        "  that reaches the demanded angle at the substep's end (MB's rate limit, 0.4 rad/s,",
        "  is never reached). The daemon's safety system is switched off (MB as published",
        "  has none, nor has our car's definition).",
        "- **Channels.** Lateral acceleration = the lateral tire forces in the body frame over",
        "  the mass (an accelerometer at the CoG) on both; side slip = atan(v_y/v_x) (MB's",
        "  v_y is its sprung mass's); roll = sprung-mass roll, positive right side down.",
        f"- **Loss of control** ends a run: side slip past {LOSS_OF_CONTROL_BETA * DEG:.0f}° or a",
        f"  wheel's longitudinal slip past {100 * LOSS_OF_CONTROL_SLIP:.0f} %.",
        "",
        *_ends(result),
        "",
        "## The car",
        "",
        "Mapped from CommonRoad's vehicle 2 data (`engine/commonroad/data/vehicle2.json`) by",
        "`scenarios/comparison/vehicle.py`:",
        "",
        "| our parameter | value | from the reference data |",
        "|---|---:|---|",
        *[f"| `{k}` | {v:.6g} | {_cell(how)} |" for k, v, how in p_map],
        "",
        "Estimated (the reference package does not give them):",
        "",
        "| our parameter | value | why |",
        "|---|---|---|",
        *[
            f"| `{k}` | {v if isinstance(v, str) else f'{v:g}'} | {_cell(why)} |"
            for k, v, why in vehicle.ESTIMATES
        ],
        "",
        "## What MB does that our model does not",
        "",
        "- Camber: MB's wheels camber with roll and suspension travel, and its tire's",
        "  vertical shift (p_vy1) switches with the camber's sign, so a wheel's lateral force",
        "  jumps by 3.7 % of its load as its camber crosses zero (visible as MB's lateral",
        "  acceleration step at the start of each steer).",
        "- Lateral compliance of the suspension (K_ras) and of the tire (K_lt), the unsprung",
        "  masses' own roll on the tires' vertical stiffness (mapped here as a series",
        "  stiffness), no tire relaxation.",
        "- Past the limit an unloaded, undriven front wheel of MB runs away to twice the road",
        "  speed under a braking force that spins it further up; its combined-slip lateral",
        "  force then exceeds its friction (1.5 times its load). The loss-of-control rule",
        "  ends the run before that.",
        "",
        *_sensitivity(sensitivity or []),
        "## Changes made after the first run",
        "",
    ]
    if tol.CHANGES_AFTER_FIRST_RUN:
        for i, (what, why) in enumerate(tol.CHANGES_AFTER_FIRST_RUN, 1):
            lines.append(f"{i}. **{_sentence(what)}.** {_sentence(why)}.")
    else:
        lines.append("None.")
    lines += [
        "",
        "No tolerance has changed since the first run.",
        "",
    ]
    return "\n".join(lines)


def write(result: object, sensitivity: list | None = None) -> list[Path]:
    """Write the page and its plots; returns the paths written. ``sensitivity``: the rows
    of :func:`scenarios.comparison.compare.relaxation_sensitivity`, shown when given."""
    wheelbase = vehicle.build_definition()["geometry"]["wheelbase_m"]
    paths = _plots(result, wheelbase)
    plots.write_file(DOC, markdown(result, sensitivity).encode("utf-8"))
    return [DOC, *paths]
