"""Run the validation scenarios per preset: figures, tolerances, criteria, golden file, table.

A *scenario* (:data:`SCENARIOS`) runs on one definition and returns its full
result (figures plus traces for the plots). :func:`figures` flattens the
golden-worthy numbers of a result into ``{key: value}``; :func:`tolerance`
gives each key's tolerance (``["abs", x]``, ``["rel", x]`` or ``["exact"]``);
:func:`criteria` lists the scenario's own pass/fail criteria it breaks
(chatter, creep, cones...). :func:`compare` checks figures against the golden
file. The golden file (``scenarios/golden/validation.json``) is written only
by :func:`bless` (atomic: temp file + rename), which reports what changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset, with_tir
from skidpad.scenarios.validation import (
    iso4138,
    lane_change,
    locked_wheels,
    parking,
    scripted_hash,
    step_steer,
    straight_line,
    surfaces,
    timestep_sweep,
)

GOLDEN_PATH = Path(__file__).resolve().parent.parent / "golden" / "validation.json"
GOLDEN_FORMAT = "skidpad-validation"
GOLDEN_VERSION = 1


class LaneChangeCourse:
    """The lane change on one ISO 3888 course, run as a scenario with its own results."""

    def __init__(self, course: str) -> None:
        self.course = course

    def run(self, definition: dict, progress: Callable[[str], None] | None = None) -> dict:
        return lane_change.run(definition, progress, course=self.course)


#: ``--course`` of the lane change -> the scenario (and golden entry) of that course
LANE_CHANGE_COURSES = {"3888-1": "lane_change", "3888-2": "lane_change_3888_2"}

#: name -> (module, one-line description); the order of the table and of a full run.
SCENARIOS: dict[str, tuple[object, str]] = {
    "iso4138": (iso4138, "ISO 4138 constant radius, four-wheel / single-track / linear"),
    "straight_line": (straight_line, "0-100 km/h; 100-0 km/h locked and ABS; locked wheels"),
    "parking": (parking, "parks on slopes"),
    "timestep_sweep": (timestep_sweep, "substep x host rate sweep"),
    "step_steer": (step_steer, "ISO 7401 step steer at 80 km/h"),
    "lane_change": (lane_change, "ISO 3888-1 double lane change"),
    "lane_change_3888_2": (
        LaneChangeCourse("3888-2"),
        "ISO 3888-2 obstacle avoidance (lane_change --course 3888-2)",
    ),
    "surfaces": (surfaces, "100-0 km/h on wet, gravel, snow, ice"),
    "scripted": (scripted_hash, "scripted 30 s drive hash"),
}

#: the names ``--scenario`` takes: a lane-change course other than the first is chosen
#: with ``--course``
SCENARIO_NAMES = tuple(
    n for n in SCENARIOS if n == "lane_change" or n not in LANE_CHANGE_COURSES.values()
)


def run_scenario(
    preset: str,
    name: str,
    progress: Callable[[str], None] | None = None,
    tir: dict | None = None,
    definition: dict | None = None,
) -> dict:
    """The full result of scenario ``name`` on ``preset`` (with, given ``tir``, the MF 6.1
    parameters of a ``.tir`` file on both axles: :func:`engine.fourwheel.definition.with_tir`;
    given ``definition``, on that car instead of the preset's)."""
    module = SCENARIOS[name][0]
    if definition is None:
        definition = load_preset(preset)
    if tir is not None:
        definition = with_tir(definition, tir)
    return module.run(definition, progress)


# ----------------------------------------------------------------- figures
def _put(out: dict, key: str, value: object) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        out[key] = value
    elif isinstance(value, float):
        out[key] = value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _put(out, f"{key}.{i}", v)
    else:
        raise TypeError(f"figure {key}: {type(value).__name__}")


def figures(name: str, r: dict) -> dict:
    """The golden-worthy figures of a result, flat ``{key: value}``."""
    out: dict = {}
    if name == "iso4138":
        for k, v in r.items():
            if k.startswith("kus_"):
                out[k] = v
        for side in ("left", "right"):
            for p in r[f"points_{side}"]:
                base = f"points.{side}.{p['target_mps']:g}"
                out[f"{base}.steer_deg"] = p["steer_deg"]
                out[f"{base}.ay_mps2"] = p["ay_mps2"]
    elif name == "straight_line":
        out["accel_0_100_s"] = r["accel_0_100_s"]
        for mode in ("locked", "abs"):
            s = r[mode]
            for k in ("distance_m", "mean_decel_mps2", "spins"):
                out[f"{mode}.{k}"] = None if s is None else s[k]
        m = locked_wheels.metrics(r["locked"])
        _put(out, "locked_wheels.lock_time_s", m["lock_time_s"])
        for k in ("releases_moving", "ripple", "rest_speed_mps"):
            out[f"locked_wheels.{k}"] = m[k]
    elif name == "parking":
        out["worst_creep_mps"] = r["worst_creep_mps"]
        for case, c in r["cases"].items():
            for k in ("settle_speed_mps", "drift_m", "speed_rms_mps"):
                out[f"{case}.{k}"] = c[k]
    elif name == "timestep_sweep":
        out["max_dkus_deg_per_g"] = r["max_dkus_deg_per_g"]
        out["max_ddistance"] = r["max_ddistance"]
        out["reference.kus_deg_per_g"] = r["reference"].get("kus_deg_per_g")
        out["reference.distance_m"] = r["reference"].get("distance_m")
    elif name == "step_steer":
        for k, v in r.items():
            if not k.startswith("trace"):
                out[k] = v
    elif name in LANE_CHANGE_COURSES.values():
        out["pass_speed_kmh"] = r["pass_speed_kmh"]
        keys = [
            "passed",
            "runs",
            "best_overlap_m",
            "peak_lat_accel_mps2",
            "peak_yaw_rate_radps",
            "peak_side_slip_deg",
        ]
        if r.get("course") == "3888-2":  # its entry protocol: the speed at the entry gate
            keys += ["gate_speed_kmh", "stopped_short"]
        for kmh, a in r["speeds"].items():
            for k in keys:
                out[f"{kmh}.{k}"] = a[k]
    elif name == "surfaces":
        for surface, row in r.items():
            for mode, s in row.items():
                for k in ("distance_m", "spins"):
                    out[f"{surface}.{mode}.{k}"] = None if s is None else s[k]
    elif name == "scripted":
        out["hash"] = r["hash"]
    return out


def tolerance(name: str, key: str, value: object) -> list:
    """The tolerance of one figure (physical quantities get a band, discrete ones none)."""
    if value is None or isinstance(value, (bool, str, int)):
        return ["exact"]
    leaf = key.rsplit(".", 1)[-1]
    if leaf.startswith("kus") or key.endswith(".kus_deg_per_g"):
        return ["abs", 0.02]
    if leaf == "max_dkus_deg_per_g":
        return ["abs", 0.01]
    if leaf == "max_ddistance":
        return ["abs", 0.003]
    if leaf in ("steer_deg", "ackermann_deg"):
        return ["abs", 0.01]
    if leaf in ("ay_mps2", "peak_lat_accel_mps2", "steady_lat_accel_mps2"):
        return ["rel", 0.03]
    if leaf.endswith("_s") or key.startswith("locked_wheels.lock_time_s"):
        return ["abs", 0.02] if "response" in leaf or "lock_time" in key else ["rel", 0.02]
    if leaf in ("distance_m", "mean_decel_mps2"):
        return ["rel", 0.02]
    if leaf == "ripple":
        return ["abs", 0.002]
    if leaf.endswith("_mps") and (
        "creep" in leaf or "settle" in leaf or "rms" in leaf or "rest" in leaf
    ):
        return ["abs", 2e-5]  # standstill figures: stay well below 0.1 mm/s
    if leaf == "drift_m":
        return ["abs", 2e-4]
    if leaf.endswith("_pct"):
        return ["abs", 1.0]
    if leaf.endswith("_deg"):
        return ["abs", 0.05]
    if leaf == "best_overlap_m":
        return ["abs", 0.02]
    return ["rel", 0.03]


def within(value: object, golden: object, tol: list) -> bool:
    if tol[0] == "exact" or golden is None or value is None or isinstance(golden, (bool, str)):
        return value == golden
    if tol[0] == "abs":
        return abs(value - golden) <= tol[1]
    return abs(value - golden) <= tol[1] * abs(golden)


def criteria(name: str, r: dict) -> list[str]:
    """The scenario's own pass/fail criteria that ``r`` breaks (independent of the golden file)."""
    out: list[str] = []
    if name == "iso4138":
        if abs(r["kus_single_track_small_ay_deg_per_g"] - r["kus_linear_deg_per_g"]) > 0.05:
            out.append("single-track K_us at small a_y more than 0.05 deg/g off linear theory")
        for p in r["points_left"] + r["points_right"]:
            if abs(abs(p["path_radius_m"]) - iso4138.RADIUS_M) > 0.4:
                out.append(f"circle at {p['target_mps']:g} m/s: radius {p['path_radius_m']:.2f} m")
    elif name == "straight_line":
        if r["accel_0_100_s"] is None:
            out.append("0-100 km/h not reached")
        if not r["locked"]["stopped"]:
            out.append("the locked stop did not come to rest")
        out.extend(locked_wheels.failures(locked_wheels.metrics(r["locked"])))
    elif name == "parking":
        out.extend(parking.failures(r))
    elif name == "timestep_sweep":
        out.extend(timestep_sweep.failures(r))
    elif name == "step_steer":
        if r["yaw_rate_response_s"] is None or r["lat_accel_response_s"] is None:
            out.append("step steer: the response never reached 90 % of its steady state")
    elif name in LANE_CHANGE_COURSES.values():
        if r["pass_speed_kmh"] is None:
            out.append(f"lane change {r.get('course', '')}: not even the lowest speed passed")
    return out


def compare(name: str, figs: dict, golden: dict | None) -> list[str]:
    """Figures outside their golden tolerance (or missing from / new to the golden file)."""
    if golden is None:
        return [f"{name}: no golden figures (run skidpad validate --bless)"]
    out = []
    for key, value in figs.items():
        if key not in golden:
            out.append(f"{name}.{key}: not in the golden file")
            continue
        g = golden[key]
        if not within(value, g["value"], g["tol"]):
            out.append(f"{name}.{key}: {value!r} vs golden {g['value']!r} (tolerance {g['tol']})")
    for key in golden:
        if key not in figs:
            out.append(f"{name}.{key}: in the golden file but no longer measured")
    return out


# ----------------------------------------------------------------- golden file
def load_golden(path: Path = GOLDEN_PATH) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"format": GOLDEN_FORMAT, "version": GOLDEN_VERSION, "presets": {}}
    if data.get("format") != GOLDEN_FORMAT or data.get("version") != GOLDEN_VERSION:
        from skidpad.engine.errors import SkidpadError

        raise SkidpadError(f"{path}: not a version-{GOLDEN_VERSION} {GOLDEN_FORMAT} file")
    return data


