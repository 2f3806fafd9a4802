"""recordings/history/: recordings of earlier physics, frozen, judged by their own claims in the
parity matrix (ADR 0207); and every golden file names its physics (ADR 0209)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.parity import archived
from skidpad.parity.runs import load_recordings
from skidpad.parity.verdicts import Cell, first_difference
from skidpad.replay.archive import archived_versions, known_recordings

ROOT = Path(__file__).resolve().parents[1]
HISTORY = ROOT / "recordings" / "history"


def test_one_frozen_recording_at_least_per_archived_version_that_made_one() -> None:
    made = {v["version"] for v in known_recordings().values()} - {PHYSICS_VERSION}
    held: dict[int, list[str]] = {}
    for path in sorted(HISTORY.glob("*.json")):
        entry = known_recordings().get(hashlib.sha256(path.read_bytes()).hexdigest())
        assert entry is not None, f"{path.name}: not a committed recording's bytes (frozen)"
        assert path.name.startswith(f"physics-{entry['version']}-"), path.name
        held.setdefault(entry["version"], []).append(path.name)
    assert made <= set(archived_versions())
    assert sorted(made - set(held)) == [], "archived versions with no frozen recording"


def test_the_matrix_takes_the_folder_and_asks_for_each_files_physics() -> None:
    recs = {r.name: r for r in load_recordings(None, ROOT)}
    for path in HISTORY.glob("*.json"):
        item = archived.request_item(recs[path.stem])
        assert item["physics"] == int(path.name.split("-")[1]) != PHYSICS_VERSION
    assert "physics" not in archived.request_item(recs["kart-scripted"])  # today's physics


@dataclass
class _Run:
    name: str
    recordings: dict = field(default_factory=dict)
    status: str = "ok"


def _claimed(rec) -> dict:
    """What a runtime that reproduces the file gives: its own claims."""
    claims = json.loads(rec.text)["claims"]
    return {"checkpoints": claims["checkpoints"], "final": claims["final_hash"],
            "steps": json.loads(rec.text)["steps"], "laps": claims["laps"], "physics": 7}


def test_a_cell_is_green_only_when_every_claim_is_reproduced() -> None:
    rec = next(r for r in load_recordings(None, ROOT) if r.name == "physics-7-openWheeler-sandbox")
    good = _claimed(rec)
    assert good["laps"], "the physics 7 file claims laps: the cell must judge them"

    def cell(result: dict, reference: dict | None = None):
        run, ref = _Run("node", {rec.name: result}), _Run("cpython3.12", {rec.name: reference})
        return archived.recording_cell(run, rec, ref if reference else None, Cell,
                                       first_difference)

    assert cell(good).status == "match"
    moved = json.loads(json.dumps(good))
    h = moved["checkpoints"][5][1]
    moved["checkpoints"][5][1] = ("0" if h[0] != "0" else "1") + h[1:]
    assert cell(moved).status == "mismatch"
    lap = json.loads(json.dumps(good))
    lap["laps"][0]["time_s"] += 0.001
    assert cell(lap).status == "mismatch"
    assert cell({**good, "laps": None}).status == "mismatch"  # laps not timed: not reproduced
    assert "vs cpython3.12" in cell(good, {**good, "final": "0" * 16}).detail


def test_a_runtime_replays_a_file_under_its_archived_physics() -> None:
    from skidpad.parity.worker import run_request

    path = HISTORY / "physics-6-kart-scripted.json"
    text = path.read_text("utf-8")
    out = run_request({"selftest": False, "fastpath": False,
                       "recordings": [{"name": "k", "text": text, "physics": 6}]})
    result = out["recordings"]["k"]
    claims = json.loads(text)["claims"]
    assert (result["final"], result["physics"]) == (claims["final_hash"], 6)
    assert result["checkpoints"] == claims["checkpoints"]


def test_bless_never_writes_hashes_for_the_frozen_folder(capsys) -> None:
    from skidpad.cli import main

    rc = main(["bless", str(HISTORY / "physics-6-kart-scripted.json")])
    assert rc == 2
    assert "bless never writes hashes for them" in capsys.readouterr().err


@pytest.mark.parametrize("path", sorted((ROOT / "hashes").glob("*.json")), ids=lambda p: p.name)
def test_every_golden_file_names_its_physics(path) -> None:
    assert json.loads(path.read_text("utf-8")).get("physics_version") == PHYSICS_VERSION


def test_outside_the_frozen_folder_only_a_stamp_asks_for_an_older_physics() -> None:
    """The manifest names the physics that first made a file's bytes; a file beside its
    golden file is today's physics's to replay, or today's CommonRoad engine would be checked
    by no recording in any runtime (every committed CommonRoad file was first made by an
    earlier physics and still replays to the same bits)."""
    recs = {r.name: r for r in load_recordings(None, ROOT)}
    first_made = {
        name: known_recordings()[rec.sha256]["version"]
        for name, rec in recs.items()
        if name.startswith("commonroad-") and rec.sha256 in known_recordings()
    }
    assert any(v != PHYSICS_VERSION for v in first_made.values())  # the case this guards
    for name in first_made:
        assert archived.archived_version(recs[name]) is None, name
        assert "physics" not in archived.request_item(recs[name])
    twin = recs["physics-4-commonroad-std-v2"]
    assert twin.sha256 == recs["commonroad-std-v2"].sha256  # the same bytes ...
    assert archived.archived_version(twin) == 4  # ... asked of another physics


def test_a_stamp_outside_the_folder_is_honoured(tmp_path) -> None:
    from skidpad.parity.runs import RecordingFile

    text = json.dumps({"format": "skidpad-recording", "version": 3, "physics_version": 6})
    rec = RecordingFile("x", str(tmp_path / "x.json"), text, "0" * 64)
    assert archived.archived_version(rec) == 6
    assert archived.in_history("recordings/history/x.json")
    assert not archived.in_history("recordings/x.json")
    assert not archived.in_history("elsewhere/history2/x.json")
