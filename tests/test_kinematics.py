"""Suspension kinematics and camber thrust (ADR 0265): the tables, the signs, the tire's
camber force, both paths, and the mechanism toggled on a car, its move sized by theory.

Each mechanism is measured against the preset without its K&C (:func:`helpers.without_kc`),
with kinematics of the test's own (:func:`helpers.cambered`).
"""

from __future__ import annotations

import copy
import math

import pytest
from helpers import KINEMATICS, cambered, without_kc
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import kinematics, tire, wheel
from skidpad.engine.fourwheel.definition import (
    PRESET_NAMES,
    definition_hash,
    validate_definition,
)
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.scenarios.validation import iso4138
from test_fastpath import ASSISTS_ON, first_mismatch

G = 9.81
DEG_PER_RAD = 57.29577951308232
KUS = "kus_four_wheel_deg_per_g"


# ------------------------------------------------------------------------- the tables
def test_a_table_is_linear_between_its_points_and_holds_its_ends() -> None:
    t = kinematics.table((-0.08, 0.0, 0.05), (0.02, 0.0, -0.01))
    assert kinematics.table_at(t, -0.04) == pytest.approx(0.01, rel=1e-12)
    assert kinematics.table_at(t, 0.025) == pytest.approx(-0.005, rel=1e-12)
    assert kinematics.table_at(t, 0.0) == 0.0
    assert kinematics.table_at(t, -1.0) == 0.02  # past its ends the end values hold
    assert kinematics.table_at(t, 1.0) == -0.01


def test_travel_past_a_table_is_reported() -> None:
    c = kinematics.constants(cambered("hatchbackFwd"), 1.0, 1.5, 1.5, 1.5)[1]  # FR
    assert not kinematics.outside(c, 0.05, 0.0)  # 37.5 mm of bump
    assert kinematics.outside(c, 0.12, 0.0)  # 90 mm: past the table's 80
    assert kinematics.outside(c, -0.12, 0.0)


def _with(section_edit) -> dict:
    d = cambered("hatchbackFwd", ("front",))
    section_edit(d["suspension"]["front"]["kinematics"])
    return d


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda k: k["camber_gain"]["travel_m"].reverse(), r"travel_m\[1\]: must be greater"),
        (lambda k: k["camber_gain"]["camber_rad"].pop(), "has 4 values for 5 points"),
        (lambda k: k["camber_gain"]["camber_rad"].__setitem__(1, float("nan")), "finite"),
        (lambda k: k["camber_gain"]["camber_rad"].__setitem__(1, "0.01"), "a finite number"),
        (lambda k: k["camber_gain"]["travel_m"].__setitem__(0, -0.9), r"must be >= -0.5, got -0.9"),
        (lambda k: k["camber_gain"]["camber_rad"].__setitem__(2, 0.001), "0 at zero travel"),
        (lambda k: k.update(static_camber_rad=10**400), "not an integer of 1329 bits"),
        (lambda k: k.update(roll_camber_share=1.5), "must be <= 1, got 1.5"),
        (lambda k: k.pop("roll_camber_share"), "roll_camber_share: is missing"),
        (lambda k: k.update(toe_gain=[]), "kinematics.toe_gain: unknown parameter"),
        (lambda k: k["camber_gain"].update(travel_m=[0.0]), "must be a list|2 to 32 points"),
        (lambda k: k.update(camber_gain=[1, 2]), "camber_gain: must be an object"),
    ],
)
def test_a_bad_kinematics_section_is_named(edit, message) -> None:
    with pytest.raises(DefinitionError, match=message) as err:
        validate_definition(_with(edit))
    assert "\n" not in str(err.value)
    assert str(err.value).startswith("suspension.front.kinematics")


def test_a_bad_bump_steer_or_roll_steer_is_named() -> None:
    for edit, message in (
        (lambda k: k["bump_steer"]["toe_rad"].__setitem__(0, 0.2), "must be <= 0.05, got 0.2"),
        (
            lambda k: k["bump_steer"]["toe_rad"].__setitem__(1, 0.001),
            "bump_steer.toe_rad: must be 0 at",
        ),
        (lambda k: k.update(roll_steer=float("inf")), "roll_steer: must be a finite number"),
        (lambda k: k.pop("bump_steer"), "bump_steer: is missing"),
    ):
        with pytest.raises(DefinitionError, match=message):
            validate_definition(_with(edit))


