"""The physics archive: every earlier physics version that produced a committed recording,
runnable beside today's engine (ADR 0205).

What is shipped (``replay/physics/``, inside the package, so a plain install verifies an
old lap offline, with no git and no network):

``versions.json``    the physics versions: number, the commit whose tree is that
                     version's representative, a one-line summary; ``current`` is the
                     version today's engine computes (``engine.physics.PHYSICS_VERSION``)
``recordings.json``  every recording file ever committed under ``recordings/``, by the
                     SHA-256 of its bytes, with the physics version that made it
``archive.zip``      the archived trees, content-addressed: ``index.json`` lists, per
                     version, each file's path and the SHA-256 of its bytes, and
                     ``objects/<sha256>`` holds each distinct file once

An archived version runs whole — its own ``engine/`` and ``replay/`` as they were at its
commit — in a process of its own (:mod:`replay.archive_shim`, Python's ``-I``), so it never
shares a namespace with today's engine; the trees are unpacked once into a cache folder.
:func:`build_entries` rebuilds the archive from the repository's history (``skidpad
physics --build``), and :func:`check_archive` compares what is shipped with what the
history builds, file by file (``skidpad physics --check``; the suite runs it).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.engine.physics import PHYSICS_VERSION

HERE = Path(__file__).resolve().parent
PHYSICS_DIR = HERE / "physics"
VERSIONS_FILE = PHYSICS_DIR / "versions.json"
RECORDINGS_FILE = PHYSICS_DIR / "recordings.json"
ARCHIVE_FILE = PHYSICS_DIR / "archive.zip"
SHIM = HERE / "archive_shim.py"

#: the folders of a version's commit that make up its archived tree
TREE_FOLDERS = ("engine", "replay")
#: files of those folders an archived replay never imports (the old command line)
_SKIPPED = ("cli.py", "__main__.py")
#: fixed zip metadata, so a rebuild gives the same entries in the same order
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: an archived replay that has not answered after this long has hung
DEFAULT_TIMEOUT_S = 3600.0


class ArchiveError(SkidpadError):
    """The archive is missing, damaged, or cannot run a version here."""


@dataclass(frozen=True)
class PhysicsVersion:
    """One physics version: its number, the commit whose tree represents it, a summary."""

    number: int
    commit: str | None
    summary: str

    @property
    def archived(self) -> bool:
        return self.commit is not None


@cache
def versions() -> dict[int, PhysicsVersion]:
    """Every physics version this installation knows, oldest first."""
    doc = _read_json(VERSIONS_FILE)
    out = {}
    for entry in doc["versions"]:
        number = int(entry["version"])
        out[number] = PhysicsVersion(number, entry.get("commit"), entry.get("summary", ""))
    if doc.get("current") != PHYSICS_VERSION or PHYSICS_VERSION not in out:
        raise ArchiveError(
            f"{VERSIONS_FILE.name} says the current physics is {doc.get('current')}, the engine "
            f"computes {PHYSICS_VERSION}: the archive is out of date (skidpad physics --build)"
        )
    return out


def archived_versions() -> list[int]:
    """The versions this installation runs from the archive, newest first (none when the
    installation ships no archive, as the sandbox page's wheel does)."""
    if not ARCHIVE_FILE.is_file():
        return []
    return sorted((n for n, v in versions().items() if v.archived), reverse=True)


@cache
def known_recordings() -> dict[str, dict]:
    """SHA-256 of a committed recording file -> ``{"version": N, "path": ...}``."""
    return _read_json(RECORDINGS_FILE)["recordings"]


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ArchiveError(f"the physics archive is damaged: {path.name}: {exc}") from None


# ----------------------------------------------------------------------------- building


def _git(root: Path, *args: str, data: bool = False) -> Any:
    proc = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=not data, timeout=300
    )
    if proc.returncode != 0:
        err = proc.stderr if not data else proc.stderr.decode("utf-8", "replace")
        raise ArchiveError(f"git {' '.join(args[:2])}: {err.strip()}")
    return proc.stdout


def tree_files(root: Path, commit: str) -> dict[str, bytes]:
    """The archived tree of ``commit``: every file of :data:`TREE_FOLDERS` the old replay
    may import (``.py`` and ``.json``), path -> bytes."""
    listing = _git(root, "ls-tree", "-r", "-z", commit, "--", *TREE_FOLDERS)
    files: dict[str, bytes] = {}
    for row in listing.split("\0"):
        if not row:
            continue
        meta, path = row.split("\t", 1)
        name = path.rsplit("/", 1)[-1]
        if not name.endswith((".py", ".json")) or name in _SKIPPED or name.startswith("cmd_"):
            continue
        files[path] = _git(root, "cat-file", "blob", meta.split()[2], data=True)
    return files


