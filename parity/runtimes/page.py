"""What the three browser runtimes share: the page protocol, time limits, logs and processes.

A browser adapter serves Pyodide, the harness page (``parity/web/``) and the
project wheel from a :class:`parity.server.LoopbackServer`, starts its
browser once, loads the page once (Pyodide boots, unpacks the wheel, imports
``parity.worker``), and then runs any number of worker requests in that page
(docs/architecture.md §5). The page protocol: ``window.skidpad.phase`` leaves
"booting" when the boot is done, ``window.skidpadSubmit(id, text)`` starts a
request, ``window.skidpad.results[id]`` holds its answer once ``done``,
``window.skidpadAbort(reason)`` ends the page's worker and ``window.skidpad.log``
is the page's own log.

Every step (launch, page load + Pyodide boot, each request) has a time limit;
exceeding it, a browser crash or a Python error in the page raises
:class:`RuntimeFailed` naming the runtime and carrying the browser's console
output (page console, Pyodide's stdout/stderr, driver logs). Nothing is
retried. Each browser's own recipe is in its module: ``chromium``, ``firefox``
(both driven by Playwright, ``playwright_page``) and ``webkit``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from skidpad.parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable
from skidpad.parity.server import DEFAULT_PYODIDE_DIR, LoopbackServer, ServerError

INSTALL_COMMAND = "sudo ci/install_browsers.sh"

#: The one address every server, driver and URL of the browser runtimes uses: the literal,
#: never the name ``localhost`` (whose IPv6 lookup can leave the machine, ADR 0031).
LOOPBACK = "127.0.0.1"

#: A loopback port nothing listens on: proxies pointed here fail at once.
DEAD_PORT = 9

#: How long past a step's own time limit the hard limit (kill the browser) waits.
GRACE_S = 30.0

#: How often the driver looks for a finished request (seconds).
POLL_S = 0.25

#: How much of the console log goes into a failure message.
LOG_TAIL = 200


def default_wheel() -> Path:
    """The project wheel of this checkout (``parity.wheel.build_wheel``, cached by content)."""
    from skidpad.parity.wheel import build_wheel

    return Path(build_wheel())


def descendants(pid: int) -> list[int]:
    """The process ids below ``pid`` (children first), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after ")"
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int | None) -> None:
    """SIGKILL ``pid`` and every process below it (all of them started by this adapter)."""
    if pid is None:
        return
    for victim in [*descendants(pid), pid]:
        with contextlib.suppress(OSError):
            os.kill(victim, 9)


def tail(lines: list[str], n: int = LOG_TAIL) -> str:
    if len(lines) > n:
        return "\n".join([f"... ({len(lines) - n} earlier lines)"] + lines[-n:])
    return "\n".join(lines)