def golden_for(golden: dict, preset: str, name: str) -> dict | None:
    return golden.get("presets", {}).get(preset, {}).get(name)


def bless(results: dict, path: Path = GOLDEN_PATH, extra: dict | None = None) -> list[str]:
    """Write the figures of ``results`` ({preset: {scenario: result}}) into the golden file.

    Scenarios not in ``results`` keep their golden entries. Returns lines saying
    what changed. Atomic: written to a temp file in the same directory, then renamed.
    """
    path = Path(path)
    old = load_golden(path)
    new = json.loads(json.dumps(old))
    changes: list[str] = []
    for preset, scen in results.items():
        for name, r in scen.items():
            figs = figures(name, r)
            entry = {k: {"value": v, "tol": tolerance(name, k, v)} for k, v in figs.items()}
            prev = old.get("presets", {}).get(preset, {}).get(name)
            if prev is None:
                changes.append(f"{preset} {name}: new ({len(entry)} figures)")
            else:
                diff = [k for k in entry if k not in prev or prev[k]["value"] != entry[k]["value"]]
                gone = [k for k in prev if k not in entry]
                if diff or gone:
                    first = diff[0] if diff else gone[0]
                    was = prev.get(first, {}).get("value")
                    now = entry.get(first, {}).get("value")
                    changes.append(
                        f"{preset} {name}: {len(diff)} changed, {len(gone)} removed; "
                        f"first {first}: {was!r} -> {now!r}"
                    )
                else:
                    changes.append(f"{preset} {name}: unchanged")
            new.setdefault("presets", {}).setdefault(preset, {})[name] = entry
    if extra:
        new.update(extra)
    text = json.dumps(new, indent=1, sort_keys=True) + "\n"
    from skidpad.replay import output

    output.make_directory(path.parent)
    output.write_text(path, text)
    return changes


