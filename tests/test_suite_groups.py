"""The suite's own plumbing (tests/conftest.py, ADR 0244): a module's tests of one browser
form one xdist group, and every other test is in its module's, so under ``--dist loadgroup``
a module's browser and its pages, and a module's fixtures, are set up on one worker only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import sys, pytest
class Groups:
    def pytest_collection_finish(self, session):
        for item in session.items:
            names = sorted({m.args[0] for m in item.iter_markers("xdist_group")})
            print("GROUP", item.nodeid, ",".join(names))
pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[Groups()])
"""


def test_every_browser_test_is_in_its_modules_group_of_its_browser() -> None:
    modules = ["tests/test_sandbox_e2e.py", "tests/test_sandbox_keep_e2e.py",
               "tests/test_parity_browsers.py"]
    out = subprocess.run([sys.executable, "-c", PROBE, *modules], cwd=ROOT,
                         capture_output=True, text=True, timeout=600).stdout
    rows = [line.split(" ", 2)[1:] for line in out.splitlines() if line.startswith("GROUP ")]
    assert len(rows) > 40, out[-2000:]
    seen = set()
    for nodeid, groups in rows:
        named = [k for k in ("chromium", "firefox", "webkit") if k in nodeid]
        module = nodeid.split("::", 1)[0]
        if named:  # a test of one browser (parameter or fixture name): in that group alone
            assert groups == f"{module}::{named[0]}", (nodeid, groups)
            seen.add(named[0])
        else:  # the others in their module's group: its fixtures are set up once
            assert groups == module, (nodeid, groups)
    assert seen == {"chromium", "firefox", "webkit"}
