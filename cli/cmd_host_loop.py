"""``skidpad host-loop``: the external-host loop predicted from a preset's data and measured.

    skidpad host-loop [--preset P[,P...]|all] [--json] [--docs]

For each preset (default all), with a backward-Euler host owning the driven
wheels at host = substep = 1 kHz: ω_n and ζ predicted and fitted to a small
axle-torque step at several speeds, the divergence speed with the tire's
relaxation off (bisection), the host-rate × speed stability map and the rest
jitter of a car parked on a 20 % grade (:mod:`scenarios.host_loop`). Exits 1
when a check fails (its tolerances: ADR 0203). ``--docs`` regenerates
``docs/external-host.md`` and its plots from this run.
"""

from __future__ import annotations

import argparse
import json
import sys

from skidpad.cli.options import add_json_flag, check_known
from skidpad.engine.fourwheel.definition import PRESET_NAMES
from skidpad.replay.progress import Progress
from skidpad.scenarios import host_loop


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        default="all",
        metavar="P",
        help=f"preset(s), a comma list or 'all' (default: {', '.join(PRESET_NAMES)})",
    )
    add_json_flag(parser, "figures and checks")
    parser.add_argument(
        "--docs", action="store_true", help="regenerate docs/external-host.md and its plots"
    )


def run(args: argparse.Namespace) -> int:
    from skidpad.cli import comma_list

    presets = list(PRESET_NAMES) if args.preset == "all" else comma_list(args.preset, "--preset")
    check_known(presets, PRESET_NAMES, "--preset", "preset")
    if args.docs:
        from skidpad.replay import output
        from skidpad.scenarios import host_loop_report, plots

        plots.require()
        output.preflight([host_loop_report.DOC])
    bar = Progress(len(presets), "host-loop", unit="presets", quiet=args.json)
    results = {}
    verdicts = {}
    for p in presets:
        bar.note(p)
        results[p] = host_loop.analyse(p, progress=lambda msg, p=p: bar.note(f"{p}: {msg}"))
        verdicts[p] = host_loop.checks(results[p])
        bar.advance()
    bar.close()
    failed = [(p, c) for p in presets for c in verdicts[p] if not c.ok]
    if args.docs:
        from skidpad.scenarios import host_loop_report

        for path in host_loop_report.write(results):
            if not args.json:
                print(f"wrote {path}")
    if args.json:
        doc = {p: {**results[p], "checks": [c._asdict() for c in verdicts[p]]} for p in presets}
        print(json.dumps(doc, indent=1))
    else:
        for p in presets:
            print(host_loop_report_table(results[p]))
            for c in verdicts[p]:
                print(f"  {'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
        print(f"{len(failed)} check(s) failed" if failed else "every check passed")
    if failed:
        for p, c in failed:
            print(f"skidpad host-loop: {p}: {c.name}: {c.detail}", file=sys.stderr)
        return 1
    return 0


def host_loop_report_table(result: dict) -> str:
    from skidpad.scenarios import host_loop_report

    return host_loop_report.table(result)
