"""The drivetrain in the vehicle (issue 4, Done when): the kart's solid axle, the automatic's
shift points, kickdown and torque interruption in telemetry, the manual's requests, reverse,
engine braking and regeneration, and drivetrain state in the hashed state."""

from __future__ import annotations

import copy

from skidpad.engine.fourwheel import gearbox
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.inputs import CHANNEL_INDEX, DEFAULTS
from skidpad.engine.fourwheel.simulation import Simulation

from tests.helpers import manual_hatch

RPM = 9.549296585513721


def inputs(**kw) -> tuple:
    v = list(DEFAULTS)
    for key, value in kw.items():
        v[CHANNEL_INDEX[key]] = value
    return tuple(v)


def corner(definition: dict, steps: int = 400) -> object:
    """A steady left turn at 6 m/s on light throttle; the last telemetry."""
    sim = Simulation(definition, initial={"speed_mps": 6.0})
    tel = None
    for _ in range(steps):
        tel = sim.step(inputs(throttle=0.25, steer=0.25))
        assert (
            tel.omega[2] == tel.omega[3]
            or definition["drivetrain"]["layout"]["rear_diff"]["type"] != "locked"
        )
    return tel


def test_kart_solid_axle_inner_wheel_drives_outer_brakes():
    kart = load_preset("kart")
    tel = corner(kart)
    assert tel.yaw_rate > 0.2  # turning left: RL is the inner rear wheel
    fx_in, fx_out = tel.fx[2], tel.fx[3]
    assert fx_in > 0.0 > fx_out
    half_track = 0.5 * kart["geometry"]["track_rear_m"]
    yaw_moment = half_track * (fx_out - fx_in)  # M_z of the rear Fx pair (+ = with the turn)
    assert yaw_moment < 0.0
    # the same kart with an open rear differential: no such pair
    open_kart = copy.deepcopy(kart)
    open_kart["drivetrain"]["layout"]["rear_diff"] = {"type": "open"}
    tel_o = corner(open_kart)
    assert tel_o.omega[2] != tel_o.omega[3]
    moment_open = half_track * (tel_o.fx[3] - tel_o.fx[2])
    assert abs(moment_open) < 0.2 * abs(yaw_moment)


def accelerate(name: str, throttle: float, seconds: float, **kw) -> list:
    sim = Simulation(load_preset(name))
    return [sim.step(inputs(throttle=throttle, **kw)) for _ in range(int(seconds * 100))]


def implied_rpm(d: dict, tel, gear: int) -> float:
    g = d["drivetrain"]["gearbox"]
    w_out = 0.5 * (tel.omega[0] + tel.omega[1])  # hatchbackFwd: front-driven
    return g["ratios"][gear - 1] * g["final_drive"] * w_out * RPM


def first_upshift(tels: list) -> int:
    for n, tel in enumerate(tels):
        if tel.gear == 2:
            return n
    raise AssertionError("no upshift")


def test_automatic_upshift_points_follow_the_schedule():
    d = load_preset("hatchbackFwd")
    g = d["drivetrain"]["gearbox"]
    full = accelerate("hatchbackFwd", 1.0, 6.0)
    n = first_upshift(full)
    # the shift fires within the host step in which 1st gear's implied engine speed (from
    # the driven wheels) crosses the full-throttle point: just below it one step before
    before = implied_rpm(d, full[n - 1], 1)
    assert 0.97 * g["upshift_rpm_full"] < before < g["upshift_rpm_full"]
    part = accelerate("hatchbackFwd", 0.5, 8.0)
    m = first_upshift(part)
    want = g["upshift_rpm_light"] + 0.5 * (g["upshift_rpm_full"] - g["upshift_rpm_light"])
    assert 0.97 * want < implied_rpm(d, part[m - 1], 1) < want
    assert part[m].vx < full[n].vx


def test_upshift_torque_interruption_is_visible_in_telemetry():
    tels = accelerate("hatchbackFwd", 1.0, 6.0)
    n = first_upshift(tels)
    during = [t for t in tels[n : n + 40] if t.upshift_interruption]
    assert during, "no interruption reported"
    assert during[0].clutch_torque == 0.0 and sum(during[0].drive_torque) == 0.0
    assert min(t.throttle_effective for t in during) < 0.3  # the throttle is lifted
    before = tels[n - 2]
    assert before.clutch_torque > 100.0 and sum(before.drive_torque) > 1000.0
    after = [t for t in tels[n : n + 60] if not t.shifting]
    assert after and sum(after[0].drive_torque) > 1000.0


def test_kickdown_drops_a_gear_when_the_pedal_is_floored():
    sim = Simulation(load_preset("hatchbackFwd"), initial={"speed_mps": 22.0})
    for _ in range(200):
        tel = sim.step(inputs(throttle=0.2))
    cruising = tel.gear
    assert cruising >= 4
    tel = sim.step(inputs(throttle=1.0))
    tel = sim.step(inputs(throttle=1.0))
    assert tel.gear < cruising and tel.shifting


def test_manual_gearbox_requests_neutral_and_reverse():
    sim = Simulation(manual_hatch())
    for _ in range(200):
        tel = sim.step(inputs(throttle=0.6))
    assert tel.gear == 1 and tel.vx > 3.0
    for _ in range(30):  # "up" held for 0.3 s: one shift
        tel = sim.step(inputs(throttle=0.6, gear_request=gearbox.REQ_UP))
    assert tel.gear == 2
    tel = sim.step(inputs(gear_request=gearbox.REQ_NEUTRAL))
    for _ in range(50):
        tel = sim.step(inputs(throttle=1.0))
    assert tel.gear == 0 and sum(tel.drive_torque) == 0.0 and tel.engine_rpm > 3000.0
    # stop, select reverse, back up
    for _ in range(600):
        tel = sim.step(inputs(brake=1.0))
    tel = sim.step(inputs(gear_request=gearbox.REQ_REVERSE))
    for _ in range(200):
        tel = sim.step(inputs(throttle=0.4))
    assert tel.gear == -1 and tel.vx < -1.0


def test_engine_braking_and_regeneration_slow_the_car():
    for name in ("hatchbackFwd", "crossoverEv"):
        sim = Simulation(load_preset(name), initial={"speed_mps": 20.0})
        for _ in range(100):
            tel = sim.step(inputs())
        assert tel.engine_torque < 0.0 and sum(tel.drive_torque) < 0.0
        assert tel.accel_x < -0.3


def test_drivetrain_state_is_hashed_and_restores_mid_shift():
    sim = Simulation(load_preset("hatchbackFwd"))
    tels = []
    while True:
        tels.append(sim.step(inputs(throttle=1.0)))
        if tels[-1].shifting:
            break
    snap = sim.snapshot()
    assert sim.layout.as_dict(sim.state)["drivetrain.shift_ticks"] > 0
    for _ in range(50):
        sim.step(inputs(throttle=1.0))
    want = sim.state_hash()
    other = Simulation(load_preset("hatchbackFwd"))
    other.restore(snap)
    for _ in range(50):
        other.step(inputs(throttle=1.0))
    assert other.state_hash() == want
    # the gear is in the hash
    state = list(other.state)
    other.state[other.layout.index["drivetrain.gear"]] += 1
    assert other.state_hash() != want
    other.state[:] = state
    assert other.state_hash() == want
