"""The ``skidpad`` command line (DESIGN §12); also ``python -m replay``.

Every subcommand prints a human table by default and JSON with ``--json``, and
exits 0 on success, 1 on a mismatch or failed check, 2 on bad input (one line
on stderr saying what is wrong, never a traceback).

Each subcommand lives in its own module ``replay/cmd_<name>.py`` exposing
``add_arguments(parser)`` and ``run(args) -> int``; this file only dispatches.
Modules that need optional dependencies (mpmath, Playwright) import them
inside ``run`` so that ``skidpad --help`` works on a bare install.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from engine.errors import SkidpadError
from engine.state import NonFiniteStateError

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2

#: subcommand -> (module, one-line help), in the order ``--help`` lists them.
COMMANDS = {
    "selftest": ("replay.cmd_selftest", "math self-test hash and accuracy summary"),
    "record": ("replay.cmd_record", "drive a preset and write a recording"),
    "replay": ("replay.cmd_replay", "replay recordings: checkpoint and final hashes vs hashes/"),
    "diff": ("replay.cmd_diff", "first divergence between two runs, or a run and hashes/"),
    "bless": ("replay.cmd_bless", "rewrite hashes/ from the current physics, print what changed"),
    "validate": ("scenarios.cmd_validate", "the validation table of the standard manoeuvres"),
    "parity": ("parity.cmd_parity", "the runtime matrix: every recording in every runtime"),
    "sandbox": ("sandbox.cmd_sandbox", "drive a lap in the browser (served on 127.0.0.1)"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with one line, as for any bad input
        self.exit(EXIT_BAD_INPUT, f"skidpad: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="skidpad", description="Bit-reproducible vehicle dynamics.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # a subcommand not built yet
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args._run(args))
    except SkidpadError as exc:
        print(f"skidpad {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except NonFiniteStateError as exc:  # the physics failed: a failed check, not bad input
        print(f"skidpad {args.command}: the physics failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"skidpad {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
