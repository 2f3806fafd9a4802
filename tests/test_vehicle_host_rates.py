"""Host rates 30, 60, 100, 120, 240 Hz with the same input timeline (issue 3, Done when).

The timeline is a function of time sampled and held at each host step: a
light throttle and a steering ramp for 0.5 s, then the brake ramped to full
over 0.3 s and held to a stop. Events fall on multiples of 0.1 s (a host step
at every rate) but the ramps are sampled differently at every rate. Every run
stays finite and its braking distance is within 1 % of the 100 Hz run's.
"""

from __future__ import annotations

import math

import pytest
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_X, I_Y

RATES = (30, 60, 100, 120, 240)


def timeline(t: float) -> tuple[float, float, float, float]:
    if t < 0.5:
        return (0.2, 0.0, 0.1 * t / 0.5, 0.0)
    if t < 0.8:
        return (0.0, (t - 0.5) / 0.3, 0.1 * (0.8 - t) / 0.3, 0.0)
    return (0.0, 1.0, 0.0, 0.0)


def brake_distance(host_hz: int) -> float:
    sim = Simulation(load_preset("hatchbackFwd"), host_hz=host_hz, initial={"speed_mps": 25.0})
    x0 = y0 = None
    for k in range(10 * host_hz):
        t = k / host_hz
        tel = sim.step(timeline(t))
        assert all(math.isfinite(v) for v in sim.state)
        if x0 is None and t + 1.0 / host_hz >= 0.5 - 1e-12:
            x0, y0 = sim.state[I_X], sim.state[I_Y]
        if x0 is not None and tel.vx <= 0.0:
            return math.hypot(sim.state[I_X] - x0, sim.state[I_Y] - y0)
    raise AssertionError(f"no stop at {host_hz} Hz")


@pytest.fixture(scope="module")
def distances() -> dict[int, float]:
    return {hz: brake_distance(hz) for hz in RATES}


def test_host_rates_agree_within_one_percent(distances: dict[int, float]) -> None:
    ref = distances[100]
    assert ref > 10.0
    for hz, dist in distances.items():
        assert abs(dist - ref) <= 0.01 * ref, (hz, dist, ref)


def test_substep_schedule_has_no_drift() -> None:
    for hz in RATES:
        sim = Simulation(load_preset("kart"), host_hz=hz)
        counts = [sim.substeps_in(k) for k in range(hz)]
        assert sum(counts) == sim.substep_hz  # one second of host steps = S substeps exactly
        assert max(counts) - min(counts) <= 1
