"""``skidpad fuzz``: random drives in several runtimes, every disagreement saved and diffed.

See ``parity.fuzz`` for the campaign (cells, log, verdicts, what a divergence folder holds).
Without ``--scheduler`` the cells run on a dask ``LocalCluster`` of ``--jobs`` workers on
127.0.0.1 when dask is installed, else on a plain local pool (ADR 0145). Progress goes to
stderr on a terminal; each finding and the final count go to stdout. Exit 0 when every drive
agrees in every runtime, 1 on any divergence or error, 2 on bad input.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

from skidpad.cli.options import (
    MAX_JOBS,
    MAX_TIMEOUT_S,
    add_checkpoint_every,
    at_least_one,
    check_known,
    int_in,
    seconds_in,
)
from skidpad.parity.executor import add_scheduler_argument
from skidpad.parity.harness import RUNTIME_NAMES

DEFAULT_RUNTIMES = ("cpython3.11", "cpython3.12")
MAX_DRIVES = 10_000_000
MAX_DURATION_S = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from skidpad.scenarios.random_drive import FUZZ_PRESETS

    parser.add_argument("--drives", type=int, required=True, metavar="N", help="random drives")
    parser.add_argument(
        "--presets",
        action="append",
        metavar="P",
        help=f"presets to draw from, a comma list (default: {','.join(FUZZ_PRESETS)})",
    )
    parser.add_argument(
        "--runtimes",
        "--runtime",
        "-r",
        action="append",
        metavar="R",
        help=f"runtimes, a comma list (default: {','.join(DEFAULT_RUNTIMES)}); "
        f"of {', '.join(RUNTIME_NAMES)}",
    )
    parser.add_argument(
        "--seed", type=int_in(0, 10**18 - 1), default=0, metavar="S", help="campaign seed (0)"
    )
    parser.add_argument(
        "--duration", type=float, default=10.0, metavar="T", help="seconds per drive (10)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("build/fuzz"), metavar="DIR", help="default build/fuzz"
    )
    parser.add_argument(
        "--batch", type=int_in(1, 10**6), default=10, metavar="B", help="drives per task (10)"
    )
    add_checkpoint_every(parser, default=10)
    parser.add_argument(
        "--max-substep-hz",
        type=int,
        default=20000,
        metavar="HZ",
        help="highest substep rate drawn, 100-20000 (default 20000, the definition's limit)",
    )
    parser.add_argument(
        "--jobs",
        type=int_in(1, MAX_JOBS),
        default=min(os.cpu_count() or 1, MAX_JOBS),
        metavar="N",
        help="local workers (default: the machine's cores)",
    )
    add_scheduler_argument(parser)
    parser.add_argument("--root", type=Path, help="the checkout (default: found from the cwd)")
    parser.add_argument("--wheel", type=Path, help="the project wheel (default: built)")
    parser.add_argument(
        "--timeout",
        type=seconds_in(MAX_TIMEOUT_S),
        default=1800.0,
        metavar="S",
        help="time limit per drive",
    )
    parser.add_argument(
        "--start-timeout",
        type=seconds_in(MAX_TIMEOUT_S),
        default=240.0,
        metavar="S",
        help="time limit per start",
    )


def campaign_of(args: argparse.Namespace):  # -> parity.fuzz.Campaign
    """The campaign the arguments ask for; HarnessError (exit 2) names the first bad one."""
    from skidpad.cli import comma_list
    from skidpad.engine.fourwheel.definition import PRESET_NAMES
    from skidpad.parity.fuzz import Campaign
    from skidpad.parity.runs import HarnessError
    from skidpad.scenarios.random_drive import FUZZ_PRESETS

    if not 1 <= args.drives <= MAX_DRIVES:
        raise HarnessError(f"--drives {args.drives}: must be within 1..{MAX_DRIVES}")
    if not 0.0 < args.duration <= MAX_DURATION_S:
        raise HarnessError(
            f"--duration {args.duration:g}: must be within (0, {MAX_DURATION_S:g}] s"
        )
    at_least_one(
        ("--batch", args.batch),
        ("--jobs", args.jobs),
        ("--checkpoint-every", args.checkpoint_every),
        error=HarnessError,
    )
    if not 100 <= args.max_substep_hz <= 20000:
        raise HarnessError(f"--max-substep-hz {args.max_substep_hz}: must be within 100..20000")
    if args.seed < 0:
        raise HarnessError(f"--seed {args.seed}: must be >= 0")
    presets = comma_list(args.presets, "--presets") or list(FUZZ_PRESETS)
    check_known(presets, PRESET_NAMES, "--presets", "preset", HarnessError)
    runtimes = comma_list(args.runtimes, "--runtimes") or list(DEFAULT_RUNTIMES)
    unknown = [r for r in runtimes if r not in RUNTIME_NAMES]
    if unknown:
        raise HarnessError(
            f"--runtimes {unknown[0]}: unknown runtime; known: {', '.join(RUNTIME_NAMES)}"
        )
    if len(runtimes) < 2:
        raise HarnessError(f"--runtimes {runtimes[0]}: at least two runtimes, to compare")
    return Campaign(
        drives=args.drives,
        presets=tuple(presets),
        runtimes=tuple(runtimes),
        seed=args.seed,
        duration_s=float(args.duration),
        batch=args.batch,
        checkpoint_every=args.checkpoint_every,
        max_substep_hz=args.max_substep_hz,
    )


def run(args: argparse.Namespace) -> int:
    from skidpad.parity.executor import check_scheduler, dask_available

    campaign = campaign_of(args)
    check_scheduler(args.scheduler)
    scheduler = args.scheduler or ("local" if dask_available() else None)
    return run_fuzz(args, campaign, scheduler)


def _factory(args: argparse.Namespace, names: tuple[str, ...]):  # -> RuntimeFactory
    """``make_runtime`` with the wheel every runtime runs (built once, here)."""
    from skidpad.parity.harness import make_runtime
    from skidpad.parity.runtimes.cpython import installed_harness
    from skidpad.parity.wheel import build_wheel, find_repo_root

    root = args.root.resolve() if args.root else find_repo_root()
    here = f"cpython{sys.version_info[0]}.{sys.version_info[1]}"
    wheel = args.wheel
    if wheel is None and not (installed_harness() and all(n == here for n in names)):
        wheel = build_wheel(root=root)
    pyodide = root / "node_modules" / "pyodide"
    return functools.partial(
        make_runtime, wheel=wheel, pyodide_dir=pyodide if pyodide.is_dir() else None
    )


def run_fuzz(args: argparse.Namespace, campaign, scheduler: str | None, factory=None) -> int:
    """The campaign on the executor ``scheduler`` names; ``factory`` replaces the adapters."""
    from skidpad.parity.executor import make_executor
    from skidpad.parity.fuzz import CampaignLog, run_campaign, summary_line
    from skidpad.replay.progress import Progress

    CampaignLog(args.out, campaign).open()  # another campaign's log is refused before any work
    factory = factory or _factory(args, campaign.runtimes)
    executor = make_executor(scheduler, args.jobs)
    bar = Progress(0, "fuzz", unit="tasks")
    try:
        print(f"fuzz: running on {executor.description}", file=sys.stderr, flush=True)
        outcome = run_campaign(
            campaign,
            args.out,
            executor,
            factory,
            start_timeout_s=args.start_timeout,
            request_timeout_s=args.timeout,
            say=lambda line: (bar.close(), print(line, flush=True)),
            bar=bar,
        )
    finally:
        bar.close()
        executor.close()
    print(summary_line(campaign, outcome))
    return 1 if outcome.diverge or outcome.errors else 0
