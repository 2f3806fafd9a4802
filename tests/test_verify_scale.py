"""``skidpad verify DIR`` at scale (ADR 0163): every recording under a folder, a batch of
files per task on a real dask LocalCluster of two workers, one JSON line per file streamed
into the report, the verdicts those of the single-process verify; a bad file is a line, not
the end of the run; a report that would overwrite a device, a folder or an input is refused
before any work."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.replay import output
from skidpad.replay.verify import walk

from tests.helpers import loopback_cluster

PRESETS = (("kart", 3), ("hatchbackFwd", 4), ("openWheeler", 5))


@pytest.fixture(scope="module")
def cluster():
    with loopback_cluster() as local:
        yield local


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Three 2 s drives made by the recorder (one in a subfolder), a copy of the first with
    one input changed (its claims no longer hold), and a file that is no recording."""
    root = tmp_path_factory.mktemp("drives")
    (root / "b").mkdir()
    made = []
    for i, (preset, seed) in enumerate(PRESETS):
        path = (root / "b" if i == 2 else root) / f"{preset}.json"
        argv = ["record", "--preset", preset, "--drive", f"random:{seed}", "--duration", "2"]
        assert main([*argv, "-o", str(path), "--no-verify"]) == 0
        made.append(path)
    doc = json.loads(made[0].read_text("utf-8"))
    frame = doc["frames"][len(doc["frames"]) // 2]
    frame[1] = 0.5 if frame[1] != 0.5 else 0.25  # the throttle of one run of frames
    (root / "b" / "tampered.json").write_text(json.dumps(doc), encoding="utf-8")
    (root / "b" / "notes.json").write_text('{"not": "a recording"}', encoding="utf-8")
    (root / "readme.txt").write_text("not a .json file: not a recording to verify")
    return root


def read_report(path: Path) -> dict[str, dict]:
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    by_path = {line["path"]: line for line in lines}
    assert len(by_path) == len(lines), "a file reported twice"
    return by_path


def single_process(files: list[Path], capsys) -> dict[str, dict]:
    """The plain verify of today, one file at a time in this process, as JSON."""
    rows = {}
    for f in files:
        main(["verify", str(f), "--json"])
        (row,) = json.loads(capsys.readouterr().out)["recordings"]
        rows[str(f)] = row
    return rows


def test_verify_on_a_cluster_reports_what_single_process_verify_says(
    cluster, folder, tmp_path, capsys
):
    report = tmp_path / "report.jsonl"
    argv = ["verify", str(folder), "--scheduler", cluster.scheduler_address, "--batch", "2"]
    rc = main([*argv, "--report", str(report)])
    captured = capsys.readouterr()
    assert rc == 1, captured.out + captured.err  # the tampered copy and the non-recording
    assert f"on dask scheduler {cluster.scheduler_address}" in captured.err

    lines = read_report(report)
    files = walk([folder])
    assert sorted(lines) == sorted(str(f) for f in files)  # every .json at any depth, once
    assert len(files) == 5
    for f in files:
        assert lines[str(f)]["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
        assert lines[str(f)]["seconds"] >= 0

    refused = lines[str(folder / "b" / "notes.json")]
    assert refused["verdict"] == "REFUSED" and "not a Skidpad recording" in refused["problems"][0]

    recordings = [f for f in files if f.name != "notes.json"]
    plain = single_process(recordings, capsys)
    for f in recordings:
        line, row = lines[str(f)], plain[str(f)]
        assert line["verdict"] == row["verdict"], f
        assert line["final_hash"] == row["final_hash"]
        assert line["problems"] == row["problems"]
        assert line["claims"] and {c["kind"] for c in line["claims"]} >= {"final_hash"}
    tampered = lines[str(folder / "b" / "tampered.json")]
    assert tampered["verdict"] == "MISMATCH"
    final = next(c for c in tampered["claims"] if c["kind"] == "final_hash")
    assert final["verdict"] == "MISMATCH" and final["claimed"] != final["replayed"]
    for f in (folder / "kart.json", folder / "hatchbackFwd.json"):
        assert lines[str(f)]["verdict"] == "verified"
        assert all(c["verdict"] == "verified" for c in lines[str(f)]["claims"])


def test_all_verified_exits_0_and_json_streams_the_same_lines(cluster, folder, tmp_path, capsys):
    good = tmp_path / "good"
    (good / "deep" / "er").mkdir(parents=True)
    shutil.copy(folder / "kart.json", good / "deep" / "er" / "kart.json")
    shutil.copy(folder / "hatchbackFwd.json", good / "hatchbackFwd.json")
    report = tmp_path / "good.jsonl"
    argv = ["verify", str(good), "--scheduler", cluster.scheduler_address, "--json"]
    assert main([*argv, "--report", str(report)]) == 0
    out = capsys.readouterr().out
    streamed = [json.loads(line) for line in out.splitlines()]
    assert sorted(streamed, key=lambda d: d["path"]) == sorted(
        read_report(report).values(), key=lambda d: d["path"]
    )
    assert [d["verdict"] for d in streamed] == ["verified", "verified"]


def test_jobs_starts_a_local_cluster_on_loopback(folder, tmp_path, capsys):
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(folder / "kart.json", one / "kart.json")
    assert main(["verify", str(one), "--jobs", "2"]) == 0
    captured = capsys.readouterr()
    assert "on dask LocalCluster of 2 workers on 127.0.0.1" in captured.err
    assert "kart.json: verified" in captured.out


def test_report_alone_runs_here_without_dask(monkeypatch, folder, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    monkeypatch.setitem(sys.modules, "dask", None)
    report = tmp_path / "here.jsonl"
    assert main(["verify", str(folder / "b"), "--report", str(report)]) == 1
    assert "on local" in capsys.readouterr().err
    verdicts = {Path(p).name: line["verdict"] for p, line in read_report(report).items()}
    assert verdicts == {
        "notes.json": "REFUSED",
        "openWheeler.json": "verified",
        "tampered.json": "MISMATCH",
    }


@pytest.mark.parametrize("target", ["folder", "device", "input"])
def test_a_report_over_a_folder_a_device_or_an_input_is_refused_first(
    target, folder, tmp_path, capsys
):
    given = {
        "folder": tmp_path,
        "device": Path(os.devnull),
        "input": folder / "kart.json",
    }[target]
    before = given.read_bytes() if given.is_file() else None
    assert main(["verify", str(folder), "--report", str(given)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    assert "Traceback" not in captured.err and f"--report {given}: " in captured.err
    if before is not None:
        assert given.read_bytes() == before


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--jobs", "0"], "--jobs: 0"),
        (["--batch", "0", "--report", "r.jsonl"], "--batch: 0"),
        (["--upgrade", "--report", "r.jsonl"], "--upgrade"),
        (["--scheduler", "nowhere"], "expected tcp://HOST:PORT"),
    ],
)
def test_bad_scale_options_are_one_line(extra, words, folder, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    try:
        rc = main(["verify", str(folder), *extra])
    except SystemExit as exc:  # refused by argparse, before any work: the process's exit
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r.jsonl").exists()


def test_a_streamed_output_appears_whole_or_not_at_all(tmp_path):
    target = tmp_path / "report.jsonl"
    target.write_text("the old report\n")
    with output.StreamedText(target) as out:
        out.write("one\n")
        assert out.partial.read_text() == "one\n"  # written through as it comes
        assert target.read_text() == "the old report\n"
        out.write("two\n")
    assert target.read_text() == "one\ntwo\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.jsonl"]

    with pytest.raises(KeyboardInterrupt), output.StreamedText(target) as out:
        out.write("half\n")
        raise KeyboardInterrupt
    assert target.read_text() == "one\ntwo\n"  # a stopped run leaves the old file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.jsonl"]


def test_a_task_that_fails_whole_is_an_error_line_for_each_of_its_files(
    monkeypatch, folder, tmp_path, capsys
):
    import skidpad.replay.verify as verify

    real = verify.verify_files

    def breaks_on_the_tampered_batch(paths, max_sim_seconds):
        if any(p.endswith("tampered.json") for p in paths):
            raise RuntimeError("the worker went away")
        return real(paths, max_sim_seconds)

    monkeypatch.setattr(verify, "verify_files", breaks_on_the_tampered_batch)
    report = tmp_path / "r.jsonl"
    argv = ["verify", str(folder), "--report", str(report), "--batch", "2"]
    assert main(argv) == 1
    capsys.readouterr()
    lines = read_report(report)
    assert sorted(lines) == sorted(str(f) for f in walk([folder]))  # each file once
    # sorted: b/notes.json, b/openWheeler.json | b/tampered.json, hatchbackFwd.json | kart.json
    failed = {Path(p).name for p, line in lines.items() if line["verdict"] == "ERROR"}
    assert failed == {"tampered.json", "hatchbackFwd.json"}
    assert all(
        "the worker went away" in lines[p]["problems"][0]
        for p in lines
        if lines[p]["verdict"] == "ERROR"
    )
    assert lines[str(folder / "kart.json")]["verdict"] == "verified"
