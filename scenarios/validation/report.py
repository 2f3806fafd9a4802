"""Generate ``docs/validation.md`` and its plots from a validation run (never edited by hand).

``write(results, wall_s)`` takes ``{preset: {scenario: result}}`` (the full
results of :mod:`scenarios.validation.run`, traces included) and writes:

* ``docs/validation.md``: the results table in seed 000's columns and a
  section per scenario saying how it is measured;
* ``docs/validation/iso4138.png``: steer angle over lateral acceleration per
  preset (four-wheel points left and right, single-track line);
* ``docs/validation/step_steer.png``: yaw-rate response of the step steer,
  each preset with the linear bicycle of its own data dashed
  (:mod:`scenarios.validation.linear_bicycle`);
* ``docs/validation/lane_change.png`` (ISO 3888-1) and
  ``docs/validation/lane_change_3888_2.png`` (ISO 3888-2): the best path at
  each speed tried through the cones, per preset.

A run of some scenarios only (``skidpad validate --scenario lane_change --course
3888-2 --docs``) rewrites their columns and plots and keeps every other cell of
the page before, saying so under the table.

Files are written atomically (temp + rename) and the plots drawn by
:mod:`scenarios.plots`, as the other generated pages'.
"""

from __future__ import annotations

from pathlib import Path

from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.smath.selftest import selftest_hash
from skidpad.scenarios import plots
from skidpad.scenarios.validation import linear_bicycle
from skidpad.scenarios.validation import run as vrun

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "validation.md"
PNG_DIR = ROOT / "docs" / "validation"


def _plots(results: dict) -> list[Path]:
    plt = plots.pyplot()
    written = []
    presets = [p for p in results if "iso4138" in results[p]]
    if presets:
        fig, axes = plt.subplots(2, 3, figsize=(13, 7.5), squeeze=False)
        for ax, p in zip(axes.flat, presets, strict=False):
            r = results[p]["iso4138"]
            for side, mk in (("left", "o"), ("right", "s")):
                pts = r[f"points_{side}"]
                ax.plot(
                    [abs(q["ay_mps2"]) for q in pts],
                    [abs(q["steer_deg"]) for q in pts],
                    mk,
                    label=f"four-wheel, {side}",
                )
            st = r["single_track_points"]
            ax.plot(
                [q["ay_mps2"] for q in st], [q["steer_deg"] for q in st], "-", label="single-track"
            )
            ax.set_title(f"{p}: K_us {r['kus_four_wheel_deg_per_g']:.2f} deg/g")
            ax.set_xlabel("lateral acceleration (m/s²)")
            ax.set_ylabel("road-wheel angle (deg)")
            ax.grid(True, alpha=0.3)
        axes.flat[0].legend(fontsize=8)
        fig.suptitle("ISO 4138 constant radius 40 m: steer angle over lateral acceleration")
        path = plots.save_png(fig, PNG_DIR / "iso4138.png", dpi=110)
        written.append(path)
    presets = [p for p in results if "step_steer" in results[p]]
    if presets:
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, p in enumerate(presets):
            r = results[p]["step_steer"]
            ss = r["steady_yaw_rate_radps"]
            colour = f"C{i}"
            ax.plot(r["trace_t_s"], [v / ss for v in r["trace_yaw_rate_radps"]], colour, label=p)
            lin = linear_bicycle.step_response(load_preset(p))
            lin_ss = lin.steady_yaw_rate_radps
            ax.plot(
                lin.trace_t_s,
                [v / lin_ss for v in lin.trace_yaw_rate_radps],
                colour,
                ls="--",
                lw=0.9,
            )
        ax.plot([], [], "grey", ls="--", lw=0.9, label="dashed: linear bicycle, same data")
        ax.axhline(0.9, color="grey", lw=0.8, ls=":")
        ax.set_xlim(-0.1, 1.0)
        ax.set_xlabel("time from 50 % steer (s)")
        ax.set_ylabel("yaw rate / steady state")
        ax.set_title("ISO 7401 step steer at 80 km/h, 4 m/s² linear-theory angle")
        ax.legend(fontsize=8)
        ax.grid(True, alpha=0.3)
        path = plots.save_png(fig, PNG_DIR / "step_steer.png", dpi=110)
        written.append(path)
    for name, title in LANE_CHANGE_PLOTS.items():
        path = _lane_change_plot(plt, results, name, title)
        if path is not None:
            written.append(path)
    return written


LANE_CHANGE_PLOTS = {
    "lane_change": "ISO 3888-1 double lane change",
    "lane_change_3888_2": "ISO 3888-2 obstacle avoidance",
}


