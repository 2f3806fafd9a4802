"""Proof that the browser runtimes need nothing, and reach nothing, beyond loopback.

Two checks, each on one short recording per target (ADR 0031, 0105-0108):

* ``isolated``: the target runs inside a loopback-only network namespace (``unshare --net``
  with ``lo`` up, root only) and must still match ``hashes/``: nothing depends on a network
  being there.
* ``trace``: the target runs under ``strace -f`` (the calls in :data:`TRACED_CALLS`) on the
  machine's real network, and every ``connect``/``sendto``/``sendmsg``/``sendmmsg`` to an
  internet address outside 127.0.0.0/8 and ::1 is reported with its process, address and
  port. UNIX and netlink sockets are local by nature and not reported; the one documented
  route probe (:data:`ROUTE_PROBES`: a UDP ``connect`` that sends nothing) is allowed only
  as long as nothing is sent on that socket.

A target is a name in :data:`TARGETS` with a function that runs it once in this process
and says whether its result matched: the three browser runtimes are the parity harness's
own adapters (``parity.harness.run_runtime``, one recording against ``hashes/``), and
``sandbox`` is ``skidpad sandbox``'s page and server in Chromium (boot, a few seconds of
live drive, a state hash). Adding a page to the proof is adding it there.

Command line (what the tests run, and how to rerun the measurement by hand)::

    python3 -m sandbox.netcheck trace chromium      # the contacts beyond loopback, if any
    python3 -m sandbox.netcheck isolated firefox    # one run in a loopback-only namespace
    python3 -m sandbox.netcheck run webkit          # one run here, one JSON line

Each takes ``--recording FILE`` (default: the smallest ``recordings/*.json``), ``--wheel
FILE`` (default: built) and, for ``trace``, ``--keep FILE`` to keep the raw strace output.
Exit 0 when the run matched and (``trace``) nothing went beyond loopback, 1 otherwise,
2 on bad input.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The system calls that can put a packet on a network (or aim a socket at an address).
TRACED_CALLS = ("connect", "sendto", "sendmsg", "sendmmsg")

#: ``(transport, call, address, port)`` allowed beyond loopback: Chromium's IPv6
#: reachability probe (``kIPv6ProbeAddress`` of its host resolver) runs before every host
#: resolution, IPv4 literals included, and no switch turns it off. A UDP connect only asks
#: the kernel for a route; a send on that socket would still be reported (ADR 0105).
ROUTE_PROBES = frozenset({("UDP", "connect", "2001:4860:4860::8888", 443)})

TIME_LIMIT_S = 600.0

# "1234<comm> " (strace -Y -o FILE), "1234 " (-o FILE) or "[pid 1234] " (to a terminal)
_PREFIX = re.compile(r"^(?:\[pid\s+)?(?P<pid>\d+)(?:<(?P<comm>[^>]*)>)?\]?\s+")
_CALL = re.compile(
    r"^(?P<call>connect|sendto|sendmsg|sendmmsg)\((?P<fd>\d+)(?:<(?P<decor>[A-Za-z0-9-]+:\[.*?\]|[^>]*)>)?"
)
_FAMILY = re.compile(r"sa_family=(?P<family>AF_\w+)")
_INET = re.compile(r'sin_port=htons\((?P<port>\d+)\), sin_addr=inet_addr\("(?P<address>[^"]+)"\)')
_INET6 = re.compile(
    r'sin6_port=htons\((?P<port>\d+)\).*?inet_pton\(AF_INET6, "(?P<address>[^"]+)", &sin6_addr\)'
)
# -yy decoration of a connected socket: "UDP:[10.0.0.2:4375->10.0.0.1:53]",
# "TCPv6:[[fd00::2]:4375->[2001:db8::1]:443]"
_DECOR = re.compile(
    r"^(?P<transport>[A-Z]+?)(?:v6)?:\[.*->\[?(?P<address>[^\]]*?)\]?:(?P<port>\d+)\]$"
)
_TRANSPORT = re.compile(r"^(?P<transport>UDP|TCP|UDPLITE|SCTP|RAW)(?:v6)?:")


@dataclass(frozen=True)
class Contact:
    """One traced call aimed at an internet address."""

    pid: int
    process: str
    call: str
    transport: str  # "UDP", "TCP", ... from strace's -yy socket decoding; "" if unknown
    address: str
    port: int

    def describe(self) -> str:
        transport = self.transport or "socket"
        who = f"{self.process or '?'}[{self.pid}]"
        return f"{who} {self.call} {transport} {self.address} port {self.port}"


def parse_strace_line(line: str) -> Contact | None:
    """The internet destination of one ``strace -f -Y -yy`` line, or None (another call,
    a ``resumed`` tail, a UNIX or netlink address, a send on a socket with no destination
    shown). The destination is the call's own address argument, else (a send on a
    connected socket) the peer in the ``-yy`` decoding of its file descriptor."""
    prefix = _PREFIX.match(line)
    if prefix is None:
        return None
    rest = line[prefix.end() :]
    call = _CALL.match(rest)
    if call is None:
        return None
    decor = call.group("decor") or ""
    transport_match = _TRANSPORT.match(decor)
    transport = transport_match.group("transport") if transport_match else ""
    pid, process, name = int(prefix.group("pid")), prefix.group("comm") or "", call.group("call")
    family = _FAMILY.search(rest)
    if family is not None:
        pattern = {"AF_INET": _INET, "AF_INET6": _INET6}.get(family.group("family"))
        found = pattern.search(rest, family.end()) if pattern is not None else None
        if found is None:
            return None  # AF_UNIX, AF_NETLINK, AF_UNSPEC, ...
        return Contact(
            pid, process, name, transport, found.group("address"), int(found.group("port"))
        )
    peer = _DECOR.match(decor)
    if name != "connect" and peer is not None:
        return Contact(
            pid, process, name, transport, peer.group("address"), int(peer.group("port"))
        )
    return None


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and the IPv4-mapped form of 127.0.0.0/8."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def is_route_probe(contact: Contact) -> bool:
    return (contact.transport, contact.call, contact.address, contact.port) in ROUTE_PROBES


def beyond_loopback(lines: Sequence[str]) -> list[Contact]:
    """Every traced contact with an address outside loopback, but the documented route
    probes (a send on such a socket is a contact of its own and is reported)."""
    contacts = (parse_strace_line(line) for line in lines)
    return [c for c in contacts if c and not is_loopback(c.address) and not is_route_probe(c)]


# ----------------------------------------------------------------------------- commands


def strace_command(command: Sequence[str], output: Path) -> list[str]:
    """``command`` under strace: every process and thread, thread names, socket peers.

    ``--seccomp-bpf`` stops a traced process only at the calls traced. Without it, strace
    stopped every thread of the browser at every system call: 12 s idle became more than
    600 s under a load of 15 on two cores, as each stop waited for the tracer's turn."""
    return [
        "strace",
        "-f",
        "--seccomp-bpf",
        "-qq",
        "-Y",
        "-yy",
        "-e",
        "trace=" + ",".join(TRACED_CALLS),
        "-o",
        str(output),
        *command,
    ]


