"""Hostile arguments and recordings at the command line: claims, golden lookup, no silent
no-ops, terminal safety, broken pipes, ``--version``, list syntax and progress.

Every refusal is exit 2 with one line on stderr and no traceback, and leaves every file that
was there byte-identical; a recording whose own claim is wrong is a failed check (exit 1).
Recordings are made in the test (short drives), never committed as blobs.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.cli import EXIT_BROKEN_PIPE, main
from skidpad.replay import recording
from skidpad.replay.golden import Identity, compare
from skidpad.replay.progress import Progress, format_eta
from skidpad.replay.terminal import printable, printable_lines

ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- helpers


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def run_cli(argv: list[str], capsys) -> tuple[int, str, list[str]]:
    rc = main(argv)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err.splitlines()


def record(tmp: Path, name: str, *argv: str) -> Path:
    out = tmp / name
    assert main(["record", *argv, "-o", str(out), "--json"]) == 0
    return out


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Short recordings made once: a kart, a hatchback and a CommonRoad drive (1 s each)."""
    d = tmp_path_factory.mktemp("made")
    return {
        "kart": record(
            d, "kart.json", "--preset", "kart", "--drive", "random:3", "--duration", "1"
        ),
        "hatch": record(
            d, "hatch.json", "--preset", "hatchbackFwd", "--drive", "random:3", "--duration", "1"
        ),
        "cr": record(d, "cr.json", "--drive", "commonroad:ks:2", "--duration", "1"),
    }


@pytest.fixture()
def work(tmp_path: Path, made: dict[str, Path]) -> Path:
    """A folder with a recording (rec.json), a CommonRoad one (cr.json) and a precious file."""
    (tmp_path / "rec.json").write_bytes(made["kart"].read_bytes())
    (tmp_path / "cr.json").write_bytes(made["cr"].read_bytes())
    (tmp_path / "out.json").write_bytes(b"precious: must survive every refusal\n")
    (tmp_path / "plain.txt").write_bytes(b"not a folder\n")
    return tmp_path


def checkout(root: Path, files: dict[str, Path]) -> Path:
    """``root/recordings`` holding ``files`` (name -> source) and an empty ``root/hashes``."""
    (root / "recordings").mkdir(parents=True)
    (root / "hashes").mkdir()
    for name, src in files.items():
        (root / "recordings" / name).write_bytes(src.read_bytes())
    return root


# ----------------------------------------------------------------------------- refusals

W = "{work}"  # replaced by the work folder in each case

