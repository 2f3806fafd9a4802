"""No packet beyond loopback (sandbox/netcheck.py, ADR 0031 and 0105-0108).

* The strace parser, on sample lines of every kind it meets, and on planted processes
  that do reach outside (a UDP send to a documentation address, a DNS lookup): the trace
  check must see them, or it proves nothing.
* Test A: every target of ``netcheck.TARGETS`` (the three browser runtimes, one short
  recording each, and the sandbox page in Chromium) runs inside a loopback-only network
  namespace and still matches ``hashes/`` (the page: boots, drives, hands out a hash).
* Test B: every target runs once under strace on this machine's network and makes no
  connect/send to an address outside 127.0.0.0/8 and ::1.

Each browser starts once per test (its own process, as the proof needs). The namespace
tests skip when there is no root or no ``unshare``; under ``CI=true`` a missing strace or
browser fails instead of skipping.
"""

from __future__ import annotations

import ipaddress
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.parity.runtimes import browser
from skidpad.sandbox import netcheck

from tests.helpers import IN_CI, skip_unless_browser

# ------------------------------------------------------------------------------ parser

UNIX = (
    "812<python3> connect(4<UNIX-STREAM:[66682]>, {sa_family=AF_UNIX, "
    'sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)'
)
NETLINK_ROUTE_QUERY = (
    "10175<Netlink Monitor> sendmsg(28<NETLINK:[68843]>, {msg_name={sa_family=AF_NETLINK, "
    "nl_pid=0, nl_groups=00000000}, msg_namelen=12, msg_iov=[{iov_base=[{nlmsg_len=36, "
    "nlmsg_type=RTM_GETROUTE, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=6, nlmsg_pid=0}, "
    "{rtm_family=AF_INET, rtm_dst_len=32}, [{nla_len=8, nla_type=RTA_DST}, "
    'inet_addr("23.219.91.27")]], iov_len=36}], msg_iovlen=1}, 0) = 36'
)
LOOPBACK_V4 = (
    "10151<MainThread> connect(22<TCP:[70001]>, {sa_family=AF_INET, sin_port=htons(34177), "
    'sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)'
)
LOOPBACK_V6 = (
    "77<node> connect(9<TCPv6:[70002]>, {sa_family=AF_INET6, sin6_port=htons(8080), "
    'sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0'
)
MAPPED_LOOPBACK = (
    "78<node> connect(9<TCPv6:[70003]>, {sa_family=AF_INET6, sin6_port=htons(8080), "
    'sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), '
    "sin6_scope_id=0}, 28) = 0"
)
DNS_CONNECT = (
    "10163<libuv-worker> connect(22<UDP:[68890]>, {sa_family=AF_INET, sin_port=htons(53), "
    'sin_addr=inet_addr("10.255.255.53")}, 16) = 0'
)
DNS_SEND_CONNECTED = (
    "968   sendmmsg(5<UDP:[192.0.2.2:43754->10.255.255.53:53]>, [{msg_hdr={msg_name=NULL, "
    'msg_namelen=0, msg_iov=[{iov_base="\\335\'\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\tlocalhost"..., '
    "iov_len=27}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=27}], 1, "
    "MSG_NOSIGNAL) = 1"
)
V6_SENDTO = (
    '[pid  4321] sendto(7<UDPv6:[71000]>, "\\1\\2", 2, 0, {sa_family=AF_INET6, '
    'sin6_port=htons(3478), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::7", '
    "&sin6_addr), sin6_scope_id=0}, 28 <unfinished ...>"
)
MAPPED_OUTSIDE = (
    "79<chromium> connect(11<TCPv6:[71001]>, {sa_family=AF_INET6, sin6_port=htons(443), "
    'sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::ffff:198.51.100.4", &sin6_addr), '
    "sin6_scope_id=0}, 28) = -1 EINPROGRESS (Operation now in progress)"
)
CHROMIUM_PROBE = (
    "10062<Chrome_ChildIOT> connect(27<UDPv6:[72000]>, {sa_family=AF_INET6, "
    "sin6_port=htons(443), sin6_flowinfo=htonl(0), "
    'inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = 0'
)
SEND_TO_PROBE_ADDRESS = (
    "10062<Chrome_ChildIOT> sendto(27<UDPv6:[[fd00::2]:5000->[2001:4860:4860::8888]:443]>, "
    '"\\0", 1, 0, NULL, 0) = 1'
)
IPC_SENDMSG = (
    "10174<IPC I/O Parent> sendmsg(55<UNIX-STREAM:[69000->69001]>, {msg_name=NULL, "
    'msg_namelen=0, msg_iov=[{iov_base="\\4\\0", iov_len=2}], msg_iovlen=1}, MSG_DONTWAIT) = 2'
)
RESUMED = "10163<libuv-worker> <... sendto resumed>) = 27"
SIGNAL = "8924  --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=8925} ---"


