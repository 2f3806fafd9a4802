"""Four-wheel initial speed and the drivetrain (issue 12, ADR 0129): the car starts in a
gear that keeps its power unit within its limit, or the speed is refused in one line."""

from __future__ import annotations

import re

import pytest
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.powertrain import RPM
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_ENGINE, I_GEAR

from tests.helpers import manual_hatch

PRESETS = ("crossoverEv", "hatchbackFwd", "kart", "openWheeler", "pickup4x4", "sportsRwd")


def limit_rpm(definition: dict) -> float:
    pu = definition["drivetrain"]["power_unit"]
    return pu["redline_rpm"] if pu["type"] == "engine" else pu["max_rpm"]


def stated_top_speed(definition: dict) -> float:
    """The highest initial speed the refusal of a far too fast start names."""
    with pytest.raises(DefinitionError) as info:
        Simulation(definition, initial={"speed_mps": 150.0})
    message = str(info.value)
    assert "\n" not in message
    found = re.search(r"starts at up to ([0-9.]+) m/s", message)
    assert found, message
    return float(found.group(1))


def test_kart_at_150_mps_is_refused_naming_the_rpm():
    with pytest.raises(DefinitionError) as info:
        Simulation(load_preset("kart"), initial={"speed_mps": 150.0})
    message = str(info.value)
    assert message.startswith("initial.speed_mps: ")
    assert "76,735 rpm" in message and "redline of 15,000 rpm" in message


@pytest.mark.parametrize("name", PRESETS)
def test_the_stated_top_speed_is_the_boundary(name):
    d = load_preset(name)
    top = stated_top_speed(d)
    sim = Simulation(d, initial={"speed_mps": top - 0.1})
    assert sim.state[I_ENGINE] <= limit_rpm(d) * RPM
    with pytest.raises(DefinitionError, match="initial.speed_mps"):
        Simulation(d, initial={"speed_mps": top + 0.1})


def test_a_manual_starts_in_the_lowest_gear_within_the_redline():
    d = manual_hatch()
    redline = limit_rpm(d) * RPM
    assert Simulation(d, initial={"speed_mps": 5.0}).state[I_GEAR] == 1
    sim = Simulation(d, initial={"speed_mps": 40.0})
    gear = sim.state[I_GEAR]
    assert gear > 1
    assert sim.state[I_ENGINE] <= redline
    # one gear lower would be past the redline
    ratios = d["drivetrain"]["gearbox"]["ratios"]
    assert sim.state[I_ENGINE] * ratios[gear - 2] / ratios[gear - 1] > redline


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_top_start_speed_is_the_boundary_initial_accepts(preset: str) -> None:
    from skidpad.engine.fourwheel.drive import top_start_speed

    d = load_preset(preset)
    top = top_start_speed(d)
    Simulation(d, initial={"speed_mps": min(top * 0.999, 150.0)})
    if top * 1.001 <= 150.0:
        with pytest.raises(DefinitionError, match="top gear"):
            Simulation(d, initial={"speed_mps": top * 1.001})
