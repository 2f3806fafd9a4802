"""Shared pytest configuration: what several test modules start once per session.

Under pytest-xdist (``nox -s tests`` runs ``--dist loadgroup``) a module-scoped
fixture is set up once per *worker* that runs any test of its module: a browser and the
Pyodide its pages load, a Node runtime, a wheel installed in a fresh virtualenv, a lap
replayed for a module's checks would all be done on each worker. So every test is put in
one xdist group: its module's, and for a test that drives a browser its module's group of
that browser (``tests/test_sandbox_e2e.py::firefox``). A group runs on one worker, which
sets its fixtures up once; the sandbox server is one per worker session (ADR 0244).
"""

from __future__ import annotations

import pytest

BROWSER_KINDS = ("chromium", "firefox", "webkit")


def browser_kind(item: pytest.Item) -> str | None:
    """The browser a test drives: a fixture parameter naming one, or the ``webkit`` fixture."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for value in callspec.params.values():
            if isinstance(value, str) and value in BROWSER_KINDS:
                return value
    if "webkit" in getattr(item, "fixturenames", ()):
        return "webkit"
    return None


def group_of(item: pytest.Item) -> str:
    """The xdist group of a test: its module's (the file's path), and for a test that drives
    a browser, that module's tests of that browser (``tests/test_x.py::chromium``): the
    module's browser fixture starts the browser once, and the browsers of a module, or the
    modules of a browser, run side by side on different workers."""
    module = item.nodeid.split("::", 1)[0]
    kind = browser_kind(item)
    return f"{module}::{kind}" if kind else module


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        # first among the item's marks: xdist reads the closest one
        item.add_marker(pytest.mark.xdist_group(group_of(item)), append=False)


@pytest.fixture(scope="session")
def sandbox_server():
    """The sandbox's loopback server (``skidpad sandbox``'s routes), one per session: the
    wheel, the Pyodide distribution and the archived physics zips it serves are looked up
    once."""
    from skidpad.parity.server import LoopbackServer
    from skidpad.sandbox import WEB_DIR, WEB_FILES
    from skidpad.sandbox.serve import physics_routes, project_wheel, pyodide_dir

    wheel = project_wheel()
    extra = physics_routes()  # what `skidpad sandbox` serves: the archived versions' zips
    with LoopbackServer(wheel, pyodide_dir(), WEB_DIR, WEB_FILES, extra=extra) as srv:
        yield srv
