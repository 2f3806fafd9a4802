"""The rear suspension's compliance steer under its wheels' forces (ADR 0272,
engine/fourwheel/compliance.py): each part toggled on a car and its move measured against
the linear models; the block checked entry by entry and against its valid range; both paths
give the same bits, with and without kinematics.

Each test measures against the preset without its K&C (:func:`helpers.without_kc`) and
gives it a compliance steer of its own.
"""

from __future__ import annotations

import functools
import math

import pytest
from helpers import braked_straight, without_kc
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import compliance, single_track
from skidpad.engine.fourwheel.definition import definition_hash, load_preset, validate_definition
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.scenarios.validation import iso4138
from test_fastpath import ASSISTS_ON, first_mismatch

KUS = "kus_four_wheel_deg_per_g"
SPEEDS = (8.0, 12.0)
RAD_PER_DEG_PER_KN = math.pi / 180e3


def with_compliance(
    preset: str = "hatchbackFwd",
    lateral: float = 0.0,
    longitudinal: float = 0.0,
    time: float = 0.02,
) -> dict:
    d = without_kc(preset)
    d["suspension"]["rear"]["compliance_steer"] = {
        "lateral_deg_per_kn": lateral,
        "longitudinal_deg_per_kn": longitudinal,
        "time_s": time,
    }
    return d


@functools.cache
def kus(lateral: float | None) -> float:
    """K_us (deg/g, ISO 4138 at 8 and 12 m/s) of hatchbackFwd with a rear lateral compliance
    steer ``lateral`` (deg/kN; None: without the block)."""
    d = without_kc("hatchbackFwd") if lateral is None else with_compliance(lateral=lateral)
    return iso4138.run(d, speeds=SPEEDS)[KUS]


def linear_move(lateral: float) -> float:
    base = single_track.linear_understeer(without_kc("hatchbackFwd"))
    return single_track.linear_understeer(with_compliance(lateral=lateral)) - base


@pytest.mark.parametrize("lateral", [0.15, -0.15])
def test_the_lateral_compliance_steer_moves_the_understeer_as_linear_theory_says(lateral) -> None:
    """In a turn each rear wheel steers by c_y times its own lateral force: with c_y > 0 into
    the turn, so the rear axle needs less slip for its force, which is understeer, by what
    linear theory with the rear stiffness 2·C_α/(1 - C_α·c_y) predicts, within a fifth; with
    c_y < 0 (compliance oversteer) the move is the other way."""
    moved = kus(lateral) - kus(None)
    predicted = linear_move(lateral)
    assert abs(predicted) > 0.1, predicted
    assert math.copysign(1.0, predicted) == math.copysign(1.0, lateral)
    assert moved == pytest.approx(predicted, rel=0.2), (moved, predicted)


def test_the_single_track_model_sees_the_rear_compliance_steer() -> None:
    """The single-track model's K_us moves with the linear theory's (within a tenth): it
    solves each rear wheel's steer with the force it produces."""
    base = single_track.understeer(without_kc("hatchbackFwd"))[0]
    moved = single_track.understeer(with_compliance(lateral=0.15))[0] - base
    assert moved == pytest.approx(linear_move(0.15), rel=0.1)


def braking(longitudinal: float) -> tuple[tuple, object]:
    """((the rear-left and rear-right compliance steer, rad), the telemetry) after 0.5 s of
    straight braking from 20 m/s with a longitudinal compliance steer ``longitudinal``."""
    return braked_straight(with_compliance(longitudinal=longitudinal), ("RL", "RR"))


def test_braking_toes_the_rear_wheels_in_and_the_car_runs_straight() -> None:
    """Braking, each rear wheel turns towards the car's centre line (toe-in: the left one
    right, the right one left) by c_x·|F_x| once the lag has settled, within 5 %; the two
    turns are equal and opposite, so the car runs straight. The same car with c_x = 0 is the
    reference (its rear static toe gives each wheel a small lateral force)."""
    c_x = 0.2
    (left, right), tel = braking(c_x)
    (plain_left, plain_right), _ = braking(0.0)
    expected = c_x * RAD_PER_DEG_PER_KN * -tel.fx[2]
    assert tel.fx[2] < -500.0  # the premise: the rear wheels brake
    assert left - plain_left == pytest.approx(-expected, rel=0.05), (left - plain_left, expected)
    assert right - plain_right == pytest.approx(expected, rel=0.05)
    assert abs(tel.yaw_rate) < 1e-9


def test_the_wheel_angle_in_the_telemetry_carries_the_rear_compliance_steer() -> None:
    """What a person reads as the rear wheels' angle includes their compliance steer."""
    (left, _right), tel = braking(0.2)
    toe = load_preset("hatchbackFwd")["steering"]["toe_rear_deg"] * math.pi / 180.0
    assert tel.wheel_angle[2] == pytest.approx(-toe + left, abs=1e-12)


