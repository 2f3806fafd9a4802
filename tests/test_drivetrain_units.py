"""Unit tests of the power units, clutch, gearbox and the coupled driveline solve (issue 4)."""

from __future__ import annotations

import pytest
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import clutch, differential, gearbox, powertrain

from tests.helpers import manual

RPM = powertrain.RPM

ENGINE = {
    "type": "engine",
    "idle_rpm": 800.0,
    "redline_rpm": 7000.0,
    "inertia_kgm2": 0.2,
    "drag_idle_nm": 10.0,
    "drag_redline_nm": 50.0,
    "idle_gain": 4.0,
    "response_time_s": 0.05,
    "torque_curve_rpm": [1000.0, 4000.0, 7000.0],
    "torque_curve_nm": [200.0, 400.0, 300.0],
}
MOTOR = {
    "type": "motor",
    "max_torque_nm": 400.0,
    "max_power_w": 200000.0,
    "max_rpm": 15000.0,
    "inertia_kgm2": 0.05,
    "regen_torque_fraction": 0.25,
    "regen_max_power_w": 60000.0,
    "regen_fade_rpm": 500.0,
    "response_time_s": 0.02,
}
AUTO = {
    "type": "automatic",
    "ratios": [3.5, 2.0, 1.4, 1.0],
    "reverse_ratio": 3.2,
    "final_drive": 3.5,
    "efficiency": 1.0,
    "shift_time_s": 0.2,
    "upshift_rpm_light": 2500.0,
    "upshift_rpm_full": 6500.0,
    "downshift_rpm_light": 1100.0,
    "downshift_rpm_full": 3000.0,
    "kickdown_throttle": 0.9,
    "kickdown_rpm": 5500.0,
}


def eng():
    return powertrain.constants(powertrain.validate(ENGINE))


def test_full_load_curve_interpolates_and_holds_flat_beyond_the_ends():
    k = eng()
    assert powertrain.full_load(k, 2500.0 * RPM) == pytest.approx(300.0, rel=1e-12)
    assert powertrain.full_load(k, 5500.0 * RPM) == pytest.approx(350.0, rel=1e-12)
    assert powertrain.full_load(k, 500.0 * RPM) == 200.0
    assert powertrain.full_load(k, 9000.0 * RPM) == 300.0


def test_engine_drag_brakes_more_with_speed_and_vanishes_at_rest():
    k = eng()
    assert powertrain.engine_drag(k, 0.0) == 0.0
    assert powertrain.engine_drag(k, 800.0 * RPM) == pytest.approx(-10.0)
    assert powertrain.engine_drag(k, 7000.0 * RPM) == pytest.approx(-50.0)
    # closed throttle at speed: the crank torque is the drag (engine braking)
    t, th = powertrain.torque(k, 3000.0 * RPM, 0.0)
    assert th == 0.0 and t < -10.0


def free_rev(k, theta, seconds, omega0):
    h = 1e-3
    w = omega0
    peak = w
    for _ in range(int(seconds / h)):
        t, _ = powertrain.torque(k, w, theta)
        w += h * t / powertrain.inertia(k)
        peak = max(peak, w)
    return w, peak


def test_idle_governor_holds_the_unloaded_engine_just_below_idle():
    k = eng()
    for start in (300.0, 2000.0):
        w, _ = free_rev(k, 0.0, 3.0, start * RPM)
        assert 0.9 * 800.0 * RPM < w < 800.0 * RPM


def test_rev_limiter_caps_a_free_revving_engine():
    k = eng()
    w, peak = free_rev(k, 1.0, 3.0, 1000.0 * RPM)
    assert 7000.0 * RPM < w
    assert peak <= 7000.0 * RPM * (1.0 + powertrain.LIMITER_BAND)


