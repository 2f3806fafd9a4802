"""What leaving the circuit costs (scenarios.runoff, ``skidpad runoff``): each claim is the
grass's, shown by switching the grass to the track's surface and measuring the move."""

from __future__ import annotations

import json

import pytest
from skidpad.cli import main
from skidpad.engine.fourwheel.definition import PRESET_NAMES
from skidpad.engine.fourwheel.ground import lattice_of
from skidpad.engine.track import load_circuit
from skidpad.scenarios import runoff

CIRCUIT = load_circuit("sandbox")


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_throttle_held_on_the_grass_gains_less_than_on_the_same_spot_made_track(preset) -> None:
    grass = runoff.throttle_held(preset, CIRCUIT)
    track = runoff.throttle_held(preset, CIRCUIT, runoff.as_track(CIRCUIT))
    # the grass takes at least 1.5 m/s² (its rolling resistance alone is 0.3 g)
    assert grass < track - 1.5


def test_the_shortcut_is_shorter_and_crosses_the_grass() -> None:
    cut = runoff.shortcut_path(CIRCUIT.track)
    saved = runoff.path_length(CIRCUIT.track) - runoff.path_length(cut)
    assert 5.0 < saved < 30.0
    lattice = lattice_of(CIRCUIT, *CIRCUIT.surfaces)
    on_grass = [i for i in range(cut.n) if lattice.surface_at(cut.x[i], cut.y[i]).name == "grass"]
    assert len(on_grass) * CIRCUIT.track.ds > 20.0  # the path's own points, > 20 m of grass


def test_a_shortcut_across_the_grass_loses_time_and_the_same_shortcut_on_track_gains(capsys):
    """The lap driver's lap of the centreline against its lap of the shortcut (through the
    command, as a person runs it): on the grass the shortcut is slower than the centreline;
    made track, the same path is faster. The loss is the grass's."""
    assert main(["runoff", "--preset", "hatchbackFwd", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    centreline, _ = row["centreline"]
    on_grass, grass_time = row["shortcut_on_grass"]
    as_track, _ = row["shortcut_as_track"]
    assert grass_time > 2.0  # seconds with a wheel on the grass
    assert on_grass > centreline + 0.3
    assert as_track < centreline - 0.3
    assert row["centreline"][1] == 0.0  # the centreline lap never leaves the track


def test_an_unknown_preset_is_one_line_and_exit_2(capsys) -> None:
    assert main(["runoff", "--preset", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--preset nope: unknown preset" in err[0]