def test_the_lag_delays_the_rear_steer_in_a_step_steer() -> None:
    """With a lag of 0.2 s the rear wheels' steer 0.1 s after a step is smaller than with
    0.01 s, and both settle to the same value."""

    def rear_steer(time: float, steps: int) -> float:
        sim = Simulation(with_compliance(lateral=0.15, time=time), initial={"speed_mps": 20.0})
        for k in range(steps):
            sim.step((0.2, 0.0, 0.05 if k >= 10 else 0.0, 0.0, 0) + ASSISTS_ON[1:])
        return sim.layout.as_dict(sim.state)["steer.RR.compliance"]

    assert rear_steer(0.2, 20) < 0.6 * rear_steer(0.01, 20)
    assert rear_steer(0.2, 300) == pytest.approx(rear_steer(0.01, 300), rel=0.02)


@pytest.mark.parametrize("kinematics", [True, False], ids=["with-kinematics", "without"])
def test_both_paths_agree_on_a_car_with_a_rear_compliance_steer(kinematics) -> None:
    """The fast path turns the rear wheels by their compliance steer on a car with
    kinematics, and on one without (where the kinematic steer is the constant 0)."""
    from skidpad.scenarios.random_drive import RandomDriver

    d = with_compliance("sportsRwd", lateral=0.1, longitudinal=0.05)
    if kinematics:
        d["suspension"]["rear"]["kinematics"] = load_preset("sportsRwd")["suspension"]["rear"][
            "kinematics"
        ]
        d["tires"]["rear"]["camber_stiffness_per_load"] = 0.8
    driver = RandomDriver(7, 100, 6.0)
    channels = ("throttle", "brake", "steer", "handbrake")
    frames = [
        tuple(driver.inputs(k).get(c, 0.0) for c in channels) + (0,) + ASSISTS_ON[1:]
        for k in range(driver.max_steps())
    ]
    fast = Simulation(d, initial={"speed_mps": 18.0})
    slow = Simulation(d, initial={"speed_mps": 18.0}, path="readable")
    assert first_mismatch(fast, slow, frames) == ""
    assert fast.layout.as_dict(fast.state)["steer.RL.compliance"] != 0.0


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"lateral_deg_per_kn": 2.0}, r"compliance_steer\.lateral_deg_per_kn: must be <= 1"),
        ({"longitudinal_deg_per_kn": "0.1"}, r"longitudinal_deg_per_kn: must be a finite number"),
        ({"time_s": -0.1}, r"compliance_steer\.time_s: must be >= 0"),
        ({"time_s": float("nan")}, r"time_s: must be a finite number"),
        ({"lateral_deg_per_kn": 10**401}, r"lateral_deg_per_kn: must be a finite number, not an"),
        ({"bushing_rate": 1.0}, r"compliance_steer\.bushing_rate: unknown"),
    ],
)
def test_a_bad_compliance_steer_is_named(edit, message) -> None:
    d = with_compliance(lateral=0.1)
    d["suspension"]["rear"]["compliance_steer"].update(edit)
    with pytest.raises(DefinitionError, match=message):
        validate_definition(d)


def test_a_missing_entry_and_a_front_block_are_refused() -> None:
    d = with_compliance(lateral=0.1)
    del d["suspension"]["rear"]["compliance_steer"]["time_s"]
    with pytest.raises(DefinitionError, match=r"compliance_steer\.time_s: is missing"):
        validate_definition(d)
    d = with_compliance(lateral=0.1)
    d["suspension"]["front"]["compliance_steer"] = d["suspension"]["rear"]["compliance_steer"]
    with pytest.raises(DefinitionError, match=r"suspension\.front\.compliance_steer: .*steering"):
        validate_definition(d)


def test_a_compliance_steer_past_its_valid_range_is_refused() -> None:
    """A lateral compliance steer whose loop gain with the rear tire passes the limit is
    refused by name; just inside the limit the car loads, and runs a steady turn."""
    d = without_kc("hatchbackFwd")
    from skidpad.engine.fourwheel import load_transfer, tire

    _f, rear = load_transfer.static_loads(load_transfer.constants(validate_definition(d)), 9.80665)
    c_alpha = tire.cornering_stiffness(d["tires"]["rear"], 2.0 * rear)
    limit = compliance.LOOP_GAIN_LIMIT / (c_alpha * RAD_PER_DEG_PER_KN)  # deg/kN
    assert limit < 1.0  # the premise: the entry's own bound does not decide it
    with pytest.raises(DefinitionError, match=r"lateral_deg_per_kn: .*loop gain .* above 0\.5"):
        validate_definition(with_compliance(lateral=1.01 * limit))
    with pytest.raises(DefinitionError, match=r"loop gain"):
        validate_definition(with_compliance(lateral=-1.01 * limit))
    validate_definition(with_compliance(lateral=0.99 * limit))


def test_the_compliance_steer_is_covered_by_the_definitions_hash() -> None:
    base = definition_hash(validate_definition(without_kc("hatchbackFwd")))
    a = definition_hash(validate_definition(with_compliance(lateral=0.1)))
    b = definition_hash(validate_definition(with_compliance(lateral=0.1, time=0.03)))
    assert len({base, a, b}) == 3
