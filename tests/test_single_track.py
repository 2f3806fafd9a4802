"""The single-track steady-state solve: converges where a steady turn exists, refuses elsewhere."""

from __future__ import annotations

import copy

import pytest
from skidpad.engine.errors import SkidpadError, SteadyStateError
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.single_track import RAD_TO_DEG_PER_G, linear_understeer, steady_state

RADIUS = 40.0


def _with_rear_stiffness(factor: float) -> dict:
    d = copy.deepcopy(load_preset("hatchbackFwd"))
    d["tires"]["rear"]["cornering_stiffness_coef"] *= factor
    return d


@pytest.mark.parametrize("factor", [0.5, 0.8, 1.0, 1.1, 1.5, 2.0])
def test_small_lateral_acceleration_follows_linear_theory(factor: float) -> None:
    # Where the tires are linear (0.4 to 0.8 m/s²) the slope of δ over a_y on one radius must be
    # linear theory's K_us, an independent formula; the slope cancels the constant kinematic
    # steer (≈ atan(L/R), not L/R) so only the understeer remains.
    d = _with_rear_stiffness(factor)
    a1, a2 = 0.4, 0.8
    d1, _ = steady_state(d, (a1 * RADIUS) ** 0.5, RADIUS)
    d2, _ = steady_state(d, (a2 * RADIUS) ** 0.5, RADIUS)
    slope_deg_per_g = (d2 - d1) / (a2 - a1) * RAD_TO_DEG_PER_G
    assert slope_deg_per_g == pytest.approx(linear_understeer(d), abs=0.03)


def test_a_stiffer_rear_axle_understeers_more() -> None:
    # Regression: ×1.1 and up used to divide by zero when the undamped Newton overshot into sliding.
    v = 12.0
    factors = (0.8, 1.0, 1.1, 1.5, 2.0)
    deltas = [steady_state(_with_rear_stiffness(f), v, RADIUS)[0] for f in factors]
    assert deltas == sorted(deltas)
    assert len(set(deltas)) == len(deltas)


def test_converges_close_to_the_grip_limit() -> None:
    # hatchbackFwd's rear μ_y is 1.0: a steady turn at 9.5 m/s² still exists.
    delta, vy = steady_state(load_preset("hatchbackFwd"), 19.5, RADIUS)
    assert 0.0 < delta < 0.2
    assert vy == vy


@pytest.mark.parametrize("speed", [20.0, 30.0])
def test_past_the_grip_limit_is_one_clear_error(speed: float) -> None:
    with pytest.raises(SteadyStateError, match=f"no steady turn at {speed:g} m/s") as info:
        steady_state(load_preset("hatchbackFwd"), speed, RADIUS)
    assert isinstance(info.value, SkidpadError)
