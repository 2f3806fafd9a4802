"""``skidpad record --drive validation:NAME`` records exactly the manoeuvre the validation runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.replay import recording
from skidpad.scenarios.validation import straight_line

HOST_HZ = 100
HOLD_STEPS = round(straight_line.HOLD_S * HOST_HZ)


def _record(tmp_path: Path, preset: str, drive: str) -> recording.Recording:
    out = tmp_path / f"{preset}-{drive.replace(':', '-')}.json"
    assert main(["record", "--preset", preset, "--drive", drive, "-o", str(out)]) == 0
    return recording.loads(out.read_text(encoding="utf-8"))


# sportsRwd ships its ABS on, the kart has none: the input switch must override both ways.
@pytest.mark.parametrize("preset", ["sportsRwd", "kart"])
def test_recorded_stops_are_the_validation_stops(preset: str, tmp_path: Path) -> None:
    steps = {}
    for drive, abs_on in (("validation:stop", False), ("validation:stop_abs", True)):
        rec = _record(tmp_path, preset, drive)
        assert rec.drive == drive
        live = straight_line.stop(load_preset(preset), abs_on=abs_on, probe_locks=False)
        # the validation switches the ABS in the definition, the recording through the input
        # channel: the same physics stops on the same host step
        assert rec.steps == round(live["time_s"] * HOST_HZ) + HOLD_STEPS
        steps[drive] = rec.steps
    assert steps["validation:stop_abs"] < steps["validation:stop"]


def test_recorded_launch_is_the_zero_to_hundred(tmp_path: Path) -> None:
    rec = _record(tmp_path, "sportsRwd", "validation:accel")
    assert rec.steps / HOST_HZ == straight_line.accel_0_100(load_preset("sportsRwd"))


def test_step_steer_records_and_replays_to_its_golden(tmp_path: Path, capsys) -> None:
    _record(tmp_path, "kart", "validation:step_steer")
    hashes = tmp_path / "hashes"
    files = [str(p) for p in tmp_path.glob("*.json")]
    assert main(["bless", *files, "--hashes", str(hashes)]) == 0
    capsys.readouterr()
    assert main(["replay", *files, "--hashes", str(hashes)]) == 0
    assert "match" in capsys.readouterr().out


def test_unknown_validation_drive_is_one_clear_error(tmp_path: Path, capsys) -> None:
    out = tmp_path / "x.json"
    code = main(["record", "--preset", "kart", "--drive", "validation:nope", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "validation:nope" in err and "validation:stop_abs" in err
    assert not out.exists()
