"""CommonRoad recordings name their physics (format 2, ADR 0208); format 1 files keep loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.replay import commonroad, recording

ROOT = Path(__file__).resolve().parents[1]
OLD = ROOT / "recordings" / "commonroad-ks-v2.json"  # format 1, written before stamps


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cr")
    assert main(["record", "--drive", "commonroad:ks:2", "--duration", "1", "-o", str(out)]) == 0
    return out / "commonroad-ks-v2.json"


def test_skidpad_record_stamps_the_physics_and_verify_uses_it(recorded, capsys) -> None:
    doc = json.loads(recorded.read_text("utf-8"))
    assert (doc["version"], doc["physics_version"]) == (2, PHYSICS_VERSION)
    assert list(doc)[:5] == ["format", "version", "engine_version", "math_hash", "physics_version"]
    capsys.readouterr()
    assert main(["verify", str(recorded)]) == 0
    assert f"VERIFIED (physics {PHYSICS_VERSION}, stamped)" in capsys.readouterr().out


def test_a_format_1_file_still_loads_unstamped_and_is_written_back_as_it_was() -> None:
    text = OLD.read_text("utf-8")
    assert json.loads(text)["version"] == 1
    rec = recording.loads(text)
    assert rec.physics_version is None and rec.version == 1
    assert recording.dumps(rec) == text


def test_a_stamp_newer_than_this_installation_is_unknown_physics(recorded, tmp_path, capsys):
    doc = json.loads(recorded.read_text("utf-8"))
    doc["physics_version"] = PHYSICS_VERSION + 1
    path = tmp_path / "later.json"
    path.write_text(json.dumps(doc), "utf-8")
    capsys.readouterr()
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "UNKNOWN PHYSICS" in out[0], out


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda d: d.pop("physics_version"), "/physics_version"),
        (lambda d: d.update(physics_version=0), "/physics_version"),
        (lambda d: d.update(physics_version="8"), "/physics_version"),
        (lambda d: d.update(version=1), "/physics_version"),  # a format 1 file has none
    ],
)
def test_a_bad_stamp_is_refused_naming_the_field(recorded, edit, needle, tmp_path) -> None:
    doc = json.loads(recorded.read_text("utf-8"))
    edit(doc)
    with pytest.raises(recording.RecordingError, match=needle):
        recording.loads(json.dumps(doc))


def test_the_schema_describes_format_2() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(
        Path(commonroad.__file__).with_name("commonroad-recording.schema.json").read_text("utf-8")
    )
    assert schema["properties"]["version"] == {**schema["properties"]["version"], "const": 2}
    rec = commonroad.record_scripted("ks", 2, 200_000)[0]
    jsonschema.Draft202012Validator(schema).validate(json.loads(recording.dumps(rec)))