def namespace_command(command: Sequence[str]) -> list[str]:
    """``command`` in a new network namespace whose only interface is ``lo`` (root only)."""
    ip = shutil.which("ip") or "/usr/sbin/ip"
    return [
        "unshare",
        "--net",
        "--",
        "sh",
        "-c",
        f'{ip} link set lo up && exec "$@"',
        "sh",
        *command,
    ]


def why_no_namespace() -> str | None:
    """None when a loopback-only network namespace can be made here, else why not."""
    if os.geteuid() != 0:
        return "a network namespace needs root (unshare --net)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed; install it with `bash ci/setup.sh`"
    if shutil.which("ip") is None and not os.path.exists("/usr/sbin/ip"):
        return "ip (iproute2) is not installed; install it with `bash ci/setup.sh`"
    probe = subprocess.run(namespace_command(["true"]), capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"unshare --net failed here: {probe.stderr.strip() or probe.returncode}"
    return None


def why_no_strace() -> str | None:
    """None when strace can trace a child here, else why not."""
    if shutil.which("strace") is None:
        return "strace is not installed; install it with `bash ci/setup.sh`"
    with tempfile.NamedTemporaryFile(prefix="skidpad-strace-", suffix=".txt") as out:
        probe = subprocess.run(
            strace_command(["true"], Path(out.name)), capture_output=True, text=True, check=False
        )
    if probe.returncode != 0:
        return f"strace cannot trace here: {probe.stderr.strip() or probe.returncode}"
    return None


# ------------------------------------------------------------------------------ targets


def default_recording(root: Path = ROOT) -> Path:
    """The smallest committed recording (the cheapest full replay)."""
    recordings = sorted(
        (root / "recordings").glob("*.json"), key=lambda p: (p.stat().st_size, p.name)
    )
    if not recordings:
        raise SystemExit(f"netcheck: no recordings in {root / 'recordings'}")
    return recordings[0]


def run_browser_runtime(name: str, recording: Path, wheel: Path | None) -> dict[str, Any]:
    """One start of the harness's adapter for ``name``: the math self-test plus one
    recording, compared with ``hashes/``. The fast-path check, which needs no network and
    costs seconds in Pyodide, is the parity matrix's (ADR 0245)."""
    from skidpad.parity.harness import run_runtime
    from skidpad.parity.runs import load_recordings
    from skidpad.parity.verdicts import compare_runs

    recordings = load_recordings([recording], ROOT)
    run = run_runtime(
        name, recordings, wheel=wheel, progress=lambda _m: None, fastpath=False
    )
    matrix = compare_runs([run], recordings, ROOT / "hashes")
    cell = matrix.cells[name][recordings[0].name]
    return {
        "target": name,
        "ok": matrix.ok,
        "status": run.status,
        "error": run.error,
        "math": matrix.math[name].status,
        "recording": recordings[0].name,
        "verdict": cell.status,
        "detail": cell.detail or "; ".join(matrix.problems),
        "wall_s": round(run.wall_s, 2),
    }


SANDBOX_RUN_S = 1.5


def run_sandbox_page(recording: Path, wheel: Path | None) -> dict[str, Any]:
    """The sandbox page (``skidpad sandbox``'s files and server) in Chromium with the
    runtime's switches: it boots, drives in real time for a few seconds and hands out a
    state hash, asking the server for nothing outside its allow-list. (A live drive has no
    golden file; ``recording`` is not used.)"""
    from playwright.sync_api import sync_playwright
    from skidpad.parity.runtimes.chromium import ChromiumRuntime
    from skidpad.parity.runtimes.page import default_wheel
    from skidpad.parity.server import DEFAULT_PYODIDE_DIR, LoopbackServer
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.serve import page_url

    wheel = wheel if wheel is not None else default_wheel()
    server = LoopbackServer(wheel, DEFAULT_PYODIDE_DIR, WEB_DIR, WEB_FILES)
    base = server.start()
    result: dict[str, Any] = {"target": "sandbox", "ok": False, "status": "failed"}
    profile = tempfile.mkdtemp(prefix="skidpad-sandbox-")
    try:
        with sync_playwright() as pw:
            context = ChromiumRuntime.launch_context(pw, profile, timeout=TIME_LIMIT_S * 1000)
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(TIME_LIMIT_S * 1000)
            page.goto(page_url(base, wheel.name, "hatchbackFwd"), wait_until="load")
            page.evaluate("() => window.skidpad.ready")
            first = page.evaluate("() => window.skidpad.car().step")
            page.wait_for_timeout(SANDBOX_RUN_S * 1000)
            last = page.evaluate("() => window.skidpad.car().step")
            state_hash = page.evaluate("() => window.skidpad.stateHash()")
            context.close()
        refused = server.refused()
        result.update(
            ok=bool(state_hash) and last > first and not refused,
            status="ok",
            steps=last - first,
            state_hash=state_hash,
            refused=[f"{m} {path} -> {code}" for m, path, code in refused],
        )
    except Exception as exc:  # the failure is the result, reported by the caller
        result["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        server.stop()
        shutil.rmtree(profile, ignore_errors=True)
    return result


Target = Callable[[Path, "Path | None"], dict[str, Any]]


def _browser(name: str) -> Target:
    return lambda recording, wheel: run_browser_runtime(name, recording, wheel)


#: What the proof runs, one start each; another page joins by adding its runner here.
#: The browser each target needs installed.
TARGET_BROWSER = {
    "chromium": "chromium",
    "firefox": "firefox",
    "webkit": "webkit",
    "sandbox": "chromium",
}

TARGETS: dict[str, Target] = {
    **{name: _browser(name) for name in ("chromium", "firefox", "webkit")},
    "sandbox": run_sandbox_page,
}


@dataclass
class Outcome:
    """One checked run: what the target said, and (traced) the contacts beyond loopback."""

    target: str
    returncode: int
    result: dict[str, Any] | None
    output: str
    contacts: list[Contact]

    @property
    def matched(self) -> bool:
        return self.returncode == 0 and bool(self.result and self.result.get("ok"))

    def report(self) -> str:
        lines = [f"{self.target}: run {'matched' if self.matched else 'FAILED'}"]
        if not self.matched:
            lines.append(json.dumps(self.result) if self.result else self.output[-4000:])
        for contact in self.contacts:
            lines.append(f"  beyond loopback: {contact.describe()}")
        return "\n".join(lines)


def _inner_command(target: str, recording: Path, wheel: Path | None) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "skidpad.sandbox.netcheck",
        "run",
        target,
        "--recording",
        str(recording),
    ]
    return [*command, "--wheel", str(wheel)] if wheel is not None else command


def _run(command: Sequence[str]) -> tuple[int, dict[str, Any] | None, str]:
    proc = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=TIME_LIMIT_S, check=False
    )
    result = None
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            result = json.loads(line)
            break
    return proc.returncode, result, proc.stdout + proc.stderr


