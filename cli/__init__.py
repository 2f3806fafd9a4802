"""The ``skidpad`` command line (docs/architecture.md §7); also ``python -m skidpad``.

Every subcommand prints a human table by default and JSON with ``--json``, and
exits 0 on success, 1 on a mismatch or failed check, 2 on bad input (one line
on stderr saying what is wrong, never a traceback). Any other exception is a bug, not
bad input: its traceback and a last line saying "internal error", exit 70 (ADR 0210).

This package is the top layer: nothing in ``engine``, ``replay``, ``scenarios``,
``parity`` or ``sandbox`` imports it (ADR 0160). Each subcommand lives in its own
module ``cli/cmd_<name>.py`` exposing ``add_arguments(parser)`` and
``run(args) -> int``; this file only dispatches. Modules that need optional
dependencies (mpmath, Playwright, dask) import them inside ``run`` so that
``skidpad --help`` works on a bare install. A subcommand module that cannot be
imported is an installation fault: the command line says which one and why, and
exits :data:`EXIT_BROKEN_INSTALL`, instead of quietly offering fewer subcommands.

When the reader of stdout goes away (``skidpad replay ... | head -1``), the
command ends at once with no message and exit status 141, what a shell
reports for a program ended by SIGPIPE (ADR 0121). ``skidpad --version``
prints the engine version and the math self-test hash of this runtime.
Several values are given as a comma list (``--preset a,b``); options that
may be repeated accept a comma list in each use too (:func:`comma_list`).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys

from skidpad.engine.errors import SkidpadError
from skidpad.engine.state import NonFiniteStateError
from skidpad.replay.fileset import Interrupted

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2
#: 128 + SIGPIPE: the status a shell shows for a program whose reader went away (ADR 0121).
EXIT_BROKEN_PIPE = 141
#: a subcommand module of this package cannot be imported (sysexits' EX_SOFTWARE).
EXIT_BROKEN_INSTALL = 70
#: an internal error, a bug (sysexits' EX_SOFTWARE): never the bad-input status 2.
EXIT_INTERNAL = 70

#: subcommand -> (module, one-line help), in the order ``--help`` lists them.
COMMANDS = {
    "selftest": ("skidpad.cli.cmd_selftest", "math self-test hash and accuracy summary"),
    "record": ("skidpad.cli.cmd_record", "drive a preset and write a recording"),
    "replay": (
        "skidpad.cli.cmd_replay",
        "replay recordings: checkpoint and final hashes vs hashes/",
    ),
    "verify": ("skidpad.cli.cmd_verify", "replay recordings on their own and check every claim"),
    "diff": ("skidpad.cli.cmd_diff", "first divergence between two runs, or a run and hashes/"),
    "bless": (
        "skidpad.cli.cmd_bless",
        "rewrite hashes/ from the current physics, print what changed",
    ),
    "physics": (
        "skidpad.cli.cmd_physics",
        "physics versions, the archive of earlier ones, what a physics change does to laps",
    ),
    "validate": ("skidpad.cli.cmd_validate", "the validation table of the standard manoeuvres"),
    "host-loop": (
        "skidpad.cli.cmd_host_loop",
        "the external-host loop predicted from a preset's data and measured by simulation",
    ),
    "compare": ("skidpad.cli.cmd_compare", "our car against an independent simulator"),
    "parity": ("skidpad.cli.cmd_parity", "the runtime matrix: every recording in every runtime"),
    "fuzz": (
        "skidpad.cli.cmd_fuzz",
        "random drives in several runtimes; disagreements saved, diffed",
    ),
    "sandbox": ("skidpad.cli.cmd_sandbox", "drive a lap in the browser (served on 127.0.0.1)"),
    "tir": ("skidpad.cli.cmd_tir", "MF 6.1 .tir tire property files: check and summarise"),
    "runoff": (
        "skidpad.cli.cmd_runoff",
        "what leaving the circuit costs: throttle held on grass and track, a shortcut lap",
    ),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with one line, as for any bad input
        from skidpad.replay.terminal import printable

        self.exit(EXIT_BAD_INPUT, f"skidpad: error: {printable(message)}\n")


def comma_list(values: str | list[str] | None, option: str) -> list[str]:
    """The values of ``option`` given as a comma list, possibly repeated (``-r a,b -r c``);
    empty items are refused, duplicates dropped (first use kept)."""
    if values is None:
        return []
    texts = [values] if isinstance(values, str) else list(values)
    items = [item.strip() for text in texts for item in text.split(",")]
    if not items or any(not item for item in items):
        raise SkidpadError(f"{option} {','.join(texts)!r}: an empty name in the list")
    return list(dict.fromkeys(items))


def version_line() -> str:
    """``skidpad <version> (physics <N>, math self-test hash <hash>)``."""
    from skidpad.engine.physics import PHYSICS_VERSION
    from skidpad.replay.recorder import current_math_hash

    from skidpad import engine

    return (
        f"skidpad {engine.__version__} (physics {PHYSICS_VERSION}, "
        f"math self-test hash {current_math_hash() or 'n/a'})"
    )


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_line())
        parser.exit(EXIT_OK)


class SubcommandImportError(Exception):
    """A module named in :data:`COMMANDS` cannot be imported: the installation is broken."""

    def __init__(self, name: str, module_name: str, cause: BaseException) -> None:
        super().__init__(
            f"subcommand {name!r} cannot be imported from {module_name}: "
            f"{type(cause).__name__}: {cause}"
        )


def load_subcommand(name: str, module_name: str):  # -> module with add_arguments and run
    """The module of subcommand ``name``; :class:`SubcommandImportError` when it is missing,
    broken, or lacks ``add_arguments``/``run``."""
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any failure to import is the same installation fault
        raise SubcommandImportError(name, module_name, exc) from exc
    for needed in ("add_arguments", "run"):
        if not callable(getattr(module, needed, None)):
            raise SubcommandImportError(name, module_name, AttributeError(f"no {needed}()"))
    return module


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="skidpad", description="Bit-reproducible vehicle dynamics.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        module = load_subcommand(name, module_name)
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; a closed stdout ends it quietly with :data:`EXIT_BROKEN_PIPE`."""
    try:
        try:
            status = _main(argv)
        finally:  # also for --help and argparse's exits: a reader that went away shows here
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    return status


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's final flush cannot fail too."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (a test's captured stdout)
        pass


