"""What physics 11's K&C and steering data (ADR 0270) move in the validation's columns, each
part toggled on the preset and its move measured against the linear theory of that part.

The presets' understeer grows with their K&C; the reference engine's table has none, so
this is why the K_us columns moved away from it in physics 11 (docs/validation.md). No
test here asserts a distance from the table. What is tested, on hatchbackFwd and the
pickup (the largest move):

- the parts add up: the steering system's, the kinematics' and the lateral compliance's
  moves, each toggled alone on the preset without its K&C, sum to the whole move;
- the kinematics' move is what the roll steer and the roll camber predict from the car's
  own roll gradient (``ΔK = (ε_r - ε_f + c_f - c_r)·dφ/da_y``, with ``c`` the camber thrust
  lost per radian of roll over the axle's cornering stiffness);
- the lateral compliance moves no steady state;
- the kinematics quicken the step steer's yaw response and raise its overshoot: the roll
  steer arrives with the roll, after the yaw rate has built, so the yaw rate passes the
  lower steady value it settles to.
"""

from __future__ import annotations

import copy
import functools

import pytest
from helpers import without_kc
from skidpad.engine.fourwheel import tire
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.scenarios.skidpad import RADIUS_M
from skidpad.scenarios.validation import iso4138, step_steer
from test_fastpath import ASSISTS_ON

G = 9.81
DEG_PER_RAD = 57.29577951308232
GROUPS = ("system", "kinematics", "lateral", "compliance")


def with_only(preset: str, *groups: str) -> dict:
    """The preset without its K&C (:func:`helpers.without_kc`) given back the ``groups`` of
    its own data: ``system`` (the steering system), ``kinematics`` (with the tires' camber
    stiffness), ``lateral`` (the lateral compliance with the tires' relaxation share),
    ``compliance`` (the rear compliance steer, physics 12)."""
    full, d = load_preset(preset), without_kc(preset)
    if "system" in groups:
        d["steering"]["system"] = copy.deepcopy(full["steering"]["system"])
    for axle in ("front", "rear"):
        own, sus = full["suspension"][axle], d["suspension"][axle]
        own_tire, tires = full["tires"][axle], d["tires"][axle]
        if "kinematics" in groups:
            sus["kinematics"] = copy.deepcopy(own["kinematics"])
            if "camber_stiffness_per_load" in own_tire:
                tires["camber_stiffness_per_load"] = own_tire["camber_stiffness_per_load"]
        if "compliance" in groups and "compliance_steer" in own:
            sus["compliance_steer"] = copy.deepcopy(own["compliance_steer"])
        if "lateral" in groups:
            sus["lateral_compliance_mm_per_kn"] = own["lateral_compliance_mm_per_kn"]
            if "relaxation_y_load_share" in own_tire:
                tires["relaxation_y_load_share"] = own_tire["relaxation_y_load_share"]
    return d


@functools.cache
def kus(preset: str, groups: tuple) -> float:
    """The left circle's K_us (deg/g, ISO 4138) of the preset with only ``groups``."""
    return iso4138.four_wheel(with_only(preset, *groups), RADIUS_M)[0]


@pytest.mark.parametrize("preset", ["hatchbackFwd", "pickup4x4"])
def test_the_kc_parts_add_up_to_the_whole_move(preset) -> None:
    base = kus(preset, ())
    whole = kus(preset, GROUPS) - base
    parts = {g: kus(preset, (g,)) - base for g in GROUPS}
    assert whole > 0.3, whole  # the premise: the K&C add understeer the fit resolves
    assert sum(parts.values()) == pytest.approx(whole, rel=0.05), (parts, whole)
    assert abs(parts["lateral"]) < 0.02 * whole, parts  # a spring in series: no steady move
    assert parts["system"] > 0.1 and parts["kinematics"] > 0.1, parts


def _roll_gradient(d: dict) -> float:
    sim = Simulation(d, initial={"speed_mps": 12.0})
    tel = None
    for _ in range(300):
        tel = sim.step((0.25, 0.0, 0.08, 0.0, 0) + ASSISTS_ON[1:])
    return tel.roll / tel.accel_y  # rad per m/s²


def _lost_camber_slip(d: dict, axle: str, load: float) -> float:
    """The slip angle (rad) the axle needs per radian of roll to make up the camber thrust
    its wheels lose leaning out with the body: C_γ·F_z·(s_φ + Γ'·t/2)/C_α."""
    kin = d["suspension"][axle]["kinematics"]
    t = d["tires"][axle]
    gain = kin["camber_gain"]
    slope = (gain["camber_rad"][-1] - gain["camber_rad"][0]) / (
        gain["travel_m"][-1] - gain["travel_m"][0]
    )
    half_track = 0.5 * d["geometry"][f"track_{axle}_m"]
    lean_per_roll = kin["roll_camber_share"] + slope * half_track
    c_gamma = t.get("camber_stiffness_per_load", 0.0)
    return c_gamma * load * lean_per_roll / tire.cornering_stiffness(t, load)


@pytest.mark.parametrize("preset", ["hatchbackFwd", "pickup4x4"])
def test_the_kinematics_move_is_their_roll_steer_and_roll_camber(preset) -> None:
    d = with_only(preset, "kinematics")
    loads = Simulation(d).static_loads
    eps_f = d["suspension"]["front"]["kinematics"]["roll_steer"]
    eps_r = d["suspension"]["rear"]["kinematics"]["roll_steer"]
    camber = _lost_camber_slip(d, "front", loads[0]) - _lost_camber_slip(d, "rear", loads[2])
    per_roll = eps_r - eps_f + camber
    predicted = per_roll * _roll_gradient(without_kc(preset)) * G * DEG_PER_RAD
    moved = kus(preset, ("kinematics",)) - kus(preset, ())
    assert predicted > 0.2, predicted
    assert moved == pytest.approx(predicted, rel=0.2), (moved, predicted)


@pytest.mark.parametrize("preset", ["hatchbackFwd", "pickup4x4"])
def test_the_kinematics_quicken_the_yaw_response_and_raise_its_overshoot(preset) -> None:
    plain = step_steer.run(without_kc(preset), host_hz=1000)
    rolled = step_steer.run(with_only(preset, "kinematics"), host_hz=1000)
    assert rolled["yaw_rate_response_s"] < plain["yaw_rate_response_s"] - 0.01
    assert rolled["yaw_rate_overshoot_pct"] > plain["yaw_rate_overshoot_pct"] + 1.0