def test_an_engine_tire_on_a_cambered_axle_needs_its_camber_stiffness() -> None:
    d = cambered("hatchbackFwd", ("front",))
    del d["tires"]["front"]["camber_stiffness_per_load"]
    with pytest.raises(DefinitionError, match=r"^tires.front.camber_stiffness_per_load: is miss"):
        validate_definition(d)
    mf = cambered("hatchbackMf61", ("front",))  # an MF 6.1 tire's is its file's
    mf["tires"]["front"]["camber_stiffness_per_load"] = 0.9
    with pytest.raises(DefinitionError, match="camber_stiffness_per_load: unknown parameter"):
        validate_definition(mf)


def test_a_definition_without_kinematics_is_upright_and_its_hash_tells_it_apart() -> None:
    """The mechanism is off where its section is absent, and the section is in the hash."""
    for preset in PRESET_NAMES:
        d = without_kc(preset)
        assert "kinematics" not in d["suspension"]["front"]
        assert definition_hash(cambered(preset, ("front",))) != definition_hash(d)
        assert Simulation(d).kinematics_k is None


# ------------------------------------------------------------------------- the signs
def steady_left_turn(d: dict, speed: float = 15.0, steer: float = 0.15) -> object:
    sim = Simulation(d, initial={"speed_mps": speed})
    tel = None
    for _ in range(300):
        tel = sim.step((0.25, 0.0, steer, 0.0, 0) + ASSISTS_ON[1:])
    assert tel.roll > 0.01 and tel.accel_y > 2.0  # the premise: a left turn, right side down
    return tel


def test_roll_leans_the_outer_wheel_out_and_the_inner_one_in() -> None:
    """An independent suspension without camber gain: each wheel tilts with the body, so in a
    left turn the right (outer) wheels' camber is the static camber plus the roll, the left
    (inner) ones' the static camber minus it. A solid axle's wheels stay at their static
    camber whatever the roll."""
    rigid = dict(KINEMATICS, camber_gain={"travel_m": [-0.1, 0.1], "camber_rad": [0.0, 0.0]})
    tel = steady_left_turn(cambered("hatchbackFwd", section=rigid))
    static = rigid["static_camber_rad"]
    fl, fr, rl, rr = tel.camber
    assert fr == pytest.approx(static + tel.roll, abs=1e-15)
    assert fl == pytest.approx(static - tel.roll, abs=1e-15)
    assert (rl, rr) == (fl, fr)
    solid = dict(rigid, roll_camber_share=0.0)
    assert steady_left_turn(cambered("hatchbackFwd", section=solid)).camber == (static,) * 4
    assert steady_left_turn(without_kc("hatchbackFwd")).camber == (0.0,) * 4


def test_a_camber_gain_negative_in_bump_takes_back_part_of_the_roll_camber() -> None:
    """The table gains negative camber in bump and positive in droop: the outer wheel (in
    bump) leans out by less than the roll, and the inner one (in droop) leans in by less."""
    tel = steady_left_turn(cambered("hatchbackFwd"))
    static = KINEMATICS["static_camber_rad"]
    fl, fr = tel.camber[:2]
    assert 0.0 < fr - static < tel.roll
    assert -tel.roll < fl - static < 0.0
    assert tel.travel_outside == (False,) * 4


def test_toe_out_in_bump_steers_the_outer_wheel_out_of_the_turn() -> None:
    """A front table with toe-out in bump: in a left turn the right (outer) wheel is in bump
    and steers right, the left (inner) one is in droop and, with toe-in there, steers right
    too. Roll steer turns both wheels of an axle the same way, left for ε > 0 and φ > 0."""
    fl, fr = kinematics.constants(cambered("hatchbackFwd"), 1.0, 1.5, 1.5, 1.5)[:2]
    assert kinematics.steer(fr, 0.05, 0.0) < 0.0
    assert kinematics.steer(fl, 0.05, 0.0) < 0.0
    assert kinematics.steer(fr, 0.0, 0.0) == 0.0
    rolled = fr._replace(bump_steer=kinematics.table((-0.1, 0.1), (0.0, 0.0)), roll_steer=0.1)
    assert kinematics.steer(rolled, 0.05, 0.0) == pytest.approx(0.005, rel=1e-12)


