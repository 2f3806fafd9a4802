"""Chromium and Firefox through Playwright 1.64.1's sync API: what the two share.

One persistent context per adapter (a fresh profile directory), one page, the page
protocol of :mod:`parity.runtimes.page` read with ``wait_for_function`` polls. Each
browser's launch recipe is in its own module (``chromium``, ``firefox``).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from typing import Any

from skidpad.parity.runtimes.base import RuntimeFailed
from skidpad.parity.runtimes.page import POLL_S, BrowserRuntime, kill_tree


def browser_version(binary: str) -> str:
    """``chromium --version`` / ``firefox-esr --version``, first line."""
    try:
        proc = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    line = (proc.stdout.strip().splitlines() or ["?"])[0]
    return line.split(" built on ")[0]  # "Chromium 156.0.8078.114 built on Debian ..."


_BOOT_DONE_JS = "() => window.skidpad && window.skidpad.phase !== 'booting'"
_BOOT_STATE_JS = (
    "() => ({phase: window.skidpad.phase, error: window.skidpad.error, info: window.skidpad.info})"
)
_RESULT_JS = "id => { const r = window.skidpad.results[id]; return r && r.done ? r : null; }"


class PlaywrightRuntime(BrowserRuntime):
    """Chromium and Firefox through Playwright's sync API (one persistent context)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pw: Any = None
        self._context: Any = None
        self._page: Any = None
        self._profile: str | None = None

    @classmethod
    def binary(cls) -> str | None:
        """Debian's executable of the browser, named like its package."""
        return shutil.which(cls.package)

    @classmethod
    def launch_options(cls) -> dict[str, Any]:
        """This browser's loopback-only recipe for ``launch_persistent_context``."""
        raise NotImplementedError

    @classmethod
    def launch_context(cls, pw: Any, profile: str, **options: Any) -> Any:
        """A headless persistent Playwright context of this browser (Playwright's browser
        type of the same name) with its recipe; ``options`` go to
        ``launch_persistent_context`` too (timeout, viewport, ...)."""
        browser_type = getattr(pw, cls.name)
        return browser_type.launch_persistent_context(
            profile, executable_path=cls.binary(), headless=True, **cls.launch_options(), **options
        )

    @classmethod
    def missing_python(cls) -> list[str]:
        try:
            import playwright  # noqa: F401
        except ImportError:
            return ["python package playwright==1.64.1"]
        return []

    def _launch(self, timeout_s: float) -> str:
        from playwright.sync_api import sync_playwright

        binary = self.binary()
        version = browser_version(binary)
        self._profile = tempfile.mkdtemp(prefix=f"skidpad-{self.name}-")
        self._pw = sync_playwright().start()
        ms = timeout_s * 1000.0
        self.note(f"[driver] launching {binary} ({version}) with Playwright")
        try:
            self._context = self.launch_context(self._pw, self._profile, timeout=ms)
        except Exception as exc:
            raise self.fail(f"browser launch failed: {exc}") from exc
        self._context.set_default_timeout(ms)
        self._page = self._context.pages[0] if self._context.pages else self._context.new_page()
        page = self._page
        page.on("console", lambda m: self.note(f"[console.{m.type}] {m.text}"))
        page.on("pageerror", lambda e: self.note(f"[pageerror] {e}"))
        page.on("crash", lambda _p: self.note("[crash] the page crashed"))
        page.on(
            "requestfailed",
            lambda r: self.note(f"[requestfailed] {r.url}: {r.failure}"),
        )
        page.on("request", self._watch_request)
        try:
            page.goto(self.server.page_url(), wait_until="load", timeout=ms)
        except Exception as exc:
            raise self.fail(f"loading the harness page failed: {exc}") from exc
        return version

    def _watch_request(self, request: Any) -> None:
        url = request.url
        if not (url.startswith(self.server.url) or url.startswith("data:")):
            self.note(f"[foreign-request] {request.method} {url}")

    def _timeout(self, what: str, timeout_s: float, exc: Exception) -> RuntimeFailed:
        # the page's thread is free (Pyodide runs in a Web Worker): end the worker
        with contextlib.suppress(Exception), self.guard(15.0, "aborting the worker"):
            self._page.evaluate("r => window.skidpadAbort && window.skidpadAbort(r)", what)
        return self.fail(
            f"{what} did not finish within {timeout_s:g} s (its time limit) ({type(exc).__name__})"
        )

    def _driver_pid(self) -> int | None:
        try:
            return self._pw._impl_obj._connection._transport._proc.pid
        except AttributeError:
            return None

    def _wait_boot(self, timeout_s: float) -> dict[str, Any]:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            self._page.wait_for_function(
                _BOOT_DONE_JS, timeout=timeout_s * 1000.0, polling=POLL_S * 1000.0
            )
        except PlaywrightTimeout as exc:
            raise self._timeout(
                "Pyodide boot (load, wheel unpack, import)", timeout_s, exc
            ) from exc
        return self._page.evaluate(_BOOT_STATE_JS)

    def _submit(self, request_id: int, text: str) -> None:
        self._page.evaluate("([id, text]) => window.skidpadSubmit(id, text)", [request_id, text])

    def _wait_result(self, request_id: int, timeout_s: float) -> dict[str, Any]:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            handle = self._page.wait_for_function(
                _RESULT_JS, arg=request_id, timeout=timeout_s * 1000.0, polling=POLL_S * 1000.0
            )
        except PlaywrightTimeout as exc:
            raise self._timeout(f"request {request_id}", timeout_s, exc) from exc
        result = handle.json_value()
        handle.dispose()
        self._page.evaluate("id => { delete window.skidpad.results[id]; }", request_id)
        return result

    def _page_log(self) -> list[str]:
        if self._page is None:
            return []
        # wait_for_function, unlike evaluate, gives up when the page does not answer
        handle = self._page.wait_for_function(
            "() => (window.skidpad ? window.skidpad.log : [])", timeout=5000
        )
        try:
            return handle.json_value()
        finally:
            handle.dispose()

    def _close(self) -> None:
        context, self._context = self._context, None
        pw, self._pw = self._pw, None
        try:
            # a stuck page would make close() wait for it: then only stop the driver,
            # whose exit takes the browser (connected by a pipe) with it
            if context is not None and not self._broken:
                with self.guard(60.0, "closing the browser"):
                    context.close()
            elif self._broken:
                kill_tree(self._driver_pid())
        finally:
            if pw is not None:
                pw.stop()
            if self._profile is not None:
                shutil.rmtree(self._profile, ignore_errors=True)
                self._profile = None
