"""The loopback HTTP server the browser runtimes load Pyodide from (docs/architecture.md §5).

It binds 127.0.0.1 on a port the OS picks (port 0), runs in a daemon thread of
the calling process, and serves exactly three kinds of file, from a routing
table fixed when the server is built:

* ``/pyodide/<name>``: the regular files at the top of the Pyodide
  distribution directory (``node_modules/pyodide/``) whose suffix is one of
  :data:`PYODIDE_SUFFIXES`;
* ``/``, ``/index.html``, ``/harness.js``, ``/worker.js``, ``/console-mirror.js``: the
  harness page, the Web Worker that runs Pyodide and the console capture both import
  (``parity/web/``);
* ``/wheel/<wheel file name>``: the one project wheel, also as
  :data:`SERVED_WHEEL` (so a page opened at the bare URL, with no ``?wheel=``, loads the
  wheel this server serves).

Every other path (anything not literally in the table: other files, parent
directories, ``..``, percent-encoded tricks, directory listings) gets a 404,
so nothing outside the allow-list can be reached however the path is spelled.
Methods other than GET and HEAD get 405. Requests are kept in
:attr:`LoopbackServer.requests` (``(method, path, status)``) for the failure
report; nothing is printed.
"""

from __future__ import annotations

import http.server
import threading
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WEB_DIR = Path(__file__).resolve().parent / "web"
DEFAULT_PYODIDE_DIR = ROOT / "node_modules" / "pyodide"

#: Content types by suffix. ``.mjs`` must be JavaScript for module imports and
#: ``.wasm`` must be application/wasm for streaming compilation.
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".map": "application/json",
    ".zip": "application/octet-stream",
    ".whl": "application/octet-stream",
    ".tar": "application/octet-stream",
}

#: Which Pyodide distribution files are served (its loader, runtime, stdlib, lock file).
PYODIDE_SUFFIXES = (".mjs", ".js", ".wasm", ".json", ".zip", ".map")

WEB_FILES = ("index.html", "harness.js", "worker.js", "console-mirror.js")


#: the path of the served wheel whatever its file name (the sandbox page's default)
SERVED_WHEEL = "/wheel/served.whl"


class ServerError(Exception):
    """The server cannot be built: a file it must serve is missing."""


def build_routes(
    pyodide_dir: Path,
    wheel: Path,
    web_dir: Path = WEB_DIR,
    web_files: tuple[str, ...] = WEB_FILES,
) -> dict[str, Path]:
    """The routing table: URL path -> file. Raises ServerError naming a missing file."""
    pyodide_dir = Path(pyodide_dir)
    wheel = Path(wheel)
    if not (pyodide_dir / "pyodide.mjs").is_file():
        raise ServerError(
            f"Pyodide distribution not found at {pyodide_dir} (no pyodide.mjs); "
            "install it with `npm ci` in the project root"
        )
    if not wheel.is_file() or wheel.suffix != ".whl":
        raise ServerError(f"project wheel not found: {wheel}")
    routes: dict[str, Path] = {}
    for path in sorted(pyodide_dir.iterdir()):
        if path.is_file() and not path.is_symlink() and path.suffix in PYODIDE_SUFFIXES:
            routes[f"/pyodide/{path.name}"] = path
    for name in web_files:
        path = web_dir / name
        if not path.is_file():
            raise ServerError(f"harness page file missing: {path}")
        routes[f"/{name}"] = path
    routes["/"] = web_dir / "index.html"
    routes[f"/wheel/{wheel.name}"] = wheel
    routes[SERVED_WHEEL] = wheel
    return routes


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "skidpad-parity"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._serve(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(body=False)

    def _refuse(self, status: int) -> None:
        message = b"not found\n" if status == 404 else b"method not allowed\n"
        self._record(status)
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(message)))
        if status == 405:
            self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(message)

    def do_POST(self) -> None:  # noqa: N802
        self._refuse(405)

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST  # noqa: N815

    def _record(self, status: int) -> None:
        owner: LoopbackServer = self.server.owner  # type: ignore[attr-defined]
        with owner.lock:
            owner.requests.append((self.command, self.path, status))

    def _serve(self, body: bool) -> None:
        owner: LoopbackServer = self.server.owner  # type: ignore[attr-defined]
        # The query string is the page's business (it names the wheel); the
        # route is the exact path, never decoded or normalised, so
        # "/pyodide/../x" or "%2e%2e" simply is not in the table.
        path = urllib.parse.urlsplit(self.path).path
        target = owner.routes.get(path)
        if target is None:
            self._refuse(404)
            return
        try:
            data = target.read_bytes()
        except OSError:
            self._refuse(404)
            return
        self._record(200)
        self.send_response(200)
        self.send_header("Content-Type", MIME_TYPES.get(target.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # requests are kept in owner.requests instead


class LoopbackServer:
    """The allow-list server on 127.0.0.1:<free port>; a context manager."""

    def __init__(
        self,
        wheel: Path,
        pyodide_dir: Path = DEFAULT_PYODIDE_DIR,
        web_dir: Path = WEB_DIR,
        web_files: tuple[str, ...] = WEB_FILES,
        port: int = 0,
    ) -> None:
        self.routes = build_routes(pyodide_dir, wheel, web_dir, web_files)
        self.bind_port = port
        self.wheel = Path(wheel)
        self.pyodide_dir = Path(pyodide_dir)
        self.requests: list[tuple[str, str, int]] = []
        self.lock = threading.Lock()
        self._httpd: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Bind and serve in a daemon thread; return the base URL (ending in ``/``)."""
        if self._httpd is None:
            httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.bind_port), _Handler)
            httpd.daemon_threads = True
            httpd.owner = self  # type: ignore[attr-defined]
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever, name="skidpad-loopback", daemon=True
            )
            self._thread.start()
        return self.url

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("loopback server not started")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def page_url(self) -> str:
        """The harness page URL, naming the wheel to unpack."""
        query = urllib.parse.urlencode({"wheel": self.wheel.name})
        return f"{self.url}index.html?{query}"

    def refused(self) -> list[tuple[str, str, int]]:
        """The requests answered with anything but 200 (for the failure report)."""
        with self.lock:
            return [r for r in self.requests if r[2] != 200]

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> LoopbackServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
