"""Physics versions (ADR 0205): the stamp in recordings and golden files, the history rule,
the manifest of every recording ever committed, the archive built from the history, and
verify replaying each recording under its own physics."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.replay import archive, recording
from skidpad.replay.document import RecordingError

from tests.helpers import FULL_CAMPAIGNS

ROOT = Path(__file__).resolve().parents[1]
HISTORY = shutil.which("git") is not None and (ROOT / ".git").exists()
needs_history = pytest.mark.skipif(not HISTORY, reason="not a git checkout of the project")


def _git(*args: str, repo: Path = ROOT) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def _short_recording(tmp_path: Path, name: str = "short.json", seed: int = 3) -> Path:
    out = tmp_path / name
    argv = ["record", "--preset", "kart", "--drive", f"random:{seed}", "--duration", "2",
            "-o", str(out)]
    assert main(argv) == 0
    return out


def _rewrite(path: Path, target: Path, **changes) -> Path:
    doc = json.loads(path.read_text("utf-8"))
    for key, value in changes.items():
        if value is _DELETE:
            del doc[key]
        else:
            doc[key] = value
    target.write_text(json.dumps(doc), "utf-8")
    return target


_DELETE = object()


# ----------------------------------------------------------------------------- the stamp


def test_record_stamps_format_3_with_the_physics_version(tmp_path):
    doc = json.loads(_short_recording(tmp_path).read_text("utf-8"))
    assert doc["version"] == 3
    assert doc["physics_version"] == PHYSICS_VERSION
    assert list(doc)[:5] == ["format", "version", "engine_version", "math_hash",
                             "physics_version"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "/physics_version: must be an integer within 1..1000000, not 0"),
        (-3, "/physics_version: must be an integer within 1..1000000"),
        ("7", "/physics_version: must be an integer within 1..1000000"),
        (7.0, "/physics_version: must be an integer within 1..1000000"),
        (True, "/physics_version: must be an integer within 1..1000000"),
        (10**7, "/physics_version: must be an integer within 1..1000000"),
        (None, "/physics_version: must be an integer within 1..1000000"),
    ],
)
def test_a_bad_stamp_is_refused_naming_the_field(tmp_path, value, message):
    good = _short_recording(tmp_path)
    bad = _rewrite(good, tmp_path / "bad.json", physics_version=value)
    with pytest.raises(RecordingError) as err:
        recording.load(bad)
    assert message in str(err.value)


def test_a_stamp_belongs_to_format_3_only(tmp_path):
    good = _short_recording(tmp_path)
    missing = _rewrite(good, tmp_path / "m.json", physics_version=_DELETE)
    with pytest.raises(RecordingError, match="physics_version"):
        recording.load(missing)
    v2 = _rewrite(good, tmp_path / "v2.json", version=2)
    with pytest.raises(RecordingError, match="physics_version"):
        recording.load(v2)
    # a version 2 file without the stamp loads, unstamped
    plain = _rewrite(good, tmp_path / "p.json", version=2, physics_version=_DELETE)
    assert recording.load(plain).physics_version is None


def test_version_names_the_physics(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert f"(physics {PHYSICS_VERSION}, " in capsys.readouterr().out


# ----------------------------------------------------------------------------- verify


def test_a_stamped_recording_verifies_under_its_stamp(tmp_path, capsys):
    rec = _short_recording(tmp_path)
    capsys.readouterr()
    assert main(["verify", str(rec)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"short.json: VERIFIED (physics {PHYSICS_VERSION}, stamped)")


def test_an_unstamped_recording_of_todays_physics_is_identified(tmp_path, capsys):
    rec = _rewrite(_short_recording(tmp_path), tmp_path / "old.json", version=2,
                   physics_version=_DELETE)
    capsys.readouterr()
    assert main(["verify", str(rec)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"old.json: VERIFIED (physics {PHYSICS_VERSION}, identified)")


def test_a_newer_physics_is_its_own_verdict_in_one_line(tmp_path, capsys):
    rec = _rewrite(_short_recording(tmp_path), tmp_path / "new.json",
                   physics_version=PHYSICS_VERSION + 1)
    capsys.readouterr()
    assert main(["verify", str(rec)]) == 3
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    assert out[0].startswith(f"new.json: UNKNOWN PHYSICS: made with physics {PHYSICS_VERSION + 1}")
    assert "install a newer skidpad" in out[0] and "MISMATCH" not in out[0]


def test_min_physics_refuses_an_older_lap_in_one_line(tmp_path, capsys):
    rec = _short_recording(tmp_path)
    capsys.readouterr()
    assert main(["verify", str(rec), "--min-physics", str(PHYSICS_VERSION + 1)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and f"older than --min-physics {PHYSICS_VERSION + 1}" in err[0]
    assert captured.out == ""
    assert main(["verify", str(rec), "--min-physics", str(PHYSICS_VERSION)]) == 0


@pytest.mark.parametrize("bad", ["0", "-1", "x", "1e3", "current2", "99999999"])
def test_the_physics_options_are_range_checked(tmp_path, capsys, bad):
    rec = _short_recording(tmp_path)
    capsys.readouterr()
    for option in ("--min-physics", "--physics"):
        with pytest.raises(SystemExit) as exit_:
            main(["verify", str(rec), option, bad])
        assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("physics" in line for line in err), err


def test_a_stamped_mismatch_is_reported_under_its_own_physics(tmp_path, capsys):
    good = _short_recording(tmp_path)
    doc = json.loads(good.read_text("utf-8"))
    doc["claims"]["checkpoints"][1][1] = "0123456789abcdef"
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps(doc), "utf-8")
    capsys.readouterr()
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        f"forged.json: MISMATCH under physics {PHYSICS_VERSION}, stamped: 1 of "
    )
    assert any("first: /claims/checkpoints/1 claims 0123456789abcdef" in line for line in out)
    assert any("departs between host steps 0 and 100" in line for line in out)
    assert len(out) <= 10


# ----------------------------------------------------------------------------- bless


def test_bless_demands_the_bump_for_a_one_ulp_physics_change(tmp_path, monkeypatch, capsys):
    rec = _short_recording(tmp_path)
    hashes = tmp_path / "hashes"
    hashes.mkdir()
    assert main(["bless", str(rec), "--hashes", str(hashes)]) == 0
    golden = hashes / "short.json"
    assert json.loads(golden.read_text("utf-8"))["physics_version"] == PHYSICS_VERSION
    before = {p.name: p.read_bytes() for p in hashes.iterdir()}
    # a planted one-ulp change of the physics: the body's forward speed one ulp up after
    # the first host step (on both paths: the readable stages and the fast path)
    import math

    from skidpad.engine.fourwheel import simulation

    real_step = simulation.Simulation.step
    vx = simulation.LAYOUT.names.index("body.vx")

    def nudged(self, inputs, probe=None):
        telemetry = real_step(self, inputs, probe)
        if self.step_count == 1:
            self.state[vx] = math.nextafter(self.state[vx], math.inf)
        return telemetry

    monkeypatch.setattr(simulation.Simulation, "step", nudged)
    capsys.readouterr()
    assert main(["bless", str(rec), "--hashes", str(hashes)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "raises PHYSICS_VERSION" in err[0] and "nothing written" in err[0]
    assert {p.name: p.read_bytes() for p in hashes.iterdir()} == before
    # raised, the same bless goes through and records the new version
    from skidpad.replay import golden as golden_module

    monkeypatch.setattr(golden_module, "PHYSICS_VERSION", PHYSICS_VERSION + 1)
    assert main(["bless", str(rec), "--hashes", str(hashes)]) == 0
    assert json.loads(golden.read_text("utf-8"))["physics_version"] == PHYSICS_VERSION + 1


# ----------------------------------------------------------------------------- history


def _every_committed_recording() -> dict[str, str]:
    """sha256 of the bytes -> path, for every recording blob in the history."""
    out = {}
    listing = _git("rev-list", "--all", "--objects", "--", "recordings/")
    for line in listing.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1].startswith("recordings/") and parts[1].endswith(".json"):
            data = subprocess.run(["git", "-C", str(ROOT), "cat-file", "blob", parts[0]],
                                  capture_output=True, check=True).stdout
            out.setdefault(hashlib.sha256(data).hexdigest(), parts[1])
    return out


@needs_history
def test_the_manifest_names_the_physics_of_every_recording_ever_committed():
    committed = _every_committed_recording()
    known = archive.known_recordings()
    missing = sorted(f"{path} ({sha[:12]})" for sha, path in committed.items() if sha not in known)
    assert not missing, "recordings committed but not in replay/physics/recordings.json:\n  " + \
        "\n  ".join(missing)
    assert len(committed) >= 77
    versions = archive.versions()
    assert {entry["version"] for entry in known.values()} <= set(versions)
    # every version before today's that made a recording is in the archive
    made = {entry["version"] for entry in known.values()}
    assert all(versions[v].archived for v in made if v != PHYSICS_VERSION)
    # today's committed recordings are in it too (some CommonRoad ones were made under an
    # earlier version whose CommonRoad physics today's engine still computes)
    for path in sorted((ROOT / "recordings").glob("*.json")):
        assert hashlib.sha256(path.read_bytes()).hexdigest() in known, path.name


def _physics_version_at(rev: str, repo: Path = ROOT) -> int | None:
    try:
        text = _git("show", f"{rev}:engine/physics.py", repo=repo)
    except subprocess.CalledProcessError:
        return None
    match = re.search(r"^PHYSICS_VERSION = (\d+)$", text, re.M)
    return int(match.group(1)) if match else None


def _golden_state(rev: str, repo: Path) -> dict[str, tuple]:
    out = {}
    listing = _git("ls-tree", "-r", "--name-only", rev, "--", "hashes", repo=repo)
    for path in listing.split():
        if path.endswith("math.json"):
            continue
        doc = json.loads(_git("show", f"{rev}:{path}", repo=repo))
        out[path] = (doc.get("final"), json.dumps(doc.get("checkpoints")))
    return out


def commits_moving_hashes_without_a_bump(repo: Path = ROOT) -> list[str]:
    """First-parent commits on HEAD's line that move a golden state hash while the physics
    version (where ``engine/physics.py`` exists on both sides) is not raised."""
    offenders = []
    for line in _git("rev-list", "--first-parent", "--parents", "HEAD", "--", "hashes",
                     repo=repo).splitlines():
        sha, *parents = line.split()
        if not parents:
            continue
        before, after = _physics_version_at(parents[0], repo), _physics_version_at(sha, repo)
        if before is None or after is None:
            continue  # before physics versions existed
        old, new = _golden_state(parents[0], repo), _golden_state(sha, repo)
        moved = [p for p in new if p in old and old[p] != new[p]]
        if moved and after <= before:
            offenders.append(f"{sha[:12]}: {', '.join(moved)} moved under physics {after}")
    return offenders


@needs_history
def test_no_commit_moves_a_golden_hash_without_raising_the_physics_version():
    offenders = commits_moving_hashes_without_a_bump()
    assert not offenders, "\n".join(offenders)


def test_the_history_rule_catches_a_planted_commit(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                        *args], capture_output=True, check=True)

    def commit(version: int, final: str, message: str) -> None:
        (repo / "engine").mkdir(exist_ok=True)
        (repo / "hashes").mkdir(exist_ok=True)
        (repo / "engine" / "physics.py").write_text(f"PHYSICS_VERSION = {version}\n")
        (repo / "hashes" / "a.json").write_text(json.dumps({"final": final, "checkpoints": []}))
        git("add", "."), git("commit", "-qm", message)

    git("init", "-q", "-b", "main")
    commit(1, "aa", "start")
    commit(2, "bb", "physics: raised")
    assert commits_moving_hashes_without_a_bump(repo) == []
    commit(2, "cc", "physics: moved, but not raised")
    (offender,) = commits_moving_hashes_without_a_bump(repo)
    assert "hashes/a.json moved under physics 2" in offender


@needs_history
def test_the_shipped_archive_is_what_the_history_builds():
    assert archive.check_archive(ROOT) == []


def test_a_damaged_archive_object_is_refused(tmp_path, monkeypatch):
    entries = archive.shipped_entries()
    name = next(n for n in entries if n.startswith("objects/"))
    entries[name] = entries[name] + b"# tampered\n"
    bad = tmp_path / "archive.zip"
    bad.write_bytes(archive.zip_bytes(entries))
    with pytest.raises(archive.ArchiveError, match="does not match its hash"):
        archive.shipped_entries(bad)


# ----------------------------------------------------------------------------- old laps


def _blob_of(sha256: str) -> bytes:
    path = archive.known_recordings()[sha256]["path"]
    for line in _git("rev-list", "--all", "--objects", "--", path).splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1] == path:
            data = subprocess.run(["git", "-C", str(ROOT), "cat-file", "blob", parts[0]],
                                  capture_output=True, check=True).stdout
            if hashlib.sha256(data).hexdigest() == sha256:
                return data
    raise AssertionError(f"{path} {sha256[:12]} is not in the history")


def _old_lap() -> tuple[str, dict]:
    """The oldest archived version's sandbox kart lap (a lap the page drove)."""
    known = archive.known_recordings()
    laps = [(e["version"], sha) for sha, e in known.items()
            if e["path"].endswith("kart-sandbox.json") and e["version"] != PHYSICS_VERSION]
    version, sha = min(laps)
    return sha, known[sha]


