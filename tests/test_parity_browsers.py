"""Pyodide in Chromium, Firefox and WebKit (parity/runtimes/browser.py and the module of each
browser) and the loopback
server they load it from (parity/server.py), docs/architecture.md §5.

The browser tests start each browser once per module (a module-scoped fixture per
browser), boot Pyodide in its page, and check that what it computes there is what native
CPython computes: the math self-test hash, bit for bit. They skip only outside CI when a
browser is not installed (the skip names the install command); under ``CI=true`` a missing
browser fails.
"""

from __future__ import annotations

import http.client
import json
import shutil
import time
from pathlib import Path

import pytest
from skidpad.parity.runtimes import browser, webkit
from skidpad.parity.runtimes.base import RuntimeFailed, RuntimeUnavailable
from skidpad.parity.runtimes.page import INSTALL_COMMAND, descendants
from skidpad.parity.server import DEFAULT_PYODIDE_DIR, LoopbackServer, ServerError

from tests.helpers import skip_unless_browser

# ----------------------------------------------------------------------------- server


@pytest.fixture(scope="module")
def fake_tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A stand-in Pyodide directory and wheel, with files the server must NOT serve."""
    base = tmp_path_factory.mktemp("server")
    dist = base / "pyodide"
    dist.mkdir()
    (dist / "pyodide.mjs").write_text("export const x = 1;\n")
    (dist / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0")
    (dist / "pyodide-lock.json").write_text("{}")
    (dist / "python_stdlib.zip").write_bytes(b"PK\5\6" + b"\0" * 18)
    (dist / "secret.txt").write_text("not for the browser")
    (dist / "README.md").write_text("not for the browser")
    (dist / "sub").mkdir()
    (dist / "sub" / "inner.js").write_text("// below the top level")
    (base / "outside.js").write_text("// beside the distribution")
    wheels = base / "wheels"
    wheels.mkdir()
    wheel = wheels / "skidpad-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK wheel bytes")
    (wheels / "other-1.0-py3-none-any.whl").write_bytes(b"PK another wheel")
    return {"dist": dist, "wheel": wheel}


@pytest.fixture(scope="module")
def server(fake_tree: dict[str, Path]):
    with LoopbackServer(fake_tree["wheel"], fake_tree["dist"]) as srv:
        yield srv


def fetch(srv: LoopbackServer, path: str, method: str = "GET") -> tuple[int, str, bytes]:
    """Send ``path`` exactly as written (http.client does not normalise it)."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        conn.request(method, path)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type", ""), resp.read()
    finally:
        conn.close()


def test_server_binds_loopback_on_a_free_port(server: LoopbackServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.port > 0


@pytest.mark.parametrize(
    ("path", "mime"),
    [
        ("/pyodide/pyodide.mjs", "text/javascript"),
        ("/pyodide/pyodide.asm.wasm", "application/wasm"),
        ("/pyodide/pyodide-lock.json", "application/json"),
        ("/pyodide/python_stdlib.zip", "application/octet-stream"),
        ("/wheel/skidpad-0.1.0-py3-none-any.whl", "application/octet-stream"),
        ("/", "text/html"),
        ("/index.html", "text/html"),
        ("/harness.js", "text/javascript"),
        ("/worker.js", "text/javascript"),
        ("/index.html?wheel=skidpad-0.1.0-py3-none-any.whl", "text/html"),
    ],
)
def test_server_serves_the_allow_list_with_its_mime_type(
    server: LoopbackServer, fake_tree: dict[str, Path], path: str, mime: str
) -> None:
    status, content_type, body = fetch(server, path)
    assert status == 200, path
    assert content_type.split(";")[0] == mime, path
    if path.startswith("/pyodide/"):
        assert body == (fake_tree["dist"] / path.rsplit("/", 1)[1]).read_bytes()
    if path.startswith("/wheel/"):
        assert body == fake_tree["wheel"].read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/pyodide/secret.txt",  # in the distribution, suffix not allowed
        "/pyodide/README.md",
        "/pyodide/sub/inner.js",  # below the top level
        "/pyodide/",  # no directory listing
        "/pyodide",
        "/pyodide/../outside.js",  # traversal, raw
        "/pyodide/%2e%2e/outside.js",  # traversal, percent-encoded
        "/pyodide/..%2foutside.js",
        "/pyodide//pyodide.mjs",
        "/wheel/other-1.0-py3-none-any.whl",  # a wheel beside the project wheel
        "/wheel/",
        "/web/harness.js",  # the page's files only at their routes
        "/parity/server.py",
        "/../../etc/passwd",
        "/etc/passwd",
        "/favicon.ico",
        "/index.html/",
    ],
)
def test_server_refuses_everything_else(server: LoopbackServer, path: str) -> None:
    status, _, body = fetch(server, path)
    assert status == 404, path
    assert b"not for the browser" not in body and b"beside" not in body
    assert ("GET", path, 404) in server.requests


def test_server_refuses_other_methods(server: LoopbackServer) -> None:
    status, _, _ = fetch(server, "/index.html", method="POST")
    assert status == 405


def test_server_needs_the_pyodide_distribution(tmp_path: Path, fake_tree) -> None:
    with pytest.raises(ServerError, match="npm ci"):
        LoopbackServer(fake_tree["wheel"], tmp_path / "no-such-node_modules" / "pyodide")


