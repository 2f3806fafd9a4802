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
import zlib
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


class ArchiveMissing(ArchiveError):
    """A version's tree is not in this installation yet: the sandbox page's wheel leaves the
    archive out and fetches one version's zip (:func:`version_zip`) when a recording needs
    it (ADR 0206)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"physics {number} is not in this installation's archive")
        self.number = number


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


#: whether versions missing here may be fetched when a recording needs one: the sandbox
#: page's wheel ships no archive and fetches one version's zip at a time (ADR 0206)
_on_demand = False


def fetch_on_demand() -> None:
    """Declare that this installation fetches archived versions as recordings need them
    (the sandbox page): they count as installed, and a run of one not fetched yet raises
    :class:`ArchiveMissing` naming it."""
    global _on_demand
    _on_demand = True


def archived_versions() -> list[int]:
    """The versions this installation runs from the archive, newest first: every archived
    version when the archive is shipped (or fetched on demand), else only those fetched so
    far (none for an installation without the archive: it runs today's physics only)."""
    every = sorted((n for n, v in versions().items() if v.archived), reverse=True)
    if ARCHIVE_FILE.is_file() or _on_demand:
        return every
    held = _index()
    return [n for n in every if str(n) in held]


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
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, ValueError) as exc:
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


def fetched_dir() -> Path:
    """Where version zips fetched on demand are kept (:func:`add_version_zip`)."""
    return cache_root() / "fetched"


def _sources() -> list[Path]:
    """The archives this installation reads, the shipped one first (the page has none: its
    wheel leaves it out) and then every version zip fetched so far."""
    shipped = [ARCHIVE_FILE] if ARCHIVE_FILE.is_file() else []
    folder = fetched_dir()
    return shipped + (sorted(folder.glob("v*.zip")) if folder.is_dir() else [])


def _index() -> dict[str, tuple[Path, dict]]:
    """Version number (text) -> (the archive holding it, its index entry)."""
    out: dict[str, tuple[Path, dict]] = {}
    for source in _sources():
        for number, entry in _source_index(source, source.stat().st_mtime_ns).items():
            out.setdefault(number, (source, entry))
    return out


@cache
def _source_index(source: Path, _mtime: int) -> dict:
    return json.loads(shipped_entries(source)["index.json"])["versions"]


def version_zip(number: int, entries: dict[str, bytes] | None = None) -> bytes:
    """One version's tree alone, in the archive's own format (an ``index.json`` naming that
    version and its objects): what the sandbox page fetches when a recording needs it."""
    entries = shipped_entries() if entries is None else entries
    index = json.loads(entries["index.json"])
    entry = index["versions"].get(str(number))
    if entry is None:
        raise ArchiveError(f"physics {number} is not in the shipped archive")
    shas = sorted(set(entry["files"].values()))
    out = {f"objects/{sha}": entries[f"objects/{sha}"] for sha in shas}
    one = {"format": index["format"], "versions": {str(number): entry}}
    out["index.json"] = (json.dumps(one, indent=1, sort_keys=True) + "\n").encode()
    return zip_bytes(dict(sorted(out.items())))


def add_version_zip(number: int, data: bytes) -> Path:
    """Keep a fetched version zip (checked whole: it must hold exactly version ``number``,
    every object matching its hash) where :func:`unpacked_tree` finds it."""
    folder = fetched_dir()
    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".v{number}-", suffix=".zip", dir=folder)
    with open(handle, "wb") as f:
        f.write(data)
    staging = Path(name)
    try:
        entries = shipped_entries(staging)
        index = json.loads(entries.get("index.json", b"{}"))
        held = list(index.get("versions", {})) if isinstance(index, dict) else []
        if held != [str(number)]:
            raise ArchiveError(f"the fetched zip for physics {number} holds versions {held}")
        target = folder / f"v{number}.zip"
        os.replace(staging, target)
        return target
    finally:
        staging.unlink(missing_ok=True)