class BrowserRuntime(Runtime):
    """What the three browsers share: server, wheel, boot protocol, timing, logs."""

    name = "browser"

    def __init__(self, wheel: Path | str | None = None, pyodide_dir: Path | str | None = None):
        self.wheel = Path(wheel) if wheel is not None else None
        self.pyodide_dir = Path(pyodide_dir) if pyodide_dir is not None else DEFAULT_PYODIDE_DIR
        self.server: LoopbackServer | None = None
        self.info: dict[str, Any] = {}
        self.console: list[str] = []
        self._lock = threading.Lock()
        self._next_id = 0
        self._broken = False  # the page is stuck or gone: never talk to it again
        self._started = False

    # ------------------------------------------------------------ to implement
    @classmethod
    def binary(cls) -> str | None:
        """The browser executable, or None when it is not installed."""
        raise NotImplementedError

    @classmethod
    def missing_tools(cls) -> list[str]:
        """System programs besides the browser that the driver needs and does not find."""
        return []

    @classmethod
    def missing_python(cls) -> list[str]:
        """Python packages the driver needs and cannot import."""
        raise NotImplementedError

    def _launch(self, timeout_s: float) -> str:
        """Start the browser, open the page URL; return the browser version."""
        raise NotImplementedError

    def _wait_boot(self, timeout_s: float) -> dict[str, Any]:
        """Wait for ``window.skidpad.phase`` to leave "booting"; return the page state."""
        raise NotImplementedError

    def _submit(self, request_id: int, text: str) -> None:
        raise NotImplementedError

    def _wait_result(self, request_id: int, timeout_s: float) -> dict[str, Any]:
        raise NotImplementedError

    def _page_log(self) -> list[str]:
        """The page's own log buffer (only while the page answers)."""
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def _driver_pid(self) -> int | None:
        """The driver process this adapter started (its browser runs below it)."""
        return None

    # ------------------------------------------------------------ shared
    #: what to install when :meth:`binary` finds nothing (named in the message)
    package = "?"

    @classmethod
    def missing_parts(cls, python_packages: bool = True) -> list[str]:
        """What this runtime needs and does not find here (empty when it can run).
        ``python_packages=False`` checks only the system part (a nox session installs the
        Python drivers into its own virtualenv)."""
        missing = [cls.package] if cls.binary() is None else []
        missing += cls.missing_tools()
        if python_packages:
            missing += cls.missing_python()
        return missing

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """None when this runtime can run here, else what is missing and the command that
        installs it. (Pyodide's files are checked at start, where the adapter knows which
        ``node_modules`` it serves.)"""
        missing = cls.missing_parts()
        if not missing:
            return None
        return f"missing {', '.join(missing)}; install with `{INSTALL_COMMAND}`"

    @contextlib.contextmanager
    def guard(self, seconds: float, what: str) -> Any:
        """A hard limit for one driver call: past ``seconds`` the driver and browser are
        killed (the call then fails) and RuntimeFailed says so. The drivers' own time
        limits normally fire first; this one holds when the browser stops answering."""
        fired = threading.Event()

        def kill() -> None:
            fired.set()
            self._broken = True
            self.note(f"[driver] {what}: no answer within {seconds:.0f} s; killing the browser")
            kill_tree(self._driver_pid())

        timer = threading.Timer(seconds, kill)
        timer.daemon = True
        timer.start()
        try:
            yield
        except Exception as exc:
            if fired.is_set():
                raise self.fail(
                    f"{what}: the browser did not answer within {seconds:.0f} s and was killed"
                ) from exc
            raise
        finally:
            timer.cancel()
        if fired.is_set():
            raise self.fail(
                f"{what}: the browser did not answer within {seconds:.0f} s and was killed"
            )

    def note(self, line: str) -> None:
        with self._lock:
            self.console.append(line)

    def log_text(self) -> str:
        """Everything known about what the browser said, for a failure report."""
        page: list[str] = []
        if not self._broken:
            with contextlib.suppress(Exception), self.guard(15.0, "reading the page log"):
                page = self._page_log() or []
        with self._lock:
            driver = list(self.console)
        parts = []
        if page:
            parts.append("-- page log (console, Python stdout/stderr) --\n" + tail(page))
        if driver:
            parts.append("-- driver / console events --\n" + tail(driver))
        if self.server is not None:
            refused = self.server.refused()
            if refused:
                parts.append(
                    "-- requests the loopback server refused --\n"
                    + "\n".join(f"{m} {p} -> {s}" for m, p, s in refused)
                )
        return "\n".join(parts)

    def fail(self, message: str, broken: bool = True, stuck: bool = False) -> RuntimeFailed:
        """The failure to raise, with the log. ``stuck``: the page's thread is busy
        (a timeout), so not even its log is asked for; ``broken``: never use the page again."""
        if stuck:
            self._broken = True
        log = self.log_text()
        if broken:
            self._broken = True
        return RuntimeFailed(self.name, message, log)

    def start(self, timeout_s: float = 180.0) -> dict[str, Any]:
        """Launch the browser and boot Pyodide in the page, within ``timeout_s`` in total."""
        if self._started:
            return self.info
        reason = self.unavailable_reason()
        if reason is not None:
            raise RuntimeUnavailable(f"{self.name}: {reason}")
        t0 = time.monotonic()
        self._broken = False
        with self._lock:
            self.console = []
        wheel = self.wheel if self.wheel is not None else default_wheel()
        try:
            self.server = LoopbackServer(wheel, self.pyodide_dir)
        except ServerError as exc:
            raise RuntimeUnavailable(f"{self.name}: {exc}") from exc
        self.server.start()
        try:
            with self.guard(timeout_s + GRACE_S, "browser launch"):
                browser = self._launch(timeout_s)
            t_launch = time.monotonic() - t0
            left = max(1.0, timeout_s - t_launch)
            with self.guard(left + GRACE_S, "Pyodide boot"):
                state = self._wait_boot(left)
        except RuntimeFailed:
            self.stop()
            raise
        except Exception as exc:  # a driver error: name the runtime, keep the log
            failure = self.fail(f"start failed: {type(exc).__name__}: {exc}")
            self.stop()
            raise failure from exc
        if state.get("phase") != "ready":
            failure = self.fail(f"Pyodide boot failed in the page: {state.get('error')}")
            self.stop()
            raise failure
        page = state["info"]
        python_version = page["python"].split()[0]
        self.info = {
            "name": self.name,
            "version": f"{browser}, Pyodide {page['pyodide']}, Python {python_version}",
            "browser": browser,
            "pyodide": page["pyodide"],
            "python": page["python"],
            "platform": page["platform"],
            "user_agent": page.get("user_agent", ""),
            "launch_s": round(t_launch, 3),
            "startup_s": round(time.monotonic() - t0, 3),
        }
        self._started = True
        return self.info

    def run(self, request: dict[str, Any], timeout_s: float = 1800.0) -> dict[str, Any]:
        """Run one worker request in the page; the response plus ``"runtime"``."""
        if not self._started:
            raise RuntimeFailed(self.name, "run() before start()")
        if self._broken:
            raise RuntimeFailed(self.name, "the page failed earlier; start a new runtime")
        self._next_id += 1
        request_id = self._next_id
        t0 = time.monotonic()
        try:
            with self.guard(timeout_s + GRACE_S, f"request {request_id}"):
                self._submit(request_id, json.dumps(request))
                result = self._wait_result(request_id, timeout_s)
        except RuntimeFailed:
            raise
        except Exception as exc:
            raise self.fail(f"request failed: {type(exc).__name__}: {exc}") from exc
        if result.get("fatal"):
            raise self.fail(f"the page's Pyodide worker is gone: {result.get('error')}")
        if "error" in result:
            # Python raised inside the page: the page still works
            raise self.fail(f"worker raised in the page:\n{result['error']}", broken=False)
        try:
            response = json.loads(result["ok"])
        except (KeyError, TypeError, ValueError) as exc:
            raise self.fail(f"worker returned no JSON: {exc}", broken=False) from exc
        response["runtime"] = {
            key: self.info[key]
            for key in ("name", "version", "browser", "pyodide", "python", "platform")
        }
        response["runtime"]["request_s"] = round(time.monotonic() - t0, 3)
        return response

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._close()
        if self.server is not None:
            self.server.stop()
            self.server = None
        self._started = False