@pytest.mark.parametrize(
    ("line", "address", "port"),
    [
        (LOOPBACK_V4, "127.0.0.1", 34177),
        (LOOPBACK_V6, "::1", 8080),
        (MAPPED_LOOPBACK, "::ffff:127.0.0.1", 8080),
        (DNS_CONNECT, "10.255.255.53", 53),
        (DNS_SEND_CONNECTED, "10.255.255.53", 53),
        (V6_SENDTO, "2001:db8::7", 3478),
        (MAPPED_OUTSIDE, "::ffff:198.51.100.4", 443),
    ],
)
def test_parser_reads_the_destination_of_internet_calls(line: str, address: str, port: int) -> None:
    contact = netcheck.parse_strace_line(line)
    assert contact is not None
    assert (contact.address, contact.port) == (address, port)


@pytest.mark.parametrize("line", [UNIX, NETLINK_ROUTE_QUERY, IPC_SENDMSG, RESUMED, SIGNAL, ""])
def test_parser_ignores_local_sockets_and_other_lines(line: str) -> None:
    assert netcheck.parse_strace_line(line) is None


def test_parser_names_process_call_and_transport() -> None:
    contact = netcheck.parse_strace_line(DNS_SEND_CONNECTED)
    assert contact == netcheck.Contact(968, "", "sendmmsg", "UDP", "10.255.255.53", 53)
    described = netcheck.parse_strace_line(DNS_CONNECT).describe()
    assert described == "libuv-worker[10163] connect UDP 10.255.255.53 port 53"


def test_beyond_loopback_keeps_exactly_the_outside_contacts() -> None:
    lines = [
        UNIX,
        NETLINK_ROUTE_QUERY,
        LOOPBACK_V4,
        LOOPBACK_V6,
        MAPPED_LOOPBACK,
        DNS_CONNECT,
        DNS_SEND_CONNECTED,
        V6_SENDTO,
        MAPPED_OUTSIDE,
        IPC_SENDMSG,
        RESUMED,
    ]
    found = [(c.address, c.port) for c in netcheck.beyond_loopback(lines)]
    assert found == [
        ("10.255.255.53", 53),
        ("10.255.255.53", 53),
        ("2001:db8::7", 3478),
        ("::ffff:198.51.100.4", 443),
    ]


def test_route_probe_is_allowed_only_as_a_udp_connect() -> None:
    assert netcheck.beyond_loopback([CHROMIUM_PROBE]) == []
    # the same address over TCP (a SYN) or any send on the probe's socket is reported
    as_tcp = CHROMIUM_PROBE.replace("UDPv6:", "TCPv6:")
    assert len(netcheck.beyond_loopback([as_tcp])) == 1
    sent = netcheck.beyond_loopback([SEND_TO_PROBE_ADDRESS])
    assert [(c.call, c.address) for c in sent] == [("sendto", "2001:4860:4860::8888")]


# ------------------------------------------------------------------- planted processes


def _strace_or_skip() -> None:
    why = netcheck.why_no_strace()
    if why is not None:
        if IN_CI:
            pytest.fail(f"CI=true and strace cannot run: {why}")
        pytest.skip(why)


def _trace_python(code: str, tmp_path: Path) -> list[netcheck.Contact]:
    out = tmp_path / "strace.txt"
    command = netcheck.strace_command([sys.executable, "-c", code], out)
    subprocess.run(command, capture_output=True, timeout=60, check=False)
    return netcheck.beyond_loopback(out.read_text().splitlines())


