"""``skidpad diff`` reaches the fast path (issue 29): the fast path's probed variant reports
every stage from its own values, so a difference that only the fast path has (planted here
as one ulp in one stage of its generated text) is named by its stage when a fast-path run
is diffed against a readable run. Without a plant the two runs are identical, stage values
included, so the probed variant reports what the readable stages report."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import cambered
from skidpad.cli import main
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import fastpath
from skidpad.engine.fourwheel.simulation import STAGES, Simulation
from skidpad.replay import recording
from skidpad.replay.diff import diff_recordings
from skidpad.replay.document import RecordingError
from skidpad.replay.recorder import record_drive
from skidpad.scenarios import random_drive
from test_fastpath import PLANTS, plant

PRESET = "hatchbackFwd"
#: one line of each stage: tests/test_fastpath.py's, but a value the stage reports where that
#: plant's shows first in a later stage (the assists' brake capacity once a brake saturates,
#: the tires' hub speed and the wheels' deflection, which no stage reports)
STAGE_PLANTS = {**PLANTS, "assists": "act_tc_scale", "tire_forces": "sfx0", "wheel_solve": "fx0"}
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def rec():
    d = engine_definition.load_preset(PRESET)
    # moving from the start (a random drive parks for its last second)
    driver = random_drive.RandomDriver(7, 100, 2.0, {"speed_mps": 15.0})
    r, _ = record_drive(d, driver, preset=PRESET)
    return r


@pytest.fixture(scope="module")
def cambered_rec():
    """A drive of a car with kinematics: the kinematics stage has text only then."""
    driver = random_drive.RandomDriver(7, 100, 2.0, {"speed_mps": 15.0})
    r, _ = record_drive(cambered(PRESET), driver)
    return r


@pytest.fixture(scope="module")
def circuit_rec():
    """A sandbox drive that reaches the grass: the ground stage has text only on a ground."""
    from skidpad.replay.session import DriveSession, Keys

    s = DriveSession(PRESET)
    for i in range(400):
        s.step(Keys(throttle=True, steer_amount=0.3 if i >= 100 else 0.0))
    assert abs(s.car()["lateral"]) > 6.0
    return s.recording()


def planted_build(stage: str):
    """``fastpath.build`` with one ulp planted in ``stage`` of the probed variant's text."""
    real = fastpath.build

    def build(sim, text=None, extra=None, probed=False):
        if not probed:
            return real(sim, text, extra)
        text = plant(fastpath.source(sim, probed=True), STAGE_PLANTS[stage])
        names = {"nextafter": math.nextafter, "inf": math.inf}
        return real(sim, text, names, probed=True)

    return build


def test_the_probed_fast_path_reports_what_the_readable_stages_report(rec) -> None:
    report = diff_recordings(rec, rec, paths=("fast", "readable"))
    assert report.identical, report.text()


def test_a_probed_fast_step_runs_the_fast_path() -> None:
    """The probed variant is the generated code (not the stages), reporting every stage."""
    names: list = []

    class Names:
        def stage(self, name: str, values: tuple) -> None:
            names.append(name)

        def substep(self, tick: int, state: list) -> None:
            pass

    sim = Simulation(engine_definition.load_preset("kart"), initial={"speed_mps": 10.0})
    sim.probed_path = "fast"
    sim.step((0.5, 0.0, 0.2, 0.0), Names())
    assert sim.fast_probed_run is not None and sim.fast_probed_run.__name__ == "run"
    assert sim.fast_probed_run.__code__.co_filename == "<fast path>"
    assert names == [s.name for s in STAGES] * sim.substeps_in(0)


@pytest.mark.parametrize("stage", sorted(STAGE_PLANTS))
def test_diff_names_the_stage_of_a_difference_only_the_fast_path_has(
    request, stage: str, monkeypatch
) -> None:
    fixture = {"ground": "circuit_rec", "kinematics": "cambered_rec"}.get(stage, "rec")
    rec = request.getfixturevalue(fixture)
    monkeypatch.setattr(fastpath, "build", planted_build(stage))
    report = diff_recordings(
        rec, rec, paths=("fast", "readable"), a_label="fast", b_label="readable"
    )
    assert not report.identical
    assert report.stage is not None, report.text()
    assert report.stage.name == stage, report.text()
    # the readable diff of the same runs sees nothing: the plant is in the fast path alone
    assert diff_recordings(rec, rec).identical


def test_the_command_names_the_stage(rec, tmp_path, monkeypatch, capsys) -> None:
    path = tmp_path / "drive.json"
    recording.save(rec, path)
    monkeypatch.setattr(fastpath, "build", planted_build("tire_forces"))
    code = main(["diff", str(path), str(path), "--fast-path", "A"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "first differing physics stage: stage tire_forces" in out


def test_the_option_is_refused_where_it_has_no_meaning(rec, tmp_path, capsys) -> None:
    path = tmp_path / "drive.json"
    recording.save(rec, path)
    assert main(["diff", str(path), "--fast-path", "B", "--hashes", str(tmp_path)]) == 2
    assert "--fast-path: only for two recordings" in capsys.readouterr().err


def test_a_model_with_one_path_refuses_a_fast_probe() -> None:
    """A CommonRoad run has no fast path to probe: said, not ignored."""
    from skidpad.replay.replayer import replay

    path = sorted(ROOT.glob("recordings/commonroad-*.json"))[0]
    with pytest.raises(RecordingError, match="one path"):
        replay(recording.load(path), probed_path="fast", stop_after=1)