def _lane_change_plot(plt: object, results: dict, name: str, title: str) -> Path | None:
    presets = [p for p in results if name in results[p]]
    if not presets:
        return None
    fig, axes = plt.subplots(len(presets), 1, figsize=(12, 2.2 * len(presets)), squeeze=False)
    for ax, p in zip(axes.flat, presets, strict=False):
        r = results[p][name]
        for x0, x1, yc, half in r["lanes"]:
            for y in (yc - half, yc + half):
                ax.plot([x0, x1], [y, y], "o", color="orange", ms=3)
        for kmh, a in r["speeds"].items():
            path_xy = a["path"]
            ok = "pass" if a["passed"] else "fail"
            ax.plot(
                [q[0] for q in path_xy],
                [q[1] for q in path_xy],
                lw=1,
                label=f"{kmh} km/h ({ok}, {a['runs']} runs)",
            )
        ax.set_title(f"{p}: passes up to {r['pass_speed_kmh']} km/h", fontsize=9)
        ax.set_ylabel("y (m)")
        ax.legend(fontsize=6, ncol=4, loc="upper right")
        ax.set_xlim(-10, r["course_length_m"] + 10)
    axes.flat[-1].set_xlabel("x along the course (m)")
    fig.suptitle(f"{title}: CoG paths of the best run per speed")
    return plots.save_png(fig, PNG_DIR / f"{name}.png", dpi=110)


TEXT = """
## How each column is measured

All scenarios live in `scenarios/validation/` (one module per manoeuvre); every
one is a closed-loop or scripted driver whose inputs could be recorded and
replayed bit for bit. `skidpad validate` runs them, `--bless` writes
`scenarios/golden/validation.json` (every figure with its tolerance), and the
tests `tests/test_validation_results.py` fail when a figure leaves its tolerance.

- **Kus four-wheel / single-track / linear theory** — ISO 4138 constant radius,
  40 m, 4–12 m/s in 2 m/s steps, turning left and right, by the closed-loop circle
  driver of `scenarios/skidpad.py`. Each point's reference steer angle is reduced
  by the Ackermann angle of the path actually driven, L·r/V, before the
  least-squares fit over a_y = V·r; the four-wheel figure is the mean of the two
  directions. Single-track: the steady-state bicycle model from the same
  definition (`engine/fourwheel/single_track.py`); linear theory: K_us = (m/L')(b'/C_f − a'/C_r)
  with trail-corrected arms and compliance-corrected front stiffness.
- **0–100 km/h** — full throttle from rest through the preset's drivetrain.
- **100–0 km/h, locked / ABS; mean decel** — full brake from 100 km/h with the ABS
  switched off, then on (the definition's `assists.abs`); distance to the first host
  step below 0.01 m/s; mean deceleration = 100 km/h / stop time (locked stop).
- **Wheels lock** — on the locked stop: when the last wheel locked, releases while
  moving (lock chatter, counted at substep resolution), the relative RMS ripple of
  the deceleration about its 0.2 s moving average over the sliding phase, and the
  speed after the brake is held 2 s past the stop (must be < 0.1 mm/s).
- **Parks on slopes** — flat; 10/20/30 % uphill on the service brake; 10/20 % on
  the handbrake alone; across a 20 % slope with both. 5 s settle, then < 0.1 mm/s,
  < 1 mm drift over 10 s, speed RMS < 0.1 mm/s over the last 5 s. Worst creep = the
  largest of each case's speed after the settle and its net drift / 10 s.
- **Timestep sweep** — skidpad at 4, 8, 12 m/s (2 s settle, 0.5 s average), the
  locked stop (1 s hold) and the 30 % park (1.5 s + 1.5 s) at substep 250/500/1000/2000 Hz
  × host 30/60/120/240 Hz against the reference cell (the definition's substep rate,
  100 Hz host): every cell finite, parks, stops without chatter and at rest,
  |ΔK_us| ≤ 0.05 deg/g and braking distance within 1 %. Shown: the largest deviations.
- **Step steer** — ISO 7401 at 80 km/h: road-wheel angle ramped over 0.1 s to the
  linear-theory angle for 4 m/s², held 5 s at the throttle that held 80 km/h before
  the step. Time from 50 % steer to the first reach of 90 % of the steady yaw rate,
  and the overshoot past it; the golden file also has the steady yaw-rate gain, the
  lateral-acceleration response time, steady side slip and roll. The assists stay
  as the preset defines them; where stability control is on (sportsRwd, openWheeler)
  it stays out of this step, as of any corner below the tires' limit: its dead band
  holds the car's own understeer and its headroom to the limit (ADR 0180). The plot
  shows, dashed, the linear bicycle model of each preset's own data (linear-theory
  axles with the steering system, yaw inertia, tire relaxation lengths, the same ramp);
  it has no roll, so the four-wheel car, whose roll steer and roll camber arrive with the
  roll, answers sooner and overshoots more. Where a column differs from the reference
  engine's table, ADR 0181 gives the measured cause of the chassis, ADR 0182 the checks of
  the manoeuvre and the mechanism tests, and ADR 0271 what the presets' K&C move (physics
  11); the response time's difference is not explained by any of them.
- **Lane change** — ISO 3888-1: sections 15/30/25/25/15 m, lanes 1.1/1.2/1.3 × W +
  0.25 m (W = track + 0.25 m), 3.5 m offset. Driver: pure pursuit on a smooth
  centreline with curvature feedforward from the linear understeer gradient and a
  yaw damper, up to four practice runs per speed learning a correction of its aim
  along the course from the previous run's path error. A speed passes when every
  wheel (centre ± 0.125 m) stayed inside the lanes of sections 1, 3 and 5; the sweep
  50–110 km/h stops at the first speed that fails.
- **ISO 3888-2 passes up to (km/h)** — the obstacle avoidance course ("moose
  test", `skidpad validate --scenario lane_change --course 3888-2`): sections
  12/13.5/11/12.5/12 m (61 m), lanes 1.1 × W + 0.25 m, W + 1 m and 1.3 × W +
  0.25 m (at least 3 m); lane 3 starts 1 m left of lane 1's left edge, lanes 1
  and 5 share their right edge. The same driver with a shorter look-ahead (2 m +
  0.3 s × V) holds the entry speed up to the entry gate, then releases the
  throttle and coasts through, as the standard's entry protocol asks; the golden
  file also has the speed at the gate of each speed's best run.
- **100–0 km/h on ice, locked / ABS** — the same stop on ice (the engine's surface
  friction scale 0.12); wet, gravel and snow are in the golden file. Each surface stop
  starts with a 0.01 rad/s yaw-rate disturbance (a symmetric model on a perfect road
  would keep even an unstable straight slide straight). "spins" when the car swapped
  ends (heading change past 90°), with the distances to where it stopped.
- **Scripted drive hash** — the state hash after the fixed 30 s drive of
  `scenarios/scripted.py` at the definition's substep rate and 100 Hz host.
"""


