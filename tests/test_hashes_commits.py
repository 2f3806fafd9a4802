"""Every commit that touches hashes/ must say why the physics changed (docs/architecture.md §4).

Walks the whole history of the checkout: any commit whose diff touches a
path under ``hashes/`` needs a line in its message starting ``physics:``.
Skipped outside a git checkout (e.g. from an sdist) or without ``git``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout


def _in_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True, text=True
    )
    return proc.returncode == 0 and Path(proc.stdout.strip()).resolve() == ROOT


pytestmark = pytest.mark.skipif(not _in_checkout(), reason="not a git checkout of the project")

SEP = "\x1e"  # record separator between commits; \x1f between hash and message


def commits_touching_hashes() -> list[tuple[str, str]]:
    """(sha, message) of every commit, on any branch reachable from HEAD, touching hashes/."""
    out = _git("log", f"--format={SEP}%H\x1f%B", "--", "hashes")
    commits = []
    for record in out.split(SEP):
        if not record.strip():
            continue
        sha, _, message = record.partition("\x1f")
        commits.append((sha.strip(), message))
    return commits


def has_physics_line(message: str) -> bool:
    return any(line.startswith("physics:") for line in message.splitlines())


def test_physics_line_rule() -> None:
    # The rule itself, so the history check cannot pass by accident.
    assert has_physics_line("Re-bless\n\nphysics: tire relaxation length now per axle\n")
    assert not has_physics_line("Re-bless hashes\n\nthe physics changed\n")
    assert not has_physics_line("  physics: indented does not count\n")


def merge_only_carries_its_parents(sha: str) -> bool:
    """True for a merge commit whose every file under hashes/ is, byte for byte, the file of
    one of its parents: it brings changes whose own commits already said why, and adds none."""
    parents = _git("rev-list", "--parents", "-n", "1", sha).split()[1:]
    if len(parents) < 2:
        return False

    def blobs(rev: str) -> dict[str, str]:
        listing = _git("ls-tree", "-r", rev, "--", "hashes")
        return {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines()}

    merged = blobs(sha)
    parent_blobs = [blobs(p) for p in parents]
    paths = set(merged).union(*parent_blobs)
    return all(any(pb.get(path) == merged.get(path) for pb in parent_blobs) for path in paths)


def test_every_commit_touching_hashes_has_a_physics_line() -> None:
    offenders = [
        f"{sha[:12]} {msg.splitlines()[0] if msg.strip() else '(empty message)'}"
        for sha, msg in commits_touching_hashes()
        if not has_physics_line(msg) and not merge_only_carries_its_parents(sha)
    ]
    assert not offenders, (
        "commits touching hashes/ without a 'physics:' line in their message:\n  "
        + "\n  ".join(offenders)
    )


def has_format_line(message: str) -> bool:
    return any(line.startswith("format:") for line in message.splitlines())


STATE_FIELDS = ("steps", "checkpoint_every", "checkpoints", "final")


def state_hashes_moved(sha: str) -> list[str]:
    """The golden files whose state hashes (checkpoints, final) a commit changed."""
    import json

    moved = []
    names = _git("diff-tree", "--no-commit-id", "--name-only", "-r", sha, "--", "hashes")
    for path in names.split():
        if path.endswith("math.json"):
            moved.append(path)
            continue
        try:
            before = json.loads(_git("show", f"{sha}^:{path}"))
        except subprocess.CalledProcessError:
            continue  # a new golden file: nothing moved
        try:
            after = json.loads(_git("show", f"{sha}:{path}"))
        except subprocess.CalledProcessError:
            moved.append(path)  # a golden file removed
            continue
        if any(before.get(k) != after.get(k) for k in STATE_FIELDS):
            moved.append(path)
    return moved


def test_every_format_commit_moved_no_state_hash() -> None:
    # a format: commit rewrites recordings (so their recording_sha256 in hashes/ moves) or the
    # golden files' metadata, never a checkpoint or final hash
    offenders = []
    for sha, msg in commits_touching_hashes():
        if has_format_line(msg):
            moved = state_hashes_moved(sha)
            if moved:
                offenders.append(f"{sha[:12]}: {', '.join(moved)}")
    assert not offenders, "format: commits that moved state hashes:\n  " + "\n  ".join(offenders)


def test_a_merge_that_writes_its_own_hashes_is_not_excused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The merge exemption holds only while the merge adds no hashes/ content of its own."""
    repo = tmp_path / "r"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    git("init", "-q", "-b", "main")
    (repo / "hashes").mkdir()
    (repo / "hashes" / "a.json").write_text("1")
    (repo / "hashes" / "b.json").write_text("1")
    git("add", "."), git("commit", "-qm", "start")
    git("checkout", "-qb", "side")
    (repo / "hashes" / "a.json").write_text("2")
    git("commit", "-qam", "side\n\nphysics: a moved")
    git("checkout", "-q", "main")
    (repo / "hashes" / "b.json").write_text("2")
    git("commit", "-qam", "main\n\nphysics: b moved")
    git("merge", "-q", "--no-edit", "side")
    clean_merge = git("rev-parse", "HEAD")
    git("checkout", "-q", "HEAD~1")
    git("merge", "-q", "--no-commit", "side")
    (repo / "hashes" / "a.json").write_text("3")
    git("add", "."), git("commit", "-qm", "merge with its own hash")
    dirty_merge = git("rev-parse", "HEAD")

    monkeypatch.setitem(globals(), "_git", lambda *args: git(*args) + "\n")
    assert merge_only_carries_its_parents(clean_merge)
    assert not merge_only_carries_its_parents(dirty_merge)
    assert not merge_only_carries_its_parents(git("rev-parse", "main~1"))
