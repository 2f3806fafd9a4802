"""Pyodide in Chromium, Firefox and WebKit (docs/architecture.md §5).

Each adapter serves Pyodide, the harness page (``parity/web/``) and the
project wheel from a :class:`parity.server.LoopbackServer`, starts its
browser once, loads the page once (Pyodide boots, unpacks the wheel, imports
``parity.worker``), and then runs any number of worker requests in that page.

Drivers and their recipes (measured on Debian 12, see ADRs 0030-0034):

* ``chromium``: Debian's ``chromium`` through Playwright 1.64.1
  (``launch_persistent_context`` with ``executable_path``); no connection
  beyond loopback: ``--host-resolver-rules`` maps every host but 127.0.0.1 to
  NOTFOUND and the background-networking features are off.
* ``firefox``: Debian's ``firefox-esr`` (153) through Playwright 1.64.1,
  ``channel="moz-firefox"`` (WebDriver BiDi); ``MOZ_DISABLE_NONLOCAL_CONNECTIONS``,
  a dummy remote-settings server and a dead loopback proxy (port 9).
* ``webkit``: WebKitGTK's MiniBrowser (``libwebkit2gtk-4.1-0``) through
  Selenium's WebKitGTK driver and ``WebKitWebDriver`` (``webkit2gtk-driver``),
  on a private Xvfb display, with ``--proxy`` to the dead loopback port.

Every step (launch, page load + Pyodide boot, each request) has a time limit;
exceeding it, a browser crash or a Python error in the page raises
:class:`RuntimeFailed` naming the runtime and carrying the browser's console
output (page console, Pyodide's stdout/stderr, driver logs). Nothing is
retried.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable
from parity.server import DEFAULT_PYODIDE_DIR, LoopbackServer, ServerError

ROOT = Path(__file__).resolve().parent.parent.parent

RUNTIME_NAMES = ("chromium", "firefox", "webkit")

INSTALL_COMMAND = "sudo ci/install_browsers.sh"

#: The one address every server, driver and URL of the browser runtimes uses: the literal,
#: never the name ``localhost`` (whose IPv6 lookup can leave the machine, ADR 0031).
LOOPBACK = "127.0.0.1"

#: A loopback port nothing listens on: proxies pointed here fail at once.
DEAD_PORT = 9

#: Features that reach the network on their own (ADR 0105), plus every feature Playwright
#: 1.64.1 disables itself: one ``--disable-features`` list, so it does not matter whether
#: Chromium keeps the last such switch or merges them.
CHROMIUM_DISABLED_FEATURES = (
    "MediaRouter",
    "DialMediaRouteProvider",
    "GlobalMediaControls",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AutofillServerCommunication",
    "Translate",
    "AimEnabled",
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "LensOverlay",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "BlockOriginHeaderModificationOnRedirect",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "AutoDeElevate",
)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-pings",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--disable-quic",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-features=" + ",".join(CHROMIUM_DISABLED_FEATURES),
]

FIREFOX_ENV = {
    "MOZ_DISABLE_NONLOCAL_CONNECTIONS": "1",
    "MOZ_REMOTE_SETTINGS_DEVTOOLS": "1",
    "MOZ_CRASHREPORTER_DISABLE": "1",
}

FIREFOX_PREFS: dict[str, Any] = {
    # without a local remote-settings server Firefox looks up Mozilla's at start
    "services.settings.server": "data:,#remote-settings-dummy/v1",
    # everything that is not loopback goes to a dead loopback proxy
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": DEAD_PORT,
    "network.proxy.ssl": "127.0.0.1",
    "network.proxy.ssl_port": DEAD_PORT,
    # no SOCKS proxy: with one, Firefox refuses to resolve "localhost" itself, its BiDi
    # server then announces ws://localhost:PORT and Playwright's driver looks that name up
    # in DNS (ADR 0106); connections that are neither HTTP nor TLS stay refused by
    # MOZ_DISABLE_NONLOCAL_CONNECTIONS
    # DNS over HTTPS off for good (5), not merely off by default (0)
    "network.trr.mode": 5,
    "network.proxy.allow_hijacking_localhost": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "app.update.enabled": False,
    "app.update.auto": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    # a request keeps the page's thread busy for minutes: no slow-script stop
    "dom.max_script_run_time": 0,
    "dom.max_chrome_script_run_time": 0,
}

WEBKIT_ARGS = [
    "--automation",
    f"--proxy=http://127.0.0.1:{DEAD_PORT}",
    "--ignore-host=127.0.0.1",
]

#: How long past a step's own time limit the hard limit (kill the browser) waits.
GRACE_S = 30.0

#: How often the driver looks for a finished request (seconds).
POLL_S = 0.25

#: How much of the console log goes into a failure message.
LOG_TAIL = 200


# --------------------------------------------------------------------------- helpers


def browser_binary(name: str) -> str | None:
    """The browser executable for runtime ``name``, or None when it is not installed."""
    if name == "chromium":
        return shutil.which("chromium")
    if name == "firefox":
        return shutil.which("firefox-esr")
    if name == "webkit":
        return minibrowser_path()
    raise ValueError(f"not a browser runtime: {name!r} (known: {', '.join(RUNTIME_NAMES)})")


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


def missing_parts(name: str, python_packages: bool = True) -> list[str]:
    """What runtime ``name`` needs and does not find here (empty when it can run).
    ``python_packages=False`` checks only the system part (a nox session installs the
    Python drivers into its own virtualenv)."""
    missing = []
    if browser_binary(name) is None:
        missing.append(
            {
                "chromium": "chromium",
                "firefox": "firefox-esr",
                "webkit": "MiniBrowser (libwebkit2gtk-4.1-0)",
            }[name]
        )
    if name in ("chromium", "firefox"):
        if not python_packages:
            return missing
        try:
            import playwright  # noqa: F401
        except ImportError:
            missing.append("python package playwright==1.64.1")
    else:
        if shutil.which("WebKitWebDriver") is None:
            missing.append("WebKitWebDriver (webkit2gtk-driver)")
        if shutil.which("Xvfb") is None:
            missing.append("Xvfb (xvfb)")
        if not python_packages:
            return missing
        try:
            import selenium  # noqa: F401
        except ImportError:
            missing.append("python package selenium")
    return missing


def unavailable_reason(name: str) -> str | None:
    """None when browser runtime ``name`` can run here, else what is missing and the
    command that installs it. (Pyodide's files are checked at start, where the
    adapter knows which ``node_modules`` it serves.)"""
    missing = missing_parts(name)
    if not missing:
        return None
    return f"missing {', '.join(missing)}; install with `{INSTALL_COMMAND}`"


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


def default_wheel() -> Path:
    """The project wheel of this checkout (``parity.wheel.build_wheel``, cached by content)."""
    from parity.wheel import build_wheel

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


def _tail(lines: list[str], n: int = LOG_TAIL) -> str:
    if len(lines) > n:
        return "\n".join([f"... ({len(lines) - n} earlier lines)"] + lines[-n:])
    return "\n".join(lines)


# --------------------------------------------------------------------------- base


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
            parts.append("-- page log (console, Python stdout/stderr) --\n" + _tail(page))
        if driver:
            parts.append("-- driver / console events --\n" + _tail(driver))
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
        reason = unavailable_reason(self.name)
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


# --------------------------------------------------------------------------- Playwright

_BOOT_DONE_JS = "() => window.skidpad && window.skidpad.phase !== 'booting'"
_BOOT_STATE_JS = (
    "() => ({phase: window.skidpad.phase, error: window.skidpad.error, info: window.skidpad.info})"
)
_RESULT_JS = "id => { const r = window.skidpad.results[id]; return r && r.done ? r : null; }"


class PlaywrightRuntime(BrowserRuntime):
    """Chromium and Firefox through Playwright's sync API (one persistent context)."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.name = name
        self._pw: Any = None
        self._context: Any = None
        self._page: Any = None
        self._profile: str | None = None

    def _launch(self, timeout_s: float) -> str:
        from playwright.sync_api import sync_playwright

        binary = browser_binary(self.name)
        version = browser_version(binary)
        self._profile = tempfile.mkdtemp(prefix=f"skidpad-{self.name}-")
        self._pw = sync_playwright().start()
        ms = timeout_s * 1000.0
        self.note(f"[driver] launching {binary} ({version}) with Playwright")
        try:
            if self.name == "chromium":
                self._context = self._pw.chromium.launch_persistent_context(
                    self._profile,
                    executable_path=binary,
                    headless=True,
                    args=CHROMIUM_ARGS,
                    timeout=ms,
                )
            else:
                self._context = self._pw.firefox.launch_persistent_context(
                    self._profile,
                    channel="moz-firefox",
                    executable_path=binary,
                    headless=True,
                    env={**os.environ, **FIREFOX_ENV},
                    firefox_user_prefs=FIREFOX_PREFS,
                    timeout=ms,
                )
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


# --------------------------------------------------------------------------- WebKit


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
        options.binary_location = browser_binary("webkit")
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
                text += "\n-- WebKitWebDriver / MiniBrowser log --\n" + _tail(lines, 100)
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


# --------------------------------------------------------------------------- factory


def make_runtime(name: str, **kwargs: Any) -> Runtime:
    """The adapter for browser runtime ``name`` (chromium, firefox, webkit).

    Keyword arguments: ``wheel`` (path of the project wheel; default
    ``parity.wheel.build_wheel()``) and ``pyodide_dir`` (default
    ``node_modules/pyodide``).
    """
    if name in ("chromium", "firefox"):
        return PlaywrightRuntime(name, **kwargs)
    if name == "webkit":
        return WebKitRuntime(**kwargs)
    raise ValueError(f"not a browser runtime: {name!r} (known: {', '.join(RUNTIME_NAMES)})")
