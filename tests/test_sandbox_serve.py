"""What ``skidpad sandbox`` serves: the page's files, the pinned Pyodide, a wheel of the
packages; and its refusals."""

from __future__ import annotations

import http.client
import json
import zipfile
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.parity.server import LoopbackServer
from skidpad.sandbox import WEB_DIR, WEB_FILES
from skidpad.sandbox.serve import PACKAGES, PYODIDE_VERSION, pyodide_dir, wheel_from_installed

ROOT = Path(__file__).resolve().parent.parent


def test_the_pinned_pyodide_is_the_one_package_lock_pins() -> None:
    lock = json.loads((ROOT / "package-lock.json").read_text("utf-8"))
    assert lock["packages"]["node_modules/pyodide"]["version"] == PYODIDE_VERSION


def test_a_wheel_assembled_from_the_packages_holds_the_page_and_the_engine(tmp_path) -> None:
    wheel = wheel_from_installed(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "skidpad/__init__.py",
        "skidpad/sandbox/web/app.js",
        "skidpad/sandbox/web/worker.js",
        "skidpad/engine/track.py",
        "skidpad/engine/tracks/sandbox.json",
        "skidpad/replay/session.py",
    ):
        assert name in names, name
    tops = {n.split("/")[0] for n in names if "/" in n}
    assert tops == {"skidpad", "skidpad-0.1.0.dist-info"}  # one import package, as the real one
    assert {n.split("/")[1] for n in names if n.startswith("skidpad/") and n.count("/") > 1} \
        == set(PACKAGES)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert wheel_from_installed(tmp_path) == wheel  # cached by content


def test_the_server_serves_only_the_page_pyodide_and_the_wheel(tmp_path) -> None:
    wheel = wheel_from_installed(tmp_path)
    with LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES) as server:
        host, port = "127.0.0.1", server.port

        def status(path: str) -> int:
            conn = http.client.HTTPConnection(host, port, timeout=10)
            conn.request("GET", path)
            code = conn.getresponse().status
            conn.close()
            return code

        for name in WEB_FILES:
            assert status(f"/{name}") == 200, name
        assert status("/pyodide/pyodide.mjs") == 200
        assert status(f"/wheel/{wheel.name}") == 200
        assert status("/harness.js") == 404  # the parity harness page is not part of it
        assert status("/../pyproject.toml") == 404


@pytest.mark.parametrize("argv", [["--port", "70000"], ["--preset", "bus"], ["--port", "x"]])
def test_bad_arguments_are_one_line(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["sandbox", *argv])
    assert exc.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