REFUSALS = {
    # record: empty lists, ignored options, drives that do not exist
    "record-empty-preset": (
        ["record", "--preset", "", "--drive", "scripted", "-o", f"{W}/out.json"],
        ("--preset", "empty"),
    ),
    "record-empty-preset-item": (
        ["record", "--preset", "kart,", "--drive", "scripted", "-o", f"{W}/out.json"],
        ("--preset", "empty"),
    ),
    "record-only-commas": (
        ["record", "--preset", ",", "--drive", "scripted", "-o", f"{W}/out.json"],
        ("--preset", "empty"),
    ),
    "record-empty-drive": (
        ["record", "--preset", "kart", "--drive", "", "-o", f"{W}/out.json"],
        ("--drive", "empty"),
    ),
    "record-duration-scripted": (
        ["record", "--preset", "kart", "--drive", "scripted", "--duration", "5"]
        + ["-o", f"{W}/out.json"],
        ("--duration does not apply", "scripted", "30 s"),
    ),
    "record-duration-lap": (
        ["record", "--preset", "kart", "--drive", "lap", "--duration", "5", "-o", f"{W}/out.json"],
        ("--duration does not apply", "lap"),
    ),
    "record-duration-validation": (
        ["record", "--preset", "kart", "--drive", "validation:accel", "--duration", "5"]
        + ["-o", f"{W}/out.json"],
        ("--duration does not apply", "validation:accel"),
    ),
    "record-duration-mixed-list": (
        ["record", "--preset", "kart", "--drive", "random:1,scripted", "--duration", "5"]
        + ["-o", W],
        ("--duration does not apply", "scripted"),
    ),
    "record-zero-steps": (
        ["record", "--preset", "kart", "--drive", "random:1", "--duration", "0.001"]
        + ["-o", f"{W}/out.json"],
        ("--duration 0.001", "one host step"),
    ),
    "record-zero-steps-low-rate": (
        ["record", "--preset", "kart", "--drive", "random:1", "--duration", "0.5"]
        + ["--host-hz", "1", "-o", f"{W}/out.json"],
        ("--duration 0.5", "one host step", "1 Hz"),
    ),
    "record-commonroad-host-hz": (
        ["record", "--drive", "commonroad:ks:2", "--host-hz", "50", "-o", f"{W}/out.json"],
        ("--host-hz does not apply", "commonroad:ks:2"),
    ),
    "record-commonroad-substep-hz": (
        ["record", "--drive", "commonroad:ks:2", "--substep-hz", "2000", "-o", f"{W}/out.json"],
        ("--substep-hz does not apply", "commonroad:ks:2"),
    ),
    "record-commonroad-preset": (
        ["record", "--drive", "commonroad:ks:2", "--preset", "kart", "-o", f"{W}/out.json"],
        ("--preset does not apply", "commonroad:ks:2"),
    ),
    "record-commonroad-too-short": (
        ["record", "--drive", "commonroad:ks:2", "--duration", "0.0001", "-o", f"{W}/out.json"],
        ("--duration 0.0001", "shortest host step"),
    ),
    "record-scenario-module-random": (
        ["record", "--preset", "kart", "--drive", "random_drive", "-o", f"{W}/out.json"],
        ("unknown drive", "random_drive"),
    ),
    "record-scenario-module-lap": (
        ["record", "--preset", "kart", "--drive", "lap_driver", "-o", f"{W}/out.json"],
        ("unknown drive", "lap_driver"),
    ),
    "record-scenario-module-track": (
        ["record", "--preset", "kart", "--drive", "skidpad", "-o", f"{W}/out.json"],
        ("unknown drive", "skidpad"),
    ),
    # replay: a missing or wrong --hashes, states and detail beyond the end
    "replay-hashes-missing": (
        ["replay", f"{W}/rec.json", "--hashes", f"{W}/nonexistent"],
        ("--hashes", "does not exist"),
    ),
    "replay-hashes-is-a-file": (
        ["replay", f"{W}/rec.json", "--hashes", f"{W}/plain.txt"],
        ("--hashes", "not a folder"),
    ),
    "replay-state-at-beyond-end": (
        ["replay", f"{W}/rec.json", "--state-at", "0,101", "-o", f"{W}/t.json"],
        ("--state-at 101", "rec.json", "100 host steps"),
    ),
    "replay-state-at-far-beyond-end": (
        ["replay", f"{W}/rec.json", "--state-at", str(10**30), "-o", f"{W}/t.json"],
        ("--state-at", "100 host steps"),
    ),
    "replay-detail-beyond-end": (
        ["replay", f"{W}/rec.json", "--detail-steps", "90:120", "-o", f"{W}/t.json"],
        ("--detail-steps 90:120", "100 host steps"),
    ),
    "replay-commonroad-state-at-beyond-end": (
        ["replay", f"{W}/cr.json", "--state-at", "100000", "-o", f"{W}/t.json"],
        ("--state-at 100000", "cr.json"),
    ),
    "replay-name-with-escapes": (
        ["replay", f"{W}/\x1b[2Jgone.json"],
        ("no such file", "\\x1b[2Jgone.json"),
    ),
    # diff and bless: golden folders are never guessed from the cwd
    "diff-no-checkout": (["diff", f"{W}/rec.json"], ("no hashes/ folder", "--hashes")),
    "diff-hashes-missing": (
        ["diff", f"{W}/rec.json", "--hashes", f"{W}/nonexistent"],
        ("--hashes", "does not exist"),
    ),
    "bless-no-checkout": (["bless", f"{W}/rec.json"], ("no hashes/ folder", "--hashes")),
    "bless-hashes-is-a-file": (
        ["bless", f"{W}/rec.json", "--hashes", f"{W}/plain.txt"],
        ("--hashes", "not a folder"),
    ),
    # list syntax: an empty item is a mistake, not "nothing to do"
    "validate-empty-preset-item": (["validate", "--preset", "kart,"], ("--preset", "empty")),
    "validate-unknown-in-list": (
        ["validate", "--scenario", "parking,skidpad"],
        ("unknown scenario", "skidpad"),
    ),
    "parity-unknown-runtime-in-list": (
        ["parity", "--runtime", "cpython3.12,cpython2.7"],
        ("--runtime cpython2.7", "unknown runtime"),
    ),
    "parity-empty-runtime": (["parity", "--runtime", ""], ("--runtime", "empty")),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refused_in_one_line_with_nothing_touched(case: str, work: Path, capsys) -> None:
    argv, needles = REFUSALS[case]
    argv = [a.replace(W, str(work)) for a in argv]
    before = snapshot(work)
    rc, out, err = run_cli(argv, capsys)
    assert rc == 2, (rc, out, err)
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert "\x1b" not in err[0], "a control character reached the terminal raw"
    for n in needles:
        assert n in err[0], (n, err[0])
    assert snapshot(work) == before, "a refusal changed, added or removed a file"


def test_at_least_twenty_refusals() -> None:
    assert len(REFUSALS) >= 20


# ----------------------------------------------------------------------------- claims


def edited(src: Path, dst: Path, **fields: object) -> Path:
    """A copy of ``src`` with top-level ``fields`` changed; ``final_hash`` is the claim, which
    a version 2 recording keeps in its claims block."""
    doc = json.loads(src.read_text("utf-8"))
    if "final_hash" in fields and "claims" in doc:
        doc["claims"]["final_hash"] = fields.pop("final_hash")
        doc["claims"]["checkpoints"] = []
    doc.update(fields)
    dst.write_text(json.dumps(doc), encoding="utf-8")
    return dst


@pytest.mark.parametrize("kind", ["kart", "cr"])
def test_a_wrong_own_claim_fails_separately_from_the_golden_file(
    kind: str, made, tmp_path: Path, capsys
) -> None:
    root = checkout(tmp_path, {})
    doc = json.loads(made[kind].read_text("utf-8"))
    original = doc["claims"]["final_hash"] if "claims" in doc else doc["final_hash"]
    wrong = "0123456789abcdef" if original != "0123456789abcdef" else "fedcba9876543210"
    rec = edited(made[kind], root / "recordings" / "claim.json", final_hash=wrong)
    # the golden file is blessed from the edited file itself: golden agrees, the claim does not
    assert main(["bless", str(rec), "--json"]) == 0
    capsys.readouterr()
    rc, out, _ = run_cli(["replay", str(rec)], capsys)
    assert rc == 1
    assert "claim" in out and "MISMATCH" in out and wrong in out and original in out
    rc, out, _ = run_cli(["replay", str(rec), "--json"], capsys)
    row = json.loads(out)["recordings"][0]
    assert rc == 1 and row["claim"]["status"] == "mismatch" and row["match"] == "match"
    assert row["claim"]["claims"][0]["claimed"] == wrong
    assert row["claim"]["claims"][0]["replayed"] == original == row["final_hash"]


def test_a_true_claim_and_no_claim(made, tmp_path: Path, capsys) -> None:
    root = checkout(tmp_path, {"k.json": made["kart"]})
    none = edited(made["kart"], root / "recordings" / "none.json", final_hash=None)
    files = [str(root / "recordings" / "k.json"), str(none)]
    assert main(["bless", *files, "--json"]) == 0
    capsys.readouterr()
    rc, out, _ = run_cli(["replay", *files, "--json"], capsys)
    rows = json.loads(out)["recordings"]
    assert rc == 0
    assert [r["claim"]["status"] for r in rows] == ["match", "none"]
    rc, out, _ = run_cli(["replay", files[0]], capsys)
    assert rc == 0 and "own claim" in out


def test_use_preset_does_not_check_the_claim(made, tmp_path: Path, capsys) -> None:
    root = checkout(tmp_path, {"k.json": made["kart"]})
    rec = root / "recordings" / "k.json"
    rc, out, _ = run_cli(["replay", str(rec), "--use-preset", "--json"], capsys)
    assert json.loads(out)["recordings"][0]["claim"]["status"] == "not checked"


# ----------------------------------------------------------------------------- golden lookup


def test_golden_files_are_found_from_the_recording_not_the_cwd(
    made, tmp_path: Path, capsys, monkeypatch
) -> None:
    root = checkout(tmp_path / "project", {"k.json": made["kart"], "cr.json": made["cr"]})
    recs = [str(root / "recordings" / "k.json"), str(root / "recordings" / "cr.json")]
    monkeypatch.chdir(root)
    assert main(["bless", "--json"]) == 0  # the defaults: recordings/ and its hashes/
    capsys.readouterr()
    assert sorted(p.name for p in (root / "hashes").iterdir()) == ["cr.json", "k.json", "math.json"]
    # elsewhere, with a decoy hashes/ + recordings/ in the cwd that would not match
    elsewhere = checkout(tmp_path / "elsewhere", {})
    decoy = json.loads((root / "hashes" / "k.json").read_text("utf-8"))
    decoy["final"] = "f" * 16
    (elsewhere / "hashes" / "k.json").write_text(json.dumps(decoy), encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    rc, out, _ = run_cli(["replay", *recs, "--json"], capsys)
    rows = json.loads(out)["recordings"]
    assert rc == 0, rows
    assert [r["match"] for r in rows] == ["match", "match"]
    assert {r["hashes"] for r in rows} == {str(root / "hashes")}
    # in a subfolder of the checkout the same
    sub = root / "recordings" / "more"
    sub.mkdir()
    (sub / "k.json").write_bytes(made["kart"].read_bytes())
    rc, out, _ = run_cli(["replay", str(sub / "k.json"), "--json"], capsys)
    assert rc == 0 and json.loads(out)["recordings"][0]["match"] == "match"


def test_outside_any_checkout_the_golden_file_is_missing_and_says_why(
    made, tmp_path: Path, capsys, monkeypatch
) -> None:
    (tmp_path / "k.json").write_bytes(made["kart"].read_bytes())
    monkeypatch.chdir(ROOT)  # the project's own hashes/ must not be used for a stranger
    rc, out, _ = run_cli(["replay", str(tmp_path / "k.json")], capsys)
    assert rc == 1 and "missing" in out and "--hashes" in out


def test_another_preset_is_not_reported_as_changed(made, tmp_path: Path, capsys) -> None:
    root = checkout(tmp_path, {"kart-lap.json": made["kart"]})
    rec = root / "recordings" / "kart-lap.json"
    assert main(["bless", str(rec), "--json"]) == 0
    capsys.readouterr()
    rec.write_bytes(made["hatch"].read_bytes())  # a hatchback drive saved as kart-lap.json
    rc, out, _ = run_cli(["replay", str(rec)], capsys)
    assert rc == 1
    assert "golden file is for preset kart, not this recording's (hatchbackFwd)" in out
    assert "changed since" not in out and "other recording" in out
    rc, out, _ = run_cli(["replay", str(rec), "--json"], capsys)
    assert json.loads(out)["recordings"][0]["match"] == "other"
    before = snapshot(root)
    rc, out, err = run_cli(["diff", str(rec)], capsys)  # nothing to diff: another recording's
    assert rc == 2 and len(err) == 1 and "golden file is for preset kart" in err[0], err
    assert snapshot(root) == before


class _Result:
    """What compare reads of a replay: one step, checkpoints every step."""

    steps = 1
    checkpoint_every = 1
    checkpoints = [(0, "a" * 16)]
    final_hash = "b" * 16


def test_another_definition_is_named_by_its_hash() -> None:
    golden = {
        "preset": "kart",
        "definition_hash": "00000000000000aa",
        "recording_sha256": "s",
        "steps": 1,
        "checkpoint_every": 1,
        "checkpoints": [(0, "a" * 16)],
        "final": "b" * 16,
    }
    cmp = compare(golden, _Result(), "s", Identity("kart", "1" * 16))
    assert cmp.status == "other"
    assert cmp.problems == [
        f"golden file is for definition hash 00000000000000aa, not this recording's ({'1' * 16})"
    ]
    assert compare(golden, _Result(), "s", Identity("kart", "00000000000000aa")).ok
    # a golden file blessed before definition_hash existed is compared by its hashes
    old = {k: v for k, v in golden.items() if k != "definition_hash"}
    assert compare(old, _Result(), "s", Identity("kart", "1" * 16)).ok


def test_bless_records_the_definition_hash_and_prints_the_physics_rule(
    made, tmp_path: Path, capsys
) -> None:
    root = checkout(tmp_path, {"k.json": made["kart"]})
    rec = root / "recordings" / "k.json"
    rc, out, _ = run_cli(["bless", str(rec)], capsys)
    assert rc == 0 and 'a line starting "physics:"' in out
    doc = json.loads((root / "hashes" / "k.json").read_text("utf-8"))
    assert doc["definition_hash"] == recording.load(rec).definition_hash
    rc, out, _ = run_cli(["bless", str(rec)], capsys)  # nothing moved: no rule printed
    assert rc == 0 and "physics:" not in out and "k.json: unchanged" in out


# ----------------------------------------------------------------------------- terminal


def test_names_from_a_recording_are_escaped_in_the_table(made, tmp_path: Path, capsys) -> None:
    root = checkout(tmp_path, {})
    rec = edited(made["kart"], root / "recordings" / "r.json", preset="kart\x1b[2J\r\u202e")
    rc, out, _ = run_cli(["replay", str(rec)], capsys)
    assert rc == 1  # no golden file
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
    assert "kart\\x1b[2J\\r\\u202e" in out


def test_printable_escapes_controls_and_keeps_text() -> None:
    assert printable("sportsRwd") == "sportsRwd"
    assert printable("Gr\u00fc\u00dfe, \u65e5\u672c") == "Gr\u00fc\u00dfe, \u65e5\u672c"
    assert printable("a\x1b[31mb\x07\x9b\x7f") == "a\\x1b[31mb\\x07\\x9b\\x7f"
    assert printable("x\u2028y\u2066") == "x\\u2028y\\u2066"
    assert printable_lines("a\x1b\nb") == "a\\x1b\nb"


# ----------------------------------------------------------------------------- pipes, version


def test_a_closed_stdout_ends_quietly_with_141(made) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "skidpad", "replay", str(made["kart"])],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader goes away before anything is written
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE
    assert err == b"", err


def test_head_reads_one_line(made) -> None:
    shell = f"{sys.executable} -m skidpad replay {made['kart']} {made['cr']} | head -1"
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert len(proc.stdout.splitlines()) == 1
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr, proc.stderr
    # head may read everything before it exits; either way no message and no 0-for-a-failure
    assert proc.returncode in (1, EXIT_BROKEN_PIPE), proc.returncode


def test_version_prints_the_version_the_physics_and_the_math_hash() -> None:
    from skidpad.engine.physics import PHYSICS_VERSION
    from skidpad.replay.recorder import current_math_hash

    from skidpad import engine

    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert (
        proc.stdout == f"skidpad {engine.__version__} (physics {PHYSICS_VERSION}, "
        f"math self-test hash {current_math_hash()})\n"
    )
    golden = json.loads((ROOT / "hashes" / "math.json").read_text("utf-8"))["math_hash"]
    assert golden in proc.stdout


# ----------------------------------------------------------------------------- progress


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_progress_shows_counts_and_eta_on_a_terminal() -> None:
    tty, clock = FakeTTY(), Clock()
    bar = Progress(10, "replay", unit="steps", stream=tty, clock=clock)
    clock.t += 4.0
    bar.advance(2)  # 2 s per step: 8 left -> 16 s
    clock.t += 1.0
    bar.note("kart.json")
    text = tty.getvalue()
    assert "replay: 2/10 steps (20%), ETA 0:16" in text  # 4 s for 2 steps, 8 left
    assert "replay: 2/10 steps (20%), ETA 0:20  kart.json" in text  # 5 s for 2, 8 left
    bar.update(10)
    bar.close()
    assert tty.getvalue().endswith("replay: 10/10 steps (100%), ETA 0:00  kart.json\n")


def test_progress_is_silent_when_quiet_or_not_a_terminal() -> None:
    for stream, quiet in ((FakeTTY(), True), (io.StringIO(), False)):
        bar = Progress(3, "bless", stream=stream, quiet=quiet)
        bar.note("x")
        bar.advance(3)
        bar.close()
        assert stream.getvalue() == ""


def test_format_eta() -> None:
    assert format_eta(float("inf")) == "--:--"
    assert format_eta(59.6) == "1:00"
    assert format_eta(3725) == "1:02:05"


def test_replay_draws_progress_on_a_terminal_and_not_under_json(
    made, tmp_path: Path, capsys, monkeypatch
) -> None:
    (tmp_path / "h").mkdir()
    argv = ["replay", str(made["kart"]), "--hashes", str(tmp_path / "h")]
    for extra, expect in (([], True), (["--json"], False)):
        tty = FakeTTY()
        monkeypatch.setattr(sys, "stderr", tty)
        main([*argv, *extra])
        monkeypatch.undo()
        capsys.readouterr()
        drawn = "replay: 100/100 steps (100%), ETA 0:00" in tty.getvalue()
        assert drawn == expect, tty.getvalue()


def test_record_of_several_drives_draws_progress(tmp_path: Path, monkeypatch, capsys) -> None:
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    argv = ["record", "--preset", "kart", "--drive", "random:1,random:2", "--duration", "0.2"]
    rc = main([*argv, "-o", str(tmp_path), "--no-verify"])
    monkeypatch.undo()
    capsys.readouterr()
    assert rc == 0 and "record: 2/2 drives (100%)" in tty.getvalue()
    assert sorted(os.listdir(tmp_path)) == ["kart-random-1.json", "kart-random-2.json"]


def test_the_readme_quotes_the_physics_rule_as_bless_prints_it() -> None:
    from skidpad.cli.cmd_bless import PHYSICS_RULE

    assert PHYSICS_RULE in (ROOT / "README.md").read_text("utf-8")


def test_bless_draws_progress_only_on_a_terminal(made, tmp_path: Path, monkeypatch, capsys) -> None:
    root = checkout(tmp_path, {"k.json": made["kart"], "cr.json": made["cr"]})
    files = [str(root / "recordings" / n) for n in ("k.json", "cr.json")]
    steps = sum(recording.load(f).steps for f in files)
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["bless", *files]) == 0
    monkeypatch.undo()
    capsys.readouterr()
    assert f"bless: {steps}/{steps} steps (100%), ETA 0:00" in tty.getvalue()
    rc, _, err = run_cli(["bless", *files], capsys)  # captured stderr is no terminal
    assert rc == 0 and err == []


@pytest.mark.parametrize(
    "argv",
    [
        ["host-loop", "--preset", "kart", "--docs"],
        ["validate", "--preset", "kart", "--scenario", "parking", "--docs"],
        ["compare", "commonroad-mb", "--docs"],
    ],
    ids=["host-loop", "validate", "compare"],
)
def test_docs_without_matplotlib_is_refused_before_any_run(argv, capsys, monkeypatch) -> None:
    """A plain install has no matplotlib: ``--docs`` says so in one line (exit 2) before a
    single drive runs, and writes nothing."""
    from skidpad.scenarios import host_loop

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError

    def no_run(*args, **kwargs):
        raise AssertionError("a drive ran before the refusal")

    monkeypatch.setattr(host_loop, "analyse", no_run)
    monkeypatch.setattr("skidpad.scenarios.validation.run.run_all", no_run, raising=False)
    monkeypatch.setattr("skidpad.scenarios.comparison.compare.run", no_run, raising=False)
    before = snapshot(ROOT / "docs")
    rc, out, err = run_cli(argv, capsys)
    assert rc == 2
    assert len(err) == 1 and "matplotlib, which is not installed" in err[0], err
    assert snapshot(ROOT / "docs") == before