def _main(argv: list[str] | None) -> int:
    from skidpad.replay.terminal import printable

    try:
        parser = build_parser()
    except SubcommandImportError as exc:
        print(f"skidpad: broken installation: {printable(exc)}", file=sys.stderr)
        return EXIT_BROKEN_INSTALL
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):  # no command: usage on stderr, as for any bad input
        parser.print_usage(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return int(args._run(args))
    except SkidpadError as exc:
        print(f"skidpad {args.command}: {printable(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except NonFiniteStateError as exc:  # the physics failed: a failed check, not bad input
        print(f"skidpad {args.command}: the physics failed: {printable(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"skidpad {args.command}: interrupted", file=sys.stderr)
        return 130
    except Interrupted as exc:  # a set of files being written: it says which set is there
        print(f"skidpad {args.command}: interrupted ({exc})", file=sys.stderr)
        return exc.status
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise  # main() ends quietly with EXIT_BROKEN_PIPE
        if exc.errno not in _PATH_ERRNOS:
            return _internal_error(args.command, exc)
        # a path given on the command line or named in a file that no system call can take
        print(f"skidpad {args.command}: {printable(exc.filename)}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # not bad input: a bug, said as one, with what is needed to fix it
        return _internal_error(args.command, exc)


#: OSErrors that only a path can cause: a name or path too long, a symlink loop.
_PATH_ERRNOS = frozenset((errno.ENAMETOOLONG, errno.ELOOP))


def _internal_error(command: str, exc: BaseException) -> int:
    """A bug: its traceback, then one line saying it is one; :data:`EXIT_INTERNAL`."""
    import traceback

    from skidpad.replay.terminal import printable

    traceback.print_exc(file=sys.stderr)
    print(
        f"skidpad {command}: internal error (a bug in skidpad, not a problem with the input): "
        f"{type(exc).__name__}: {printable(exc)}",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