def unpacked_tree(number: int) -> Path:
    """The folder holding version ``number``'s tree and the shim, unpacked once (atomically:
    a half-unpacked folder is never used)."""
    found = _index().get(str(number))
    if found is None:
        raise ArchiveMissing(number)
    source, entry = found
    digest = hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:16]
    shim = SHIM.read_bytes()
    tag = hashlib.sha256(shim).hexdigest()[:8]
    target = cache_root() / f"v{number}-{digest}-{tag}"
    if (target / ".complete").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".v{number}-", dir=target.parent))
    try:
        with zipfile.ZipFile(source) as zf:
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
    #: the CoG pose (x, y, heading cos, heading sin) after every host step, when asked for
    #: and the drive has one (a four-wheel drive): an old lap's ghost under its own physics
    poses: list[tuple[float, float, float, float]] | None = None


def run_archived(
    number: int, recording: Path, timeout: float = DEFAULT_TIMEOUT_S, poses: bool = False
) -> ArchivedRun:
    """Replay ``recording`` under archived physics ``number`` in a process of its own (or
    in this interpreter: :func:`in_process`); ``poses`` asks for the pose after every host
    step as well (:attr:`ArchivedRun.poses`)."""
    tree = unpacked_tree(number)
    unstamped = unstamped_copy(recording)
    try:
        return _run(number, tree, unstamped or recording, timeout, poses)
    finally:
        if unstamped is not None:
            unstamped.unlink(missing_ok=True)


def unstamped_copy(recording: Path) -> Path | None:
    """A stamped recording (four-wheel format 3, CommonRoad format 2) as the format before
    the stamp, which is what every archived loader reads (they all predate it): the same
    drive and claims, without ``physics_version`` (and ``driven``). None for a file with no
    stamp (or one the old loader shall judge as it is)."""
    try:
        doc = json.loads(recording.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    stamped = isinstance(doc, dict) and "physics_version" in doc
    if not stamped or not isinstance(doc.get("version"), int):
        return None
    del doc["physics_version"]
    doc["version"] -= 1  # the stamp is the only difference from the version before...
    # ...but for ``driven`` (how the page paced the drive: no hash or claim covers it), which
    # came later than every archived tree's loader, so it is left out as well
    doc.pop("driven", None)
    handle, name = tempfile.mkstemp(prefix="skidpad-unstamped-", suffix=".json")
    with open(handle, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return Path(name)


def _run(number: int, tree: Path, recording: Path, timeout: float, poses: bool) -> ArchivedRun:
    if in_process():
        from skidpad.replay.archive_inprocess import run_in_process

        return _run_of(run_in_process(tree, recording, poses=poses))
    command = [sys.executable, "-I", str(tree / "archive_shim.py"), str(tree), str(recording)]
    if poses:
        command.append("--poses")
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ArchiveError(f"physics {number}: no answer within {timeout:g} s") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise ArchiveError(f"physics {number} failed on this file: {tail[0]}")
    return _run_of(json.loads(lines[-1]))


def in_process() -> bool:
    """Whether archived versions run in this interpreter (:mod:`replay.archive_inprocess`)
    rather than in a process of their own: where there are no processes (Pyodide), or when
    ``SKIDPAD_ARCHIVE_IN_PROCESS=1`` asks for it (tests, the parity matrix's CPython)."""
    return sys.platform == "emscripten" or os.environ.get("SKIDPAD_ARCHIVE_IN_PROCESS") == "1"


def _run_of(answer: dict) -> ArchivedRun:
    if "error" in answer:
        return ArchivedRun([], None, 0, None, error=answer["error"])
    return ArchivedRun(
        [(int(s), h) for s, h in answer["checkpoints"]],
        answer["final_hash"],
        int(answer["steps"]),
        answer["laps"],
        checkpoint_every=int(answer.get("checkpoint_every", 100)),
        poses=_poses_of(answer.get("poses")),
    )


def _poses_of(rows: Any) -> list[tuple[float, float, float, float]] | None:
    """The answer's poses, checked for shape (an answer is read, never trusted)."""
    if not isinstance(rows, list):
        return None
    out = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4):
            raise ArchiveError("an archived run answered poses of the wrong shape")
        if not all(isinstance(v, float) for v in row):
            raise ArchiveError("an archived run answered poses of the wrong shape")
        out.append((row[0], row[1], row[2], row[3]))
    return out


def archive_size() -> int:
    """Bytes of the shipped archive file."""
    return ARCHIVE_FILE.stat().st_size
