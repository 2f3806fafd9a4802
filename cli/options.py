"""Options and checks several subcommands share, declared once.

A bad value is refused in one line that names the option and the value (exit 2, through
:class:`engine.errors.SkidpadError`), before any work starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

from skidpad.engine.errors import SkidpadError


def add_checkpoint_every(parser: argparse.ArgumentParser, default: int = 100) -> None:
    """``--checkpoint-every N``: host steps between the checkpoint hashes of a run."""
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=default,
        metavar="N",
        help=f"host steps between checkpoints (default {default})",
    )


def at_least_one(
    *options: tuple[str, int | None], error: type[SkidpadError] = SkidpadError
) -> None:
    """Refuse the first ``(option, value)`` whose value is below 1 (None: not given)."""
    for option, value in options:
        if value is not None and value < 1:
            raise error(f"{option} {value}: must be >= 1")


def check_known(
    names: Iterable[str],
    known: Sequence[str],
    option: str,
    what: str,
    error: type[SkidpadError] = SkidpadError,
) -> None:
    """Refuse the first of ``names`` not in ``known``, naming the option and what is known."""
    for name in names:
        if name not in known:
            raise error(f"{option} {name}: unknown {what}; known: {', '.join(known)}")


def add_json_flag(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    """``--json``: print ``what`` as JSON for machines instead of the text for people."""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")
