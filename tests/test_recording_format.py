"""The recording format: exact round trip, run lengths, schema, atomic writes.

See docs/architecture.md §4.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import inputs as engine_inputs
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.replay import recording
from skidpad.replay.output import OutputError
from skidpad.replay.recording import Recording, RecordingError

SCHEMA_PATH = Path(recording.__file__).with_name("recording.schema.json")


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def make_recording(frames: list[tuple], preset: str = "kart") -> Recording:
    definition = engine_definition.load_preset(preset)
    return Recording(
        definition=definition,
        definition_hash=engine_definition.definition_hash(definition),
        host_hz=100,
        substep_hz=definition["substep_hz"],
        input_version=engine_inputs.INPUT_VERSION,
        channels=tuple(c.name for c in engine_inputs.CHANNELS),
        frames=recording.run_length(frames),
        steps=len(frames),
        preset=preset,
        initial={},
        track=None,
        drive="test",
        engine_version="test",
        physics_version=PHYSICS_VERSION,
    )


def frame(**values: float) -> tuple:
    return tuple(values.get(c.name, c.default) for c in engine_inputs.CHANNELS)


TRICKY = [0.1, -0.0, 0.0, 5e-324, 2.2250738585072014e-308, 1.0 - 2.0**-53, 0.30000000000000004, 1.0]


def test_round_trip_is_bit_exact_for_tricky_floats() -> None:
    frames = [frame(throttle=abs(v), steer=-v, brake=v if v >= 0 else 0.0) for v in TRICKY]
    rec = make_recording(frames)
    back = recording.loads(recording.dumps(rec))
    got = list(back.inputs())
    assert len(got) == len(frames)
    for want, have in zip(frames, got, strict=True):
        assert [bits(x) for x in want] == [bits(x) for x in have]
    # -0.0 really survives as -0.0 (not merged with 0.0), in text and in value
    text = recording.dumps(rec)
    assert "-0.0" in text and "5e-324" in text and "0.1," in text
    assert recording.dumps(back) == text


def test_run_length_keeps_signed_zero_apart_and_merges_equal_frames() -> None:
    frames = [frame(steer=0.0)] * 3 + [frame(steer=-0.0)] * 2 + [frame(steer=0.0)]
    runs = recording.run_length(frames)
    assert [c for c, _ in runs] == [3, 2, 1]
    assert bits(runs[1][1][2]) == bits(-0.0)


def test_dumps_matches_the_published_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.loads(recording.dumps(make_recording([frame(throttle=0.5)] * 4)))
    jsonschema.Draft202012Validator(schema).validate(doc)
    # schema and loader agree on the set of fields
    assert set(schema["required"]) == set(recording.KEYS)
    # host and driven are optional
    assert set(recording.keys_of(recording.OPTIONAL_KEYS)) == set(schema["properties"])
    bad = dict(doc, extra=1)
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


def test_save_is_atomic_and_leaves_no_temp_files(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "r.json"
    rec = make_recording([frame(throttle=0.25)] * 10)
    recording.save(rec, target)
    first = target.read_bytes()
    assert recording.load(target).steps == 10

    # a failure at the rename leaves the old file intact and no temp file behind
    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OutputError, match="disk full"):
        recording.save(make_recording([frame(throttle=0.75)] * 3), target)
    assert target.read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_definition_for_replay_embedded_or_explicit_preset() -> None:
    rec = make_recording([frame()])
    assert recording.definition_for_replay(rec) is rec.definition
    assert recording.definition_for_replay(rec, use_preset=True) == engine_definition.load_preset(
        "kart"
    )
    no_preset = make_recording([frame()])
    object.__setattr__(no_preset, "preset", None)
    with pytest.raises(RecordingError, match="names no preset"):
        recording.definition_for_replay(no_preset, use_preset=True)


def test_load_names_the_file() -> None:
    with pytest.raises(RecordingError, match="nope.json: no such file"):
        recording.load("nope.json")


def test_saved_files_get_the_usual_permissions(tmp_path: Path) -> None:
    umask = os.umask(0)
    os.umask(umask)
    target = tmp_path / "r.json"
    recording.save(make_recording([frame()]), target)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600
    os.chmod(target, 0o640)
    recording.save(make_recording([frame(brake=0.5)]), target)
    assert target.stat().st_mode & 0o777 == 0o640  # a rewrite keeps the file's mode
