"""The mismatch diff on planted divergences: it must name exactly the step and field.

See docs/architecture.md §2.

A hook (a probe the replayer calls before its own tracer) nudges one state
field by one ulp at the end of one chosen substep in run B. The diff must
find the first differing checkpoint, then exactly that substep and host step,
exactly that one field with a 1-ulp distance, report that no physics stage
of that substep differs (the nudge came after the last stage), and name the
first stage that differs afterwards. Both paths are checked: two runs
replayed in process, and two trace files written and read back.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.floatbits import bits_float, float_bits
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel.simulation import STAGES
from skidpad.replay import recording
from skidpad.replay.diff import diff_recordings, diff_traces
from skidpad.replay.golden import golden_document, write_golden
from skidpad.replay.recorder import record_drive
from skidpad.replay.replayer import replay
from skidpad.replay.trace import dumps_trace, load_trace_document, trace_document
from skidpad.scenarios import random_drive

PRESET = "sportsRwd"


def next_up(x: float) -> float:
    """The next double above x (x finite, not -0.0)."""
    if x == 0.0:
        return 5e-324
    b = float_bits(x)
    return bits_float(b + 1) if x > 0 else bits_float(b - 1)


class Nudge:
    """Probe hook: at tick ``tick`` add one ulp to state field ``index``."""

    def __init__(self, tick: int, index: int) -> None:
        self.tick, self.index = tick, index

    def stage(self, name, values) -> None:
        pass

    def substep(self, tick, state) -> None:
        if tick == self.tick:
            state[self.index] = next_up(state[self.index])


@pytest.fixture(scope="module")
def rec():
    d = engine_definition.load_preset(PRESET)
    r, _ = record_drive(d, random_drive.make_driver(d, 100, 3, 4.0), preset=PRESET)
    return r


@pytest.mark.parametrize(
    ("field", "tick"),
    [("body.vy", 1234), ("wheel.RL.omega", 2501), ("body.yaw_rate", 3000)],
)
def test_planted_divergence_is_found_exactly(rec, field: str, tick: int) -> None:
    layout = replay(rec, stop_after=1).layout
    index = layout.index[field]
    report = diff_recordings(
        rec, rec, hook_factory_b=lambda: Nudge(tick, index), a_label="clean", b_label="nudged"
    )
    assert not report.identical
    # substep ticks are 1-based: tick t is substep index t-1, in host step (t-1)//10 at 1000/100 Hz
    step = (tick - 1) // 10
    assert report.tick == tick
    assert report.step == step
    assert report.substep_in_step == (tick - 1) % 10 and report.substeps_in_step == 10
    if report.transient:  # rounding absorbed the nudge before the next checkpoint
        assert report.differing_checkpoint is None
    else:
        assert report.differing_checkpoint == (step // 100 + 1) * 100
        assert report.equal_checkpoint == (step // 100) * 100
    assert [f.name for f in report.fields] == [field]
    (f,) = report.fields
    assert f.ulps == 1
    assert f.b == next_up(f.a)
    assert report.stage is None  # every stage of that substep agreed
    if not report.transient:  # the runs stayed apart: some stage must differ later on
        assert report.later_stage is not None
    if report.later_stage is not None:
        assert report.later_stage.tick > tick
    text = report.text()
    assert f"tick {tick}" in text and field in text and float.hex(f.a) in text and "1 ulp" in text


def test_planted_divergence_through_trace_files(rec, tmp_path: Path) -> None:
    layout = replay(rec, stop_after=1).layout
    index = layout.index["body.vx"]
    tick = 1777
    window = range(170, 180)
    info = {"name": "rec.json", "sha256": "x", "preset": PRESET, "steps": rec.steps}
    ra = replay(rec, trace=True, detail_steps=window)
    rb = replay(rec, trace=True, detail_steps=window, hook=Nudge(tick, index))
    pa, pb = tmp_path / "a.trace.json", tmp_path / "b.trace.json"
    pa.write_text(dumps_trace(trace_document(ra, info, "m")), encoding="utf-8")
    pb.write_text(dumps_trace(trace_document(rb, info, "m")), encoding="utf-8")
    report = diff_traces(
        load_trace_document(pa.read_text(), "a"), load_trace_document(pb.read_text(), "b")
    )
    assert report.tick == tick and report.step == 177
    assert [f.name for f in report.fields] == ["body.vx"] and report.fields[0].ulps == 1
    assert report.stage is None and report.later_stage is not None
    assert report.later_stage.tick > tick

    # the same through the command line: exit 1, names the field; JSON output too
    assert main(["diff", str(pa), str(pb)]) == 1
    assert main(["diff", str(pa), str(pb), "--json"]) == 1


def test_trace_without_detail_still_finds_the_substep(rec, tmp_path: Path, capsys) -> None:
    index = replay(rec, stop_after=1).layout.index["body.x"]
    info = {"name": "rec.json", "sha256": "x", "preset": PRESET, "steps": rec.steps}
    ra = replay(rec, trace=True)
    rb = replay(rec, trace=True, hook=Nudge(555, index))
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(dumps_trace(trace_document(ra, info, "m")), encoding="utf-8")
    pb.write_text(dumps_trace(trace_document(rb, info, "m")), encoding="utf-8")
    capsys.readouterr()
    assert main(["diff", str(pa), str(pb)]) == 1
    out = capsys.readouterr().out
    assert "first differing substep: tick 555 = host step 55" in out
    assert "--detail-steps 55:56" in out


def test_identical_runs(rec, tmp_path: Path) -> None:
    report = diff_recordings(rec, rec)
    assert report.identical and not report.fields
    p = tmp_path / "r.json"
    recording.save(rec, p)
    assert main(["diff", str(p), str(p)]) == 0


def test_diff_recording_against_golden(rec, tmp_path: Path, capsys) -> None:
    p = tmp_path / "r.json"
    recording.save(rec, p)
    hashes = tmp_path / "hashes"
    hashes.mkdir()
    result = replay(rec)
    doc = golden_document(p, recording.file_sha256(p), PRESET, result, None, "t")
    write_golden(hashes / "r.json", doc)
    assert main(["diff", str(p), "--hashes", str(hashes)]) == 0
    doc["checkpoints"][3][1] = "0" * 16  # pretend the blessed physics differed from step 300 on
    write_golden(hashes / "r.json", doc)
    capsys.readouterr()
    assert main(["diff", str(p), str(hashes)]) == 1
    out = capsys.readouterr().out
    assert "first differing checkpoint: step 300 (equal at step 200)" in out


def test_two_recordings_with_different_inputs(rec) -> None:
    frames = [list(v) for v in rec.inputs()]
    frames[250][1] = 0.5 if frames[250][1] != 0.5 else 0.25  # brake, one host step
    from dataclasses import replace

    other = replace(rec, frames=recording.run_length([tuple(f) for f in frames]))
    report = diff_recordings(rec, other)
    assert any("host step 250" in n and "brake" in n for n in report.notes)
    assert report.step == 250 and report.substep_in_step == 0
    assert report.fields and report.stage is not None  # the physics itself parted, in a stage
    assert report.stage.name in [stage.name for stage in STAGES]
    assert all(math.isfinite(f.a) and math.isfinite(f.b) for f in report.fields)
    json.dumps(report.to_json())
