"""The command line end to end: record, bless, replay (match), tamper, mismatch.

See docs/architecture.md §7.
"""

from __future__ import annotations

import json
from pathlib import Path

from skidpad.cli import main


def test_record_bless_replay_round_trip(tmp_path: Path, capsys) -> None:
    recs = tmp_path / "recordings"
    hashes = tmp_path / "hashes"
    recs.mkdir()
    argv = ["record", "--preset", "kart,sportsRwd", "--drive", "random:9", "--duration", "2"]
    assert main([*argv, "-o", str(recs)]) == 0
    files = sorted(recs.glob("*.json"))
    assert [f.name for f in files] == ["kart-random-9.json", "sportsRwd-random-9.json"]
    capsys.readouterr()

    # no golden files yet: replay says so and fails the check
    hashes.mkdir()
    assert main(["replay", *map(str, files), "--hashes", str(hashes)]) == 1
    assert "missing" in capsys.readouterr().out

    assert main(["bless", "--recordings", str(recs), "--hashes", str(hashes)]) == 0
    out = capsys.readouterr().out
    assert "kart-random-9.json: new golden file" in out
    assert sorted(p.name for p in hashes.iterdir()) == sorted(
        ["kart-random-9.json", "sportsRwd-random-9.json", "math.json"]
    )

    assert main(["replay", *map(str, files), "--hashes", str(hashes), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["match"] for r in report["recordings"]] == ["match", "match"]
    assert all(r["steps"] == 200 and r["realtime_factor"] > 0 for r in report["recordings"])

    # the human table has one row per recording with its final hash
    assert main(["replay", str(files[0]), "--hashes", str(hashes)]) == 0
    table = capsys.readouterr().out
    golden = json.loads((hashes / "kart-random-9.json").read_text())
    assert golden["final"] in table and "match" in table and "x real time" in table

    # blessing again changes nothing, and says so
    assert main(["bless", "--recordings", str(recs), "--hashes", str(hashes)]) == 0
    assert "kart-random-9.json: unchanged" in capsys.readouterr().out

    # a golden file that disagrees is a mismatch (exit 1) naming the checkpoint
    golden["checkpoints"][1][1] = "f" * 16
    (hashes / "kart-random-9.json").write_text(json.dumps(golden))
    assert main(["replay", str(files[0]), "--hashes", str(hashes)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "checkpoint at step 100" in out

    # and bless reports exactly that change
    assert main(["bless", str(files[0]), "--hashes", str(hashes)]) == 0
    out = capsys.readouterr().out
    assert "1 of 3 checkpoints changed, the first at step 100" in out


def test_trace_file_and_diff_against_a_recording(tmp_path: Path, capsys) -> None:
    rec = tmp_path / "k.json"
    assert main(["record", "--preset", "kart", "--drive", "scripted", "-o", str(rec)]) == 0
    trace = tmp_path / "k.trace.json"
    argv = ["replay", str(rec), "--trace", "--detail-steps", "10:12", "--state-at", "0,5"]
    (tmp_path / "h").mkdir()
    assert main([*argv, "-o", str(trace), "--hashes", str(tmp_path / "h")]) == 1  # no golden
    doc = json.loads(trace.read_text())
    assert doc["format"] == "skidpad-trace" and len(doc["substep_hashes"]) == 30000
    assert [d["tick"] for d in doc["detail"]["substeps"]] == list(range(101, 121))
    assert set(doc["states"]) == {"0", "5"}
    capsys.readouterr()
    # the same recording replayed here agrees with its trace
    assert main(["diff", str(trace), str(rec)]) == 0
    assert "identical" in capsys.readouterr().out
