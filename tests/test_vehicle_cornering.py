"""Steady cornering, ISO 4138 constant radius 40 m at 4–12 m/s (issue 3, Done when).

For every preset: the four-wheel model's understeer gradient (closed-loop
driver of ``scenarios.skidpad``) within 0.3 deg/g of the single-track model's
(:mod:`engine.fourwheel.single_track`, same definition), and the single-track model
within 0.05 deg/g of linear theory ``K_us = (m/L')(b'/C_f - a'/C_r)``.

Documented exception (issue 3): the kart's solid rear axle arrives with the
drivetrain issue; it will make the kart's four-wheel gradient depart from the
single-track one (seed 000 reads -0.21 against 0.31). Until then the kart has
independent rear wheels and is held to the same bound as the others; the
drivetrain issue moves it to the exception list below.

Since physics 11 the presets have suspension kinematics, which the single-track model does
not see: the four-wheel model runs here without them (:func:`helpers.without_kinematics`;
what they add is tests/test_kc_moves.py's), with the steering system and the lateral
compliance, which both models see.

Also checked: the driver actually held the circle (speed within 1 % and path
radius within 1 % of 40 m at every point), and the gradients are not trivially
equal (the four-wheel model has load transfer the single-track has not).
"""

from __future__ import annotations

import pytest
from helpers import without_kinematics
from skidpad.engine.fourwheel.definition import PRESET_NAMES
from skidpad.engine.fourwheel.single_track import fit_understeer, linear_understeer, understeer
from skidpad.scenarios.skidpad import RADIUS_M, SPEEDS_MPS, CirclePoint, circle_point
from skidpad.scenarios.validation.iso4138 import SMALL_AY_SPEEDS_MPS

SOLID_AXLE_EXCEPTIONS: tuple[str, ...] = ("kart",)  # its solid axle landed with issue 4


@pytest.fixture(scope="module", params=PRESET_NAMES)
def gradients(request: pytest.FixtureRequest) -> dict:
    d = without_kinematics(request.param)  # (the single-track model has none: ADR 0265)
    # the kart's centrifugal clutch slips at the low speeds (its engine runs above the
    # clutch's bite while the axle turns far slower), and its speed loop settles slower
    settle = 12.0 if request.param == "kart" else 5.0
    fw, pts = understeer_four_wheel(d, settle_s=settle, measure_s=1.5)
    st, _ = understeer(d)
    return {
        "name": request.param,
        "four_wheel": fw,
        "single_track": st,
        "single_track_small_ay": understeer(d, speeds=SMALL_AY_SPEEDS_MPS)[0],
        "engine_tire": "mf61" not in d["tires"]["front"],
        "linear": linear_understeer(d),
        "points": pts,
    }


def understeer_four_wheel(
    definition: dict,
    radius: float = RADIUS_M,
    speeds: tuple[float, ...] = SPEEDS_MPS,
    **kwargs: object,
) -> tuple[float, list[CirclePoint]]:
    """Four-wheel K_us (deg/g) over ``speeds`` on ``radius``, and the points (only this test
    needs it; the skidpad scenario measures one circle point at a time)."""
    wb = definition["geometry"]["wheelbase_m"]
    pts = [circle_point(definition, v, radius, **kwargs) for v in speeds]
    return fit_understeer([(p.ay, p.delta - wb * p.yaw_rate / p.speed) for p in pts]), pts


def test_driver_holds_the_circle(gradients: dict) -> None:
    for p in gradients["points"]:
        assert abs(p.speed_error) < 0.01 * p.speed
        assert abs(p.radius - RADIUS_M) < 0.01 * RADIUS_M


def test_single_track_matches_linear_theory(gradients: dict) -> None:
    # linear theory is the slope at zero lateral acceleration: the single-track model's,
    # taken where every tire is linear, agrees with it
    assert abs(gradients["single_track_small_ay"] - gradients["linear"]) <= 0.05, gradients
    if gradients["engine_tire"]:  # linear to third order (its E): over the whole fit too
        assert abs(gradients["single_track"] - gradients["linear"]) <= 0.05, gradients


def test_four_wheel_matches_single_track(gradients: dict) -> None:
    if gradients["name"] in SOLID_AXLE_EXCEPTIONS:
        pytest.skip("solid rear axle: documented exception")
    assert abs(gradients["four_wheel"] - gradients["single_track"]) <= 0.3, gradients
    assert gradients["four_wheel"] != gradients["single_track"]