def _nameservers() -> list[str]:
    try:
        text = Path("/etc/resolv.conf").read_text()
    except OSError:
        return []
    return [line.split()[1] for line in text.splitlines() if line.startswith("nameserver ")]


def _outside_nameserver() -> str | None:
    for server in _nameservers():
        try:
            if not ipaddress.ip_address(server).is_loopback:
                return server
        except ValueError:
            continue
    return None


def _hosts_name_ipv6_localhost() -> bool:
    try:
        lines = Path("/etc/hosts").read_text().splitlines()
    except OSError:
        return False
    for line in lines:
        fields = line.split("#")[0].split()
        if len(fields) > 1 and ":" in fields[0] and "localhost" in fields[1:]:
            return True
    return False


def test_trace_sees_a_planted_udp_send(tmp_path: Path) -> None:
    _strace_or_skip()
    # 192.0.2.0/24 is a documentation range: the send goes nowhere, but it is attempted
    planted = (
        "import socket\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "try:\n    s.sendto(b'x', ('192.0.2.1', 9))\nexcept OSError:\n    pass\n"
    )
    found = _trace_python(planted, tmp_path)
    assert [(c.call, c.transport, c.address, c.port) for c in found] == [
        ("sendto", "UDP", "192.0.2.1", 9)
    ]


def test_trace_sees_nothing_from_loopback_traffic(tmp_path: Path) -> None:
    _strace_or_skip()
    loopback_only = (
        "import socket\n"
        "srv = socket.create_server(('127.0.0.1', 0))\n"
        "c = socket.create_connection(srv.getsockname())\n"
        "c.sendall(b'hello')\n"
        "u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n"
        "try:\n    u.sendto(b'x', ('::1', 9))\nexcept OSError:\n    pass\n"
    )
    assert _trace_python(loopback_only, tmp_path) == []


@pytest.mark.parametrize(
    "name",
    [
        "skidpad-planted.invalid",  # certainly not in /etc/hosts: a DNS query
        "localhost",  # the leak: its AAAA goes to DNS when /etc/hosts has no ::1 line
    ],
)
def test_trace_sees_a_planted_name_lookup(name: str, tmp_path: Path) -> None:
    _strace_or_skip()
    server = _outside_nameserver()
    if server is None:
        pytest.skip(f"the resolver is on loopback here ({_nameservers()}): no lookup leaves")
    if name == "localhost" and _hosts_name_ipv6_localhost():
        pytest.skip("/etc/hosts names ::1 localhost here: the lookup stays on the machine")
    planted = (
        "import socket\n"
        "try:\n"
        f"    socket.getaddrinfo({name!r}, 80, socket.AF_INET6)\n"
        "except OSError:\n    pass\n"
    )
    found = _trace_python(planted, tmp_path)
    assert (server, 53) in {(c.address, c.port) for c in found}, found


# ----------------------------------------------------------------------- the targets


@pytest.fixture(scope="module")
def project_wheel() -> Path:
    from skidpad.parity.wheel import build_wheel

    return Path(build_wheel())  # built out here: the namespace has no network


@pytest.fixture(scope="module")
def recording() -> Path:
    return netcheck.default_recording()


def _target_or_skip(name: str) -> None:
    skip_unless_browser(netcheck.TARGET_BROWSER[name])


TARGETS = sorted(netcheck.TARGETS)


@pytest.mark.parametrize("name", TARGETS)
def test_target_runs_in_a_loopback_only_network_namespace(
    name: str, recording: Path, project_wheel: Path
) -> None:
    why = netcheck.why_no_namespace()
    if why is not None:
        pytest.skip(why)
    _target_or_skip(name)
    outcome = netcheck.isolated(name, recording, project_wheel)
    assert outcome.matched, outcome.report()
    if name in browser.RUNTIME_NAMES:  # a runtime replays a recording against hashes/
        assert outcome.result["verdict"] == "match" and outcome.result["math"] == "match"


@pytest.mark.parametrize("name", TARGETS)
def test_target_reaches_nothing_beyond_loopback(
    name: str, recording: Path, project_wheel: Path
) -> None:
    _strace_or_skip()
    _target_or_skip(name)
    outcome = netcheck.traced(name, recording, project_wheel)
    assert outcome.matched, outcome.report()
    assert outcome.contacts == [], outcome.report()
