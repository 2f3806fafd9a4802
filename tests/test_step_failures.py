"""A failed step or an out-of-range initial condition is reported in one line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.commonroad.daemon import CommonRoadDaemon
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.simulation import INITIAL_LIMITS, Simulation
from skidpad.engine.fourwheel.vehicle_layout import LAYOUT
from skidpad.engine.state import NonFiniteStateError, StepArithmeticError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("key", sorted(INITIAL_LIMITS))
def test_four_wheel_initial_out_of_range_is_named(key: str) -> None:
    lo, hi = INITIAL_LIMITS[key]
    d = load_preset("sportsRwd")
    # geared so tall that the top of the speed range is within the redline (ADR 0129)
    d["drivetrain"]["gearbox"]["final_drive"] = 1.0
    with pytest.raises(DefinitionError, match=f"initial.{key}: must be within"):
        Simulation(d, initial={key: hi * 2.0 + 1.0})
    Simulation(d, initial={key: hi})  # the bound itself is accepted


@pytest.mark.parametrize("key", ["speed", "yaw_rate", "beta", "steer_angle", "x", "yaw"])
def test_commonroad_initial_out_of_range_is_named(key: str) -> None:
    with pytest.raises(DefinitionError, match=f"initial.{key}: must be within"):
        CommonRoadDaemon("mb", 2, initial={key: 1e300})


def test_arithmetic_failure_inside_a_substep_is_a_physics_failure() -> None:
    # A heading (cos, sin) pair poked to 1e300 is finite, so it passes the start-of-step check;
    # renormalising it divides by an overflowed norm inside the substep. That must surface as
    # the physics failing at a named tick, not as a bare ZeroDivisionError.
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 20.0})
    sim.step((0.0, 0.0, 0.0, 0.0))
    sim.state[LAYOUT.index["body.heading_c"]] = 1e300
    with pytest.raises(StepArithmeticError, match=r"the arithmetic failed at tick \d+: ") as info:
        sim.step((0.0, 0.0, 0.0, 0.0))
    assert isinstance(info.value, NonFiniteStateError)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_the_cli_reports_a_physics_failure_in_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    # `skidpad diff` replays what it compares; a replay that fails must not print a traceback.
    from skidpad.replay import diff

    def failing(*args: object, **kwargs: object) -> None:
        raise NonFiniteStateError("body.vx", float("nan"), "tick 42")

    monkeypatch.setattr(diff, "diff_recordings", failing)
    rec = str(ROOT / "recordings" / "kart-scripted.json")
    assert main(["diff", rec, rec]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "the physics failed" in err and "body.vx" in err and "tick 42" in err