def test_motor_constant_torque_then_constant_power_and_regen_on_lift_off():
    k = powertrain.constants(powertrain.validate(MOTOR))
    base = 200000.0 / 400.0  # rad/s
    assert powertrain.motor_torque(k, 0.5 * base, 1.0, 1.0) == 400.0
    w = 2.0 * base
    assert powertrain.motor_torque(k, w, 1.0, 1.0) * w == pytest.approx(200000.0, rel=1e-12)
    assert powertrain.motor_torque(k, 15000.0 * RPM, 1.0, 1.0) == 0.0
    regen = powertrain.motor_torque(k, w, 0.0, 1.0)
    assert regen < 0.0 and -regen * w <= 60000.0 * (1 + 1e-12)
    assert powertrain.motor_torque(k, 0.0, 0.0, 1.0) == 0.0
    assert powertrain.motor_torque(k, 0.5 * base, 1.0, -1.0) == -400.0


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"idle_rpm": None}, "drivetrain.power_unit.idle_rpm: is missing"),
        (
            {"torque_curve_rpm": [1000.0, 900.0, 7000.0]},
            "torque_curve_rpm[1]: speeds must increase",
        ),
        ({"redline_rpm": 700.0}, "redline_rpm: must be > idle_rpm"),
        ({"type": "steam"}, "type: must be 'engine' or 'motor'"),
    ],
)
def test_power_unit_validation_names_the_parameter(patch, message):
    p = dict(ENGINE)
    for key, v in patch.items():
        if v is None:
            del p[key]
        else:
            p[key] = v
    with pytest.raises(DefinitionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        powertrain.validate(p)


def test_clutch_engagement_ramps_with_engine_speed():
    c = {"max_torque_nm": 500.0, "disengage_rpm": 1000.0, "engage_rpm": 2000.0}
    k = clutch.constants(clutch.validate(dict(c, closed_throttle_span=0.1)))
    assert clutch.capacity(k, 900.0 * RPM, 1.0, 1.0) == 0.0
    assert clutch.capacity(k, 1500.0 * RPM, 1.0, 1.0) == pytest.approx(250.0)
    assert clutch.capacity(k, 3000.0 * RPM, 1.0, 1.0) == 500.0
    assert clutch.capacity(k, 3000.0 * RPM, 0.0, 1.0) == 0.0  # a shift has it open
    # throttle closed: fully engaged just above the disengage speed (engine braking)
    assert clutch.capacity(k, 1100.0 * RPM, 1.0, 0.0) == pytest.approx(500.0)
    assert clutch.capacity(k, 1050.0 * RPM, 1.0, 0.0) == pytest.approx(250.0)
    # a centrifugal clutch (span 1): the bite depends on engine speed only
    kc = clutch.constants(clutch.validate(dict(c, closed_throttle_span=1.0)))
    assert clutch.capacity(kc, 1500.0 * RPM, 1.0, 0.0) == pytest.approx(250.0)
    with pytest.raises(DefinitionError, match="drivetrain.clutch.closed_throttle_span: is missing"):
        clutch.validate(c)
    rigid = clutch.constants(None)
    assert clutch.capacity(rigid, 0.0, 1.0) == clutch.RIGID


# ---------------------------------------------------------------- the coupled solve
def layout(front_diff="open", rear_diff="open", share=0.0, **lsd):
    def blk(t):
        return {"type": t, **lsd} if t == "lsd" else {"type": t}

    return differential.constants(
        differential.validate(
            {"front_share": share, "front_diff": blk(front_diff), "rear_diff": blk(rear_diff)}
        )
    )


H = 1e-3


def test_locked_clutch_matches_the_combined_inertia_of_engine_and_wheels():
    # Two rear wheels (I = 1 kg m^2) rolling at 50 rad/s with no tire force; engine J = 0.2
    # at G = 10 turning 500 rad/s, engine torque 300 N m: a rigid clutch makes one body of
    # inertia 2·1 + J·G² (output side) driven by G·T_e.
    k = layout()
    a = 1.0 / H
    b = [0.0, 0.0, a * 50.0, a * 50.0]
    d = [a, a, a, a]
    cap = [0.0, 0.0, 0.0, 0.0]
    w, tb, held, x, we, tc, locked, wo = differential.solve(
        k, b, d, cap, 10.0, 1.0, 500.0, 300.0, 0.2, clutch.RIGID, H
    )
    j_out = 2.0 + 0.2 * 100.0
    want = 50.0 + H * 10.0 * 300.0 / j_out
    assert locked
    assert w[2] == pytest.approx(want, rel=1e-12) and w[3] == pytest.approx(want, rel=1e-12)
    assert we == pytest.approx(10.0 * want, rel=1e-12)
    assert x[2] == pytest.approx(x[3]) and x[0] == 0.0


def test_slipping_clutch_transmits_its_capacity():
    k = layout()
    a = 1.0 / H
    b = [0.0, 0.0, 0.0, 0.0]
    d = [a, a, a, a]
    w, tb, held, x, we, tc, locked, wo = differential.solve(
        k, b, d, [0.0] * 4, 10.0, 0.9, 400.0, 300.0, 0.2, 100.0, H
    )
    assert not locked and tc == 100.0
    assert x[2] == pytest.approx(0.5 * 0.9 * 10.0 * 100.0)
    assert we == pytest.approx(400.0 + H * (300.0 - 100.0) / 0.2)


def test_engine_inertia_makes_driven_wheels_lock_after_undriven_ones():
    # Identical wheels braked with the same capacity against the same tire force; the rear
    # pair is geared (G = 3, clutch locked) to an engine of 0.25 kg m^2 with no torque.
    k = layout(share=0.0)
    a = 1.2 / H
    w = [80.0, 80.0, 80.0, 80.0]
    we = 3.0 * 80.0
    lock_tick = [None] * 4
    for n in range(5000):
        b = [a * wi - 0.3 * 500.0 for wi in w]  # R·F_x = 150 N m resisting (sliding)
        w, tb, held, x, we, tc, locked, wo = differential.solve(
            k, b, [a] * 4, [900.0] * 4, 3.0, 1.0, we, 0.0, 0.25, clutch.RIGID, H
        )
        for i in range(4):
            if held[i] and lock_tick[i] is None:
                lock_tick[i] = n
        if all(t is not None for t in lock_tick):
            break
    assert lock_tick[0] == lock_tick[1] and lock_tick[2] == lock_tick[3]
    # undriven: 80 rad/s stopped by 1050 N m on 1.2 kg m^2; driven: each wheel also carries
    # half the engine's reflected inertia J·G² = 0.25·9
    assert lock_tick[0] == pytest.approx(80.0 * 1.2 / 1050.0 / H, abs=1.5)
    assert lock_tick[2] == pytest.approx(80.0 * (1.2 + 0.5 * 0.25 * 9.0) / 1050.0 / H, abs=1.5)


def test_solid_axle_forces_one_speed_inner_wheel_drives_outer_brakes():
    k = layout(rear_diff="locked")
    a = 0.1 / H
    # The outer (right, in a left turn) wheel's ground runs faster: its tire pulls it forward
    # more (t_free larger), the inner wheel's less; no drive torque (neutral).
    b = [0.0, 0.0, a * 30.0 - 40.0, a * 30.0 + 40.0]
    w, tb, held, x, we, tc, locked, wo = differential.solve(
        k, b, [a] * 4, [0.0] * 4, 0.0, 1.0, 100.0, 0.0, 0.1, clutch.RIGID, H
    )
    assert w[2] == w[3]
    assert x[2] > 0.0 > x[3]  # the shaft drives the inner wheel and brakes the outer one
    assert x[2] == pytest.approx(-x[3], rel=1e-9)


def test_open_differential_splits_torque_equally():
    k = layout()
    a = 1.0 / H
    b = [0.0, 0.0, a * 10.0 - 500.0, a * 10.0 + 300.0]
    w, tb, held, x, we, tc, locked, wo = differential.solve(
        k, b, [a, a, a, a * 2.0], [0.0] * 4, 8.0, 1.0, 80.0, 200.0, 0.2, clutch.RIGID, H
    )
    assert x[2] == pytest.approx(x[3], rel=1e-12) and x[2] > 0.0
    assert w[2] != w[3]


def test_limited_slip_bias_is_bounded_by_preload_plus_ratio():
    k_open = layout()
    k_lsd = layout(rear_diff="lsd", preload_nm=50.0, power_ratio=0.5, coast_ratio=0.2)
    a = 1.0 / H
    # the left rear on ice: its tire resists far less than the right one's
    b = [0.0, 0.0, a * 10.0 - 20.0, a * 10.0 - 600.0]
    args = ([a] * 4, [0.0] * 4, 8.0, 1.0, 80.0, 150.0, 0.2, 200.0, H)
    w_o, *_ = differential.solve(k_open, b, *args)
    w_l, _tb, _h, x_l, *_ = differential.solve(k_lsd, b, *args)
    assert abs(w_l[2] - w_l[3]) < abs(w_o[2] - w_o[3])
    t_in = x_l[2] + x_l[3]
    assert abs(x_l[3] - x_l[2]) <= 2.0 * (50.0 + 0.5 * t_in) * (1 + 1e-12)
    assert x_l[3] > x_l[2]  # torque goes to the wheel with grip


def test_awd_centre_split_sends_its_share_forward():
    k = layout(share=0.4)
    a = 1.0 / H
    b = [a * 10.0] * 4
    w, tb, held, x, we, tc, locked, wo = differential.solve(
        k, b, [a] * 4, [0.0] * 4, 5.0, 1.0, 50.0, 300.0, 0.2, 100.0, H
    )
    assert (x[0] + x[1]) / (x[0] + x[1] + x[2] + x[3]) == pytest.approx(0.4, rel=1e-12)


# ---------------------------------------------------------------- gearbox
def auto():
    return gearbox.constants(gearbox.validate(AUTO), 1000)


def test_automatic_upshift_point_moves_with_throttle():
    k = auto()
    g1 = 3.5 * 3.5
    # output speed where 1st gear turns 4000 rpm: up at light throttle, hold at full
    w_out = 4000.0 * RPM / g1
    assert gearbox.schedule(k, 1, w_out, 0.0) == 2
    assert gearbox.schedule(k, 1, w_out, 1.0) == 1
    assert gearbox.schedule(k, 1, 6600.0 * RPM / g1, 1.0) == 2


def test_automatic_kickdown_and_no_hunting_after_an_upshift():
    k = auto()
    g2, g3 = 2.0 * 3.5, 1.4 * 3.5
    w_out = 3200.0 * RPM / g3  # 3rd at 3200 rpm: 2nd would turn 4570 rpm (< kickdown 5500)
    assert gearbox.schedule(k, 3, w_out, 0.5) == 3
    assert gearbox.schedule(k, 3, w_out, 0.95) == 2
    # right after a full-throttle 1->2 upshift at 6500 rpm, 2nd stays
    w_up = 6500.0 * RPM / (3.5 * 3.5) * 1.001
    assert gearbox.schedule(k, 2, w_up, 1.0) == 2
    assert g2 * w_up > 3000.0 * RPM


def test_shift_opens_the_clutch_then_ramps_and_the_upshift_lifts_the_throttle():
    k = auto()
    w_out = 7000.0 * RPM / 12.25
    gear, ticks, up, last = gearbox.update(k, 1, 0, 0, 0, 0, w_out, 1.0)
    assert (gear, up) == (2, 1) and ticks == 200
    factors = []
    thr = []
    while ticks > 0:
        factors.append(gearbox.clutch_factor(k, ticks))
        thr.append(gearbox.throttle_factor(k, ticks, up))
        gear, ticks, up, last = gearbox.update(k, gear, ticks, up, last, 0, w_out, 1.0)
    assert factors[0] == 0.0 and factors[99] == 0.0 and 0.9 < factors[-1] < 1.0
    assert len(factors) == 200 and gear == 2
    assert factors == sorted(factors) and thr == factors
    assert gearbox.clutch_factor(k, 0) == 1.0 and up == 0


def test_manual_requests_act_once_on_their_edge():
    g = manual(AUTO)
    k = gearbox.constants(gearbox.validate(g), 1000)
    state = (1, 0, 0, 0)
    for _ in range(500):  # "up" held for half a second: one shift
        state = gearbox.update(k, *state, gearbox.REQ_UP, 20.0, 1.0)
    assert state[0] == 2
    state = gearbox.update(k, *state, gearbox.REQ_NONE, 20.0, 1.0)
    state = gearbox.update(k, *state, gearbox.REQ_DOWN, 20.0, 1.0)
    assert state[0] == 1
    state = gearbox.update(k, *state, gearbox.REQ_REVERSE, 20.0, 0.0)
    assert state[0] == 1  # refused while rolling forward
    state = gearbox.update(k, *state, gearbox.REQ_NEUTRAL, 20.0, 0.0)
    assert state[0] == 0
    state = gearbox.update(k, *state, gearbox.REQ_REVERSE, 0.0, 0.0)
    assert state[0] == -1 and gearbox.ratio(k, -1) < 0.0


def test_gearbox_validation_rejects_a_hunting_schedule():
    g = dict(AUTO, downshift_rpm_full=5000.0)
    with pytest.raises(DefinitionError, match="downshift_rpm_full: must be below"):
        gearbox.validate(g)


def test_engine_torque_is_the_governed_full_load_blended_with_drag():
    # torque() inlines the three parts for speed: it must equal their composition exactly
    k = eng()
    for rpm in (0.0, 100.0, 700.0, 800.0, 1000.0, 2500.0, 6999.0, 7050.0, 7140.0, 9000.0):
        w = rpm * RPM
        for theta in (0.0, 0.25, 1.0):
            t, used = powertrain.torque(k, w, theta)
            th = powertrain.engine_throttle(k, w, theta)
            assert used == th
            assert t == th * powertrain.full_load(k, w) + (1.0 - th) * powertrain.engine_drag(k, w)
