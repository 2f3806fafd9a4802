"""The comparison with CommonRoad MB: every metric within its tolerance, planted changes
caught by the right metric, the car's mapping, the command's hostile input.

One comparison run (both models, three manoeuvres; ~16 s CPU) is shared by the module;
planted changes re-drive only our car and reuse MB's runs from it.
"""

from __future__ import annotations

import copy
import json

import pytest
from skidpad.cli import main
from skidpad.engine.commonroad.params import load_vehicle
from skidpad.engine.fourwheel import load_transfer
from skidpad.engine.fourwheel.definition import validate_definition
from skidpad.engine.fourwheel.tire import cornering_stiffness
from skidpad.scenarios.comparison import (
    compare,
    drive,
    manoeuvres,
    metrics,
    report,
    tolerances,
    vehicle,
)


@pytest.fixture(scope="module")
def result() -> compare.Result:
    return compare.run()


@pytest.mark.parametrize("metric", tolerances.METRICS, ids=lambda m: m.key)
def test_metric_within_its_tolerance(result, metric):
    row = next(r for r in result.rows if r.metric.key == metric.key)
    assert row.passed, (
        f"{metric.key}: ours {row.ours:.5g} {metric.unit}, MB {row.mb:.5g}, "
        f"|difference| {abs(row.ours - row.mb):.3g} > {row.bound:.3g}"
    )


@pytest.mark.parametrize("name", manoeuvres.MANOEUVRES)
def test_both_models_got_the_same_inputs(result, name):
    """The premise: the same road-wheel angle against time and the same speed."""
    rep = result.stats[name]
    assert rep.exceeded == []
    by_name = {f.name: f for f in rep.fields}
    assert by_name["delta"].tolerance == tolerances.SERIES_TOLERANCES["delta"]
    assert by_name["delta"].max_abs < 1e-6  # the deadbeat rate controller tracks exactly


def test_the_ramp_reaches_the_limit_and_the_step_and_sine_do_not(result):
    for model in ("ours", "mb"):
        assert result.series[(model, "ramp")].lost_at is not None
        assert result.series[(model, "step")].lost_at is None
        assert result.series[(model, "sine")].lost_at is None
        assert result.figures[(model, "ramp")]["fit_points"] > 1000


def _planted(result, change, manoeuvres_run):
    d = copy.deepcopy(vehicle.build_definition())
    change(d)
    return compare.run(definition=d, manoeuvres=manoeuvres_run, mb_series=result.series)


#: how much each plant changes its one parameter: the tolerances are sized so that a 15 %
#: change fails (tolerances.py says by how much each plant moves its metric)
PLANT = 0.15


def test_a_softer_front_tire_fails_the_understeer_gradient(result):
    """Front cornering stiffness -15 %: 0.49 deg/g more understeer; roll is untouched."""

    def soften(d):
        d["tires"]["front"]["cornering_stiffness_coef"] *= 1.0 - PLANT

    planted = _planted(result, soften, ("ramp", "step"))
    failed = planted.failed
    assert "ramp.understeer_gradient" in failed and "step.yaw_rate_gain" in failed
    assert "ramp.roll_gradient" not in failed


def test_a_softer_rear_tire_fails_the_side_slip_metrics(result):
    """Rear cornering stiffness -15 %: the rear slips more, so the side slip at the CoG
    grows (78 % in the step), measured relative to its own size with no floor."""

    def soften(d):
        d["tires"]["rear"]["cornering_stiffness_coef"] *= 1.0 - PLANT

    failed = _planted(result, soften, ("ramp", "step", "sine")).failed
    for key in ("step.side_slip", "ramp.side_slip_gradient", "sine.side_slip_amplitude"):
        assert key in failed


def test_stiffer_anti_roll_bars_fail_the_roll_gradient_only(result):
    """Bars x1.5: 8.6 % less roll. The tire has no load sensitivity (nor has MB's), so the
    understeer gradient stays where it was."""

    def stiffen(d):
        for axle in ("front", "rear"):
            d["suspension"][axle]["anti_roll_bar_nm_per_rad"] *= 1.0 + 3.0 * PLANT

    planted = _planted(result, stiffen, ("ramp",))
    assert planted.failed == ["ramp.roll_gradient"]


def test_a_heavier_yaw_inertia_fails_the_step_response(result):
    """Yaw inertia x1.5 slows the yaw response (51 %) past its tolerance."""

    def heavier(d):
        d["mass"]["yaw_inertia_kgm2"] *= 1.0 + 3.0 * PLANT

    planted = _planted(result, heavier, ("step", "sine"))
    assert "step.yaw_response_time" in planted.failed
    assert "sine.yaw_rate_lag" in planted.failed


# ----------------------------------------------------------------------------- camber


