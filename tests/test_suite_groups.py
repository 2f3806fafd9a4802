"""The suite's own plumbing (tests/conftest.py, ADR 0244): a module's tests of one browser
form one xdist group, and every other test is in its module's, so under ``--dist loadgroup``
a module's browser and its pages, and a module's fixtures, are set up on one worker only."""

from __future__ import annotations

import os
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


TREE_CONFTEST = """
import os, pytest
from tests.conftest import pytest_collection_modifyitems  # noqa: F401  (the suite's grouping)

@pytest.fixture(scope="module", params=["chromium", "firefox"])
def browser(request):
    return request.param

@pytest.fixture
def ran(request):
    yield
    with open(os.environ["RAN_LOG"], "a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', '-')} {request.node.nodeid}\\n")
"""

TREE_MODULE = """
import pytest

@pytest.mark.parametrize("i", range(6))
def test_in_a_browser(browser, ran, i):
    pass

@pytest.mark.parametrize("i", range(6))
def test_without_one(ran, i):
    pass
"""


def test_the_installed_pytest_xdist_runs_each_group_on_one_worker(tmp_path: Path) -> None:
    """The groups are worth something only if the scheduler honours them. pytest-xdist 3.8
    passes a test's group to its scheduler as a suffix of the test's node ID, which pytest
    9.2 no longer reads (pytest-dev/pytest-xdist#1386): the marks stay and every test is
    scheduled alone, so each worker starts its own browsers. This runs a small tree under
    ``-n 2 --dist loadgroup`` with the suite's grouping and asserts that every group ran on
    one worker."""
    for name in ("test_one.py", "test_two.py"):
        (tmp_path / name).write_text(TREE_MODULE, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(TREE_CONFTEST, encoding="utf-8")
    log = tmp_path / "ran.log"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2",
         "--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "RAN_LOG": str(log), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers: dict[str, set[str]] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        worker, nodeid = line.split(" ", 1)
        module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
        kind = next((k for k in ("chromium", "firefox") if k in nodeid), "")
        workers.setdefault(f"{module}::{kind}", set()).add(worker)
    assert len(workers) == 6, workers  # two modules, each: two browsers and the rest
    split = {group: sorted(ran) for group, ran in workers.items() if len(ran) > 1}
    assert not split, f"groups run on more than one worker (pytest-xdist#1386?): {split}"


def test_every_sampled_campaign_runs_whole_in_nox_s_campaigns() -> None:
    """A test module that samples in the test command (it reads ``FULL_CAMPAIGNS``) is one
    ``nox -s campaigns`` runs whole, or its full campaign is run nowhere."""
    sampled = sorted(
        f"tests/{path.name}" for path in (ROOT / "tests").glob("test_*.py")
        if "FULL_CAMPAIGNS" in path.read_text(encoding="utf-8") and path.name != Path(__file__).name
    )
    assert sampled, "no test module samples a campaign"
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    listed = noxfile.split("CAMPAIGN_TESTS = [", 1)[1].split("]", 1)[0]
    assert [m for m in sampled if f'"{m}"' not in listed] == []
