"""MkDocs hooks of the documentation site (mkdocs.yml, ADR 0240): what is generated at build
time instead of written by hand, so it cannot drift from the code.

* ``<!-- cli-reference -->`` in a page becomes the ``--help`` of ``skidpad`` and of every
  subcommand, from the same ``argparse`` parsers the command runs (``cli.build_parser``).
* ``<!-- api-reference -->`` becomes one mkdocstrings block per name of ``skidpad.__all__``,
  in that order, so the API page lists exactly the public API.
* mkdocstrings reads the sources statically (griffe); the package is laid out as the wheel
  lays it out (``skidpad/engine``, ``skidpad/replay``, ...) in ``build/docs-src``: the
  package folders linked, ``skidpad/*.py`` copied, so nothing is built or installed for it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "replay", "scenarios", "parity", "sandbox", "cli")
CLI_MARK = "<!-- cli-reference -->"
API_MARK = "<!-- api-reference -->"
#: the width the help text is wrapped to: fixed, so the page does not depend on the terminal
HELP_WIDTH = "100"


def _source_tree() -> Path:
    """``build/docs-src/skidpad``: the checkout's ``skidpad/`` files and its package folders,
    linked as the wheel places them (ADR 0204)."""
    top = ROOT / "build" / "docs-src" / "skidpad"
    top.mkdir(parents=True, exist_ok=True)
    for item in (ROOT / "skidpad").iterdir():
        # copied, not linked: griffe looks for submodules beside the file it resolved
        if item.suffix == ".py" and _stale(top / item.name, item):
            if (top / item.name).is_symlink():
                (top / item.name).unlink()
            (top / item.name).write_bytes(item.read_bytes())
    for package in PACKAGES:
        _link(top / package, ROOT / package)
    return top.parent


def _stale(copy: Path, source: Path) -> bool:
    return copy.is_symlink() or not copy.is_file() or copy.read_bytes() != source.read_bytes()


def _link(link: Path, target: Path) -> None:
    if link.is_symlink() and link.resolve() == target.resolve():
        return
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


def _skidpad() -> Any:
    """``skidpad`` imported from the wheel-shaped tree, the one griffe reads (the checkout's
    root on ``sys.path`` would make griffe read the checkout's ``skidpad/`` instead)."""
    tree = str(_source_tree())
    if tree not in sys.path:
        sys.path.insert(0, tree)
    import skidpad

    return skidpad


def on_config(config: Any, **_kwargs: Any) -> Any:
    _source_tree()
    return config


# Laid out when MkDocs loads this hook (while it validates the configuration), before any
# plugin's on_config: mkdocstrings drops a search path that does not exist yet and would
# read the checkout's own ``skidpad/`` instead, so a first build from a clean clone failed.
_source_tree()


def cli_reference() -> str:
    """The help of ``skidpad`` and each subcommand, as Markdown."""
    _skidpad()
    from skidpad.cli import COMMANDS, build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        parser = build_parser()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parts = ["## skidpad", "", "```text", parser.format_help().rstrip(), "```"]
        for name in COMMANDS:
            parts += ["", f"## skidpad {name}", "", "```text"]
            parts += [sub.choices[name].format_help().rstrip(), "```"]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(parts) + "\n"


def api_reference() -> str:
    """One mkdocstrings block per public name, in ``skidpad.__all__``'s order."""
    skidpad = _skidpad()
    blocks = []
    for name in skidpad.__all__:
        if name.startswith("__"):  # __version__: a string, listed in words
            blocks.append(
                f"## `skidpad.{name}` {{#skidpad.{name}}}\n\n"
                f"The package version, `{skidpad.__version__}`.\n"
            )
        else:
            blocks.append(f"::: skidpad.{name}\n")
    return "\n".join(blocks)


def on_page_markdown(markdown: str, **_kwargs: Any) -> str:
    if CLI_MARK in markdown:
        markdown = markdown.replace(CLI_MARK, cli_reference())
    if API_MARK in markdown:
        markdown = markdown.replace(API_MARK, api_reference())
    return markdown