def test_camber_blind_tires_give_exactly_the_forces_at_zero_camber():
    """The judged reference's tire: zeroing its camber terms is the tire at γ = 0, bit for
    bit, at any camber (so the toggle switches camber off and nothing else)."""
    from skidpad.engine.commonroad.tire import combined_forces, weight_series_x, weight_series_y

    p = load_vehicle(vehicle.VEHICLE_ID).tire
    blind = vehicle.camber_blind().tire
    wx, wy = weight_series_x(p), weight_series_y(p)
    for kappa, alpha, gamma, fz in ((0.0, 0.02, 0.05, 4000.0), (0.03, -0.05, -0.02, 2500.0)):
        flat = combined_forces(kappa, alpha, 0.0, fz, p, wx, wy)
        assert combined_forces(kappa, alpha, gamma, fz, blind, wx, wy) == flat
        assert combined_forces(kappa, alpha, gamma, fz, p, wx, wy) != flat  # γ acted before


@pytest.mark.parametrize(
    "key", ["step.side_slip", "ramp.side_slip_gradient", "step.yaw_response_time"]
)
def test_mbs_camber_accounts_for_most_of_the_difference_to_mb_as_published(result, key):
    """The mechanism behind the misses ADR 0182 put down to data: toggling MB's camber off
    moves MB towards ours by at least three quarters of the difference, in the direction
    of ours (the comparison car has no kinematics, and MB's camber force is reversed:
    the next test)."""
    row = next(r for r in result.rows if r.metric.key == key)
    published_miss = abs(row.ours - row.published) / abs(row.published)
    assert published_miss > row.metric.tolerance.relative  # it would fail against MB as is
    assert 0.75 <= row.camber_share <= 1.25, (key, row.ours, row.mb, row.published)


#: the step's metrics MB's camber moves, and how closely ours must move them the same way
CAMBER_MOVES = {
    "yaw_rate_gain": 0.15,
    "steady_lat_accel": 0.15,
    "steady_roll_deg": 0.15,
    "yaw_response_time": 0.5,
}


def test_mbs_camber_is_ours_with_its_force_reversed(result, monkeypatch):
    """MB's camber angle is positive with the wheel's top leaning left (its roll is positive
    left side down), and its tire reads a positive angle as leaning right (Kyγ < 0, as a
    TNO/ISO tire): its camber force points away from the lean. Our car given MB's camber
    geometry (``vehicle.with_mb_camber``) with the force reversed moves the step's yaw gain,
    lateral acceleration and roll as MB's camber does (published minus camber-blind), within
    15 %, and its response time the same way; with the force towards the lean, as camber
    thrust is, each moves the other way (ADR 0267)."""
    from skidpad.engine.fourwheel import definition

    for axle in ("front", "rear"):  # the plant: a camber stiffness of either sign
        optional = definition.OPTIONAL[f"tires.{axle}"]
        monkeypatch.setitem(optional, "camber_stiffness_per_load", (-5.0, True, 5.0, True))
    base = vehicle.build_definition()
    c_gamma = vehicle.mb_camber_stiffness()
    assert 0.8 < c_gamma < 1.2  # the premise: a radial car tire's, per rad
    m = manoeuvres.manoeuvre("step", base["geometry"]["wheelbase_m"])
    wb = base["geometry"]["wheelbase_m"]
    mb = result.figures[("mb", "step")]
    published = result.figures[("mb-published", "step")]
    ours = result.figures[("ours", "step")]
    moved = {}
    for sign in (-1.0, 1.0):
        car = vehicle.with_mb_camber(base, sign * c_gamma)
        moved[sign] = metrics.metrics(drive.drive_ours(car, m), m, wb)
    for key, within in CAMBER_MOVES.items():
        mb_move = published[key] - mb[key]
        reversed_move = moved[-1.0][key] - ours[key]
        towards_lean = moved[1.0][key] - ours[key]
        assert mb_move > 0.0, key  # MB's camber raises each of them
        assert reversed_move == pytest.approx(mb_move, rel=within), (key, reversed_move, mb_move)
        assert towards_lean < 0.0, (key, towards_lean)


def test_the_estimated_relaxation_length_does_not_decide_the_step_verdicts(result):
    """MB has no tire relaxation; ours is an estimate. From 0.05 m to 0.4 m the step's
    transient metrics stay within their tolerances of MB's."""
    rows = compare.relaxation_sensitivity()
    assert [r["relaxation_length_m"] for r in rows] == list(compare.RELAXATION_LENGTHS_M)
    for key in ("yaw_response_time", "lat_accel_response_time", "yaw_overshoot"):
        metric = next(m for m in tolerances.METRICS if m.key == f"step.{key}")
        mb = result.figures[("mb", "step")][key]
        for r in rows:
            assert abs(r[key] - mb) <= metric.tolerance.bound(mb), (key, r)


# ----------------------------------------------------------------------------- the car


