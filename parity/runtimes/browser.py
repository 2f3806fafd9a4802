"""The browser runtimes by name: Pyodide in Chromium, Firefox and WebKit (docs/architecture.md §5).

Each browser is a module of its own with its launch recipe (``chromium``, ``firefox``,
``webkit``); what they share (the page protocol, time limits, logs, process clean-up) is
in ``page``, and what Chromium and Firefox share as Playwright pages in
``playwright_page``. This module is the table the harness looks runtimes up in.
"""

from __future__ import annotations

from typing import Any

from skidpad.parity.runtimes.chromium import ChromiumRuntime
from skidpad.parity.runtimes.firefox import FirefoxRuntime
from skidpad.parity.runtimes.page import BrowserRuntime
from skidpad.parity.runtimes.webkit import WebKitRuntime

RUNTIMES: dict[str, type[BrowserRuntime]] = {
    "chromium": ChromiumRuntime,
    "firefox": FirefoxRuntime,
    "webkit": WebKitRuntime,
}

RUNTIME_NAMES = tuple(RUNTIMES)


def runtime_class(name: str) -> type[BrowserRuntime]:
    """The adapter class of browser runtime ``name``."""
    try:
        return RUNTIMES[name]
    except KeyError:
        raise ValueError(
            f"not a browser runtime: {name!r} (known: {', '.join(RUNTIME_NAMES)})"
        ) from None


def missing_parts(name: str, python_packages: bool = True) -> list[str]:
    """What runtime ``name`` needs and does not find here (empty when it can run)."""
    return runtime_class(name).missing_parts(python_packages)


def unavailable_reason(name: str) -> str | None:
    """None when browser runtime ``name`` can run here, else what is missing and the
    command that installs it."""
    return runtime_class(name).unavailable_reason()


def make_runtime(name: str, **kwargs: Any) -> BrowserRuntime:
    """The adapter for browser runtime ``name`` (chromium, firefox, webkit).

    Keyword arguments: ``wheel`` (path of the project wheel; default
    ``parity.wheel.build_wheel()``) and ``pyodide_dir`` (default
    ``node_modules/pyodide``).
    """
    return runtime_class(name)(**kwargs)