# ------------------------------------------------------------------------- the tire
def _patch(preset: str, y: float, lean: float, uy: float = 0.0) -> tire.PatchTerms:
    d = cambered(preset)
    fz = 3500.0
    k = tire.constants(d["tires"]["front"], fz, G, True)
    w = wheel.constants(1.0, y, k, 1.0, 0.001)
    return tire.patch_terms(w, fz, 20.0, 0.0, 0.0, uy, 1.0, 0.001, lean)


@pytest.mark.parametrize("lean", [0.001, -0.002])
def test_camber_thrust_at_small_slip_is_the_camber_stiffness_times_load(lean) -> None:
    c_gamma = cambered("hatchbackFwd")["tires"]["front"]["camber_stiffness_per_load"]
    fy = _patch("hatchbackFwd", 0.75, lean).fy0
    assert fy == pytest.approx(c_gamma * 3500.0 * lean, rel=1e-4)  # the shape's curvature: ρ²
    assert _patch("hatchbackFwd", 0.75, 0.0).fy0 == 0.0


def test_camber_thrust_stays_inside_the_friction_ellipse() -> None:
    for lean in (0.2, -0.2):
        for uy in (0.0, 0.05, -0.05, 0.2):
            t = _patch("hatchbackFwd", 0.75, lean, uy)
            assert (t.fx0 / t.dx) ** 2 + (t.fy0 / t.dy) ** 2 <= 1.0 + 1e-12


@pytest.mark.parametrize("y", [0.75, -0.75])
def test_the_mf61_tire_leans_the_same_way_on_both_sides(y) -> None:
    """The file's γ is positive leaning right; a wheel leaning left (ι > 0) pushes left on
    either side of the car (the right one is the file's tire mirrored)."""
    upright = _patch("hatchbackMf61", y, 0.0).fy0
    left = _patch("hatchbackMf61", y, 0.02).fy0 - upright
    right = _patch("hatchbackMf61", y, -0.02).fy0 - upright
    assert left > 0.0 > right
    # the file's camber stiffness at this load, |Kyγ0| = Fz·|PKY6 + PKY7·dfz| ~ 0.8·Fz
    assert 0.4 * 3500.0 * 0.02 < left < 1.2 * 3500.0 * 0.02


# ------------------------------------------------------------------------- both paths
@pytest.mark.parametrize(
    ("preset", "axles"),
    [("hatchbackFwd", ("front", "rear")), ("sportsRwd", ("front",)), ("hatchbackMf61", ("rear",))],
)
def test_a_cambered_car_gives_the_same_bits_on_both_paths(preset, axles) -> None:
    d = cambered(preset, axles)
    fast = Simulation(d, initial={"speed_mps": 14.0})
    slow = Simulation(d, initial={"speed_mps": 14.0}, path="readable")
    frames = [
        (0.5, 0.6 if 150 <= k < 190 else 0.0, 0.6 * math.sin(k / 25.0), 0.0, 0) + ASSISTS_ON[1:]
        for k in range(260)
    ]
    assert first_mismatch(fast, slow, frames) == ""
    assert any(c != 0.0 for c in fast.telemetry().camber)


# ------------------------------------------------------------------------- the mechanism
def roll_camber_only(share: float = 1.0, gain_per_m: float = 0.0) -> dict:
    """An independent front suspension with no static camber and a linear camber gain."""
    return {
        "static_camber_rad": 0.0,
        "roll_camber_share": share,
        "camber_gain": {
            "travel_m": [-0.1, 0.1],
            "camber_rad": [-0.1 * gain_per_m, 0.1 * gain_per_m],
        },
        "bump_steer": {"travel_m": [-0.1, 0.1], "toe_rad": [0.0, 0.0]},
        "roll_steer": 0.0,
    }


