"""The repository documents itself: the architecture page and an ADR index that lists
every decision record with a status."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADR_DIR = ROOT / "docs" / "adr"
ROW = re.compile(r"^\| \[(\d{4})\]\(([^)]+)\) \| (.+) \| (.+) \|$")


def index_rows() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in (ADR_DIR / "README.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(4))
    return rows


def test_every_adr_is_indexed_with_a_status() -> None:
    rows = index_rows()
    files = sorted(p.name for p in ADR_DIR.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert files, "no ADR files found"
    missing = [f for f in files if f[:4] not in rows]
    assert not missing, f"ADRs not in docs/adr/README.md: {missing}"
    for number, (target, status) in rows.items():
        assert (ADR_DIR / target).is_file(), f"index row {number} links a missing file {target}"
        assert status.startswith(("accepted", "superseded by")), f"ADR {number}: status {status!r}"


ADR_WORDS = 500  # one screen of the project's prose


def test_every_adr_is_a_decision_that_fits_one_screen() -> None:
    """An ADR states a decision, its context and what follows (issue 33): measurements,
    walkthroughs and progress reports belong to the documentation pages it links."""
    long = {}
    for path in sorted(ADR_DIR.glob("[0-9][0-9][0-9][0-9]-*.md")):
        words = len(path.read_text(encoding="utf-8").split())
        if words > ADR_WORDS:
            long[path.name] = words
    assert not long, f"ADRs over {ADR_WORDS} words: {long}"


def test_superseded_adrs_name_an_existing_successor() -> None:
    rows = index_rows()
    for number, (_target, status) in rows.items():
        m = re.match(r"superseded by (\d{4})", status)
        if m:
            assert m.group(1) in rows, f"ADR {number} is superseded by a missing ADR {m.group(1)}"


def test_readme_links_the_architecture_and_the_adr_index() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (ROOT / "docs" / "architecture.md").is_file()
    assert "docs/architecture.md" in readme
    assert "docs/adr/README.md" in readme


def test_the_repository_cites_no_design_document_outside_itself() -> None:
    import subprocess

    try:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        import pytest

        pytest.skip("not a git checkout")
    outside = ("DESIGN" + " §", "shared" + " documents", "../" + "shared")
    offenders = []
    for name in listed:
        path = ROOT / name
        if not name or not path.is_file() or path.suffix in (".png", ".whl", ".wasm", ".zip"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        offenders += [f"{name}: {needle}" for needle in outside if needle in text]
    assert not offenders, offenders


def test_the_readme_test_command_is_what_ci_runs() -> None:
    """README's test command and ``.ci/run``'s TEST_CMD are one command, and it builds the
    documentation site."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^bash ci/setup\.sh && (nox -s [^\n]+)$", readme, re.M)
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_cmd = re.search(r'^TEST_CMD="([^"]+)"$', run, re.M)
    assert test_cmd, ".ci/run has no TEST_CMD line"
    assert test_cmd.group(1) in commands, (test_cmd.group(1), commands)
    assert " docs " in f" {test_cmd.group(1)} "


def test_the_readme_reads_in_five_minutes() -> None:
    """Under 200 lines; the manual lives in docs/ (issue 33)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, len(lines)
