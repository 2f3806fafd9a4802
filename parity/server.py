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
report; nothing is printed. Every file is sent with a strong entity tag (a digest of its
bytes) and ``Cache-Control: no-cache``: a browser may keep it, and its compiled
WebAssembly, but asks before each use, and gets 304 only while the bytes on disk are the
ones it holds (ADR 0258).

The server is bounded against a hostile or broken client (ADR 0210): every read of
a connection times out after :data:`READ_TIMEOUT_S` (or the ``read_timeout`` it was built
with; a half-sent request or an idle kept-alive connection is closed then); at most
:data:`MAX_CONNECTIONS` connections are served at once (one more is answered 503 and closed
at once); the request log keeps the last :data:`LOG_KEPT` requests, each path cut to
:data:`LOG_PATH_CHARS` characters; a request that is not HTTP/1.x (HTTP/0.9's ``GET /``)
gets 400 and is closed; and the ``Host`` header must name the address served,
``127.0.0.1:PORT`` or ``localhost:PORT`` (403 otherwise), so a page elsewhere that reaches
the port through DNS rebinding gets nothing.
"""

from __future__ import annotations

import collections
import hashlib
import http.server
import socket
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

#: Seconds a connection may take to send the next piece of a request, or stay idle between
#: requests, before it is closed.
READ_TIMEOUT_S = 5.0
#: How often the serving thread looks for a stop request: :meth:`LoopbackServer.stop` waits
#: up to this long (socketserver's default, 0.5 s, made every stop of the server a half-second
#: wait; an idle wake-up 20 times a second costs nothing that shows).
POLL_INTERVAL_S = 0.05
#: Connections served at the same time (one thread each); more are answered 503 at once.
MAX_CONNECTIONS = 256
#: Requests kept in the log (the oldest dropped first), and the characters of a path kept.
LOG_KEPT = 1000
LOG_PATH_CHARS = 200


#: the path of the served wheel whatever its file name (the sandbox page's default)
SERVED_WHEEL = "/wheel/served.whl"


class ServerError(Exception):
    """The server cannot be built: a file it must serve is missing."""


def build_routes(
    pyodide_dir: Path,
    wheel: Path,
    web_dir: Path = WEB_DIR,
    web_files: tuple[str, ...] = WEB_FILES,
    extra: dict[str, Path] | None = None,
) -> dict[str, Path]:
    """The routing table: URL path -> file. Raises ServerError naming a missing file.
    ``extra`` adds fixed routes of the caller's (the sandbox's archived physics zips)."""
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
    for route, path in (extra or {}).items():
        if not Path(path).is_file():
            raise ServerError(f"file to serve missing: {path}")
        routes[route] = Path(path)
    return routes


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "skidpad-parity"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    # A response is two writes (the headers, then the body): with Nagle's algorithm on, a small
    # body waits for the client's delayed ACK of the headers (40 ms on Linux) on every request
    # of a kept-alive connection after its first few.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        # every read of the socket times out (a half-sent request is closed): the server's own
        # read time-out, READ_TIMEOUT_S unless it was built with another
        self.timeout = self.server.owner.read_timeout  # type: ignore[attr-defined]
        super().setup()

    def parse_request(self) -> bool:
        """HTTP/1.x only, and a ``Host`` naming this server; anything else is refused."""
        words = self.raw_requestline.decode("iso-8859-1").split()
        if len(words) != 3 or not words[2].startswith("HTTP/1."):
            # HTTP/0.9 (or junk): answered with a status line all the same, then closed
            self.command, self.path, self.request_version = None, "", "HTTP/1.0"
            self.requestline = " ".join(words)[:LOG_PATH_CHARS]
            self.close_connection = True
            self._record(400)
            self.send_error(400, "HTTP/1.x only")
            return False
        if not super().parse_request():
            return False
        if self.headers.get("Host", "").strip().lower() not in self.server.hosts:  # type: ignore[attr-defined]
            self.close_connection = True
            self._refuse(403)
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._serve(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._serve(body=False)

    def _refuse(self, status: int) -> None:
        message = _MESSAGES[status]
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
            owner.requests.append((self.command, str(self.path)[:LOG_PATH_CHARS], status))

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
        tag = entity_tag(data)
        if _matches(tag, self.headers.get("If-None-Match", "")):
            self._record(304)  # the browser's copy is these bytes: it keeps it
            self.send_response(304)
            self.send_header("ETag", tag)
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            return
        self._record(200)
        self.send_response(200)
        self.send_header("Content-Type", MIME_TYPES.get(target.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(data)))
        # no-cache: the browser may keep a copy but asks before every use (the ETag says
        # whether the bytes are still the served ones), so a reload never runs a stale wheel
        # or Pyodide; a kept Pyodide keeps the browser's compiled WebAssembly with it
        self.send_header("ETag", tag)
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # requests are kept in owner.requests instead


def entity_tag(data: bytes) -> str:
    """The strong HTTP entity tag of a file's bytes: a digest, so equal tags mean equal
    bytes whatever the file's name, time or version."""
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def _matches(tag: str, if_none_match: str) -> bool:
    """Whether an ``If-None-Match`` header names ``tag`` (RFC 9110 §13.1.2: ``*`` names any,
    and a GET compares a weak tag by its value)."""
    listed = {t.strip().removeprefix("W/") for t in if_none_match.split(",") if t.strip()}
    return "*" in listed or tag in listed


