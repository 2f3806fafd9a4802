"""The engine tire's lateral relaxation length with load (ADR 0266): the distance the
lateral force takes to build up follows the cornering stiffness by the tire's stated share,
and a car with it gives the same bits on both paths.

Each test measures against the preset without its K&C (:func:`helpers.without_kc`).
"""

from __future__ import annotations

import math

import pytest
from helpers import patch_build_up, without_kc
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import tire
from skidpad.engine.fourwheel.definition import validate_definition
from skidpad.engine.fourwheel.simulation import Simulation
from test_fastpath import ASSISTS_ON, first_mismatch

G = 9.81
H = 0.0001
SPEED = 20.0


def with_share(preset: str, share: float) -> dict:
    d = without_kc(preset)
    for axle in ("front", "rear"):
        d["tires"][axle]["relaxation_y_load_share"] = share
    return d


def build_up_distance(t: dict, fz: float) -> float:
    """The distance (m) a patch rolls at a constant small slip angle from no deflection until
    its lateral deflection (and so its force) reaches 1 - 1/e of where it settles: the
    relaxation length, measured (:func:`helpers.patch_build_up`, 8 m of rolling: some twenty
    relaxation lengths)."""
    return patch_build_up(tire.constants(t, 4000.0, G), fz, SPEED, H, 0.002, 4000)[0]


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_the_build_up_distance_follows_the_cornering_stiffness_by_its_share(share) -> None:
    t = with_share("hatchbackFwd", share)["tires"]["front"]
    light, nominal = 0.4 * t["nominal_load_n"], t["nominal_load_n"]
    at_nominal = build_up_distance(t, nominal)
    at_light = build_up_distance(t, light)
    assert at_nominal == pytest.approx(t["relaxation_length_y_m"], rel=0.02)
    ratio = tire.cornering_stiffness(t, light) / tire.cornering_stiffness(t, nominal)
    assert ratio < 0.6  # the premise: the light wheel's cornering stiffness is much lower
    assert at_light / at_nominal == pytest.approx(1.0 - share + share * ratio, rel=0.02)


def test_the_share_is_a_fraction_and_only_the_engine_tires() -> None:
    with pytest.raises(DefinitionError, match=r"relaxation_y_load_share: must be <= 1"):
        validate_definition(with_share("hatchbackFwd", 1.5))
    with pytest.raises(DefinitionError, match="relaxation_y_load_share: unknown parameter"):
        validate_definition(with_share("hatchbackMf61", 0.5))


def test_a_car_with_it_gives_the_same_bits_on_both_paths_and_moves_from_one_without() -> None:
    d = with_share("sportsRwd", 1.0)
    fast = Simulation(d, initial={"speed_mps": 18.0})
    slow = Simulation(d, initial={"speed_mps": 18.0}, path="readable")
    plain = Simulation(without_kc("sportsRwd"), initial={"speed_mps": 18.0})
    frames = [
        (0.4, 0.0, 0.5 * math.sin(k / 20.0), 0.0, 0) + ASSISTS_ON[1:] for k in range(200)
    ]
    assert first_mismatch(fast, slow, frames) == ""
    for values in frames:
        plain.step(values)
    assert fast.state_hash() != plain.state_hash()