# ----------------------------------------------------------------- the table
COLUMNS = (
    "Vehicle",
    "Kus four-wheel (deg/g)",
    "Kus single-track (deg/g)",
    "Kus linear theory (deg/g)",
    "0–100 km/h (s)",
    "100–0 km/h (m), locked / ABS",
    "Mean decel (m/s²)",
    "Wheels lock",
    "Parks on slopes",
    "Timestep sweep",
    "Step steer: yaw-rate response (s) / overshoot (%)",
    "Lane change passes up to (km/h)",
    "ISO 3888-2 passes up to (km/h)",
    "100–0 km/h on ice (m), locked / ABS",
    "Scripted drive hash",
)


#: the scenario each column of :data:`COLUMNS` comes from (None: the preset's name)
COLUMN_SCENARIOS = (
    None,
    "iso4138",
    "iso4138",
    "iso4138",
    "straight_line",
    "straight_line",
    "straight_line",
    "straight_line",
    "parking",
    "timestep_sweep",
    "step_steer",
    "lane_change",
    "lane_change_3888_2",
    "surfaces",
    "scripted",
)


def _f(v: object, fmt: str) -> str:
    return "–" if v is None else format(v, fmt)


def _stop_text(s: dict | None) -> str:
    if s is None:
        return "n/a"
    d = _f(s["distance_m"], ".1f")
    return f"spins ({d})" if s.get("spins") else d


