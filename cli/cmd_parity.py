"""``skidpad parity``: the runtime matrix of docs/architecture.md §5 (see ``parity.harness``).

Progress (self-tests and recordings run, ETA) goes to stderr when it is a terminal and
``--json`` is not given. Exit 0 when every runtime agrees with ``hashes/`` and with the
others, 1 on any mismatch, failure, unavailable runtime or missing golden file, 2 on bad
input. ``--runtime`` takes a comma list and may be repeated.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skidpad.cli.options import (
    MAX_JOBS,
    MAX_TIMEOUT_S,
    add_checkpoint_every,
    add_json_flag,
    at_least_one,
    int_in,
    seconds_in,
)
from skidpad.parity.executor import add_scheduler_argument
from skidpad.parity.harness import RUNTIME_NAMES, run_parity
from skidpad.replay.progress import Progress
from skidpad.replay.terminal import printable_lines

DEFAULT_RUNTIMES = ("cpython3.11", "cpython3.12", "cpython3.13", "node")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runtime",
        "-r",
        action="append",
        metavar="R",
        help=f"runtimes to run, a comma list, repeatable (default: {','.join(DEFAULT_RUNTIMES)}); "
        f"of {', '.join(RUNTIME_NAMES)}, or every one via --all",
    )
    parser.add_argument("--all", action="store_true", help="every runtime, browsers included")
    add_json_flag(parser, "the report")
    parser.add_argument(
        "--no-diff",
        action="store_true",
        help="on a mismatch, do not re-run with tracing to find where the runtimes parted",
    )
    parser.add_argument(
        "--selftest-only", action="store_true", help="only the math self-test hash, no recordings"
    )
    parser.add_argument(
        "--sample",
        action="store_true",
        help="the test command's stated sample (ADR 0243): every recording in cpython3.11 but "
        "the archived CommonRoad std files (nox -s history verifies those), a cover of every "
        "model family, drive kind and physics version in the other runtimes",
    )
    parser.add_argument(
        "recordings",
        nargs="*",
        type=Path,
        metavar="RECORDING",
        help="recording files (default: every recordings/*.json)",
    )
    parser.add_argument("--root", type=Path, help="the checkout (default: found from the cwd)")
    parser.add_argument("--wheel", type=Path, help="the project wheel for Pyodide (default: built)")
    parser.add_argument("--hashes", type=Path, help="golden hashes folder (default: ROOT/hashes)")
    parser.add_argument("--report-dir", type=Path, help="default: ROOT/build/parity")
    add_checkpoint_every(parser)
    parser.add_argument(
        "--timeout",
        type=seconds_in(MAX_TIMEOUT_S),
        default=1800.0,
        metavar="S",
        help="time limit per recording",
    )
    parser.add_argument(
        "--start-timeout",
        type=seconds_in(MAX_TIMEOUT_S),
        default=240.0,
        metavar="S",
        help="time limit per start",
    )
    parser.add_argument(
        "--jobs",
        type=int_in(1, MAX_JOBS),
        default=1,
        metavar="N",
        help="runtimes run at the same time (default 1: one after the other); with "
        "--scheduler local, the number of dask workers",
    )
    parser.add_argument(
        "--batch",
        type=int_in(1, 10**6),
        metavar="B",
        help="recordings per task (default: all of a runtime's in one task)",
    )
    add_scheduler_argument(parser)


def run(args: argparse.Namespace) -> int:
    from skidpad.cli import comma_list
    from skidpad.parity.runs import HarnessError
    from skidpad.parity.wheel import find_repo_root

    at_least_one(
        ("--checkpoint-every", args.checkpoint_every),
        ("--jobs", args.jobs),
        ("--batch", args.batch),
        error=HarnessError,
    )
    if args.all:
        names = list(RUNTIME_NAMES)
    else:
        names = comma_list(args.runtime, "--runtime") or list(DEFAULT_RUNTIMES)
    unknown = [n for n in names if n not in RUNTIME_NAMES]
    if unknown:
        raise HarnessError(
            f"--runtime {unknown[0]}: unknown runtime; known: {', '.join(RUNTIME_NAMES)}"
        )
    root = args.root.resolve() if args.root else find_repo_root()
    bar = Progress(0, "parity", unit="runs", quiet=args.json)
    try:
        return _run_parity(args, names, root, bar)
    finally:
        bar.close()


def _print_printable(text: str) -> None:
    """Recording names are file names: print them with control characters escaped."""
    print(printable_lines(text))


def _run_parity(args: argparse.Namespace, names: list[str], root: Path, bar: Progress) -> int:
    return run_parity(
        names,
        root=root,
        recording_paths=args.recordings or None,
        selftest_only=args.selftest_only,
        wheel=args.wheel,
        hashes_dir=args.hashes,
        report_dir=args.report_dir,
        checkpoint_every=args.checkpoint_every,
        start_timeout_s=args.start_timeout,
        request_timeout_s=args.timeout,
        as_json=args.json,
        diff=not args.no_diff,
        jobs=args.jobs,
        scheduler=args.scheduler,
        batch=args.batch,
        sample=args.sample,
        progress=bar.note,
        counter=bar,
        out=_print_printable,
    )
