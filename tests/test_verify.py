"""``skidpad verify``: a recording checked on its own against every claim it carries, from any
directory, with tampered copies caught by name."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.replay import recording
from skidpad.replay.replayer import replay
from skidpad.replay.session import DriveSession, Keys
from skidpad.scenarios.key_driver import KeyDriver


@pytest.fixture(scope="module")
def lap_file(tmp_path_factory) -> Path:
    """A keyboard lap of the sandbox circuit (what the page downloads), as a file."""
    session = DriveSession("openWheeler")
    driver = KeyDriver.for_definition(session.definition, session.circuit)
    while not session.timer.laps and session.steps < 12000:
        keys = driver.keys(session.car(), session.keyboard.steer, session.keyboard.brake)
        session.step(Keys(**keys))
    for _ in range(50):  # a little past the line
        session.step(Keys())
    path = tmp_path_factory.mktemp("verify") / "lap.json"
    path.write_text(recording.dumps(session.recording()), encoding="utf-8")
    return path


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def tampered(src: Path, dst: Path, edit) -> Path:
    doc = json.loads(src.read_text("utf-8"))
    edit(doc)
    dst.write_text(json.dumps(doc), encoding="utf-8")
    return dst


def test_a_lap_verifies_on_its_own_from_any_directory(lap_file, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, out, _ = run(["verify", str(lap_file), "--json"], capsys)
    assert rc == 0, out
    (row,) = json.loads(out)["recordings"]
    claimed = json.loads(lap_file.read_text("utf-8"))["claims"]
    assert row["verdict"] == "verified" and row["laps"] == claimed["laps"]
    assert claimed["laps"] and claimed["laps"][0]["valid"]
    assert row["final_hash"] == claimed["final_hash"]


def test_a_changed_input_is_caught_at_its_checkpoint(lap_file, tmp_path, capsys) -> None:
    def edit(doc):
        # the throttle of the 40th frame: confirm below that it moves the final hash
        doc["frames"][40][1] = 0.5 if doc["frames"][40][1] != 0.5 else 0.25

    bad = tampered(lap_file, tmp_path / "input.json", edit)
    assert replay(recording.load(bad)).final_hash != replay(recording.load(lap_file)).final_hash
    rc, out, _ = run(["verify", str(bad)], capsys)
    assert rc == 1
    assert "MISMATCH" in out and "/claims/final_hash" in out and "departs between host steps" in out


def test_a_lap_time_changed_by_a_millisecond_is_caught(lap_file, tmp_path, capsys) -> None:
    def edit(doc):
        doc["claims"]["laps"][0]["time_s"] += 0.001

    rc, out, _ = run(["verify", str(tampered(lap_file, tmp_path / "lap.json", edit))], capsys)
    assert rc == 1 and "/claims/laps/0" in out and "/claims/final_hash" not in out


def test_an_invalid_lap_claimed_valid_is_caught(lap_file, tmp_path, capsys) -> None:
    def edit(doc):
        doc["claims"]["laps"].append(copy.deepcopy(doc["claims"]["laps"][0]))
        doc["claims"]["laps"][-1]["lap"] = len(doc["claims"]["laps"])

    rc, out, _ = run(["verify", str(tampered(lap_file, tmp_path / "extra.json", edit))], capsys)
    assert rc == 1 and "/claims/laps" in out


def test_a_recording_without_claims_is_nothing_claimed(lap_file, tmp_path, capsys) -> None:
    def edit(doc):
        doc["claims"].update(final_hash=None, checkpoints=[], laps=None)

    bare = tampered(lap_file, tmp_path / "bare.json", edit)
    rc, out, _ = run(["verify", str(bare)], capsys)
    assert rc == 1 and "nothing claimed" in out
    rc, out, _ = run(["verify", str(bare), "--allow-unclaimed"], capsys)
    assert rc == 0 and "nothing claimed" in out


def test_the_budget_refuses_before_replaying(lap_file, capsys) -> None:
    rc, out, err = run(["verify", str(lap_file), "--max-sim-seconds", "10"], capsys)
    assert rc == 2 and out == "" and len(err.splitlines()) == 1 and "--max-sim-seconds" in err


def test_one_bad_file_stops_everything_before_any_replay(lap_file, tmp_path, capsys) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    rc, out, err = run(["verify", str(lap_file), str(broken)], capsys)
    assert rc == 2 and out == "" and "broken.json" in err and "Traceback" not in err


def test_version_1_recordings_verify_their_final_hash(lap_file, tmp_path, capsys) -> None:
    doc = json.loads(lap_file.read_text("utf-8"))
    final = doc["claims"]["final_hash"]
    v1 = {k: doc[k] for k in recording.KEYS_V1 if k != "final_hash"}
    v1.update(version=1, final_hash=final)
    path = tmp_path / "v1.json"
    path.write_text(json.dumps({k: v1[k] for k in recording.KEYS_V1}), encoding="utf-8")
    rc, out, _ = run(["verify", str(path), "--json"], capsys)
    (row,) = json.loads(out)["recordings"]
    assert rc == 0 and row["verdict"] == "verified" and row["claims"] == 1
    v1["final_hash"] = "0" * 16
    path.write_text(json.dumps({k: v1[k] for k in recording.KEYS_V1}), encoding="utf-8")
    # today's physics named: a mismatch otherwise replays the lap under every archived one
    # (tests/test_physics_versions.py tests that search), 15 s of this test's 17
    rc, out, _ = run(["verify", str(path), "--physics", "current"], capsys)
    assert rc == 1 and "/final_hash" in out


def test_identifying_an_unstamped_file_stops_todays_physics_at_an_early_departure(
    lap_file, tmp_path, monkeypatch
) -> None:
    """Trying today's physics on an unstamped file (identification by trial) replays the
    opening first: a file that departs there costs the opening, not the whole replay; one
    that holds is replayed whole and verified, as before."""
    from skidpad.engine.physics import PHYSICS_VERSION
    from skidpad.replay import verify
    from skidpad.replay.archive import unstamped_copy

    unstamped = unstamped_copy(lap_file)
    genuine = tmp_path / "unstamped.json"
    genuine.write_bytes(unstamped.read_bytes())
    unstamped.unlink()

    def forge(doc):  # one step's throttle and steering changed, under way, at host step 120
        frames, rows, at = doc["frames"], [], 0
        for count, *values in frames:
            if at <= 120 < at + count:
                changed = [0.5, values[1], values[2] + 0.3, *values[3:]]
                rows += [[120 - at, *values], [1, *changed], [at + count - 121, *values]]
            else:
                rows.append([count, *values])
            at += count
        doc["frames"] = [r for r in rows if r[0] > 0]

    forged = tampered(genuine, tmp_path / "forged.json", forge)
    replayed: list[int] = []
    real = verify._replay_here
    monkeypatch.setattr(verify, "_replay_here",
                        lambda rec, *a, **k: (replayed.append(rec.steps), real(rec, *a, **k))[1])

    rec = recording.load(forged)
    run = verify.run_under(PHYSICS_VERSION, forged, rec, trial=True)
    assert not run.holds and replayed == [verify.OPENING_STEPS] < [rec.steps]
    # parted at the first checkpoint after the change (host step 200, the third)
    assert run.check.problems[0].startswith("/claims/checkpoints/2 claims "), run.check.problems
    replayed.clear()
    whole = verify.run_under(PHYSICS_VERSION, forged, rec)  # not a trial: the whole file
    assert not whole.holds and replayed == [rec.steps]
    assert whole.reach(rec)[0] == run.reach(rec)[0]  # both part at the same checkpoint

    replayed.clear()
    rec = recording.load(genuine)
    run = verify.run_under(PHYSICS_VERSION, genuine, rec, trial=True)
    assert run.holds and replayed == [verify.OPENING_STEPS, rec.steps]
