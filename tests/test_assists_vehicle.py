"""The assists in the vehicle (issue 4, Done when): TC caps launch slip, ESC cuts the peak side
slip of a sine-with-dwell-like steer on sportsRwd, the steering assist's cap holds at 10, 20 and
40 m/s, and each assist reports on its telemetry channel."""

from __future__ import annotations

import math

import pytest
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.inputs import CHANNEL_INDEX, DEFAULTS
from skidpad.engine.fourwheel.simulation import Simulation


def inputs(**kw) -> tuple:
    v = list(DEFAULTS)
    for key, value in kw.items():
        v[CHANNEL_INDEX[key]] = value
    return tuple(v)


def launch(tc: int) -> tuple[float, float, float, float]:
    """sportsRwd full-throttle launch, 3 s: (mean of the largest drive slip over 0.3..3 s,
    its peak over 1..3 s, peak TC activity, speed at 3 s). The first 0.3 s the clutch is
    still biting; when it locks up (about 0.4 s) the engine's inertia it dumps into the tires
    is a slip spike the throttle cannot undo, so the peak is taken after it."""
    sim = Simulation(load_preset("sportsRwd"))
    total = 0.0
    count = 0
    peak = 0.0
    activity = 0.0
    for k in range(300):
        tel = sim.step(inputs(throttle=1.0, traction_control=tc))
        slip = max(tel.slip_ratio[2], tel.slip_ratio[3])
        if k >= 30:
            total += slip
            count += 1
        if k >= 100:
            peak = max(peak, slip)
        activity = max(activity, tel.tc_activity)
    return total / count, peak, activity, tel.vx


def test_traction_control_caps_launch_slip():
    release = load_preset("sportsRwd")["assists"]["tc_release_slip"]
    mean_on, peak_on, act_on, v_on = launch(1)
    mean_off, peak_off, act_off, v_off = launch(-1)
    assert mean_off > 1.5 * release and peak_off > 1.0  # the rear tires light up without it
    # TC holds the mean slip below the slip it releases at (0.77 of it since physics 10: a
    # spinning tire no longer gets damper forces beyond friction), a quarter of it without
    assert mean_on < release and mean_on < 0.35 * mean_off
    assert peak_on < 0.3 * peak_off
    assert act_on > 0.3 and act_off == 0.0
    assert v_on > v_off  # and the launch is quicker for it


def sine_with_dwell(esc: int, amplitude: float = 0.35, v0: float = 22.0) -> tuple[float, float]:
    """Peak |side slip| (rad) and peak ESC torque: a 0.7 Hz sine with a 0.5 s dwell at its
    second peak, coasting from ``v0`` (NHTSA's sine with dwell, scaled to this car)."""
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": v0})
    f = 0.7
    period = 1.0 / f
    peak = 0.0
    esc_peak = 0.0
    for k in range(500):
        t = k / 100
        if t < 0.75 * period:
            steer = amplitude * math.sin(2 * math.pi * f * t)
        elif t < 0.75 * period + 0.5:
            steer = -amplitude
        elif t < period + 0.5:
            steer = amplitude * math.sin(2 * math.pi * f * (t - 0.5))
        else:
            steer = 0.0
        tel = sim.step(inputs(steer=steer, stability_control=esc))
        peak = max(peak, abs(math.atan2(tel.vy, tel.vx)))
        esc_peak = max(esc_peak, tel.esc_brake_torque)
    return peak, esc_peak


def test_stability_control_reduces_peak_side_slip():
    off, esc_off = sine_with_dwell(-1)
    on, esc_on = sine_with_dwell(1)
    assert esc_off == 0.0 and esc_on > 0.0
    assert on < 0.8 * off, (math.degrees(on), math.degrees(off))


@pytest.mark.parametrize("v", [10.0, 20.0, 40.0])
def test_steering_assist_cap_holds_at_speed(v: float) -> None:
    d = load_preset("sportsRwd")
    sim = Simulation(d, initial={"speed_mps": v})
    wb = d["geometry"]["wheelbase_m"]
    a_lim = d["assists"]["steer_assist_lat_accel_mps2"]
    for _ in range(20):
        tel = sim.step(inputs(steer=1.0, steering_assist=1))
        # the angle was set from the speed at the start of the last substep; the speed
        # changes by far less than 0.1 % within one substep
        cap = wb * a_lim / (tel.speed * tel.speed)
        # never above the cap; under it by at most the assist's speed step (0.02 m/s)
        assert cap * (1.0 - 5e-3) < tel.steer_angle <= cap * (1.0 + 1e-3)
        assert tel.steer_assist_scale < 1.0
    # switched off, the full lock goes through
    tel = sim.step(inputs(steer=1.0, steering_assist=-1))
    assert tel.steer_angle == pytest.approx(math.radians(d["steering"]["max_angle_deg"]))


def test_abs_reports_activity_and_eases_the_brakes():
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 25.0})
    seen = 0.0
    for _ in range(100):
        tel = sim.step(inputs(brake=1.0))
        seen = max(seen, max(tel.abs_activity))
        assert min(tel.abs_activity) >= 0.0 and max(tel.abs_activity) <= 0.9 + 1e-12
    assert seen > 0.2
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 25.0})
    for _ in range(100):
        tel = sim.step(inputs(brake=1.0, abs=-1))
        assert max(tel.abs_activity) == 0.0