def test_the_mapped_car_has_mb_sprung_mass_position_and_tire_stiffness():
    p = load_vehicle(vehicle.VEHICLE_ID)
    d = validate_definition(vehicle.build_definition(p))
    c = load_transfer.constants(d)
    # the package's m is m_s + m_uf + m_ur to 5e-8 relative (its data are rounded), and our
    # sprung mass is m - m_uf - m_ur: agreement to that rounding, not to the last bit
    assert c["hs"] == pytest.approx(p.h_s, rel=1e-6)
    assert c["a_s"] == pytest.approx(p.a, rel=1e-6)
    assert c["ms"] == pytest.approx(p.m_s, rel=1e-6)
    for axle in ("front", "rear"):
        t = d["tires"][axle]
        fz = t["nominal_load_n"]
        assert cornering_stiffness(t, fz) == pytest.approx(-p.tire.p_ky1 * fz, rel=1e-12)
        # nearly linear in the load, as MB's: within 1 % at twice the static load
        assert cornering_stiffness(t, 2.0 * fz) == pytest.approx(-p.tire.p_ky1 * 2.0 * fz, rel=0.01)


def test_the_axle_roll_stiffness_is_the_series_of_suspension_and_tires():
    p = load_vehicle(vehicle.VEHICLE_ID)
    c = load_transfer.constants(validate_definition(vehicle.build_definition(p)))
    for k_roll, k_s, k_ts, t in (
        (c["k_roll_f"], p.K_sf, p.K_tsf, p.T_f),
        (c["k_roll_r"], p.K_sr, p.K_tsr, p.T_r),
    ):
        susp = k_s * t * t / 2.0 + abs(k_ts)
        tire = p.K_zt * t * t / 2.0
        assert k_roll == pytest.approx(1.0 / (1.0 / susp + 1.0 / tire), rel=1e-12)


def test_every_estimate_names_a_reason():
    for path, _value, why in vehicle.ESTIMATES:
        assert path and len(why.split()) >= 5, path


def test_the_drives_are_reproducible_to_the_bit():
    d = vehicle.build_definition()
    m = manoeuvres.manoeuvre("step", d["geometry"]["wheelbase_m"])
    m = m._replace(steps=m.settle_steps + 300)
    a, b = drive.drive_ours(d, m), drive.drive_ours(d, m)
    assert [x.hex() for x in a.channels["yaw_rate"]] == [x.hex() for x in b.channels["yaw_rate"]]


def test_tolerance_bound_is_the_larger_of_absolute_and_relative():
    t = tolerances.Tolerance(0.3, 0.1)
    assert t.bound(5.0) == pytest.approx(0.5)
    assert t.bound(-1.0) == pytest.approx(0.3)


# ----------------------------------------------------------------------------- outputs


def test_json_and_docs_list_every_metric_and_every_change(result, tmp_path, monkeypatch):
    doc = json.loads(json.dumps(result.to_json()))
    assert [m["metric"] for m in doc["metrics"]] == [m.key for m in tolerances.METRICS]
    assert doc["passed"] is (not result.failed)
    assert len(doc["changes_after_first_run"]) == len(tolerances.CHANGES_AFTER_FIRST_RUN)
    monkeypatch.setattr(report, "DOC", tmp_path / "comparison.md")
    monkeypatch.setattr(report, "PNG_DIR", tmp_path / "comparison")
    sensitivity = [{"relaxation_length_m": 0.1, **result.figures[("ours", "step")]}]
    written = report.write(result, sensitivity)
    assert len(written) == 1 + len(report.PLOTS)
    text = (tmp_path / "comparison.md").read_text(encoding="utf-8")
    for m in tolerances.METRICS:
        assert f"`{m.key}`" in text
    for what, _why in tolerances.CHANGES_AFTER_FIRST_RUN:
        assert what[1:] in text  # the page starts each with a capital
    for p in report.PLOTS:
        assert (tmp_path / "comparison" / f"{p}.png").read_bytes()[:4] == b"\x89PNG"


def test_a_failed_metric_exits_1(result, monkeypatch, capsys):
    bad = copy.copy(result)
    bad.rows = [copy.copy(r) for r in result.rows]
    bad.rows[0].ours = bad.rows[0].mb + 10.0 * bad.rows[0].bound + 1.0
    monkeypatch.setattr(compare, "run", lambda note=None: bad)
    assert main(["compare", "commonroad-mb"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and bad.rows[0].metric.key in out.split("failed:")[-1]


# ----------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "commonroad-xx"],
        ["compare", "mb\x1b[31m"],
        ["compare"],
        ["compare", "commonroad-mb", "--bogus"],
    ],
)
def test_hostile_arguments_are_one_line_and_exit_2(argv, capsys, monkeypatch):
    def never(**kwargs):
        raise AssertionError("nothing may run on bad input")

    monkeypatch.setattr(compare, "run", never)
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        rc = exc.code
    err = capsys.readouterr().err.splitlines()
    assert rc == 2
    assert len(err) == 1 and "Traceback" not in err[0]
    assert "\x1b" not in err[0]
