"""The live drive session: keys ramp into inputs, every input is recorded as applied, and a
replay of the recording recomputes the page's laps and hashes."""

from __future__ import annotations

import pytest
from skidpad.engine.errors import InputError
from skidpad.replay.session import (
    STEER_RATES,
    THROTTLE_RATES,
    DriveSession,
    KeyboardInputs,
    Keys,
    assist_channels,
    replay_laps,
)
from skidpad.scenarios.key_driver import KeyDriver

HOST_HZ = 100


def test_a_held_key_ramps_at_the_press_rate_and_returns_at_the_release_rate() -> None:
    kb = KeyboardInputs(HOST_HZ, assist_channels(None))
    for _ in range(10):
        inputs = kb.next(Keys(throttle=True, left=True))
    assert inputs["throttle"] == pytest.approx(10 * THROTTLE_RATES[0] / HOST_HZ)
    assert inputs["steer"] == pytest.approx(10 * STEER_RATES[0] / HOST_HZ)
    for _ in range(3):
        inputs = kb.next(Keys())
    assert inputs["throttle"] == pytest.approx(0.4 - 3 * THROTTLE_RATES[1] / HOST_HZ)
    assert inputs["steer"] == pytest.approx(0.25 - 3 * STEER_RATES[1] / HOST_HZ)
    for _ in range(100):
        inputs = kb.next(Keys(brake=True, right=True))
    assert inputs["brake"] == 1.0 and inputs["steer"] == -1.0 and inputs["throttle"] == 0.0


def test_gear_presses_are_queued_one_per_host_step_never_lost() -> None:
    kb = KeyboardInputs(HOST_HZ, assist_channels(None))
    requests = [kb.next(Keys(gear_up=2, gear_down=1))["gear_request"]]
    requests += [kb.next(Keys())["gear_request"] for _ in range(3)]
    assert requests == [1, 1, 2, 0]


def test_keyboard_driving_keeps_the_steering_assist_on_and_maps_the_switches() -> None:
    kb = KeyboardInputs(HOST_HZ, assist_channels({"abs": False, "traction_control": True}))
    inputs = kb.next(Keys())
    assert inputs["steering_assist"] == 1
    assert (inputs["abs"], inputs["traction_control"], inputs["stability_control"]) == (-1, 1, 0)


@pytest.mark.parametrize(
    "data",
    [{"throttle": 1}, {"gear_up": -1}, {"gear_up": True}, {"warp": True}, [], {"gear_down": 1e9}],
)
def test_bad_key_states_are_refused(data) -> None:
    with pytest.raises(InputError, match="keys"):
        Keys.from_json(data)


@pytest.fixture(scope="module")
def keyboard_lap() -> DriveSession:
    session = DriveSession("hatchbackFwd")
    driver = KeyDriver.for_definition(session.definition, session.circuit)
    while not session.timer.laps and session.steps < 12000:
        keys = driver.keys(session.car(), session.keyboard.steer, session.keyboard.brake)
        session.step(Keys(**keys))
    return session


def test_a_keyboard_lap_is_timed_and_counts(keyboard_lap: DriveSession) -> None:
    (lap,) = keyboard_lap.laps()
    assert lap["valid"], lap["reason"]
    assert sum(lap["sectors_s"]) == pytest.approx(lap["time_s"], rel=1e-12)
    # the lap takes at least the track length at the car's top speed on this drive
    assert lap["time_s"] > keyboard_lap.circuit.track.length / 45.0