def test_missing_browser_is_unavailable_with_the_install_command(monkeypatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    monkeypatch.setattr(webkit, "minibrowser_path", lambda: None)
    for name in browser.RUNTIME_NAMES:
        reason = browser.unavailable_reason(name)
        assert reason is not None and INSTALL_COMMAND in reason, name
        with pytest.raises(RuntimeUnavailable, match="install_browsers.sh"):
            browser.make_runtime(name, wheel=Path("unused.whl")).start()


# ---------------------------------------------------------------------------- browsers


@pytest.fixture(scope="module")
def project_wheel() -> Path:
    from skidpad.parity.wheel import build_wheel

    return build_wheel()


@pytest.fixture(scope="module")
def native_math_hash() -> str:
    from skidpad.engine.smath.selftest import selftest_hash

    return selftest_hash()


# One browser start per browser: under pytest-xdist with ``--dist loadgroup`` this module's
# tests of a browser run in the same worker (tests/conftest.py).
BROWSER_PARAMS = list(browser.RUNTIME_NAMES)


@pytest.fixture(scope="module", params=BROWSER_PARAMS)
def runtime(request: pytest.FixtureRequest, project_wheel: Path):
    """One started browser per module and parameter: launch, page load, Pyodide boot."""
    name = request.param
    skip_unless_browser(name)
    rt = browser.make_runtime(name, wheel=project_wheel)
    began = time.monotonic()
    rt.start(timeout_s=300)
    rt.measured_start_s = time.monotonic() - began
    yield rt
    rt.stop()


SELFTEST = {"selftest": True, "recordings": [], "checkpoint_every": 100}
#: the math self-test alone. The fast-path check (seconds in Pyodide) is the parity matrix's:
#: ``nox -s parity``, in the same test command, shows fast=readable for each browser, and
#: test_parity_runtimes.py checks it in Pyodide (under Node) against native CPython's bits
MATH_ONLY = {**SELFTEST, "fastpath": False}


def test_selftest_hash_in_the_browser_equals_native_cpython(runtime, native_math_hash) -> None:
    response = runtime.run(MATH_ONLY, timeout_s=600)
    # it really ran in Pyodide (WebAssembly, Python 3.14), not in this interpreter
    assert response["platform"].startswith("Emscripten"), response["platform"]
    assert response["python"].startswith("3.14"), response["python"]
    assert response["math_hash"] == native_math_hash
    assert response["runtime"]["name"] == runtime.name
    assert "fastpath" not in response  # asked for the math alone, it ran the math alone


def test_runtime_reports_browser_pyodide_and_python_versions(runtime) -> None:
    info = runtime.info
    pinned = json.loads((DEFAULT_PYODIDE_DIR / "package.json").read_text())["version"]
    assert info["pyodide"] == pinned
    assert info["python"].startswith("3.14")
    expected = {"chromium": "Chromium ", "firefox": "Mozilla Firefox ", "webkit": "WebKitGTK "}
    assert info["browser"].startswith(expected[runtime.name]), info["browser"]
    agent = {"chromium": "HeadlessChrome/", "firefox": "Firefox/", "webkit": "AppleWebKit/"}
    assert agent[runtime.name] in info["user_agent"], info["user_agent"]
    assert (
        info["version"]
        == f"{info['browser']}, Pyodide {pinned}, Python {info['python'].split()[0]}"
    )
    assert 0 < info["startup_s"] <= runtime.measured_start_s + 0.001  # rounded to ms


def test_page_asked_for_nothing_outside_the_allow_list(runtime) -> None:
    runtime.run(MATH_ONLY, timeout_s=600)
    assert runtime.server.refused() == []
    answered = [(path, status) for _, path, status in runtime.server.requests]
    served = {path.split("?")[0] for path, status in answered if status in (200, 304)}
    assert {"/index.html", "/harness.js", "/worker.js", "/pyodide/pyodide.mjs"} <= served
    assert f"/wheel/{runtime.server.wheel.name}" in served
    assert not [line for line in runtime.console if "[foreign-request]" in line]


def test_python_error_in_the_page_names_the_runtime_and_keeps_it_usable(
    runtime, native_math_hash
) -> None:
    with pytest.raises(RuntimeFailed) as caught:
        runtime.run(
            {"selftest": True, "recordings": [], "checkpoint_every": "often"}, timeout_s=600
        )
    assert caught.value.runtime == runtime.name
    assert str(caught.value).startswith(f"{runtime.name}: ")
    assert "checkpoint_every" in str(caught.value)  # the worker's own message, from Pyodide
    assert "checkpoint_every" in caught.value.log  # the page log kept it too
    assert runtime.run(MATH_ONLY, timeout_s=600)["math_hash"] == native_math_hash


def test_time_limit_names_the_runtime_and_stop_leaves_no_process(runtime) -> None:
    """Last test of each browser: it ends the page's worker, so the runtime is spent."""
    driver_pid = runtime._driver_pid()
    assert driver_pid is not None
    processes = [driver_pid, *descendants(driver_pid)]
    with pytest.raises(RuntimeFailed) as caught:
        runtime.run(SELFTEST, timeout_s=0.05)  # the self-test takes ~1 s in any browser
    assert caught.value.runtime == runtime.name
    assert "did not finish within 0.05 s" in str(caught.value)
    with pytest.raises(RuntimeFailed, match="failed earlier"):
        runtime.run(SELFTEST)
    runtime.stop()
    deadline = time.monotonic() + 20
    alive = processes
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in processes if _alive(pid)]
        time.sleep(0.2)
    assert alive == [], f"{runtime.name}: processes left after stop: {alive}"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")