def row(preset: str, res: dict) -> list[str]:
    """One table row from ``{scenario: result}`` (missing scenarios show –)."""
    cells = [preset] + ["–"] * (len(COLUMNS) - 1)
    if "iso4138" in res:
        r = res["iso4138"]
        cells[1] = _f(r["kus_four_wheel_deg_per_g"], ".2f")
        cells[2] = _f(r["kus_single_track_deg_per_g"], ".2f")
        cells[3] = _f(r["kus_linear_deg_per_g"], ".2f")
    if "straight_line" in res:
        r = res["straight_line"]
        cells[4] = _f(r["accel_0_100_s"], ".2f")
        cells[5] = f"{_stop_text(r['locked'])} / {_stop_text(r['abs'])}"
        cells[6] = _f(r["locked"]["mean_decel_mps2"], ".2f")
        m = locked_wheels.metrics(r["locked"])
        fails = locked_wheels.failures(m)
        chatter = "no chatter" if m["releases_moving"] == 0 else f"{m['releases_moving']} releases"
        rest = "at rest" if m["rest_speed_mps"] < locked_wheels.REST_MPS else "NOT at rest"
        ripple = "–" if m["ripple"] is None else f"{100.0 * m['ripple']:.1f} %"
        when = "never" if m["last_lock_s"] is None else f"at {m['last_lock_s']:.2f} s"
        cells[7] = (
            f"{when}, {chatter}, ripple {ripple}, {rest} after the stop "
            f"({m['rest_speed_mps']:.0e} m/s)" + ("" if not fails else " FAIL")
        )
    if "parking" in res:
        r = res["parking"]
        ok = "yes" if not parking.failures(r) else "NO"
        cells[8] = f"{ok} (worst creep {r['worst_creep_mps']:.1e} m/s)"
    if "timestep_sweep" in res:
        r = res["timestep_sweep"]
        ok = "stable" if not timestep_sweep.failures(r) else "UNSTABLE"
        cells[9] = (
            f"{ok} (Kus ±{r['max_dkus_deg_per_g']:.3f} deg/g, "
            f"braking ±{100.0 * r['max_ddistance']:.1f} %)"
        )
    if "step_steer" in res:
        r = res["step_steer"]
        cells[10] = f"{_f(r['yaw_rate_response_s'], '.2f')} / {r['yaw_rate_overshoot_pct']:.1f}"
    if "lane_change" in res:
        cells[11] = _f(res["lane_change"]["pass_speed_kmh"], "d")
    if "lane_change_3888_2" in res:
        cells[12] = _f(res["lane_change_3888_2"]["pass_speed_kmh"], "d")
    if "surfaces" in res:
        ice = res["surfaces"]["ice"]
        lk, ab = ice.get("locked"), ice.get("abs")
        if lk and lk["spins"] or ab and ab["spins"]:
            d_lk = _f(lk and lk["distance_m"], ".0f")
            d_ab = _f(ab and ab["distance_m"], ".0f")
            cells[13] = f"spins ({d_lk} / {d_ab})"
        else:
            cells[13] = (
                f"{_f(lk and lk['distance_m'], '.0f')} / {_f(ab and ab['distance_m'], '.0f')}"
            )
    if "scripted" in res:
        cells[14] = res["scripted"]["hash"]
    return cells


def table(results: dict, kept: dict | None = None) -> str:
    """The markdown results table (seed 000's columns) for ``{preset: {scenario: result}}``.

    ``kept`` (``{preset: {column: cell}}``, from the page before) fills the cells of the
    scenarios this run did not run, and the rows of presets it did not run.
    """
    kept = kept or {}
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for preset in PRESET_NAMES:
        if preset not in results and preset not in kept:
            continue
        res = results.get(preset, {})
        cells = row(preset, res)
        old = kept.get(preset, {})
        for i, name in enumerate(COLUMN_SCENARIOS):
            if name is not None and name not in res and COLUMNS[i] in old:
                cells[i] = old[COLUMNS[i]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_table(markdown: str) -> dict:
    """``{preset: {column: cell}}`` of the results table in a page :func:`table` wrote."""
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    if not rows:
        return {}
    head = [c.strip() for c in rows[0].strip("|").split(" | ")]
    out = {}
    for line in rows[1:]:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if len(cells) == len(head) and cells[0] in PRESET_NAMES:
            out[cells[0]] = dict(zip(head, cells, strict=True))
    return out


def check(preset: str, name: str, r: dict, golden: dict) -> list[str]:
    """Everything wrong with one result: its criteria, then its golden comparison."""
    return [f"{preset} {c}" for c in criteria(name, r)] + [
        f"{preset} {c}" for c in compare(name, figures(name, r), golden_for(golden, preset, name))
    ]