def test_a_completed_laps_ghost_runs_from_the_line_to_the_line(keyboard_lap: DriveSession) -> None:
    """The ghost the page keeps (issue 31): one pose per host step of the lap, so as many as
    the lap's time at the host rate; its distance along the lap starts just past the line and
    ends just short of a whole lap."""
    (lap,) = keyboard_lap.laps()
    ghost = keyboard_lap.lap_ghost(1)
    n = len(ghost["x"])
    assert all(len(ghost[k]) == n for k in ("y", "c", "s", "d"))
    assert abs(n - lap["time_s"] * ghost["host_hz"]) <= 1.0
    length = keyboard_lap.circuit.track.length
    speed_cap = 45.0 / ghost["host_hz"]  # metres a host step covers at most on this drive
    assert 0.0 <= ghost["d"][0] <= speed_cap
    assert length - speed_cap <= ghost["d"][-1] <= length
    assert all(abs(c * c + s * s - 1.0) < 1e-2 for c, s in zip(ghost["c"], ghost["s"], strict=True))
    with pytest.raises(InputError, match="no completed lap 2"):
        keyboard_lap.lap_ghost(2)


def test_replaying_the_recording_recomputes_laps_and_hashes_exactly(
    keyboard_lap: DriveSession,
) -> None:
    rec = keyboard_lap.recording()
    laps, result = replay_laps(rec)
    assert laps == keyboard_lap.laps()
    assert result.final_hash == keyboard_lap.state_hash()
    assert [tuple(c) for c in result.checkpoints] == keyboard_lap.checkpoints
    assert rec.track == "sandbox" and rec.steps == keyboard_lap.steps


def test_the_pose_observer_sees_the_same_bits_on_the_fast_and_the_readable_path() -> None:
    import struct

    from skidpad.engine.fourwheel.definition import load_preset
    from skidpad.engine.fourwheel.simulation import Simulation

    definition = load_preset("sportsRwd")
    seen = {}
    for path in ("fast", "readable"):
        sim = Simulation(definition, host_hz=100, path=path, initial={"speed_mps": 15.0})
        poses: list[bytes] = []
        sim.pose_observer = lambda tick, *pose, out=poses: out.append(
            struct.pack("<q4d", tick, *pose)
        )
        for k in range(300):
            sim.step({"throttle": 0.6, "steer": 0.3 if k > 100 else 0.0})
        seen[path] = poses
    assert len(seen["fast"]) == 300 * 10
    assert seen["fast"] == seen["readable"]


def test_the_pages_verdict_is_skidpad_verify_in_the_same_words(tmp_path) -> None:
    """The page's "Load recording" runs ``skidpad verify``'s own code on the file: a
    CommonRoad recording is verified (and has no ghost), a lap edited by 1 ms is a MISMATCH
    naming the claim, a non-JSON file is refused with the command's message, and the text is
    the command's output for the same file name."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from skidpad.replay.session import PageAPI

    root = Path(__file__).resolve().parents[1]
    api = PageAPI()
    seen: list[tuple[int, int]] = []

    def cli(name: str, data: bytes) -> tuple[int, str]:
        (tmp_path / name).write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-m", "skidpad", "verify", name],
            cwd=tmp_path,
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
        )
        return done.returncode, (done.stdout or done.stderr).strip()

    cr = (root / "recordings" / "commonroad-ks-v2.json").read_bytes()
    out = json.loads(api.verify("commonroad-ks-v2.json", cr))
    assert (out["exit"], out["text"]) == cli("commonroad-ks-v2.json", cr)
    assert out["verdict"] == "verified" and out["ghost"] is None and "no ghost" in out["ghost_note"]
    lap = json.loads((root / "recordings" / "kart-sandbox.json").read_text(encoding="utf-8"))
    lap["claims"]["laps"][0]["time_s"] += 0.001
    later = json.dumps(lap).encode()
    out = json.loads(api.verify("later.json", later, lambda n, t: seen.append((n, t))))
    assert (out["exit"], out["text"]) == cli("later.json", later)
    assert seen and seen[-1][1] == lap["steps"]  # the replay of today's physics reports progress
    assert out["verdict"] == "MISMATCH" and "/claims/laps/0" in out["text"]
    assert out["ghost"] and len(out["ghost"]) == lap["steps"]
    out = json.loads(api.verify("x.json", b"x{"))
    assert (out["exit"], out["text"]) == cli("x.json", b"x{")
    assert out["exit"] == 2 and "not valid JSON" in out["text"]
