"""Options and checks several subcommands share, declared once.

A bad value is refused in one line that names the option and the value (exit 2, through
:class:`engine.errors.SkidpadError`), before any work starts.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Iterable, Sequence

from skidpad.engine.errors import SkidpadError

#: An integer option as typed: ASCII digits only (``int()`` would take "²" or "1_000"),
#: short enough that no conversion limit or overflow is ever reached.
_INT = re.compile(r"-?[0-9]{1,18}")

#: The most workers any command starts (threads or processes on this machine).
MAX_JOBS = 256
#: The longest per-drive or per-start time limit (seconds): a week.
MAX_TIMEOUT_S = 7 * 24 * 3600.0
#: The most host steps between two checkpoints.
MAX_CHECKPOINT_EVERY = 10**9


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer within ``lo..hi``, refused in one line (exit 2)."""

    def parse(text: str) -> int:
        if not _INT.fullmatch(text.strip()):
            raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected an integer {lo}..{hi}")
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value}: must be within {lo}..{hi}")
        return value

    parse.__name__ = "integer"
    return parse


def seconds_in(hi: float) -> Callable[[str], float]:
    """An argparse ``type``: a finite number of seconds in ``(0, hi]``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected seconds") from None
        if not (math.isfinite(value) and 0.0 < value <= hi):
            raise argparse.ArgumentTypeError(f"{text[:40]}: must be within (0, {hi:g}] seconds")
        return value

    parse.__name__ = "seconds"
    return parse


def add_checkpoint_every(parser: argparse.ArgumentParser, default: int = 100) -> None:
    """``--checkpoint-every N``: host steps between the checkpoint hashes of a run."""
    parser.add_argument(
        "--checkpoint-every",
        type=int_in(1, MAX_CHECKPOINT_EVERY),
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


def chosen_names(given: list | None, known: Sequence[str], what: str) -> list:
    """The names a repeatable comma-list option ``--<what>`` chose (all of ``known`` when
    it was not given), in ``known``'s order; an unknown one refused in one line."""
    from skidpad.cli import comma_list

    if not given:
        return list(known)
    given = comma_list(given, f"--{what}")
    check_known(given, known, f"--{what}", what)
    return [k for k in known if k in given]


def add_preset_option(parser: argparse.ArgumentParser, verb: str = "run") -> None:
    """``--preset P``: the presets to ``verb``, a comma list, repeatable (default all); read
    with ``chosen_names(args.preset, PRESET_NAMES, "preset")``."""
    from skidpad.engine.fourwheel.definition import PRESET_NAMES

    parser.add_argument(
        "--preset",
        action="append",
        metavar="P",
        help=f"preset(s) to {verb}, a comma list, repeatable (default all: "
        f"{', '.join(PRESET_NAMES)})",
    )


#: The largest vehicle definition file read (bytes): a definition with an embedded MF 6.1
#: tire on both axles is some 20 KB.
MAX_DEFINITION_BYTES = 4 * 1024 * 1024


def read_definition(path: str) -> dict:
    """A vehicle definition of a person's own: a JSON file of the presets' schema
    (``engine/fourwheel/presets/``; an MF 6.1 tire embedded under ``mf61``), read as strictly
    as a recording and validated. Anything wrong is one line naming the file and the entry."""
    from skidpad.engine.errors import DefinitionError
    from skidpad.engine.files import read_regular_file
    from skidpad.engine.fourwheel.definition import validate_definition
    from skidpad.replay.document import RecordingError, parse_json

    raw = read_regular_file(path, MAX_DEFINITION_BYTES, DefinitionError, "a definition file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DefinitionError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        return validate_definition(parse_json(text, "a definition file"))
    except (RecordingError, DefinitionError) as exc:
        raise DefinitionError(f"{path}: {exc}") from None