def isolated(target: str, recording: Path, wheel: Path | None) -> Outcome:
    """Run ``target`` once inside a loopback-only network namespace."""
    code, result, output = _run(namespace_command(_inner_command(target, recording, wheel)))
    return Outcome(target, code, result, output, [])


def traced(target: str, recording: Path, wheel: Path | None, keep: Path | None = None) -> Outcome:
    """Run ``target`` once under strace; the contacts beyond loopback it made."""
    with tempfile.TemporaryDirectory(prefix="skidpad-netcheck-") as tmp:
        trace = Path(tmp) / "strace.txt"
        code, result, output = _run(strace_command(_inner_command(target, recording, wheel), trace))
        text = trace.read_text(errors="replace") if trace.exists() else ""
        if keep is not None:
            from skidpad.replay import output

            output.write_text(keep, text)
    return Outcome(target, code, result, output, beyond_loopback(text.splitlines()))


# --------------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m sandbox.netcheck", description=__doc__.split("\n")[0]
    )
    parser.add_argument("mode", choices=("run", "trace", "isolated"))
    parser.add_argument("target", choices=sorted(TARGETS))
    parser.add_argument("--recording", type=Path, help="default: the smallest recordings/*.json")
    parser.add_argument("--wheel", type=Path, help="the project wheel (default: built)")
    parser.add_argument("--keep", type=Path, help="trace: keep the raw strace output here")
    args = parser.parse_args(argv)
    recording = args.recording or default_recording()
    if not recording.is_file():
        print(f"netcheck: recording not found: {recording}", file=sys.stderr)
        return 2
    if args.wheel is not None and not args.wheel.is_file():
        print(f"netcheck: wheel not found: {args.wheel}", file=sys.stderr)
        return 2
    if args.mode == "run":
        result = TARGETS[args.target](recording, args.wheel)
        print(json.dumps(result))
        return 0 if result["ok"] else 1
    why = why_no_strace() if args.mode == "trace" else why_no_namespace()
    if why is not None:
        print(f"netcheck: {why}", file=sys.stderr)
        return 2
    if args.mode == "trace" and args.keep is not None:
        from skidpad.replay import output

        try:
            output.preflight([args.keep], [recording])
        except output.OutputError as exc:
            print(f"netcheck: {exc}", file=sys.stderr)
            return 2
    wheel = args.wheel
    if wheel is None:
        from skidpad.parity.wheel import build_wheel

        wheel = Path(build_wheel())  # built here: the namespace has no network for pip
    if args.mode == "trace":
        outcome = traced(args.target, recording, wheel, args.keep)
    else:
        outcome = isolated(args.target, recording, wheel)
    print(outcome.report())
    if args.mode == "trace" and not outcome.contacts:
        print("  nothing beyond loopback")
    return 0 if outcome.matched and not outcome.contacts else 1


if __name__ == "__main__":
    sys.exit(main())
