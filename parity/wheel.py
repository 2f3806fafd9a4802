"""Build the pure-Python project wheel that every runtime installs or unpacks.

See docs/architecture.md §1, §5.

The wheel is cached under ``out_dir/<content-hash>/``, where the hash covers every file that
goes into it (the project packages, ``pyproject.toml``, ``README.md``): a second call with
unchanged sources returns the cached file without running a build. The build runs
``pip wheel --no-deps`` on the repository; when the build backend (hatchling) is importable
in this interpreter it builds without an isolated environment, otherwise pip fetches
hatchling from PyPI into one. The result is moved into place atomically, so an interrupted
build never leaves a half-written wheel in the cache.

The same content hash, over the project packages alone, names the code a process runs
(``code_hash`` of a folder, ``wheel_code_hash`` of a wheel file, ``running_code`` for this
interpreter): the worker reports it from inside every runtime, so a diff can say whether a
runtime ran the code of this checkout or other code.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from skidpad.engine.errors import SkidpadError

#: the repository's package folders; the wheel ships them as ``skidpad/<folder>``, beside
#: the ``skidpad`` package's own files (pyproject's [tool.hatch.build.targets.wheel]).
PACKAGES = ("engine", "replay", "scenarios", "parity", "sandbox", "cli")
#: the top-level import package (ADR 0204)
TOP = "skidpad"
METADATA_FILES = ("pyproject.toml", "README.md")
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis"}
_SKIP_SUFFIXES = (".pyc", ".pyo")


class WheelBuildError(SkidpadError):
    """The wheel could not be built; the message carries the build's output."""


def find_repo_root(start: Path | None = None) -> Path:
    """The checkout: ``$SKIDPAD_ROOT``, else the first parent of ``start`` (default: the cwd,
    then this package's folder) holding a ``pyproject.toml`` of the ``skidpad`` project."""
    env = os.environ.get("SKIDPAD_ROOT")
    if env:
        return Path(env).resolve()
    starts = [start] if start else [Path.cwd(), Path(__file__).resolve().parent]
    for begin in starts:
        for folder in [begin.resolve(), *begin.resolve().parents]:
            pyproject = folder / "pyproject.toml"
            if pyproject.is_file() and 'name = "skidpad"' in pyproject.read_text("utf-8"):
                return folder
    raise WheelBuildError(
        'cannot find the skidpad checkout (a pyproject.toml with name = "skidpad") above '
        f"{', '.join(str(s) for s in starts)}; run from the repository or set SKIDPAD_ROOT"
    )


def package_files(root: Path) -> list[Path]:
    """Every file of the project packages under ``root``: the code a runtime imports."""
    files: list[Path] = []
    for package in PACKAGES:
        for dirpath, dirnames, filenames in os.walk(root / package):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            for name in filenames:
                if not name.endswith(_SKIP_SUFFIXES):
                    files.append(Path(dirpath) / name)
    return sorted(files)


def source_files(root: Path) -> list[Path]:
    """Every file the wheel is built from, sorted (so the content hash is stable)."""
    files = package_files(root)
    top = root / TOP
    if top.is_dir():
        files.extend(
            p for p in top.rglob("*")
            if p.is_file() and not p.name.endswith(_SKIP_SUFFIXES)
            and not _SKIP_DIRS.intersection(p.parts)
        )
    files.extend(root / name for name in METADATA_FILES if (root / name).is_file())
    return sorted(files)


def content_hash(entries: Iterable[tuple[str, bytes]]) -> str:
    """SHA-256 (first 16 hex digits) over (relative posix path, bytes) pairs, in path order.

    One function for a checkout, an unpacked wheel and a wheel file, so their hashes compare.
    """
    digest = hashlib.sha256()
    for rel, data in sorted(entries):
        name = rel.encode("utf-8")
        digest.update(len(name).to_bytes(8, "little") + name)
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()[:16]