_MESSAGES = {
    403: b"forbidden: this server answers only to 127.0.0.1 and localhost\n",
    404: b"not found\n",
    405: b"method not allowed\n",
}


class _BoundedServer(http.server.ThreadingHTTPServer):
    """A thread per connection, at most :data:`MAX_CONNECTIONS` at once."""

    daemon_threads = True
    # a burst of connections waits in the kernel's queue, not in SYN retries (the default 5)
    request_queue_size = 1024
    # http.server's ThreadingHTTPServer keeps every thread to join at close: a long-lived
    # server would hold one per connection ever made
    block_on_close = False

    def __init__(self, address: tuple[str, int], handler: type) -> None:
        super().__init__(address, handler)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        port = self.server_address[1]
        self.hosts = frozenset((f"127.0.0.1:{port}", f"localhost:{port}"))

    def process_request(self, request: socket.socket, client_address: object) -> None:
        if not self.slots.acquire(blocking=False):
            self._busy(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: socket.socket, client_address: object) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def _busy(self, request: socket.socket) -> None:
        """Answer 503 without reading, and close: the cap is a cap, not a queue."""
        try:
            request.settimeout(1.0)
            request.sendall(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                b"Connection: close\r\n\r\n"
            )
        except OSError:
            pass
        self.shutdown_request(request)


class LoopbackServer:
    """The allow-list server on 127.0.0.1:<free port>; a context manager."""

    def __init__(
        self,
        wheel: Path,
        pyodide_dir: Path = DEFAULT_PYODIDE_DIR,
        web_dir: Path = WEB_DIR,
        web_files: tuple[str, ...] = WEB_FILES,
        port: int = 0,
        extra: dict[str, Path] | None = None,
        read_timeout: float = READ_TIMEOUT_S,
    ) -> None:
        self.routes = build_routes(pyodide_dir, wheel, web_dir, web_files, extra)
        self.bind_port = port
        self.wheel = Path(wheel)
        self.pyodide_dir = Path(pyodide_dir)
        #: seconds a connection may take to send the next piece of a request, or stay idle;
        #: a parameter so that a test of the time-out need not wait the production one
        self.read_timeout = read_timeout
        #: the last :data:`LOG_KEPT` requests, (method, path cut short, status)
        self.requests: collections.deque[tuple[str, str, int]] = collections.deque(maxlen=LOG_KEPT)
        self.lock = threading.Lock()
        self._httpd: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Bind and serve in a daemon thread; return the base URL (ending in ``/``)."""
        if self._httpd is None:
            httpd = _BoundedServer(("127.0.0.1", self.bind_port), _Handler)
            httpd.owner = self  # type: ignore[attr-defined]
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever,
                args=(POLL_INTERVAL_S,),
                name="skidpad-loopback",
                daemon=True,
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
        """The requests answered with anything but the file (200) or "your copy is the
        file" (304), for the failure report."""
        with self.lock:
            return [r for r in self.requests if r[2] not in (200, 304)]

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
