"""Shared pytest configuration: what several test modules start once per session.

Under pytest-xdist (``nox -s tests`` runs ``-n auto --dist loadgroup``) a module-scoped
fixture is set up once per *worker* that runs any test of its module: a browser and the
Pyodide its pages load, a Node runtime, a wheel installed in a fresh virtualenv, a lap
replayed for a module's checks would all be done on both workers. So every test is put in
one xdist group: the tests that drive a browser in that browser's group (``chromium``,
``firefox``, ``webkit``), whichever module holds them, the others in their module's group.
A group runs on one worker, which sets its fixtures up once; the sandbox server is one per
session (ADR 0244).
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
    """The xdist group of a test: its browser's, else its module's (the file's path)."""
    return browser_kind(item) or item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        # a test's own mark stays (test_parity_browsers.py names its browser, the same group)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group_of(item)))


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