@needs_history
def test_an_old_lap_verifies_under_its_own_physics_and_its_forgeries_do_not(tmp_path, capsys):
    sha, entry = _old_lap()
    lap = tmp_path / "old-kart.json"
    lap.write_bytes(_blob_of(sha))
    capsys.readouterr()
    assert main(["verify", str(lap)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"old-kart.json: VERIFIED (physics {entry['version']}, identified)")
    # today's physics, asked for, does not reproduce it: that is what the archive is for
    assert main(["verify", str(lap), "--physics", "current"]) == 1
    capsys.readouterr()
    doc = json.loads(lap.read_text("utf-8"))
    # one frame's throttle changed
    frames = doc["frames"]
    i = next(i for i, f in enumerate(frames) if f[0] > 2)
    count, *values = frames[i]
    throttle = doc["channels"].index("throttle")
    changed = list(values)
    changed[throttle] = 0.5 if values[throttle] != 0.5 else 0.25
    frames[i:i + 1] = [[1, *values], [1, *changed], [count - 2, *values]]
    forged = tmp_path / "forged-input.json"
    forged.write_text(json.dumps(doc), "utf-8")
    assert main(["verify", str(forged)]) == 1
    text = capsys.readouterr().out.splitlines()
    assert len(text) <= 10, text
    assert text[0].startswith("forged-input.json: MISMATCH under physics ")
    assert any("the replay departs" in line for line in text)
    assert any("no physics of this installation" in line and "the closest is physics" in line
               for line in text)
    # a lap time changed by 1 ms
    doc = json.loads(lap.read_text("utf-8"))
    doc["claims"]["laps"][0]["time_s"] = round(doc["claims"]["laps"][0]["time_s"] + 0.001, 3)
    forged_time = tmp_path / "forged-time.json"
    forged_time.write_text(json.dumps(doc), "utf-8")
    # the stated sample (docs/manual/testing.md): the forged input above already makes the
    # search through every physics; here its own physics is named, a sixth of the time.
    # ``nox -s campaigns`` lets verify search for this one too.
    asked = [] if FULL_CAMPAIGNS else ["--physics", str(entry["version"])]
    assert main(["verify", str(forged_time), *asked]) == 1
    text = capsys.readouterr().out.splitlines()
    assert len(text) <= 10 and "/claims/laps/0" in "\n".join(text), text
    # every checkpoint holds under its own physics (and any bit-identical to it there)
    assert "MISMATCH under physics " in text[0] and "1 of " in text[0]


@needs_history
def test_the_impact_table_says_which_claims_move(tmp_path, capsys):
    sha, entry = _old_lap()
    lap = tmp_path / "old-kart.json"
    lap.write_bytes(_blob_of(sha))
    (tmp_path / "today").mkdir()
    today = _short_recording(tmp_path / "today")
    capsys.readouterr()
    assert main(["physics", "--impact", str(lap), str(today), "--json"]) == 0
    rows = {r["recording"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["short.json"]["moved"] == 0 and rows["short.json"]["first_moved_step"] is None
    old = rows["old-kart.json"]
    assert old["moved"] > 0 and old["first_moved_step"] is not None
    assert old["laps"] and old["laps"][0]["before_s"] != old["laps"][0]["after_s"]


def test_the_physics_table_lists_every_version(capsys):
    assert main(["physics"]) == 0
    out = capsys.readouterr().out.splitlines()
    numbers = [int(m.group(1)) for line in out if (m := re.match(r"physics +(\d+) ", line))]
    assert numbers == sorted(archive.versions())
    assert numbers[-1] == PHYSICS_VERSION and "today's engine" in out[len(numbers) - 1]


def test_an_archived_version_runs_in_its_own_process_under_its_own_names(tmp_path):
    version = archive.archived_versions()[-1]  # the oldest
    tree = archive.unpacked_tree(version)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import engine, replay; "
            "print(engine.__file__); print('skidpad' in sys.modules)")
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(tree)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    where, today = proc.stdout.split()
    assert Path(where).is_relative_to(tree) and today == "False"
