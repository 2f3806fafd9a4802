"""Shared pytest configuration: what several test modules start once per session.

Under pytest-xdist (``nox -s tests`` runs ``--dist loadgroup``) a module-scoped
fixture is set up once per *worker* that runs any test of its module: a browser and the
Pyodide its pages load, a Node runtime, a wheel installed in a fresh virtualenv, a lap
replayed for a module's checks would all be done on each worker. So every test is put in
one xdist group: its module's, and for a test that drives a browser its module's group of
that browser (``tests/test_sandbox_e2e.py::firefox``). A group runs on one worker, which
sets its fixtures up once; the sandbox server is one per worker session (ADR 0244).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BROWSER_KINDS = ("chromium", "firefox", "webkit")


def browser_kind(item: pytest.Item) -> str | None:
    """The browser a test drives: a fixture parameter naming one, or the ``webkit`` fixture."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for value in callspec.params.values():
            if isinstance(value, str) and value in BROWSER_KINDS:
                return value
    if "webkit" in getattr(item, "fixturenames", ()):
        return "webkit"
    return None


def group_of(item: pytest.Item) -> str:
    """The xdist group of a test: its module's (the file's path), and for a test that drives
    a browser, that module's tests of that browser (``tests/test_x.py::chromium``): the
    module's browser fixture starts the browser once, and the browsers of a module, or the
    modules of a browser, run side by side on different workers."""
    module = item.nodeid.split("::", 1)[0]
    kind = browser_kind(item)
    return f"{module}::{kind}" if kind else module


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        # first among the item's marks: xdist reads the closest one
        item.add_marker(pytest.mark.xdist_group(group_of(item)), append=False)


@pytest.fixture(scope="session")
def sandbox_server():
    """The sandbox's loopback server (``skidpad sandbox``'s routes), one per session: the
    wheel, the Pyodide distribution and the archived physics zips it serves are looked up
    once."""
    from skidpad.cli.cmd_sandbox import tire_routes
    from skidpad.parity.server import LoopbackServer
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.serve import physics_routes, project_wheel, pyodide_dir

    from tests.helpers import TIR

    wheel = project_wheel()
    # what `skidpad sandbox --tir` serves: the archived versions' zips, and a tire file
    extra = physics_routes() | tire_routes(str(TIR), "openWheeler")
    with LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES, extra=extra) as srv:
        yield srv


def shared_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every xdist worker of this run shares (the run's base temporary folder:
    pytest keeps it with the run's other temporary folders, and removes old runs')."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the workers' own folders sit side by side in the run's
    folder = root / name
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def verify_cli(tmp_path_factory):
    """``skidpad verify NAME [extra...]`` in a CPython subprocess, run in ``folder`` with the
    file written there as ``NAME``: (exit code, what it printed: stdout, or stderr for bad
    input). The command is deterministic in its input, so each (bytes, name, options) is run
    once per test run, by whichever worker asks first, and the others read its answer: the
    browsers' verdict tests check the same files against the same command."""
    cache = shared_dir(tmp_path_factory, "cli-verdicts")

    def run(data: bytes, folder: Path, name: str, *extra: str) -> tuple[int, str]:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
        key = hashlib.sha256(json.dumps([name, *extra]).encode() + b"\0" + data).hexdigest()
        answer = cache / f"{key}.json"
        with open(cache / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a second asker waits for the first's answer
            if answer.is_file():
                rc, out = json.loads(answer.read_text(encoding="utf-8"))
                return rc, out
            done = subprocess.run(
                [sys.executable, "-m", "skidpad", "verify", name, *extra],
                cwd=folder,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                capture_output=True,
                text=True,
                timeout=600,
            )
            out = (done.stdout if done.stdout.strip() else done.stderr).strip()
            partial = answer.with_suffix(".part")
            partial.write_text(json.dumps([done.returncode, out]), encoding="utf-8")
            os.replace(partial, answer)
            return done.returncode, out

    return run
