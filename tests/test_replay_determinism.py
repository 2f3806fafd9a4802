"""Record -> replay determinism: same hashes, host-rate independence, checkpoints.

See docs/architecture.md §2 and §4.
"""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.replay import recording
from skidpad.replay.fourwheel import build_simulation
from skidpad.replay.recorder import Recorder, record_drive
from skidpad.replay.replayer import replay
from skidpad.scenarios import random_drive, scripted

PRESET = "hatchbackFwd"


@pytest.fixture(scope="module")
def definition() -> dict:
    return engine_definition.load_preset(PRESET)


@pytest.fixture(scope="module")
def random_rec(definition):
    rec, sim = record_drive(
        definition, random_drive.make_driver(definition, 100, 11, 6.0), preset=PRESET
    )
    return rec, sim


def bits(state) -> list:
    return [struct.pack("<d", v) if isinstance(v, float) else v for v in state]


def test_replay_reproduces_the_live_run(random_rec) -> None:
    rec, sim = random_rec
    again = replay(recording.loads(recording.dumps(rec)))
    assert again.final_hash == rec.final_hash == sim.state_hash()
    assert again.steps == rec.steps == 600
    assert again.ticks == sim.tick


def test_replay_twice_gives_identical_checkpoints(random_rec) -> None:
    rec, _ = random_rec
    a, b = replay(rec, 50), replay(rec, 50)
    assert a.checkpoints == b.checkpoints and a.final_hash == b.final_hash
    assert len({h for _, h in a.checkpoints}) == len(a.checkpoints), "the car never moved?"


def test_a_tiny_change_in_one_input_changes_the_hash(random_rec) -> None:
    rec, _ = random_rec
    frames = [list(v) for v in rec.inputs()]
    k = 300
    frames[k][2] = frames[k][2] + 1e-9  # steer, one host step
    altered = replace(rec, frames=recording.run_length([tuple(f) for f in frames]))
    a, b = replay(rec, 100), replay(altered, 100)
    assert a.checkpoints[:4] == b.checkpoints[:4]  # steps 0..300 are the same
    assert a.checkpoints[4] != b.checkpoints[4]
    assert a.final_hash != b.final_hash


def test_checkpoint_interval(random_rec) -> None:
    rec, _ = random_rec
    r100, r50, r7 = replay(rec, 100), replay(rec, 50), replay(rec, 7)
    assert [s for s, _ in r100.checkpoints] == list(range(0, 601, 100))
    assert [s for s, _ in r7.checkpoints] == list(range(0, 601, 7))
    d50 = dict(r50.checkpoints)
    for s, h in r100.checkpoints:
        assert d50[s] == h
    d7 = dict(r7.checkpoints)
    assert d7[0] == r100.checkpoints[0][1] and d7[35 * 7] == d50.get(245, d7[245])
    assert r100.final_hash == r50.final_hash == r7.final_hash
    with pytest.raises(recording.RecordingError):
        replay(rec, 0)


def test_same_input_timeline_at_another_host_rate(definition) -> None:
    """50 Hz inputs, and the same inputs held for two 100 Hz steps each: same substeps and state."""
    rec50, sim50 = record_drive(
        definition, random_drive.make_driver(definition, 50, 5, 4.0), preset=PRESET
    )
    doubled = [v for v in rec50.inputs() for _ in range(2)]
    sim100 = build_simulation(replace(rec50, host_hz=100))
    rec100 = Recorder(sim100, definition, preset=PRESET)
    for v in doubled:
        rec100.step(v)
    assert sim100.tick == sim50.tick == 4000
    assert bits(sim100.state) == bits(sim50.state)
    # the step counter is part of the hash, so the hashes differ only through it
    assert sim100.layout.hash(7, sim100.state) == sim50.layout.hash(7, sim50.state)
    # and the per-substep trace hashes (counter = tick) agree at every substep
    r50 = replay(rec50, trace=True)
    r100 = replay(rec100.recording(), trace=True)
    assert r50.substep_hashes == r100.substep_hashes


def test_trace_mode_hashes_every_substep_and_named_states(random_rec) -> None:
    rec, sim = random_rec
    r = replay(rec, trace=True, state_at=[0, 10, 600])
    assert len(r.substep_hashes) == sim.tick
    assert [t for t, _ in r.substep_hashes] == list(range(1, sim.tick + 1))
    assert r.final_hash == rec.final_hash  # tracing does not change the run
    assert set(r.states) == {0, 10, 600}
    assert list(r.states[600]) == list(sim.layout.names)
    assert bits(r.states[600].values()) == bits(sim.state)


def test_detail_window_records_stages_and_state(random_rec) -> None:
    rec, _ = random_rec
    r = replay(rec, detail_steps=range(20, 22))
    assert [d.tick for d in r.detail] == list(range(201, 221))
    stages = [name for name, _ in r.detail[0].stages]
    assert stages[0] == "ground" and stages[-1] == "suspension"
    assert all([n for n, _ in d.stages] == stages for d in r.detail)


def test_use_preset_is_explicit(definition) -> None:
    # A recording whose embedded definition was retuned (heavier car) keeps its own physics;
    # replaying it with today's preset is an explicit choice and gives the preset's run.
    heavy = engine_definition.validate_definition(definition)
    heavy["mass"]["total_kg"] = heavy["mass"]["total_kg"] + 150.0
    drv = scripted.ScriptedDriver(100, duration_ms=3000)
    rec, _ = record_drive(heavy, drv, preset=PRESET)
    plain, _ = record_drive(
        definition, scripted.ScriptedDriver(100, duration_ms=3000), preset=PRESET
    )
    loaded = recording.loads(recording.dumps(rec))
    assert replay(loaded).final_hash == rec.final_hash
    assert replay(loaded, use_preset=True).final_hash == plain.final_hash != rec.final_hash