def _entries(root: Path, files: Iterable[Path]) -> Iterator[tuple[str, bytes]]:
    for path in files:
        yield path.relative_to(root).as_posix(), path.read_bytes()


def source_hash(root: Path) -> str:
    """The content hash of every source file of the wheel (its cache key)."""
    return content_hash(_entries(root, source_files(root)))


def code_hash(root: Path) -> str:
    """The content hash of the project packages under ``root`` (a checkout or site-packages)."""
    return content_hash(_entries(root, package_files(root)))


def wheel_code_hash(wheel: Path) -> str:
    """:func:`code_hash` of what ``wheel`` unpacks, read from the wheel file itself."""
    prefix = TOP + "/"
    with zipfile.ZipFile(wheel) as archive:
        names = [
            n for n in archive.namelist()
            if n.startswith(prefix) and n[len(prefix):].split("/", 1)[0] in PACKAGES
        ]
        return content_hash(
            (n[len(prefix):], archive.read(n)) for n in names if not n.endswith("/")
        )


@dataclass(frozen=True)
class RunningCode:
    """The project code this interpreter imports: its folder, whether that folder is a
    checkout (``working tree``) or an installed copy, and its :func:`code_hash`."""

    folder: str
    kind: str
    hash: str

    def describe(self) -> str:
        return f"the {self.kind} {self.folder}, code {self.hash}"


@functools.cache
def running_code() -> RunningCode:
    """Which code this process runs: the folder that holds the imported ``parity`` package
    (a checkout's root, or the installed ``skidpad`` package)."""
    from skidpad import parity

    folder = Path(parity.__file__).resolve().parent.parent
    kind = "working tree" if (folder / "pyproject.toml").is_file() else "installed package"
    return RunningCode(str(folder), kind, code_hash(folder))


def build_wheel(out_dir: Path = Path("build/wheel"), root: Path | None = None) -> Path:
    """Return the path of the project wheel for the current sources, building it if needed.

    ``out_dir`` is taken relative to the repository root when it is relative.
    """
    root = find_repo_root() if root is None else root.resolve()
    out_dir = out_dir if out_dir.is_absolute() else root / out_dir
    missing = [name for name in METADATA_FILES if not (root / name).is_file()]
    if missing:  # hatchling's own error for this is buried in 40 lines of pip output
        names = ", ".join(missing)
        raise WheelBuildError(f"cannot build the project wheel: {names} missing in {root}")
    key = source_hash(root)
    cached = sorted((out_dir / key).glob("skidpad-*.whl"))
    if cached:
        return cached[0]
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{key}-", dir=out_dir) as tmp:
        staging = Path(tmp) / "wheel"
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
        if importlib.util.find_spec("hatchling") is not None:
            command.append("--no-build-isolation")
        command += ["-w", str(staging), str(root)]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=root)
        built = sorted(staging.glob("skidpad-*.whl"))
        if proc.returncode != 0 or not built:
            raise WheelBuildError(
                f"building the project wheel failed (exit {proc.returncode}): "
                f"{' '.join(command)}\n{(proc.stdout + proc.stderr)[-3000:]}"
            )
        final_dir = out_dir / key
        try:
            os.replace(staging, final_dir)  # atomic: the cache entry is complete or absent
        except OSError:
            if not sorted(final_dir.glob("skidpad-*.whl")):  # not a concurrent build's result
                raise
    _prune(out_dir, keep=key)
    return sorted((out_dir / key).glob("skidpad-*.whl"))[0]


def _prune(out_dir: Path, keep: str, max_entries: int = 5) -> None:
    """Keep the cache small: drop the oldest builds beyond ``max_entries``."""
    entries = [p for p in out_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    entries.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in entries[max_entries:]:
        if stale.name != keep:
            shutil.rmtree(stale, ignore_errors=True)


def main() -> int:
    print(build_wheel())
    return 0


if __name__ == "__main__":
    sys.exit(main())