def test_front_roll_camber_adds_the_understeer_its_lost_thrust_predicts() -> None:
    """In a turn the body's roll leans both front wheels outwards (ι = -φ), so the front
    axle loses C_γ·F_zf·φ of side force and must run at a larger slip angle: K_us grows by
    C_γ·(F_zf/C_αf)·(dφ/da_y) (F_zf, C_αf the front axle's static load and cornering
    stiffness). Toggled on hatchbackFwd's front axle, the move is that within a fifth. A
    camber gain of -2/t per metre of bump, which keeps each wheel square to the road in
    roll, takes the move back."""
    base = without_kc("hatchbackFwd")
    speeds = (8.0, 12.0)
    given = iso4138.run(base, speeds=speeds)
    rolled = iso4138.run(cambered("hatchbackFwd", ("front",), roll_camber_only()), speeds=speeds)
    track = base["geometry"]["track_front_m"]
    square = roll_camber_only(gain_per_m=-2.0 / track)
    kept = iso4138.run(cambered("hatchbackFwd", ("front",), square), speeds=speeds)

    # the theory's move, from the car's own data and its measured roll gradient
    sim = Simulation(base)
    tel = steady_left_turn(base, speed=12.0, steer=0.08)
    roll_gradient = tel.roll / tel.accel_y  # rad per m/s²
    front_load = sim.static_loads[0]  # one wheel's
    c_alpha = tire.cornering_stiffness(base["tires"]["front"], front_load)
    c_gamma = cambered("hatchbackFwd")["tires"]["front"]["camber_stiffness_per_load"]
    predicted = c_gamma * front_load / c_alpha * roll_gradient * G * DEG_PER_RAD  # deg/g
    moved = rolled[KUS] - given[KUS]
    assert predicted > 0.05, predicted  # a move the ISO 4138 fit resolves
    assert moved == pytest.approx(predicted, rel=0.2), (moved, predicted)
    assert abs(kept[KUS] - given[KUS]) < 0.1 * predicted, (kept[KUS], given[KUS])


def roll_gradient(d: dict) -> float:
    """The car's roll per lateral acceleration in a steady left turn (rad per m/s²)."""
    tel = steady_left_turn(d, speed=12.0, steer=0.08)
    return tel.roll / tel.accel_y


@pytest.mark.parametrize(("axle", "sign"), [("front", -1.0), ("rear", 1.0)])
def test_roll_steer_moves_the_understeer_by_its_steer_per_g(axle, sign) -> None:
    """Roll steer ε turns an axle's wheels by ε·φ. At the front that is steer the driver
    need not give, K_us falls by ε·dφ/da_y; at the rear the car steers against it and K_us
    grows by as much. Toggled on hatchbackFwd with ε = 0.1 (no camber thrust, no bump
    steer), each axle's move is that within a fifth."""
    base = without_kc("hatchbackFwd")
    speeds = (8.0, 12.0)
    section = dict(roll_camber_only(), roll_steer=0.1)
    steered = cambered("hatchbackFwd", (axle,), section, camber_stiffness=0.0)
    given = iso4138.run(base, speeds=speeds)[KUS]
    moved = iso4138.run(steered, speeds=speeds)[KUS] - given
    predicted = sign * 0.1 * roll_gradient(base) * G * DEG_PER_RAD
    assert abs(predicted) > 0.1, predicted
    assert moved == pytest.approx(predicted, rel=0.2), (moved, predicted)


def test_the_camber_thrust_toggle_alone_explains_the_move() -> None:
    """The same kinematics with a camber stiffness of 0: the wheels still lean (the
    telemetry says so) but push nothing, and the car is the car without kinematics to the
    bit, so the move above is the camber thrust's and nothing else's."""
    d = cambered("hatchbackFwd", ("front",), roll_camber_only(), camber_stiffness=0.0)
    frames = [(0.3, 0.0, 0.1, 0.0, 0) + ASSISTS_ON[1:]] * 200
    blind = Simulation(d, initial={"speed_mps": 12.0})
    plain = Simulation(without_kc("hatchbackFwd"), initial={"speed_mps": 12.0})
    for values in frames:
        blind.step(values)
        plain.step(values)
    assert blind.state_hash() == plain.state_hash()
    assert blind.telemetry().camber[1] > 0.0 and plain.telemetry().camber == (0.0,) * 4


def test_a_kinematics_section_is_copied_not_shared() -> None:
    d = cambered("hatchbackFwd")
    d["suspension"]["front"]["kinematics"]["camber_gain"]["camber_rad"][0] = 0.05
    assert KINEMATICS["camber_gain"]["camber_rad"][0] == 0.02
    assert copy.deepcopy(d) == d
