"""Scenarios that feed the hash: sandbox track, scripted and random drives, the lap driver."""

from __future__ import annotations

import json
import struct

import pytest
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import inputs as engine_inputs
from skidpad.engine.prng import SplitMix64
from skidpad.engine.track import TRACK_DIR, TrackError, build, load_track
from skidpad.replay import recording
from skidpad.replay.recorder import record_drive
from skidpad.replay.replayer import replay
from skidpad.scenarios import lap_driver, random_drive, scripted


def bits(values) -> list:
    return [struct.pack("<d", v) for v in values]


# ----------------------------------------------------------------------------- track


def test_sandbox_track_closes_and_has_several_radii() -> None:
    t = load_track("sandbox")
    assert t.closure_m < 1e-6
    assert 1000.0 < t.length < 1500.0
    assert t.width == 10.0
    plateaus = {round(1.0 / abs(k), 3) for k in t.curvature if k != 0.0 and abs(k) * 20.0 > 0.999}
    radii = {round(1.0 / abs(k)) for k in t.curvature if k != 0.0}
    for r in (20, 25, 45, 60):
        assert r in radii, r
    assert 20.0 in plateaus
    assert min(t.curvature) < 0.0 < max(t.curvature), "corners both ways"


def test_sandbox_track_is_smooth() -> None:
    t = load_track("sandbox")
    # clothoid transitions: curvature changes by at most (1/R)/T per metre, never jumps
    jumps = [abs(b - a) for a, b in zip(t.curvature, t.curvature[1:], strict=False)]
    assert max(jumps) <= (1.0 / 20.0) / 10.0 * t.ds + 1e-12
    # heading follows the curvature, position follows the heading
    for i in range(0, t.n, 97):
        dh = t.heading[i + 1] - t.heading[i]
        assert abs(dh - 0.5 * (t.curvature[i] + t.curvature[i + 1]) * t.ds) < 1e-6


def test_a_track_that_does_not_close_is_refused() -> None:
    doc = json.loads((TRACK_DIR / "sandbox.json").read_text())
    doc["segments"][0]["straight"] = doc["segments"][0]["straight"] + 1.0
    with pytest.raises(TrackError, match="does not close"):
        build(doc, "broken")
    with pytest.raises(TrackError, match="unknown track"):
        load_track("nowhere")


# ----------------------------------------------------------------------------- scripted


def test_scripted_drive_is_the_same_for_every_preset_and_in_range() -> None:
    runs = []
    for name in engine_definition.PRESET_NAMES[:3]:
        d = scripted.make_driver(engine_definition.load_preset(name), 100)
        assert d.max_steps() == 3000
        runs.append([d.inputs(k) for k in range(d.max_steps())])
    assert runs[0] == runs[1] == runs[2]
    for values in runs[0]:
        engine_inputs.validate_inputs(values)


def test_scripted_drive_has_its_manoeuvres() -> None:
    d = scripted.ScriptedDriver(100)
    names = [c.name for c in engine_inputs.CHANNELS]
    def channel(name: str):
        i = names.index(name)
        return lambda seconds: d.inputs(int(seconds * 100))[i]

    at = {n: channel(n) for n in names}
    assert at["throttle"](3.0) == 0.8 and at["steer"](3.0) == 0.0  # launch
    assert at["steer"](8.0) > 0.0 and at["steer"](13.0) < 0.0  # cornering both ways
    assert at["throttle"](13.0) == 0.0 and at["steer"](13.0) == -0.2  # lift-off mid-corner
    assert at["brake"](20.0) == 0.7  # braking
    assert at["brake"](29.5) == 0.9 and at["handbrake"](29.5) == 1.0


def test_scripted_drive_uses_integer_time() -> None:
    # at 50 Hz, step k reads the script at the same instant as step 2k at 100 Hz
    d100, d50 = scripted.ScriptedDriver(100), scripted.ScriptedDriver(50)
    for k in range(0, 1500, 7):
        assert bits(d50.inputs(k)) == bits(d100.inputs(2 * k))
    assert scripted.value_at(((0, 0.0), (1000, 0.8)), 250) == 0.8 * (250 / 1000)


# ----------------------------------------------------------------------------- random


def test_splitmix64_reference_vector() -> None:
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def _random_inputs(seed: int, host_hz: int = 100, seconds: float = 20.0) -> list[tuple]:
    from skidpad.replay.recorder import normalise_inputs

    d = random_drive.RandomDriver(seed, host_hz, seconds)
    return [normalise_inputs(d.inputs(k)) for k in range(d.max_steps())]


def test_random_drive_is_deterministic_smooth_and_in_range() -> None:
    a, b, c = _random_inputs(42), _random_inputs(42), _random_inputs(43)
    assert [bits(x) for x in a] == [bits(x) for x in b]
    assert a != c
    park = len(a) - 100
    for prev, cur in zip(a[: park - 1], a[1:park], strict=True):
        assert max(abs(p - q) for p, q in zip(prev, cur, strict=True)) < 0.1  # ramps, no jumps
    i_t, i_b = 0, 1
    assert not any(x[i_t] > 0.0 and x[i_b] > 0.0 for x in a), "throttle and brake together"
    assert len({round(x[2], 3) for x in a}) > 50, "the steering actually varies"


# ----------------------------------------------------------------------------- lap driver


@pytest.mark.slow
@pytest.mark.parametrize("preset", engine_definition.PRESET_NAMES)
def test_lap_driver_drives_a_full_lap_and_the_replay_matches(preset: str) -> None:
    d = engine_definition.load_preset(preset)
    driver = lap_driver.make_driver(d, 100)
    rec, sim = record_drive(d, driver, preset=preset)
    assert driver.progress >= driver.t.n, "the lap was not completed"
    assert rec.steps < driver.max_steps()
    assert driver.max_offset < driver.t.width / 2, f"left the track by {driver.max_offset:.1f} m"
    assert rec.track == "sandbox" and rec.drive == "lap"
    again = replay(recording.loads(recording.dumps(rec)))
    assert again.final_hash == sim.state_hash() == rec.final_hash
