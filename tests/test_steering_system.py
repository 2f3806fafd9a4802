"""The steering system (ADR 0268): the front wheels' moments about their steering axes on
their linkages and, summed, on a rack held by the torsion bar and the assist. Each part
is toggled on a car and its move measured against the linear models; the data are
checked entry by entry; both paths give the same bits.

Each test measures against the preset without its K&C (:func:`helpers.without_kc`) and
gives it a steering system of its own.
"""

from __future__ import annotations

import functools
import math

import pytest
from helpers import braked_straight, without_kc
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import single_track, steering
from skidpad.engine.fourwheel.definition import definition_hash, load_preset, validate_definition
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.scenarios.validation import iso4138
from test_fastpath import ASSISTS_ON, first_mismatch

KUS = "kus_four_wheel_deg_per_g"
SPEEDS = (8.0, 12.0)
#: a passenger car's rack (i, K_c, A inside the ranges ADR 0268 cites), no scrub radius
SYSTEM = {
    "ratio": 15.0,
    "column_stiffness_nm_per_deg": 3.0,
    "assist_gain": 2.0,
    "mechanical_trail_m": 0.03,
    "scrub_radius_m": 0.0,
}


def with_system(preset: str = "hatchbackFwd", **entries: float) -> dict:
    d = without_kc(preset)
    d["steering"]["system"] = dict(SYSTEM, **entries)
    return d


@functools.cache
def kus(edits: tuple = ()) -> float:
    """K_us (deg/g, ISO 4138 at 8 and 12 m/s) of hatchbackFwd, with a system of ``edits``
    (None: without one)."""
    d = without_kc("hatchbackFwd") if edits is None else with_system(**dict(edits))
    return iso4138.run(d, speeds=SPEEDS)[KUS]


def linear_move(**entries: float) -> float:
    """The linear theory's K_us move (deg/g) when hatchbackFwd gets the system ``entries``."""
    base = without_kc("hatchbackFwd")
    return single_track.linear_understeer(with_system(**entries)) - single_track.linear_understeer(
        base
    )


@pytest.mark.parametrize("assist", [0.0, 2.0])
def test_the_rack_adds_the_understeer_its_stiffness_predicts(assist) -> None:
    """In a turn each front tire's moment, -(t + t_m)·F_y, turns its wheel out of the turn on
    the rack, which the torsion bar and the assist hold with K_r = i²·(1 + A)·K_c: the front
    axle runs at a smaller slip angle than the driver steered, and K_us grows by what the
    linear theory with each wheel's compliance c + 2/K_r and trail t + t_m says, within a
    fifth. Without the assist the rack is three times softer, and the move is larger."""
    moved = kus((("assist_gain", assist),)) - kus(None)
    predicted = linear_move(assist_gain=assist)
    assert predicted > 0.15, predicted
    assert moved == pytest.approx(predicted, rel=0.2), (moved, predicted)


def test_the_assist_takes_its_share_of_the_racks_compliance() -> None:
    """The rack's part of the move scales with 1/(1 + A): the moves with A = 0 and A = 2,
    less the linkage's own (the system with an infinitely stiff rack, approximated by a
    stiff column), stand as 3 to 1, within a fifth."""
    stiff = (("column_stiffness_nm_per_deg", 1.0e4),)
    linkage = kus(stiff) - kus(None)
    rack_bare = kus((("assist_gain", 0.0),)) - kus(None) - linkage
    rack_assisted = kus((("assist_gain", 2.0),)) - kus(None) - linkage
    assert rack_assisted > 0.05, rack_assisted
    assert rack_bare / rack_assisted == pytest.approx(3.0, rel=0.2)


def braking(scrub: float) -> tuple[tuple, object]:
    """((the front-left and front-right compliance steer, rad), the telemetry) after 0.5 s of
    straight braking from 20 m/s with scrub radius ``scrub``."""
    return braked_straight(with_system(scrub_radius_m=scrub), ("FL", "FR"))


