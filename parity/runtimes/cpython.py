"""Native CPython runtimes ``cpython3.11``, ``cpython3.12``, ``cpython3.13``.

See docs/architecture.md §5.

The adapter runs ``python -m parity.worker --serve`` in the chosen interpreter and talks the
line protocol of ``parity.runtimes.process``. It installs nothing. Which interpreter:

1. an explicit ``python=`` path;
2. the interpreter running the harness, when it is the wanted minor version (inside a nox
   session that is the session venv, which has the project wheel installed);
3. ``$SKIDPAD_PYTHON3_12`` (etc.), then pyenv's pinned version (``pyenv prefix 3.12.1``;
   only 3.11.7 is pyenv's global, so the ``python3.12`` shim is not used), then
   ``python3.12`` on PATH if it really is 3.12.

Which project code the worker imports: when the harness itself runs from an installed
package (a nox session venv) in the very interpreter asked for, that installed package;
otherwise the project wheel (``parity.wheel.build_wheel``, the file Pyodide unpacks too),
unpacked into a scratch folder on ``PYTHONPATH``, so every runtime runs the same files. The
worker's cwd is a scratch folder, so a checkout in the cwd can never shadow either.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from skidpad.parity.runtimes.base import RuntimeFailed, RuntimeUnavailable
from skidpad.parity.runtimes.process import LineProcess, ProcessRuntime, child_env

from skidpad import parity

#: minor version -> the pyenv version these machines have (docs/architecture.md §5).
PINNED = {"3.11": "3.11.7", "3.12": "3.12.1", "3.13": "3.13.0"}


def env_override_name(minor: str) -> str:
    return f"SKIDPAD_PYTHON{minor.replace('.', '_')}"


def install_hint(minor: str) -> str:
    pinned = PINNED.get(minor, minor)
    return f"install it with `pyenv install {pinned}` or set {env_override_name(minor)}"


def _reports_minor(python: str, minor: str) -> bool:
    proc = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode == 0 and proc.stdout.strip() == minor


def find_cpython(minor: str) -> str | None:
    """Path of a CPython ``minor`` interpreter other than the running one, or None."""
    override = os.environ.get(env_override_name(minor))
    if override:  # explicit: used as given, or reported missing, never silently replaced
        return override if Path(override).is_file() else None
    pyenv = shutil.which("pyenv")
    if pyenv and minor in PINNED:
        proc = subprocess.run([pyenv, "prefix", PINNED[minor]], capture_output=True, text=True)
        candidate = Path(proc.stdout.strip() or "/nonexistent") / "bin" / f"python{minor}"
        if proc.returncode == 0 and candidate.is_file():
            return str(candidate)
    on_path = shutil.which(f"python{minor}")
    if on_path and _reports_minor(on_path, minor):
        return on_path
    return None


def installed_harness() -> bool:
    """True when this ``parity`` package is an installed copy, not a checkout's."""
    return not (Path(parity.__file__).resolve().parent.parent / "pyproject.toml").is_file()


class CPythonRuntime(ProcessRuntime):
    """One native interpreter; ``minor`` is "3.11", "3.12" or "3.13"."""

    def __init__(self, minor: str, python: str | None = None, wheel: Path | None = None) -> None:
        super().__init__()
        self.minor = minor
        self.name = f"cpython{minor}"
        self.python = python
        self.wheel = wheel
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    def resolve(self) -> str:
        """The interpreter path, or RuntimeUnavailable saying how to install it."""
        if self.python:
            return self.python
        if f"{sys.version_info[0]}.{sys.version_info[1]}" == self.minor:
            return sys.executable
        found = find_cpython(self.minor)
        if found is None:
            raise RuntimeUnavailable(
                f"{self.name}: no CPython {self.minor} found; {install_hint(self.minor)}"
            )
        return found

    def start(self, timeout_s: float = 120.0) -> dict[str, Any]:
        python = self.resolve()
        self._scratch = tempfile.TemporaryDirectory(prefix=f"skidpad-{self.name}-")
        scratch = Path(self._scratch.name)
        extra = {"PYTHONIOENCODING": "utf-8"}
        # not resolve(): a venv's python is a symlink to a base interpreter without its packages
        same = os.path.abspath(python) == os.path.abspath(sys.executable)
        if same and installed_harness():
            source = f"installed ({Path(parity.__file__).resolve().parent.parent})"
        else:
            if self.wheel is None:
                from skidpad.parity.wheel import build_wheel

                self.wheel = build_wheel()
            with zipfile.ZipFile(self.wheel) as archive:
                archive.extractall(scratch / "site")
            extra["PYTHONPATH"] = str(scratch / "site")
            source = f"wheel {Path(self.wheel).name}"
        env = child_env(extra, drop=("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONSAFEPATH"))
        self._proc = LineProcess(
            self.name,
            [python, "-s", "-m", "skidpad.parity.worker", "--serve"],
            env,
            scratch,
        )
        ready = self._proc.start(timeout_s)
        version = ready.get("implementation", "?").split(" ")[-1]
        if not version.startswith(self.minor + "."):
            self.stop()
            raise RuntimeFailed(self.name, f"{python} is Python {version}, not {self.minor}")
        self.info = {
            "name": self.name,
            "version": version,
            "python": ready.get("python"),
            "platform": ready.get("platform"),
            "executable": python,
            "source": source,
            "startup_s": ready["startup_s"],
        }
        return dict(self.info)

    def stop(self) -> None:
        super().stop()
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None