def build_entries(root: Path, numbers: Iterable[int] | None = None) -> dict[str, bytes]:
    """The archive's zip entries, built from the history of the checkout ``root``:
    ``index.json`` and one ``objects/<sha256>`` per distinct file."""
    chosen = archived_versions() if numbers is None else list(numbers)
    index: dict[str, Any] = {"format": 1, "versions": {}}
    entries: dict[str, bytes] = {}
    for number in sorted(chosen):
        version = versions()[number]
        listing = {}
        for path, data in sorted(tree_files(root, version.commit).items()):
            digest = hashlib.sha256(data).hexdigest()
            entries[f"objects/{digest}"] = data
            listing[path] = digest
        index["versions"][str(number)] = {"commit": version.commit, "files": listing}
    entries["index.json"] = (json.dumps(index, indent=1, sort_keys=True) + "\n").encode()
    return dict(sorted(entries.items()))


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    """The entries as a zip with fixed metadata (same entries, same bytes, with one zlib)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return buffer.getvalue()


def shipped_entries(path: Path = ARCHIVE_FILE) -> dict[str, bytes]:
    """The entries of the shipped archive, each object checked against its name."""
    try:
        with zipfile.ZipFile(path) as zf:
            entries = {name: zf.read(name) for name in zf.namelist()}
    except (OSError, zipfile.BadZipFile) as exc:
        raise ArchiveError(f"the physics archive is damaged: {path.name}: {exc}") from None
    for name, data in entries.items():
        if name.startswith("objects/") and hashlib.sha256(data).hexdigest() != name[8:]:
            raise ArchiveError(f"the physics archive is damaged: {name} does not match its hash")
    return entries


def check_archive(root: Path) -> list[str]:
    """What differs between the shipped archive and what the history of ``root`` builds
    (empty: they are the same, file for file)."""
    built = build_entries(root)
    shipped = shipped_entries()
    problems = [f"missing from the shipped archive: {n}" for n in built if n not in shipped]
    problems += [f"not built from the history: {n}" for n in shipped if n not in built]
    problems += [f"differs: {n}" for n in built if n in shipped and built[n] != shipped[n]]
    return problems


# ----------------------------------------------------------------------------- running


def cache_root() -> Path:
    """Where archived trees are unpacked: ``$SKIDPAD_CACHE/physics``, else the user's cache."""
    base = os.environ.get("SKIDPAD_CACHE") or os.environ.get("XDG_CACHE_HOME")
    folder = Path(base) if base else Path.home() / ".cache"
    if not os.environ.get("SKIDPAD_CACHE"):
        folder = folder / "skidpad"
    return folder / "physics"


@cache
def _index() -> dict:
    return json.loads(shipped_entries()["index.json"])


def unpacked_tree(number: int) -> Path:
    """The folder holding version ``number``'s tree and the shim, unpacked once (atomically:
    a half-unpacked folder is never used)."""
    entry = _index()["versions"].get(str(number))
    if entry is None:
        raise ArchiveError(f"physics {number} is not in this installation's archive")
    digest = hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:16]
    shim = SHIM.read_bytes()
    tag = hashlib.sha256(shim).hexdigest()[:8]
    target = cache_root() / f"v{number}-{digest}-{tag}"
    if (target / ".complete").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".v{number}-", dir=target.parent))
    try:
        with zipfile.ZipFile(ARCHIVE_FILE) as zf:
            for path, sha in entry["files"].items():
                out = staging / path
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(zf.read(f"objects/{sha}"))
        (staging / "archive_shim.py").write_bytes(shim)
        (staging / ".complete").write_text(f"physics {number}\n")
        try:
            os.rename(staging, target)
        except OSError:  # another process unpacked it first
            if not (target / ".complete").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


@dataclass(frozen=True)
class ArchivedRun:
    """What an archived version's replay of a recording gave (a replay result's shape)."""

    checkpoints: list[tuple[int, str]]
    final_hash: str | None
    steps: int
    laps: list[dict] | None
    error: str | None = None
    checkpoint_every: int = 100


def run_archived(number: int, recording: Path, timeout: float = DEFAULT_TIMEOUT_S) -> ArchivedRun:
    """Replay ``recording`` under archived physics ``number`` in a process of its own."""
    tree = unpacked_tree(number)
    command = [sys.executable, "-I", str(tree / "archive_shim.py"), str(tree), str(recording)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ArchiveError(f"physics {number}: no answer within {timeout:g} s") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise ArchiveError(f"physics {number} failed on this file: {tail[0]}")
    answer = json.loads(lines[-1])
    if "error" in answer:
        return ArchivedRun([], None, 0, None, error=answer["error"])
    return ArchivedRun(
        [(int(s), h) for s, h in answer["checkpoints"]],
        answer["final_hash"],
        int(answer["steps"]),
        answer["laps"],
        checkpoint_every=int(answer.get("checkpoint_every", 100)),
    )


def archive_size() -> int:
    """Bytes of the shipped archive file."""
    return ARCHIVE_FILE.stat().st_size
