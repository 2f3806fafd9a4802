"""The interface every runtime adapter implements (docs/architecture.md §5).

An adapter starts its runtime once (``start``), runs any number of worker
requests in it (``run``: the JSON request of ``parity.worker.run_request`` in,
its JSON response out, with ``"runtime"`` filled in), and stops it (``stop``).
Adapters only transport JSON: the computing is done by ``parity.worker``
inside the runtime, so every runtime runs exactly the same Python.
"""

from __future__ import annotations

from typing import Any

from skidpad.engine.errors import SkidpadError


class RuntimeUnavailable(SkidpadError):
    """The runtime is not installed here; the message says which command installs it."""


class RuntimeFailed(Exception):
    """The runtime started but a step failed, timed out or the process died.

    ``runtime`` names it; ``log`` keeps the console output for the report.
    """

    def __init__(self, runtime: str, message: str, log: str = "") -> None:
        self.runtime = runtime
        self.log = log
        super().__init__(f"{runtime}: {message}")


class Runtime:
    """Base class: subclasses set ``name`` and implement the three methods."""

    name: str = "?"

    def start(self, timeout_s: float = 120.0) -> dict[str, Any]:
        """Start the runtime; return ``{"name", "version", "startup_s"}``."""
        raise NotImplementedError

    def run(self, request: dict[str, Any], timeout_s: float = 1800.0) -> dict[str, Any]:
        """Run one worker request; return the worker's response plus ``"runtime"``."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the runtime; safe to call twice or after a failed start."""
        raise NotImplementedError

    def __enter__(self) -> Runtime:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
