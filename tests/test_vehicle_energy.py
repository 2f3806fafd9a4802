"""Energy and force sanity (issue 3, Done when).

* Coasting straight on flat ground with aero and rolling resistance switched
  off, the kinetic energy (body translation + yaw + wheel spin) stays within
  1e-6 relative over 10 s. Static toe is set to zero too: a toed-in wheel
  runs at a slip angle and its scrub is a real loss (about 1e-4 of the
  energy over 10 s for the road cars), which the test shows separately, as
  it shows the loss to rolling resistance (so the check can tell
  dissipation from none).
* Static wheel loads sum to m·g to 1e-12 relative, on flat ground and (as
  m·g_n, the normal share) on a grade; the first substep's loads agree.
"""

from __future__ import annotations

import pytest
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.load_transfer import G
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_OMEGA, I_R, I_VX, I_VY


def kinetic_energy(sim: Simulation) -> float:
    d = sim.definition
    st = sim.state
    m = d["mass"]["total_kg"]
    e = 0.5 * m * (st[I_VX] * st[I_VX] + st[I_VY] * st[I_VY])
    e += 0.5 * d["mass"]["yaw_inertia_kgm2"] * st[I_R] * st[I_R]
    for i, axle in enumerate(("front", "front", "rear", "rear")):
        w = st[I_OMEGA[i]]
        e += 0.5 * d["tires"][axle]["wheel_inertia_kgm2"] * w * w
    return e


def coast(preset: str, rolling: bool, toe: bool = False) -> tuple[float, float]:
    d = load_preset(preset)
    if not toe:  # (and no static camber: a cambered MF 6.1 tire pushes sideways too)
        d["steering"]["toe_front_deg"] = 0.0
        d["steering"]["toe_rear_deg"] = 0.0
        for axle in ("front", "rear"):
            kinematics = d["suspension"][axle].get("kinematics")
            if kinematics is not None:
                kinematics["static_camber_rad"] = 0.0
        d.pop("sources", None)
    d["aero"]["drag_area_m2"] = 0.0
    d["aero"]["downforce_area_m2"] = 0.0
    if not rolling:
        for axle in ("front", "rear"):
            t = d["tires"][axle]
            if "mf61" in t:  # the file's rolling-resistance moment, every term
                t["mf61"].update({f"QSY{i}": 0.0 for i in range(1, 7)})
            else:
                t["rolling_resistance"] = 0.0
    sim = Simulation(d, initial={"speed_mps": 25.0})
    e0 = kinetic_energy(sim)
    for _ in range(1000):
        sim.step((0.0, 0.0, 0.0, 0.0, 3))  # gear request 3: neutral (no engine braking)
    return e0, kinetic_energy(sim)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_coasting_conserves_kinetic_energy(preset: str) -> None:
    e0, e1 = coast(preset, rolling=False)
    assert abs(e1 - e0) <= 1e-6 * e0, (e0, e1)


def test_rolling_resistance_and_toe_scrub_dissipate() -> None:
    e0, e1 = coast("hatchbackFwd", rolling=True)
    assert e1 < e0 * (1.0 - 1e-3)
    e0, e1 = coast("hatchbackFwd", rolling=False, toe=True)
    assert e0 * (1.0 - 1e-2) < e1 < e0 * (1.0 - 1e-5)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("grade", [0.0, 0.3])
def test_static_loads_sum_to_weight(preset: str, grade: float) -> None:
    d = load_preset(preset)
    sim = Simulation(d, initial={"grade": grade})
    weight = d["mass"]["total_kg"] * G / (1.0 + grade * grade) ** 0.5
    loads = sim.static_loads
    total = loads[0] + loads[1] + loads[2] + loads[3]
    assert abs(total - weight) <= 1e-12 * weight
    # The loads of a step (load transfer on, the car settling on its tires) add up the
    # same way, plus the aero downforce (here lift, tiny) at the speed of that substep.
    tel = sim.step((0.0, 1.0, 0.0, 0.0))
    total = tel.fz[0] + tel.fz[1] + tel.fz[2] + tel.fz[3]
    ae = d["aero"]
    vx = tel.vx - tel.ax * 0.001  # vx at the start of the last substep (what aero saw)
    down = 0.5 * ae["air_density_kg_per_m3"] * ae["downforce_area_m2"] * vx * vx
    assert abs(total - weight - down) <= 1e-12 * weight