def _complete(results: dict) -> bool:
    return all(set(vrun.SCENARIOS) <= set(results.get(p, {})) for p in PRESET_NAMES)


def _ran(results: dict) -> str:
    names = sorted({n for scen in results.values() for n in scen})
    presets = [p for p in PRESET_NAMES if p in results]
    who = "every preset" if len(presets) == len(PRESET_NAMES) else ", ".join(presets)
    return f"{', '.join(names)} on {who}"


def markdown(results: dict, wall_s: float | None, before: str | None = None) -> str:
    """The page; ``before`` (the page as it was) fills what a partial run did not run."""
    partial = before is not None and not _complete(results)
    kept = vrun.parse_table(before) if partial else None
    head = [
        "# Validation",
        "",
        "Generated by `skidpad validate --docs` from `scenarios/validation/` "
        "(do not edit by hand).",
        "",
        f"Math self-test hash `{selftest_hash()}`.",
        "",
        "## Results",
        "",
        vrun.table(results, kept),
        "",
    ]
    if partial:
        head += [line for line in before.splitlines() if line.startswith(WALL_LINE)][:1]
        took = "" if wall_s is None else f" ({wall_s:.0f} s)"
        head.append(
            f"{UPDATED_LINE} {_ran(results)}{took}; every other cell and plot is from the "
            "run before."
        )
        head.append("")
    elif wall_s is not None:
        head.append(f"{WALL_LINE} {wall_s:.0f} s.")
        head.append("")
    head.append("![ISO 4138](validation/iso4138.png)")
    head.append("![Step steer](validation/step_steer.png)")
    head.append("![Lane change](validation/lane_change.png)")
    head.append("![ISO 3888-2](validation/lane_change_3888_2.png)")
    return "\n".join(head) + "\n" + TEXT


#: Every file :func:`write` replaces, for a preflight before the scenarios run.
OUTPUTS = (
    DOC,
    PNG_DIR / "iso4138.png",
    PNG_DIR / "step_steer.png",
    PNG_DIR / "lane_change.png",
    PNG_DIR / "lane_change_3888_2.png",
)

WALL_LINE = "Wall time of the run that generated this page:"
UPDATED_LINE = "Updated since by a run of"


def write(results: dict, wall_s: float | None = None) -> list[Path]:
    before = DOC.read_text(encoding="utf-8") if DOC.is_file() else None
    text = markdown(results, wall_s, before)
    paths = _plots(results)
    plots.write_file(DOC, text.encode("utf-8"))
    return [DOC, *paths]
