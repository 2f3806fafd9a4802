"""Pyodide in WebKitGTK's MiniBrowser, driven by Selenium and WebKitWebDriver (ADR 0030).

MiniBrowser comes with ``libwebkit2gtk-4.1-0``, ``WebKitWebDriver`` with
``webkit2gtk-driver``; the browser runs on a private Xvfb display with ``--proxy`` to the
dead loopback port, and the driver is bound to and reached at 127.0.0.1 (ADR 0107).
Selenium's calls block without a time limit of their own where the session does not
start, so those run in a thread the adapter can give up on.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from typing import Any

from skidpad.parity.runtimes.page import (
    DEAD_PORT,
    LOOPBACK,
    POLL_S,
    BrowserRuntime,
    kill_tree,
    tail,
)

WEBKIT_ARGS = [
    "--automation",
    f"--proxy=http://{LOOPBACK}:{DEAD_PORT}",
    f"--ignore-host={LOOPBACK}",
]


def minibrowser_path() -> str | None:
    """WebKitGTK's MiniBrowser, as listed by ``dpkg -L libwebkit2gtk-4.1-0``."""
    candidates: list[str] = []
    if shutil.which("dpkg"):
        proc = subprocess.run(
            ["dpkg", "-L", "libwebkit2gtk-4.1-0"], capture_output=True, text=True, check=False
        )
        candidates = [
            line.strip() for line in proc.stdout.splitlines() if line.endswith("/MiniBrowser")
        ]
    candidates.append("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


class Xvfb:
    """A private X display: ``Xvfb -displayfd`` picks a free display number."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.display: str | None = None

    def start(self, timeout_s: float = 30.0) -> str:
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [
                    "Xvfb",
                    "-displayfd",
                    str(write_fd),
                    "-screen",
                    "0",
                    "1280x1024x24",
                    "-nolisten",
                    "tcp",
                    "-noreset",
                ],
                pass_fds=(write_fd,),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        finally:
            os.close(write_fd)
        data = b""
        deadline = time.monotonic() + timeout_s
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while not data.endswith(b"\n"):
                left = deadline - time.monotonic()
                ready, _, _ = select.select([pipe], [], [], max(0.0, left))
                if not ready:
                    self.stop()
                    raise RuntimeError(f"Xvfb gave no display number within {timeout_s:.0f} s")
                chunk = pipe.read(64)
                if not chunk:
                    err = self.proc.stderr.read().decode(errors="replace") if self.proc else ""
                    self.stop()
                    raise RuntimeError(f"Xvfb exited before giving a display: {err.strip()}")
                data += chunk
        self.display = ":" + data.decode().strip()
        return self.display

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def _in_thread(fn: Any, timeout_s: float) -> tuple[bool, Any, BaseException | None]:
    """Run ``fn()`` in a daemon thread; (finished, result, exception)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # handed back to the caller
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        return False, None, None
    return True, box.get("result"), box.get("error")


def loopback_service(service_class: type) -> type:
    """Selenium's WebKitWebDriver service, bound to and reached at 127.0.0.1.

    Selenium's ``Service`` names the driver ``localhost`` (its URL, its readiness probe, its
    shutdown request) and WebKitWebDriver binds "local" by default; this subclass passes
    ``--host=127.0.0.1`` and uses the literal address everywhere (ADR 0107)."""
    from selenium.webdriver.common import utils

    class LoopbackService(service_class):  # type: ignore[misc, valid-type]
        def command_line_args(self) -> list[str]:
            return [*super().command_line_args(), f"--host={LOOPBACK}"]

        @property
        def service_url(self) -> str:
            return f"http://{LOOPBACK}:{self.port}"

        def is_connectable(self) -> bool:
            return utils.is_url_connectable(self.port, host=LOOPBACK)

    return LoopbackService


class WebKitRuntime(BrowserRuntime):
    """WebKitGTK's MiniBrowser through Selenium + WebKitWebDriver, under Xvfb."""

    name = "webkit"

    package = "MiniBrowser (libwebkit2gtk-4.1-0)"

    @classmethod
    def binary(cls) -> str | None:
        return minibrowser_path()

    @classmethod
    def missing_tools(cls) -> list[str]:
        missing = []
        if shutil.which("WebKitWebDriver") is None:
            missing.append("WebKitWebDriver (webkit2gtk-driver)")
        if shutil.which("Xvfb") is None:
            missing.append("Xvfb (xvfb)")
        return missing

    @classmethod
    def missing_python(cls) -> list[str]:
        try:
            import selenium  # noqa: F401
        except ImportError:
            return ["python package selenium"]
        return []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._xvfb: Xvfb | None = None
        self._driver: Any = None
        self._service: Any = None
        self._driver_log: str | None = None

    def _launch(self, timeout_s: float) -> str:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        t0 = time.monotonic()
        self._xvfb = Xvfb()
        display = self._xvfb.start(timeout_s=min(30.0, timeout_s))
        self.note(f"[driver] Xvfb on display {display}")
        options = Options()
        options.binary_location = self.binary()
        for arg in WEBKIT_ARGS:
            options.add_argument(arg)
        fd, self._driver_log = tempfile.mkstemp(prefix="skidpad-webkitdriver-", suffix=".log")
        os.close(fd)
        env = {**os.environ, "DISPLAY": display}
        env.pop("WAYLAND_DISPLAY", None)
        # the explicit driver path keeps Selenium Manager from looking for one online
        self._service = loopback_service(Service)(
            executable_path=shutil.which("WebKitWebDriver"), log_output=self._driver_log, env=env
        )
        self.note(f"[driver] starting WebKitWebDriver for {options.binary_location}")
        left = timeout_s - (time.monotonic() - t0)
        done, driver, error = _in_thread(
            lambda: webdriver.WebKitGTK(options=options, service=self._service), left
        )
        if not done:
            raise self.fail(f"WebDriver session did not start within {timeout_s:.0f} s", stuck=True)
        if error is not None:
            raise self.fail(f"WebDriver session failed to start: {error}") from error
        self._driver = driver
        caps = driver.capabilities
        version = f"WebKitGTK {caps.get('browserVersion', '?')}"
        self.note(f"[driver] session up: {caps.get('browserName')} {caps.get('browserVersion')}")
        left = max(1.0, timeout_s - (time.monotonic() - t0))
        driver.set_page_load_timeout(left)
        driver.set_script_timeout(left)
        try:
            driver.get(self.server.page_url())
        except Exception as exc:
            raise self.fail(f"loading the harness page failed: {exc}") from exc
        return version

    def _async(self, script: str, timeout_s: float, what: str, *args: Any) -> Any:
        from selenium.common.exceptions import TimeoutException

        self._driver.set_script_timeout(timeout_s)
        try:
            return self._driver.execute_async_script(script, *args)
        except TimeoutException as exc:
            # the page's thread is free (Pyodide runs in a Web Worker): end the worker
            with contextlib.suppress(Exception), self.guard(15.0, "aborting the worker"):
                self._driver.set_script_timeout(10)
                self._driver.execute_script(
                    "window.skidpadAbort && window.skidpadAbort(arguments[0]);", what
                )
            raise self.fail(
                f"{what} did not finish within {timeout_s:g} s (its time limit)"
            ) from exc

    def _driver_pid(self) -> int | None:
        proc = getattr(self._service, "process", None)
        return proc.pid if proc is not None else None

    def _wait_boot(self, timeout_s: float) -> dict[str, Any]:
        script = """
            const done = arguments[arguments.length - 1];
            const report = () => done({phase: window.skidpad.phase, error: window.skidpad.error,
                                       info: window.skidpad.info});
            const wait = () => (window.skidpad && window.skidpad.boot)
                ? window.skidpad.boot.then(report, report) : setTimeout(wait, 50);
            wait();
        """
        return self._async(script, timeout_s, "Pyodide boot (load, wheel unpack, import)")

    def _submit(self, request_id: int, text: str) -> None:
        self._driver.execute_script(
            "return window.skidpadSubmit(arguments[0], arguments[1]);", request_id, text
        )

    def _wait_result(self, request_id: int, timeout_s: float) -> dict[str, Any]:
        script = """
            const id = arguments[0], every = arguments[1];
            const done = arguments[arguments.length - 1];
            const poll = () => {
                const r = window.skidpad.results[id];
                if (r && r.done) { delete window.skidpad.results[id]; done(r); }
                else setTimeout(poll, every);
            };
            poll();
        """
        return self._async(
            script, timeout_s, f"request {request_id}", request_id, int(POLL_S * 1000)
        )

    def _page_log(self) -> list[str]:
        if self._driver is None:
            return []
        self._driver.set_script_timeout(10)  # execute_script obeys it too
        return self._driver.execute_script("return window.skidpad ? window.skidpad.log : [];")

    def log_text(self) -> str:
        text = super().log_text()
        if self._driver_log and os.path.isfile(self._driver_log):
            with open(self._driver_log, errors="replace") as f:
                lines = f.read().splitlines()
            if lines:
                text += "\n-- WebKitWebDriver / MiniBrowser log --\n" + tail(lines, 100)
        return text

    def _close(self) -> None:
        driver, self._driver = self._driver, None
        try:
            if driver is not None:
                if self._broken:
                    # a stuck page would make quit() wait: end the driver process instead
                    kill_tree(self._driver_pid())
                else:
                    done, _, _ = _in_thread(driver.quit, 30.0)
                    if not done:
                        kill_tree(self._driver_pid())
            elif self._service is not None:
                kill_tree(self._driver_pid())
        finally:
            proc = getattr(self._service, "process", None)
            if proc is not None:
                with contextlib.suppress(Exception):
                    proc.wait(timeout=10)  # reap it
            self._service = None
            if self._xvfb is not None:
                self._xvfb.stop()
                self._xvfb = None
            if self._driver_log:
                with contextlib.suppress(OSError):
                    os.unlink(self._driver_log)
                self._driver_log = None
