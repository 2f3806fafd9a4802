"""``skidpad runoff``: what leaving the sandbox circuit costs, measured per preset.

    skidpad runoff [--preset P ...] [--json]

For each preset (default all): the mean acceleration with full throttle held for 2 s from
90 km/h on the runoff's grass and on the same spot made track, and three laps of the lap
driver — the centreline, a shortcut across the grass inside the 60 m sweeper, and the same
shortcut made track — each with its lap time and its time with a wheel on the grass
(:mod:`skidpad.scenarios.runoff`). A table for people; ``--json`` for machines. Progress
on a terminal's stderr (about 6 s of CPU a preset).
"""

from __future__ import annotations

import argparse
import json

from skidpad.cli.options import add_json_flag, add_preset_option, chosen_names
from skidpad.engine.fourwheel.definition import PRESET_NAMES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_preset_option(parser, "measure")
    add_json_flag(parser, "the rows")


def run(args: argparse.Namespace) -> int:
    from skidpad.replay.progress import Progress
    from skidpad.scenarios import runoff

    presets = chosen_names(args.preset, PRESET_NAMES, "preset")
    bar = Progress(len(presets), "runoff", unit="presets", quiet=args.json)
    rows = []
    for preset in presets:
        bar.note(preset)
        rows.extend(runoff.table((preset,)))
        bar.advance()
    bar.close()
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(runoff.markdown(rows), end="")
    return 0
