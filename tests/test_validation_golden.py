"""The golden file's tolerances, comparison and bless (issue 7)."""

from __future__ import annotations

import json

from skidpad.scenarios.validation import run as vrun


def _fake():
    return {"hash": "0123456789abcdef"}


def test_within_abs_rel_exact():
    assert vrun.within(1.0, 1.01, ["abs", 0.02])
    assert not vrun.within(1.0, 1.03, ["abs", 0.02])
    assert vrun.within(101.0, 100.0, ["rel", 0.02])
    assert not vrun.within(103.0, 100.0, ["rel", 0.02])
    assert vrun.within("ab", "ab", ["exact"]) and not vrun.within("ab", "ac", ["exact"])
    assert not vrun.within(None, 1.0, ["abs", 1.0])


def test_compare_reports_drift_missing_and_new(tmp_path):
    path = tmp_path / "validation.json"
    lines = vrun.bless({"kart": {"scripted": _fake()}}, path)
    assert lines == ["kart scripted: new (1 figures)"]
    g = vrun.load_golden(path)
    gold = vrun.golden_for(g, "kart", "scripted")
    assert vrun.compare("scripted", {"hash": "0123456789abcdef"}, gold) == []
    assert vrun.compare("scripted", {"hash": "fedcba9876543210"}, gold)
    assert vrun.compare("scripted", {"hash": "0123456789abcdef", "x": 1.0}, gold)
    assert vrun.compare("scripted", {}, gold)
    assert vrun.compare("scripted", {"hash": "x"}, None)


def test_bless_is_atomic_and_says_what_changed(tmp_path):
    path = tmp_path / "validation.json"
    vrun.bless({"kart": {"scripted": _fake()}}, path)
    assert vrun.bless({"kart": {"scripted": _fake()}}, path) == ["kart scripted: unchanged"]
    changed = vrun.bless({"kart": {"scripted": {"hash": "ffffffffffffffff"}}}, path)
    assert "1 changed" in changed[0] and "ffffffffffffffff" in changed[0]
    data = json.loads(path.read_text())
    assert data["presets"]["kart"]["scripted"]["hash"] == {
        "value": "ffffffffffffffff",
        "tol": ["exact"],
    }
    assert [p.name for p in tmp_path.iterdir()] == ["validation.json"]


def test_tolerances_are_physical_bands_and_hashes_exact():
    assert vrun.tolerance("iso4138", "kus_four_wheel_deg_per_g", 1.0) == ["abs", 0.02]
    assert vrun.tolerance("scripted", "hash", "ab")[0] == "exact"
    assert vrun.tolerance("straight_line", "locked.distance_m", 40.0) == ["rel", 0.02]
    assert vrun.tolerance("lane_change", "pass_speed_kmh", 100) == ["exact"]
