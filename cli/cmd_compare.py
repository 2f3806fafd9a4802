"""``skidpad compare``: our four-wheel car against an independent simulator.

    skidpad compare commonroad-mb [--json] [--docs]

Drives our car, built from CommonRoad's vehicle 2 (BMW 320i), and CommonRoad's
MB model through the slowly increasing steer, the ISO 7401 step steer and a
sine steer with the same road-wheel angle against time, prints the metric
table (metric, ours, MB with camber-blind tires, tolerance, pass/fail, then MB as
published and the share of the difference its camber accounts for; ADR 0263) and the
time-series statistics,
or JSON with ``--json``, and exits 1 when a metric leaves its tolerance. With
``--docs`` it regenerates ``docs/comparison.md`` and ``docs/comparison/*.png``.
Progress on stderr (runs done, ETA; only on a terminal, not with ``--json``).
The logic is in :mod:`scenarios.comparison`.
"""

from __future__ import annotations

import argparse
import json

from skidpad.cli.options import add_json_flag
from skidpad.engine.errors import SkidpadError
from skidpad.replay.progress import Progress
from skidpad.scenarios.comparison import compare


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="MODEL",
        help=f"the simulator to compare with ({', '.join(compare.MODELS)})",
    )
    add_json_flag(parser, "metrics and verdicts")
    parser.add_argument(
        "--docs",
        action="store_true",
        help="regenerate docs/comparison.md and docs/comparison/*.png",
    )


def run(args: argparse.Namespace) -> int:
    from skidpad.replay.terminal import printable

    if args.model not in compare.MODELS:
        raise SkidpadError(
            f"unknown model {printable(args.model)!r}; known: {', '.join(compare.MODELS)}"
        )
    if args.docs:
        from skidpad.replay import output
        from skidpad.scenarios import plots
        from skidpad.scenarios.comparison import report

        plots.require()
        output.preflight([p for p in report.OUTPUTS if p.parent.is_dir()])
    runs = 3 * len(compare.mv.MANOEUVRES)  # ours, MB judged (camber-blind), MB as published
    if args.docs:
        runs += len(compare.RELAXATION_LENGTHS_M)
    bar = Progress(total=runs, label="compare", unit="runs", quiet=args.json)
    started = False

    def note(msg: str) -> None:
        nonlocal started
        if started:
            bar.advance()
        started = True
        bar.note(msg)

    try:
        result = compare.run(note=note)
        sensitivity = None
        if args.docs:
            note("step: our car at other tire relaxation lengths")
            sensitivity = compare.relaxation_sensitivity()
            bar.advance(len(compare.RELAXATION_LENGTHS_M) - 1)
        bar.advance()
    finally:
        bar.close()
    if args.docs:
        from skidpad.scenarios.comparison import report

        written = report.write(result, sensitivity)
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        print(compare.table(result), end="")
        if args.docs:
            for p in written:
                print(f"wrote {p}")
    return 1 if result.failed else 0
