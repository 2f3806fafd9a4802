"""Stability control in a steady corner below the tires' limit: no action (issue 17).

Each preset, with its stability control switched on, is driven round a circle at 0.4 g by
the closed-loop circle driver (ISO 4138's), on a 40 m and a 100 m radius; after the settle
the ESC's brake torque must be exactly zero and its throttle untouched. Before the ESC's
dead band was sized from the car's own understeer, every understeering car was braked here
(its yaw rate sits below the neutral-steer reference by more than the plain band).
"""

from __future__ import annotations

import copy

import pytest
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.scenarios.skidpad import CircleDriver

G = 9.80665
AY = 0.4 * G
HOST_HZ = 100
SETTLE_S = 8.0
MEASURE_S = 2.0


def steady_corner(name: str, radius: float) -> dict:
    d = copy.deepcopy(load_preset(name))
    d.setdefault("assists", {})["stability_control"] = 1
    speed = (AY * radius) ** 0.5
    sim = Simulation(
        d, host_hz=HOST_HZ, initial={"speed_mps": speed, "yaw_rate_radps": speed / radius}
    )
    drv = CircleDriver(d, speed, radius, HOST_HZ)
    tel = None
    torque = []
    ay = []
    n_settle = int(SETTLE_S * HOST_HZ)
    for k in range(n_settle + int(MEASURE_S * HOST_HZ)):
        tel = sim.step(drv.inputs(tel))
        if k >= n_settle:
            torque.append(tel.esc_brake_torque)
            ay.append(tel.speed * tel.yaw_rate)
    return {"torque": torque, "ay": sum(ay) / len(ay)}


@pytest.mark.parametrize("radius", [40.0, 100.0])
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_esc_stays_out_of_a_steady_corner_below_the_limit(name: str, radius: float) -> None:
    r = steady_corner(name, radius)
    assert r["ay"] == pytest.approx(AY, rel=0.03)  # the corner really is at 0.4 g
    assert max(r["torque"]) == 0.0


def test_esc_still_brakes_understeer_past_the_limit() -> None:
    """The dead band grows with the headroom to the limit, so it shrinks at the limit: a
    sportsRwd asked for far more than its tires give (full lock at 25 m/s, coasting) plows,
    and the ESC brakes its inner rear wheel (RL in a left turn)."""
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 25.0})
    wheels = set()
    peak = 0.0
    for _ in range(150):
        tel = sim.step({"steer": 1.0})
        if tel.esc_brake_torque > 0.0:
            wheels.add(tel.esc_wheel)
            peak = max(peak, tel.esc_brake_torque)
    assert 2 in wheels and peak > 100.0
