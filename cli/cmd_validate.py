"""``skidpad validate``: the standard manoeuvres for every preset, against the golden results.

    skidpad validate [--preset P ...] [--scenario S ...] [--course C ...] [--json] [--bless]
                     [--jobs N] [--docs] [--tir FILE] [--definition FILE --preset P]

Runs every (preset, scenario) task — in ``--jobs`` worker processes when N > 1
— with progress on stderr (tasks done, ETA; only on a terminal and without
``--json``), prints the results table (seed 000's columns) or
JSON, and exits 1 when any result breaks its scenario's criteria or leaves
its golden tolerance. ``--bless`` rewrites ``scenarios/golden/validation.json``
from this run (atomically) and prints what changed instead of comparing.
``--docs`` regenerates ``docs/validation.md`` and ``docs/validation/*.png``; a run of some
scenarios only rewrites their columns and plots and keeps the rest of the page.
``--course`` picks the lane change's ISO 3888 course(s) (``3888-1``, ``3888-2``; default
both), each a scenario with its own golden entry, so ``--scenario lane_change --course
3888-2 --bless`` blesses that course alone.
``--tir FILE`` puts the Magic Formula 6.1 tire of a TNO/MF-Tyre property file on both axles
of every preset run (each keeping its wheel radius, inertia, sliding slip and low-speed
damper): the scenarios' own criteria are checked, not the golden results (those are the
presets' own tires), so it goes with neither ``--bless`` nor ``--docs``. A bad file is
refused in one line naming the key, before any scenario runs.
``--definition FILE`` runs a car of one's own: a JSON vehicle definition of the presets'
schema (kinematics, camber and all), validated before any scenario runs (a bad entry is one
line naming it). ``--preset P`` names the one preset whose row of the reference table it is
shown against; like ``--tir``, its scenarios' own criteria are checked, not the golden
results, so it goes with neither ``--bless`` nor ``--docs``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable

from skidpad.cli.options import (
    MAX_JOBS,
    add_json_flag,
    add_preset_option,
    at_least_one,
    chosen_names,
    int_in,
)
from skidpad.engine.errors import SkidpadError
from skidpad.engine.fourwheel.definition import PRESET_NAMES
from skidpad.replay.progress import Progress
from skidpad.scenarios.validation import run as vrun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_preset_option(parser)
    parser.add_argument(
        "--scenario",
        action="append",
        metavar="S",
        help=f"scenario(s) to run, a comma list, repeatable (default all: "
        f"{', '.join(vrun.SCENARIO_NAMES)})",
    )
    parser.add_argument(
        "--course",
        action="append",
        metavar="C",
        help="the lane change's course(s), a comma list, repeatable "
        f"(default all: {', '.join(vrun.LANE_CHANGE_COURSES)})",
    )
    add_json_flag(parser, "figures and verdicts")
    parser.add_argument(
        "--bless",
        action="store_true",
        help="write the golden file from this run and print what changed",
    )
    parser.add_argument(
        "--jobs", type=int_in(1, MAX_JOBS), default=1, metavar="N", help="worker processes"
    )
    parser.add_argument(
        "--docs",
        action="store_true",
        help="regenerate docs/validation.md and docs/validation/*.png",
    )
    parser.add_argument(
        "--tir",
        metavar="FILE",
        help="run the presets on this MF 6.1 .tir tire (both axles; criteria only, no golden)",
    )
    parser.add_argument(
        "--definition",
        metavar="FILE",
        help="run this vehicle definition (JSON, the presets' schema) in place of --preset P, "
        "shown against P's reference row (criteria only, no golden)",
    )


def _quiet(msg: str) -> None:
    """A worker's scenario messages: the progress line counts its tasks instead."""


def _task(args: tuple, note: Callable[[str], None] = _quiet) -> tuple:
    preset, name, tir, definition = args
    t0 = time.perf_counter()
    try:
        res = vrun.run_scenario(
            preset, name, lambda msg: note(f"{preset} {name}: {msg}"), tir, definition
        )
    except SkidpadError as exc:
        return preset, name, None, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0
    return preset, name, res, None, time.perf_counter() - t0


def _preflight(args: argparse.Namespace) -> None:
    """What --bless and --docs will write can be written, before any scenario runs."""
    from skidpad.replay import output

    outputs = [vrun.GOLDEN_PATH] if args.bless else []
    if args.docs:
        from skidpad.scenarios import plots
        from skidpad.scenarios.validation import report

        plots.require()
        outputs += report.OUTPUTS
    # a folder not made yet is made at the write (and refused there in one line if it cannot be)
    output.preflight([p for p in outputs if p.parent.is_dir()])


