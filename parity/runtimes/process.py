"""A runtime that is a child process speaking the worker's line protocol (``parity.worker``).

Shared by the CPython and Node adapters (:class:`ProcessRuntime` is their common part). The
child writes one ``@@skidpad {"ready": ...}`` line when it is ready, then answers each request
line on its stdin with one ``@@skidpad <response>`` line on its stdout. Everything else it
prints (stderr, and any non-protocol stdout) is kept as the runtime's log for failure messages.

Timeouts are enforced here: a start or a request that takes longer than its limit kills the
process and raises ``RuntimeFailed`` naming the runtime, the step and the limit, with the
log attached.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from skidpad.parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable
from skidpad.parity.worker import PROTOCOL_PREFIX

_LOG_LINES = 400  # the tail of the child's output kept for failure messages
_EOF = object()


class LineProcess:
    """One child process and its protocol; ``name`` is the runtime name used in every error."""

    def __init__(
        self, name: str, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self._proc: subprocess.Popen[str] | None = None
        self._replies: queue.Queue[object] = queue.Queue()
        self._log: collections.deque[str] = collections.deque(maxlen=_LOG_LINES)
        self._log_lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    # -- output pumps -------------------------------------------------------------------
    def _note(self, line: str) -> None:
        with self._log_lock:
            self._log.append(line.rstrip("\n"))

    def _pump_stdout(self, stream: Any) -> None:
        for line in stream:
            if line.startswith(PROTOCOL_PREFIX):
                self._replies.put(line[len(PROTOCOL_PREFIX) :])
            else:
                self._note(line)
        self._replies.put(_EOF)

    def _pump_stderr(self, stream: Any) -> None:
        for line in stream:
            self._note(line)

    def log(self) -> str:
        """The tail of everything the child printed outside the protocol."""
        with self._log_lock:
            return "\n".join(self._log)

    # -- lifecycle ----------------------------------------------------------------------
    def start(self, timeout_s: float) -> dict[str, Any]:
        """Spawn the child and wait for its ready line; returns it plus ``startup_s``."""
        began = time.perf_counter()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                env=self.env,
                cwd=self.cwd,
                bufsize=1,
            )
        except OSError as exc:
            raise RuntimeUnavailable(f"{self.name}: cannot start {self.argv[0]}: {exc}") from exc
        pumps = ((self._pump_stdout, self._proc.stdout), (self._pump_stderr, self._proc.stderr))
        self._threads = [threading.Thread(target=f, args=(s,), daemon=True) for f, s in pumps]
        for thread in self._threads:
            thread.start()
        ready = self._reply(timeout_s, "starting")
        if not ready.get("ready"):
            self.stop()
            raise RuntimeFailed(self.name, f"unexpected first message {ready!r}", self.log())
        ready["startup_s"] = time.perf_counter() - began
        return ready

    def request(self, request: dict[str, Any], timeout_s: float, what: str) -> dict[str, Any]:
        """Send one request, return its response; ``what`` names the step in errors."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.poll() is not None:
            raise RuntimeFailed(self.name, f"{what}: the runtime is not running", self.log())
        try:
            proc.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
            proc.stdin.flush()
        except OSError as exc:
            raise RuntimeFailed(self.name, f"{what}: the runtime died ({exc})", self.log()) from exc
        reply = self._reply(timeout_s, what)
        if "request_error" in reply:
            message = f"{what}: the worker rejected the request: {reply['request_error']}"
            raise RuntimeFailed(self.name, message, self.log())
        return reply

    def _reply(self, timeout_s: float, what: str) -> dict[str, Any]:
        try:
            item = self._replies.get(timeout=timeout_s)
        except queue.Empty:
            log = self.log()
            self.stop(kill=True)  # it is busy or hung: waiting for a clean exit is pointless
            message = f"{what}: timed out after {timeout_s:g} s"
            raise RuntimeFailed(self.name, message, log) from None
        if item is _EOF:
            code = self._proc.wait(timeout=10) if self._proc else None
            for thread in self._threads:  # let the stderr pump drain the last words
                thread.join(timeout=2)
            log = self.log()
            self.stop()
            raise RuntimeFailed(self.name, f"{what}: the process exited (code {code})", log)
        assert isinstance(item, str)
        try:
            reply = json.loads(item)
        except ValueError as exc:
            raise RuntimeFailed(self.name, f"{what}: malformed reply ({exc})", self.log()) from exc
        if not isinstance(reply, dict):
            raise RuntimeFailed(self.name, f"{what}: reply is not a JSON object", self.log())
        return reply

    def stop(self, kill: bool = False) -> None:
        """Close stdin (the child exits on EOF), then kill it if it lingers (at once with
        ``kill``). Idempotent."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def child_env(extra: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> dict[str, str]:
    """This process's environment without ``drop``, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra or {})
    return env


def describe_request(request: dict[str, Any]) -> str:
    """A short name for a request ("running self-test, lap1"), for timeouts and errors."""
    names = [r.get("name", "?") for r in request.get("recordings", []) if isinstance(r, dict)]
    parts = (["self-test"] if request.get("selftest", True) else []) + names
    return "running " + (", ".join(parts) if parts else "an empty request")


class ProcessRuntime(Runtime):
    """A runtime whose ``start`` spawns one :class:`LineProcess` into ``_proc`` and fills ``info``.

    Running a request, reading the log and stopping are the same for every such child
    (CPython and Node), so they live here once; subclasses only say how to start it.
    """

    def __init__(self) -> None:
        self._proc: LineProcess | None = None
        self.info: dict[str, Any] = {}

    def run(self, request: dict[str, Any], timeout_s: float = 1800.0) -> dict[str, Any]:
        if self._proc is None:
            raise RuntimeFailed(self.name, "run() before start()")
        response = self._proc.request(request, timeout_s, describe_request(request))
        response["runtime"] = {"name": self.name, "version": self.info.get("version")}
        return response

    def log(self) -> str:
        """The child's output outside the protocol ("" before ``start``)."""
        return self._proc.log() if self._proc else ""

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.stop()
