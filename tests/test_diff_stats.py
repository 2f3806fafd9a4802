"""``skidpad diff --stats`` on runs that legitimately differ (issue 17).

The planted physics change: a hook adds 0.1 mm to ``body.x`` after every substep of run B
(a 0.1 m/s bias in the integration of one state slot, which nothing else reads on a flat
road). Every other field stays where it was, so with a tolerance on every field only the
planted one may exceed its own, and the report must name it, its largest difference and the
host step of it. A second pair, two presets on the same recorded inputs, goes through the
command line: exit codes, globs, comma lists, JSON, a common prefix, and refusals.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.replay import recording
from skidpad.replay.recorder import record_drive
from skidpad.replay.stats import parse_tolerances, recording_series, state_stats
from skidpad.scenarios import random_drive

PRESET = "sportsRwd"
DRIFT_M = 1e-4  # added to body.x after every substep of run B


class DriftX:
    """Probe hook: after every substep, move ``body.x`` on by ``DRIFT_M``."""

    def __init__(self, index: int) -> None:
        self.index = index

    def stage(self, name, values) -> None:
        pass

    def substep(self, tick, state) -> None:
        state[self.index] += DRIFT_M


@pytest.fixture(scope="module")
def rec():
    d = engine_definition.load_preset(PRESET)
    r, _ = record_drive(d, random_drive.make_driver(d, 100, 3, 2.0), preset=PRESET)
    return r


@pytest.fixture(scope="module")
def files(rec, tmp_path_factory) -> dict[str, Path]:
    """A, the same inputs on another preset, and A cut to its first 120 host steps."""
    root = tmp_path_factory.mktemp("stats")
    other = engine_definition.load_preset("hatchbackFwd")
    b = dataclasses.replace(
        rec,
        definition=other,
        definition_hash=engine_definition.definition_hash(other),
        preset="hatchbackFwd",
        final_hash=None,
        checkpoints=(),
    )
    frames = recording.run_length(list(rec.inputs())[:120])
    short = dataclasses.replace(rec, frames=frames, steps=120, final_hash=None, checkpoints=())
    out = {"a": root / "a.json", "b": root / "b.json", "short": root / "short.json"}
    for key, r in (("a", rec), ("b", b), ("short", short)):
        recording.save(r, out[key])
    return out


def test_planted_change_exceeds_only_its_own_tolerance(rec) -> None:
    a = recording_series(rec, "clean")
    index = a.names.index("body.x")
    b = recording_series(rec, "planted", hook=DriftX(index))
    substeps = rec.substep_hz // rec.host_hz
    drift = rec.steps * substeps * DRIFT_M  # body.x is ahead by this after the last step
    tolerances = parse_tolerances(["*=1e-12", f"body.x={drift / 2}"], a.names)
    report = state_stats(a, b, tolerances)
    assert report.compared_steps == rec.steps + 1
    assert report.exceeded == ["body.x"]
    (fx,) = [f for f in report.fields if f.name == "body.x"]
    assert fx.max_abs == pytest.approx(drift, rel=1e-9)
    assert fx.at_step == rec.steps  # the drift only grows
    assert fx.b - fx.a == pytest.approx(drift, rel=1e-9)
    assert 0.0 < fx.rmse < fx.max_abs
    assert all(f.max_abs == 0.0 and f.at_step is None for f in report.fields if f is not fx)
    text = report.text()
    assert "exceeded by 1: body.x" in text
    # the same change passes a tolerance above it
    loose = parse_tolerances(["*=1e-12", f"body.x={2 * drift}"], a.names)
    report = state_stats(
        recording_series(rec, "a"), recording_series(rec, "b", DriftX(index)), loose
    )
    assert report.exceeded == []


def test_tolerances_globs_lists_and_overrides() -> None:
    names = ("body.x", "wheel.FL.omega", "wheel.RL.omega", "drivetrain.gear")
    t = parse_tolerances(["wheel.*.omega=0.5,body.x=1", "wheel.RL.omega=2"], names)
    assert t == {"wheel.FL.omega": 0.5, "wheel.RL.omega": 2.0, "body.x": 1.0}
    for bad in ("wheel.*.omgea=0.5", "body.x", "body.x=", "body.x=abc", "body.x=-1", "x=nan"):
        with pytest.raises(Exception) as info:
            parse_tolerances([bad], names)
        assert "--tolerance" in str(info.value)


def test_two_presets_on_the_same_inputs_through_the_cli(files, capsys) -> None:
    a, b = str(files["a"]), str(files["b"])
    assert main(["diff", "--stats", a, b]) == 0  # no tolerance: information only
    out = capsys.readouterr().out
    assert "the vehicle definitions differ" in out and "body.vx" in out
    assert main(["diff", "--stats", a, b, "--tolerance", "body.vx=1e-9"]) == 1
    assert "exceeded by 1: body.vx" in capsys.readouterr().out
    assert main(["diff", "--stats", a, b, "--tolerance", "wheel.*.omega=1e6", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    judged = {f["name"]: f for f in doc["fields"] if f["tolerance"] is not None}
    assert sorted(judged) == [f"wheel.{w}.omega" for w in ("FL", "FR", "RL", "RR")]
    vx = next(f for f in doc["fields"] if f["name"] == "body.vx")
    assert vx["max_abs"] > 0.0 and vx["max_abs"] == abs(vx["a"] - vx["b"])
    assert doc["compared_steps"] == 201 and doc["exceeded"] == []


def test_different_lengths_compare_the_common_prefix(files, capsys) -> None:
    assert main(["diff", "--stats", str(files["a"]), str(files["short"]), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["compared_steps"] == 121 and doc["last_step"] == 120
    assert any("only the first 120" in n for n in doc["notes"])
    assert all(f["max_abs"] == 0.0 for f in doc["fields"])  # the same run, cut short


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tolerance", "body.nope=1"], "no state field"),
        (["--tolerance", "body.x=1e"], "is not a number"),
        (["--checkpoint-every", "10"], "not used by --stats"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, capsys, extra, message) -> None:
    assert main(["diff", "--stats", str(files["a"]), str(files["b"]), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_refusals(files, capsys) -> None:
    cr = Path(__file__).resolve().parent.parent / "recordings" / "commonroad-st-v2.json"
    assert main(["diff", "--stats", str(files["a"]), str(cr)]) == 2
    assert "different state layouts" in capsys.readouterr().err
    assert main(["diff", str(files["a"]), str(files["b"]), "--tolerance", "body.x=1"]) == 2
    assert "only with --stats" in capsys.readouterr().err
    assert main(["diff", "--stats", str(files["a"])]) == 2
    assert "give two runs" in capsys.readouterr().err


def test_a_trace_with_states_stands_for_its_recording(rec, files, tmp_path, capsys) -> None:
    from skidpad.replay.replayer import replay
    from skidpad.replay.trace import dumps_trace, trace_document

    info = {"name": "a.json", "sha256": "x", "preset": PRESET, "steps": rec.steps}
    every_other = range(0, rec.steps + 1, 2)
    with_states = replay(rec, trace=True, state_at=every_other)
    bare = replay(rec, trace=True)
    pa, pbare = tmp_path / "a.trace.json", tmp_path / "bare.trace.json"
    pa.write_text(dumps_trace(trace_document(with_states, info, "m")), encoding="utf-8")
    pbare.write_text(dumps_trace(trace_document(bare, info, "m")), encoding="utf-8")
    assert main(["diff", "--stats", str(pa), str(files["b"]), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["compared_steps"] == len(every_other)
    assert any("chosen host steps" in n for n in doc["notes"])
    assert main(["diff", "--stats", str(pa), str(files["a"]), "--json"]) == 0
    assert all(f["max_abs"] == 0.0 for f in json.loads(capsys.readouterr().out)["fields"])
    assert main(["diff", "--stats", str(pbare), str(files["a"])]) == 2
    assert "holds no states" in capsys.readouterr().err