def _with_courses(names: list, args: argparse.Namespace) -> list:
    """The scenarios to run, the lane change replaced by the scenario of each course asked."""
    courses = chosen_names(args.course, tuple(vrun.LANE_CHANGE_COURSES), "course")
    if args.course and "lane_change" not in names:
        raise SkidpadError("--course: only with the lane_change scenario")
    chosen = {vrun.LANE_CHANGE_COURSES[c] for c in courses}
    out = []
    for n in names:
        if n == "lane_change":
            out += [s for s in vrun.SCENARIOS if s in chosen]
        else:
            out.append(n)
    return out


def _tire_file(args: argparse.Namespace, presets: list) -> dict | None:
    """The parameters of ``--tir``'s file, checked on every preset chosen (None without it)."""
    if args.tir is None:
        return None
    if args.bless or args.docs:
        raise SkidpadError(
            "--tir: not with --bless or --docs (the golden results and the docs are the "
            "presets' own tires)"
        )
    from skidpad.engine.fourwheel import tir
    from skidpad.engine.fourwheel.definition import load_preset, with_tir

    mapping = tir.to_mapping(tir.read_tir(args.tir))
    for preset in presets:
        with_tir(load_preset(preset), mapping)  # (a definition error is refused here)
    return mapping


def _definition_file(args: argparse.Namespace, presets: list) -> dict | None:
    """The definition of ``--definition``'s file, validated (None without it)."""
    if args.definition is None:
        return None
    if args.bless or args.docs or args.tir is not None:
        raise SkidpadError(
            "--definition: not with --bless, --docs or --tir (the golden results and the docs "
            "are the presets' own; put the tire in the definition)"
        )
    if args.preset is None or len(presets) != 1:
        raise SkidpadError(
            "--definition: name the one preset whose reference row it is shown against "
            "(--preset P)"
        )
    from skidpad.cli.options import read_definition

    return read_definition(args.definition)


def run(args: argparse.Namespace) -> int:
    presets = chosen_names(args.preset, PRESET_NAMES, "preset")
    names = _with_courses(chosen_names(args.scenario, vrun.SCENARIO_NAMES, "scenario"), args)
    at_least_one(("--jobs", args.jobs))
    definition = _definition_file(args, presets)
    tire_file = _tire_file(args, presets)
    golden = vrun.load_golden()
    _preflight(args)
    tasks = [(p, n, tire_file, definition) for p in presets for n in names]
    # the longest tasks first so the workers finish together
    order = (
        "timestep_sweep",
        "lane_change",
        "lane_change_3888_2",
        "parking",
        "surfaces",
        "iso4138",
    )
    tasks.sort(key=lambda t: order.index(t[1]) if t[1] in order else len(order))
    t0 = time.perf_counter()
    bar = Progress(len(tasks), "validate", unit="tasks", quiet=args.json)
    done = []
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for result in pool.imap(_task, tasks, chunksize=1):
                done.append(result)
                bar.advance()
    else:
        for task in tasks:
            bar.note(f"{task[0]} {task[1]}")
            done.append(_task(task, bar.note))
            bar.advance()
    bar.close()
    wall = time.perf_counter() - t0
    results: dict = {}
    problems: list[str] = []
    timings: dict = {}
    for preset, name, res, err, dt in done:
        timings[f"{preset}/{name}"] = round(dt, 2)
        if err is not None:
            problems.append(f"{preset} {name}: {err}")
            continue
        results.setdefault(preset, {})[name] = res
    if args.bless:
        if problems:
            for p in problems:
                print(p, file=sys.stderr)
            print("skidpad validate: not blessing a run with errors", file=sys.stderr)
            return 1
        for line in vrun.bless(results):
            print(line)
    else:
        for preset, scen in results.items():
            for name, r in scen.items():
                if tire_file is None and definition is None:
                    problems.extend(vrun.check(preset, name, r, golden))
                else:  # another tire or car: the scenario's criteria, not the golden figures
                    problems.extend(f"{preset} {c}" for c in vrun.criteria(name, r))
    if args.docs:
        from skidpad.scenarios.validation import report

        for path in report.write(results, wall):
            print(f"wrote {path}", file=sys.stderr)
    if args.json:
        out = {
            "presets": {
                p: {n: vrun.figures(n, r) for n, r in scen.items()} for p, scen in results.items()
            },
            "problems": problems,
            "tir": args.tir,
            "definition": args.definition,
            "wall_s": round(wall, 1),
            "task_wall_s": timings,
        }
        print(json.dumps(out, indent=1, sort_keys=True))
    elif not args.bless:
        if args.tir is not None:
            print(f"tires: {args.tir} (MF 6.1) on both axles of every preset")
        if definition is not None:
            from skidpad.replay.terminal import printable

            print(
                f"car: {printable(definition['name'])} from {printable(args.definition)}, in "
                f"the row of "
                f"{presets[0]} (its reference values are {presets[0]}'s)"
            )
        print(vrun.table(results))
        for p in problems:
            print(f"FAIL {p}")
    print(
        f"validation wall time {wall:.1f} s ({len(tasks)} tasks, {args.jobs} job(s))",
        file=sys.stderr,
    )
    return 1 if problems else 0
