"""The loopback server is bounded against hostile clients (ADR 0210).

Half-open connections are closed by the read time-out, requests with huge paths do not grow
the server's memory (the request log is bounded), a normal page load still completes while
all that goes on, HTTP/0.9 is answered 400 and closed, the Host header must name the server,
and connections past the cap are answered 503 at once. Loopback only; every loop bounded.
The memory test runs the server in its own process, so only its memory is measured.
"""

from __future__ import annotations

import http.client
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from skidpad.parity import server as server_module
from skidpad.parity.server import LoopbackServer

ROOT = Path(__file__).resolve().parent.parent

HALF_OPEN = 200
BIG_REQUESTS = 2000
BIG_PATH = "/" + "a" * 64_999  # 65 kB, under http.server's 64 KiB request-line limit


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("bounded")
    dist = base / "pyodide"
    dist.mkdir()
    (dist / "pyodide.mjs").write_text("export const x = 1;\n")
    wheel = base / "skidpad-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK wheel bytes")
    return {"dist": dist, "wheel": wheel}


@pytest.fixture()
def srv(tree: dict[str, Path]):
    with LoopbackServer(tree["wheel"], tree["dist"]) as s:
        yield s


def _raw(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` and read until the server closes (or ``timeout``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def _get(port: int, path: str = "/", host: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        if host is None:
            conn.request("GET", path)
        else:
            conn.putrequest("GET", path, skip_host=True)
            conn.putheader("Host", host)
            conn.endheaders()
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


# ----------------------------------------------------------------------------- each bound


def test_http_0_9_is_answered_400_and_closed(tree: dict[str, Path]) -> None:
    # With the read time-out out of reach, only the server's own close ends the read: the
    # client's socket time-out (far shorter) would raise instead. No clock is asserted.
    with (
        LoopbackServer(tree["wheel"], tree["dist"], read_timeout=3600.0) as srv,
        socket.create_connection(("127.0.0.1", srv.port), timeout=300) as s,
    ):
        s.sendall(b"GET /\r\n")
        reply = b""
        while chunk := s.recv(65536):  # b"" is the server closing; a time-out raises
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 400"), reply[:80]


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "127.0.0.1", "127.0.0.1:1", "localhost", "127.0.0.2:{port}", ""],
)
def test_a_host_other_than_the_server_is_refused(srv: LoopbackServer, host: str) -> None:
    assert _get(srv.port, "/", host.format(port=srv.port)) == 403


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_the_server_s_own_names_are_served(srv: LoopbackServer, host: str) -> None:
    assert _get(srv.port, "/pyodide/pyodide.mjs", host.format(port=srv.port)) == 200


def test_the_request_log_is_bounded(srv: LoopbackServer) -> None:
    for i in range(server_module.LOG_KEPT + 50):
        _get(srv.port, f"/x{i}" + "y" * 500)
    assert len(srv.requests) == server_module.LOG_KEPT
    assert all(len(path) <= server_module.LOG_PATH_CHARS for _, path, _ in srv.requests)
    assert srv.requests[-1][1].startswith(f"/x{server_module.LOG_KEPT + 49}")


def test_connections_past_the_cap_get_503(srv: LoopbackServer, monkeypatch) -> None:
    slots = srv._httpd.slots  # type: ignore[union-attr]
    taken = 0
    while slots.acquire(blocking=False):  # the cap, all taken by "other connections"
        taken += 1
    try:
        assert taken == server_module.MAX_CONNECTIONS
        assert _raw(srv.port, b"GET / HTTP/1.1\r\n").startswith(b"HTTP/1.1 503")
    finally:
        for _ in range(taken):
            slots.release()
    assert _get(srv.port) == 200


#: the read time-out of the test below: the server's own (READ_TIMEOUT_S) is waited for, and
#: its lower bound asserted, by test_half_open_connections_and_huge_paths_leave_the_server_usable
SHORT_READ_TIMEOUT_S = 0.5


def test_a_half_open_connection_is_closed_by_the_read_time_out(tree: dict[str, Path]) -> None:
    with LoopbackServer(tree["wheel"], tree["dist"], read_timeout=SHORT_READ_TIMEOUT_S) as srv:
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", srv.port), timeout=300) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % srv.port)  # no blank line
            assert s.recv(1024) == b""  # closed by the server (a client time-out would raise)
        # a lower bound holds on any machine: it was the read time-out that closed it
        assert time.monotonic() - t0 >= SHORT_READ_TIMEOUT_S * 0.9


# ----------------------------------------------------------------------------- under attack

SERVE = """
import sys, time
from pathlib import Path
from skidpad.parity.server import LoopbackServer
s = LoopbackServer(Path(sys.argv[1]), Path(sys.argv[2]))
s.start()
print(s.port, flush=True)
time.sleep(600)
"""


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _big_requests(port: int, count: int, errors: list) -> None:
    request = f"GET {BIG_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:  # kept alive
        f = s.makefile("rb")
        for _ in range(count):
            s.sendall(request)
            status = f.readline()
            length = 0
            while (line := f.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            f.read(length)
            if not status.startswith(b"HTTP/1.1 404"):
                errors.append(status)
                return


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc for VmRSS")
def test_half_open_connections_and_huge_paths_leave_the_server_usable(tree) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(tree["wheel"]), str(tree["dist"])],
        stdout=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )
    half: list[socket.socket] = []
    try:
        port = int(proc.stdout.readline())
        assert _get(port) == 200  # warm: the first request's imports are not growth
        before = _rss_kib(proc.pid)
        opened = time.monotonic()
        for _ in range(HALF_OPEN):
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)  # and no more
            half.append(s)
        closed_after: dict[int, float] = {}
        errors: list = []
        threads = [
            threading.Thread(target=_big_requests, args=(port, BIG_REQUESTS // 4, errors))
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        # a normal page load in the middle of it all
        assert _get(port, "/index.html") == 200
        page_done = time.monotonic() - opened
        peak = _rss_kib(proc.pid)
        while len(closed_after) < HALF_OPEN and time.monotonic() - opened < 300:
            open_ones = [s for s in half if s.fileno() not in closed_after]
            readable, _, _ = select.select(open_ones, [], [], 0.5)
            for s in readable:
                if s.recv(1024) == b"":
                    closed_after[s.fileno()] = time.monotonic() - opened
            peak = max(peak, _rss_kib(proc.pid))
        for t in threads:
            t.join(timeout=120)
        peak = max(peak, _rss_kib(proc.pid))
        growth_mib = (peak - before) / 1024
        print(
            f"server RSS {before / 1024:.1f} MiB -> peak {peak / 1024:.1f} MiB "
            f"(+{growth_mib:.1f} MiB); page served {page_done:.3f} s in; half-open closed after "
            f"{min(closed_after.values()):.1f}..{max(closed_after.values()):.1f} s"
        )
        assert not errors, errors[:3]
        assert not any(t.is_alive() for t in threads)
        assert len(closed_after) == HALF_OPEN
        # every half-open connection was closed by the read time-out, not left open ...
        assert min(closed_after.values()) >= server_module.READ_TIMEOUT_S * 0.9
        # ... and the page was served while all of them still held their slots: it did not
        # wait for the time-outs (an order of events, not a speed)
        assert page_done < min(closed_after.values())
        assert growth_mib <= 20.0
    finally:
        for s in half:
            s.close()
        proc.kill()
        proc.wait()