def test_a_positive_scrub_radius_toes_the_braked_wheels_out_and_the_rack_holds_still() -> None:
    """Braking, each front wheel's force acts r_s outboard of its steering axis: the left
    wheel turns left and the right one right (toe-out), each by its linkage's compliance
    times r_s·|F_x| (the lag has settled); the two moments cancel on the rack, so the car
    runs straight. The same car without the scrub radius is the reference (its static toe-in
    already gives each wheel a small moment)."""
    r_s = 0.02
    (left, right), tel = braking(r_s)
    (plain_left, plain_right), _ = braking(0.0)
    c = load_preset("hatchbackFwd")["steering"]["compliance_deg_per_knm"] * math.pi / 180e3
    expected = c * r_s * -tel.fx[0]
    assert tel.fx[0] < -1000.0  # the premise: the front wheels brake hard
    assert left - plain_left == pytest.approx(expected, rel=0.05), (left - plain_left, expected)
    assert right - plain_right == pytest.approx(-expected, rel=0.05)
    assert abs(tel.yaw_rate) < 1e-9


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"ratio": 0.5}, r"steering\.system\.ratio: must be >= 1, got 0\.5"),
        ({"column_stiffness_nm_per_deg": 0.0}, r"column_stiffness_nm_per_deg: must be > 0"),
        ({"assist_gain": -1.0}, r"assist_gain: must be >= 0, got -1\.0"),
        ({"mechanical_trail_m": "0.03"}, r"mechanical_trail_m: must be a finite number"),
        ({"scrub_radius_m": float("inf")}, r"scrub_radius_m: must be a finite number"),
        ({"ratio": 10**401}, r"steering\.system\.ratio: must be a finite number, not an integer"),
        ({"rack_inertia": 1.0}, r"steering\.system\.rack_inertia: unknown"),
    ],
)
def test_a_bad_steering_system_is_named(edit, message) -> None:
    with pytest.raises(DefinitionError, match=message):
        validate_definition(with_system(**edit))


def test_a_steering_system_must_state_every_entry() -> None:
    d = with_system()
    del d["steering"]["system"]["assist_gain"]
    with pytest.raises(DefinitionError, match=r"steering\.system\.assist_gain.*missing"):
        validate_definition(d)
    d["steering"]["system"] = [1.0]
    with pytest.raises(DefinitionError, match=r"steering\.system: must be an object"):
        validate_definition(d)


def test_the_system_is_covered_by_the_definitions_hash() -> None:
    base = without_kc("hatchbackFwd")
    assert "system" not in base["steering"]
    assert definition_hash(with_system()) != definition_hash(base)
    assert definition_hash(with_system(ratio=16.0)) != definition_hash(with_system())
    assert Simulation(base).steer_k.system is None


@pytest.mark.parametrize("preset", ["hatchbackFwd", "hatchbackMf61", "kart"])
def test_a_car_with_a_system_gives_the_same_bits_on_both_paths_and_moves(preset) -> None:
    d = with_system(preset, scrub_radius_m=0.015)
    initial = {"speed_mps": 15.0}
    fast = Simulation(d, initial=initial)
    slow = Simulation(d, initial=initial, path="readable")
    plain = Simulation(without_kc(preset), initial=initial)
    frames = [
        (0.3 + 0.3 * math.sin(k / 9.0), 0.2 if k % 90 > 70 else 0.0, 0.4 * math.sin(k / 17.0), 0.0)
        + (0,) + ASSISTS_ON[1:]
        for k in range(250)
    ]
    assert first_mismatch(fast, slow, frames) == ""
    for values in frames:
        plain.step(values)
    assert fast.state_hash() != plain.state_hash()


def test_the_linear_models_see_the_rack_and_the_trail() -> None:
    """steering.linear_compliance: each wheel's compliance with both wheels' moments equal
    is the linkage's plus twice the rack's, and the trail is the caster's."""
    s = validate_definition(with_system())["steering"]
    c, t_m = steering.linear_compliance(s)
    k_r = 15.0**2 * 3.0 * (3.0 * 180.0 / math.pi)
    assert c == pytest.approx(0.25e-3 * math.pi / 180.0 + 2.0 / k_r, rel=1e-12)
    assert t_m == 0.03
    plain = validate_definition(without_kc("hatchbackFwd"))["steering"]
    assert steering.linear_compliance(plain) == (0.25e-3 * math.pi / 180.0, 0.0)
