"""Unit tests of the assists' stateless stages (issue 4, seed 003's table)."""

from __future__ import annotations

import pytest
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import assists


def k():
    return assists.constants(
        assists.validate({"abs": 1, "traction_control": 1, "stability_control": 1})
    )


def test_abs_shape_from_the_slip_target_to_a_floor_at_the_release_slip():
    a = k().abs
    r = 0.3
    v = 20.0

    def scale(slip):
        return assists.abs_scale(a, r, v * (1.0 - slip) / r, v, v)

    assert scale(0.0) == 1.0 and scale(0.12) == 1.0
    assert scale(0.21) == pytest.approx(1.0 - 0.9 * 0.09 / 0.18, rel=1e-9)
    assert scale(0.3) == pytest.approx(0.1, rel=1e-9)
    assert scale(1.0) == 0.1  # a locked wheel: the brake is eased, never released to 0
    # below 2 m/s the ABS stands down: the wheels may lock to a stop
    assert assists.abs_scale(a, r, 0.0, 1.9, 1.9) == 1.0


def test_traction_control_scales_throttle_on_the_largest_drive_slip():
    t = k().tc
    assert assists.tc_scale(t, 0.05) == 1.0
    assert assists.tc_scale(t, 0.21) == pytest.approx(0.5, rel=1e-9)
    assert assists.tc_scale(t, 0.5) == 0.0
    assert assists.drive_slip(0.3, 100.0, 20.0) == pytest.approx(0.5)
    assert assists.drive_slip(0.3, 2.0, 0.0) == pytest.approx(1.2)  # launch: 0.5 m/s floor


L = 2.5


def test_esc_brakes_outer_front_on_oversteer_and_inner_rear_on_understeer():
    e = k().esc
    tan_d = 0.05 / L  # left turn
    vx = 20.0
    r_ref = vx * tan_d
    err, torque, wheel, thr = assists.esc(e, vx, r_ref + 0.2, tan_d)
    assert wheel == 1 and torque == pytest.approx(6000.0 * (0.2 - 0.03), rel=1e-9)
    assert thr == pytest.approx(1.0 - 4.0 * 0.17, rel=1e-9) and err == pytest.approx(0.2)
    # understeer: the band grows by the headroom to the friction limit, g/V - r_ref
    headroom = 9.80665 / vx - r_ref
    err, torque, wheel, thr = assists.esc(e, vx, r_ref - 0.2, tan_d)
    assert wheel == 2 and torque == pytest.approx(6000.0 * (0.2 - 0.03 - headroom), rel=1e-9)
    err, torque, wheel, thr = assists.esc(e, vx, -r_ref - 0.2, -tan_d)  # right turn, oversteer
    assert wheel == 0
    err, torque, wheel, thr = assists.esc(e, vx, -r_ref + 0.2, -tan_d)
    assert wheel == 3
    err, torque, wheel, thr = assists.esc(e, vx, r_ref + 0.02, tan_d)  # in the dead band
    assert (torque, wheel, thr) == (0.0, -1, 1.0)
    _, torque, _, thr = assists.esc(e, vx, r_ref + 5.0, tan_d)
    assert torque == 2000.0 and thr == 0.0


def test_esc_reference_is_capped_by_friction():
    e = k().esc
    vx = 30.0
    tan_d = 0.2 / L  # asks for 2.4 rad/s, friction allows g/30 = 0.327 rad/s
    err, _, _, _ = assists.esc(e, vx, 0.0, tan_d)
    assert err == pytest.approx(-9.80665 / vx, rel=1e-12)


@pytest.mark.parametrize("v", [10.0, 20.0, 40.0])
def test_steering_assist_cap_holds(v):
    delta = 0.4
    cap = L * 8.0 / (v * v)
    for dv in (0.0, 0.001, 0.0199):
        angle = delta * assists.steer_scale(L, 8.0, delta, v + dv)
        # never above the cap; below it by at most the speed step's share
        assert cap * (v / (v + assists.V_STEER_STEP)) ** 2 * (1 - 1e-12) <= angle
        assert angle <= L * 8.0 / ((v + dv) * (v + dv)) * (1 + 1e-12)
    assert assists.steer_scale(L, 8.0, 0.001, v) == 1.0


def test_switches_and_validation():
    assert assists.switch(1, 0) and not assists.switch(1, -1) and assists.switch(0, 1)
    assert not assists.switch(0, 0)
    with pytest.raises(DefinitionError, match="assists.abs: must be 0"):
        assists.validate({"abs": 2})
    with pytest.raises(DefinitionError, match="abs_release_slip: must be > abs_slip_target"):
        assists.validate({"abs_release_slip": 0.1})
    with pytest.raises(DefinitionError, match="assists.absx: unknown parameter"):
        assists.validate({"absx": 1})


def test_esc_dead_band_holds_the_cars_own_understeer():
    """An understeering car at its own steady yaw rate V·tan δ/(L + K·V²) gets no action;
    past it by more than the band (its gap to neutral steer plus its headroom), it does."""
    kus = 0.01 / 9.80665  # rad per m/s² (0.57 deg/g)
    e = assists.constants(
        assists.validate({"stability_control": 1}), wheelbase=L, understeer=kus
    ).esc
    vx = 20.0
    tan_d = 0.03 / L
    r_ref = vx * tan_d
    r_car = r_ref * L / (L + kus * vx * vx)
    assert r_ref - r_car > 0.03  # outside the plain dead band: the old ESC braked here
    err, torque, wheel, thr = assists.esc(e, vx, r_car, tan_d)
    assert (torque, wheel, thr) == (0.0, -1, 1.0) and err == pytest.approx(r_car - r_ref)
    headroom = 9.80665 / vx - r_car
    band = 0.03 + (r_ref - r_car) + headroom
    _, torque, wheel, _ = assists.esc(e, vx, r_ref - band + 1e-6, tan_d)
    assert torque == 0.0
    _, torque, wheel, _ = assists.esc(e, vx, r_ref - band - 0.01, tan_d)
    assert wheel == 2 and torque == pytest.approx(6000.0 * 0.01, rel=1e-6)
    # oversteer is measured from the neutral reference with the plain band
    _, torque, wheel, _ = assists.esc(e, vx, r_ref + 0.05, tan_d)
    assert wheel == 1 and torque == pytest.approx(6000.0 * 0.02, rel=1e-9)
    # at the friction limit the understeer band shrinks to the plain one
    tan_big = 0.3 / L
    lim = 9.80665 / vx
    _, torque, wheel, _ = assists.esc(e, vx, lim - 0.05, tan_big)
    assert wheel == 2 and torque == pytest.approx(6000.0 * 0.02, rel=1e-9)
