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


def test_every_commit_touching_hashes_has_a_physics_line() -> None:
    offenders = [
        f"{sha[:12]} {msg.splitlines()[0] if msg.strip() else '(empty message)'}"
        for sha, msg in commits_touching_hashes()
        if not has_physics_line(msg)
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
