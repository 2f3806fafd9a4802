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
