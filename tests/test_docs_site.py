"""The documentation site (mkdocs.yml, ADR 0240), as built by ``nox -s docs``: the API
reference lists every public name, the command-line reference every subcommand and option,
and the strict build refuses a broken link, a missing page and a page left out of the
navigation.

``nox -s docs`` builds the site and runs this module with ``SKIDPAD_DOCS_SITE`` naming it;
the generator is not in the ``tests`` session's environment, so there these tests say they
belong to the docs session (``-ra`` lists them)."""

from __future__ import annotations

import argparse
import ast
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = os.environ.get("SKIDPAD_DOCS_SITE")
pytestmark = pytest.mark.skipif(
    not SITE, reason="checks the built site: run by `nox -s docs` (SKIDPAD_DOCS_SITE)"
)


def public_names() -> list[str]:
    """``skidpad.__all__`` read from the source, not from the hook that renders it."""
    tree = ast.parse((ROOT / "skidpad" / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return [ast.literal_eval(e) for e in node.value.elts]
    raise AssertionError("skidpad/__init__.py has no __all__")


def page(relative: str) -> str:
    path = Path(SITE) / relative
    assert path.is_file(), f"the site has no {relative}"
    return html.unescape(path.read_text("utf-8"))


def test_the_api_reference_has_an_entry_for_every_public_name() -> None:
    text = page("reference/api.html")
    names = public_names()
    assert len(names) >= 20
    missing = [n for n in names if f'id="skidpad.{n}"' not in text]
    assert not missing, f"API reference lacks {missing}"
    # documented entries, not empty headings: the docstrings' words are there, as written
    for name in ("Simulation", "verify"):
        import skidpad

        first_line = getattr(skidpad, name).__doc__.strip().splitlines()[0]
        words = re.sub(r"``?([^`]+)``?", r"\1", first_line).split(" (")[0]
        assert words in re.sub(r"<[^>]+>", "", text), f"{name}: {words!r} not on the page"


def test_the_cli_reference_has_every_subcommand_and_its_options() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from skidpad.cli import COMMANDS, build_parser
    finally:
        sys.path.remove(str(ROOT))
    text = page("reference/cli.html")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in COMMANDS:
        assert re.search(rf"<h2[^>]*>skidpad {re.escape(name)}\b", text), name
        for action in sub.choices[name]._actions:
            for option in action.option_strings:
                assert option in text, f"skidpad {name} {option} is not in the reference"


def test_every_page_of_the_navigation_was_built() -> None:
    for relative in ("index.html", "architecture.html", "validation.html", "comparison.html",
                     "external-host.html", "adr/index.html", "reports/benchmarks.html"):
        page(relative)
    # the reports carry their plots
    assert (Path(SITE) / "validation" / "step_steer.png").is_file()


def _build(tmp_path: Path, pages: dict[str, str], nav: list[str]) -> subprocess.CompletedProcess:
    """A small site that inherits mkdocs.yml's settings (strictness and validation), with
    only ``pages`` in its docs folder."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in pages.items():
        (docs / name).write_text(text, "utf-8")
    config = tmp_path / "mkdocs.yml"
    nav_yaml = "".join(f"  - {n}\n" for n in nav)
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {docs}\nsite_dir: {tmp_path / 'site'}\n"
        f"hooks: []\nnot_in_nav: ''\nnav:\n{nav_yaml}",
        "utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", *_ci_build(), "-f", str(config)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )


def _ci_build() -> tuple:
    """The build command the docs session runs (``MKDOCS_BUILD`` in noxfile.py): the faults
    below are planted under the very flags CI builds with."""
    tree = ast.parse((ROOT / "noxfile.py").read_text("utf-8"))
    for node in tree.body:
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "MKDOCS_BUILD" for t in targets):
            return ast.literal_eval(node.value)
    raise AssertionError("noxfile.py names no MKDOCS_BUILD")


def test_the_strict_build_passes_a_sound_site(tmp_path: Path) -> None:
    proc = _build(tmp_path, {"index.md": "# Home\n\n[the other](other.md)\n",
                             "other.md": "# Other\n"}, ["index.md", "other.md"])
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("pages", "nav", "complaint"),
    [
        ({"index.md": "# Home\n\n[gone](missing.md)\n"}, ["index.md"], "missing.md"),
        ({"index.md": "# Home\n\n[x](index.md#no-such-anchor)\n"}, ["index.md"], "no-such-anchor"),
        ({"index.md": "# Home\n"}, ["index.md", "absent.md"], "absent.md"),
        ({"index.md": "# Home\n", "stray.md": "# Stray\n"}, ["index.md"], "stray.md"),
    ],
    ids=["broken-link", "broken-anchor", "missing-page", "page-outside-the-nav"],
)
def test_the_strict_build_refuses(tmp_path: Path, pages, nav, complaint) -> None:
    proc = _build(tmp_path, pages, nav)
    assert proc.returncode != 0, "the strict build passed a broken site"
    assert complaint in proc.stderr, proc.stderr
