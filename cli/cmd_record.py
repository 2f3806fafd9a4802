"""``skidpad record``: drive a preset and write a recording (docs/architecture.md §4, §7).

    skidpad record --preset sportsRwd --drive scripted -o sportsRwd-scripted.json
    skidpad record --preset all --drive scripted,lap -o recordings/
    skidpad record --drive commonroad:st:2,commonroad:mb:2 -o recordings/
    skidpad record --definition my-car.json --drive random:7 -o my-car-random-7.json

``--drive`` is ``scripted`` (the fixed 30 s drive), ``lap`` (one lap of the
sandbox track, closed loop), ``random:SEED`` (a smooth random drive from an
integer PRNG), ``validation:NAME`` (a validation manoeuvre: ``accel``, ``stop``,
``stop_abs`` or ``step_steer``, :mod:`scenarios.validation.drives`), or
``commonroad:MODEL:VEHICLE`` (the 30 s scripted drive of
``engine.commonroad.scripted`` for that CommonRoad model, ks/st/std/mb, and
vehicle 1-3, written as a CommonRoad recording, ADR 0090; it needs no
``--preset``). With several presets or drives (``all``, comma lists), ``-o``
is a directory and each file is named ``<preset>-<drive>.json`` (``random:7``
becomes ``random-7``; a CommonRoad drive ``commonroad-<model>-v<vehicle>.json``).
After recording, the file is read back and replayed, and its final hash must
equal the live run's (``--no-verify`` skips that). ``--definition FILE`` drives a car of
one's own in place of a preset (a JSON definition of the presets' schema, read as
:func:`skidpad.cli.options.read_definition` reads it); the recording embeds it, names no
preset, and is named after the file (``<file stem>-<drive>.json``).

Nothing is silently ignored: an option that does not apply to a drive is
refused, saying why (:func:`check_options`) — ``--duration`` only sets the
length of ``random`` and ``commonroad`` drives, ``--host-hz`` and
``--substep-hz`` only apply to four-wheel drives, ``--preset`` not to
CommonRoad drives — as are an empty or repeated name in a list and a drive
shorter than one host step. With several drives, progress (drives done, ETA)
goes to stderr when it is a terminal and ``--json`` is not given.
Files are written atomically; nothing is written on failure.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from skidpad.cli.options import add_json_flag
from skidpad.engine.errors import SkidpadError
from skidpad.engine.state import NonFiniteStateError
from skidpad.replay.terminal import printable

BUILTIN_DRIVES = ("scripted", "lap", "random:SEED", "validation:NAME", "commonroad:MODEL:VEHICLE")
DEFAULT_HOST_HZ = 100
#: Why ``--duration`` does not apply to a drive whose length is its own.
FIXED_LENGTH = {
    "scripted": "the scripted drive is always 30 s",
    "lap": "the lap drive ends when the lap does",
    "validation": "a validation manoeuvre sets its own length",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--preset",
        default=None,
        help="preset name, comma list, or 'all' (needed by every drive but commonroad:...)",
    )
    p.add_argument(
        "--definition",
        default=None,
        metavar="FILE",
        help="drive this vehicle definition (JSON, the presets' schema) in place of --preset",
    )
    p.add_argument(
        "--drive",
        required=True,
        help="scripted | lap | random:SEED | validation:NAME (accel, stop, stop_abs, "
        "step_steer) | commonroad:MODEL:VEHICLE "
        "(the CommonRoad daemon's scripted drive: MODEL ks/st/std/mb, VEHICLE 1-3) "
        "(comma list allowed)",
    )
    p.add_argument("-o", "--output", required=True, help="output file (or directory for several)")
    p.add_argument(
        "--host-hz",
        type=int,
        default=None,
        help=f"host steps per second, four-wheel drives (default {DEFAULT_HOST_HZ})",
    )
    p.add_argument(
        "--substep-hz",
        type=int,
        default=None,
        help="physics substeps per second, four-wheel drives (default: the definition's)",
    )
    p.add_argument(
        "--duration",
        type=float,
        default=None,
        help="seconds, for random and commonroad drives only (default 30)",
    )
    p.add_argument(
        "--host",
        default=None,
        help="record a host run: an external reference host owns the spin of --host-wheels "
        "(backward-euler | bench; four-wheel drives only)",
    )
    p.add_argument(
        "--host-wheels",
        default=None,
        help="the wheels the --host owns: front | rear | all (default: the driven wheels)",
    )
    p.add_argument("--no-verify", action="store_true", help="skip replaying the written file")
    add_json_flag(p)


def make_driver(drive: str, definition: dict, host_hz: int, duration: float | None = None):
    """The scenario driver for ``drive`` (see the module docstring)."""
    if drive == "scripted":
        from skidpad.scenarios import scripted

        return scripted.make_driver(definition, host_hz)
    if drive == "lap":
        from skidpad.scenarios import lap_driver

        return lap_driver.make_driver(definition, host_hz)
    if drive.startswith("validation:"):
        from skidpad.scenarios.validation import drives as validation_drives

        return validation_drives.make_driver(drive, definition, host_hz)
    if drive.startswith("random:"):
        from skidpad.scenarios import random_drive

        seed_text = drive[len("random:") :]
        # ASCII digits only ("²".isdigit() is true) and at most 19 of them (a 64-bit seed)
        if not (seed_text.isascii() and seed_text.isdigit() and len(seed_text) <= 19):
            raise SkidpadError(
                f"--drive {printable(drive[:60])}: the seed must be a non-negative integer "
                "of at most 19 digits"
            )
        return random_drive.make_driver(
            definition, host_hz, int(seed_text), duration_s=duration or 30.0
        )
    raise SkidpadError(f"--drive {drive!r}: unknown drive (known: {', '.join(BUILTIN_DRIVES)})")


def drive_kind(drive: str) -> str:
    """``scripted``, ``lap``, ``random``, ``validation`` or ``commonroad`` (the part before ':')."""
    return drive.split(":", 1)[0]


def check_options(args: argparse.Namespace, drives: list[str]) -> None:
    """Refuse every option that would be ignored by one of ``drives``, saying why."""
    cr = [d for d in drives if drive_kind(d) == "commonroad"]
    four_wheel = [d for d in drives if drive_kind(d) != "commonroad"]
    for option, given in (("--preset", args.preset), ("--definition", args.definition)):
        if cr and given is not None and not four_wheel:
            raise SkidpadError(
                f"{option} does not apply to --drive {cr[0]}: a CommonRoad drive names its "
                "own model and vehicle"
            )
    if args.preset is not None and args.definition is not None:
        raise SkidpadError("--definition drives its own car: not with --preset")
    if cr and args.host_hz is not None:
        raise SkidpadError(
            f"--host-hz does not apply to --drive {cr[0]}: a CommonRoad drive's host steps "
            "follow its own dt_us pattern"
        )
    if cr and args.substep_hz is not None:
        raise SkidpadError(
            f"--substep-hz does not apply to --drive {cr[0]}: the CommonRoad daemon "
            "schedules its own substeps"
        )
    if args.host_wheels is not None and args.host is None:
        raise SkidpadError("--host-wheels applies only with --host (a host run)")
    if args.host is not None:
        from skidpad.engine.fourwheel import host as engine_host
        from skidpad.engine.fourwheel import hosts

        if cr:
            raise SkidpadError(
                f"--host does not apply to --drive {cr[0]}: the CommonRoad daemon has no "
                "external-host contract"
            )
        if args.host not in hosts.HOST_NAMES:
            raise SkidpadError(
                f"--host {args.host!r}: unknown host; known: {', '.join(hosts.HOST_NAMES)}"
            )
        if args.host_wheels is not None and args.host_wheels not in engine_host.WHEEL_SETS:
            raise SkidpadError(
                f"--host-wheels {args.host_wheels!r}: known wheel sets: "
                f"{', '.join(engine_host.WHEEL_SETS)}"
            )
    if args.duration is None:
        return
    for d in drives:
        why = FIXED_LENGTH.get(drive_kind(d))
        if why is not None:
            raise SkidpadError(f"--duration does not apply to --drive {d}: {why}")
    host_hz = args.host_hz or DEFAULT_HOST_HZ
    if four_wheel and int(args.duration * host_hz) < 1:
        raise SkidpadError(
            f"--duration {args.duration:g}: shorter than one host step at {host_hz} Hz "
            "(the recording would have no steps)"
        )
    if cr:
        from skidpad.engine.commonroad.scheduler import MIN_DT_US

        if round(args.duration * 1_000_000) < MIN_DT_US:
            raise SkidpadError(
                f"--duration {args.duration:g}: shorter than the CommonRoad daemon's shortest "
                f"host step ({MIN_DT_US / 1_000_000:g} s)"
            )


def driven_wheels(definition: dict) -> str:
    """The wheel set of ``definition``'s driven wheels (all four when it drives both axles)."""
    share = definition["drivetrain"]["layout"]["front_share"]
    return "front" if share >= 1.0 else "rear" if share <= 0.0 else "all"


def check_host_wheels(definition: dict, wheels: str, preset: str) -> None:
    """Refuse, before any drive runs, a wheel set the engine does not let a host own."""
    from skidpad.engine.fourwheel import definition as engine_definition
    from skidpad.engine.fourwheel import drive, host

    k = drive.constants(definition["drivetrain"], engine_definition.SUBSTEP_HZ_MIN)
    try:
        host.driveline_without(k.layout, host.owned_wheels(wheels))
    except host.HostError as exc:
        raise SkidpadError(f"--host-wheels {wheels} for {preset}: {exc}") from None


def host_loop_warning(definition: dict, host_hz: int, substep_hz: int | None) -> str | None:
    """Where the wheel/tire loop through the host is predicted unstable at this host rate
    (``scenarios.host_loop``, ADR 0203), or None: a host run says so rather than quietly
    recording a loop that rings up to the tire's limit."""
    from skidpad.scenarios import host_loop

    sub = substep_hz or int(definition["substep_hz"])
    if sub % host_hz:
        return None  # the linear loop model needs whole substeps per host step
    pred = host_loop.predict(definition)
    bad = [v for v in host_loop.MAP_SPEEDS if pred.discrete(v, host_hz, sub)[1] <= 0.0]
    if not bad:
        return None
    return (
        f"the wheel/tire loop through the host at {host_hz} Hz is predicted unstable at "
        f"{', '.join(f'{v:g}' for v in bad)} m/s (skidpad host-loop draws the map)"
    )


def _presets(spec: str) -> list[str]:
    from skidpad.cli import comma_list
    from skidpad.engine.fourwheel import definition as engine_definition

    if spec == "all":
        return list(engine_definition.PRESET_NAMES)
    names = comma_list(spec, "--preset")
    for n in names:
        engine_definition.load_preset(
            n
        )  # DefinitionError names the unknown preset and lists the known
    return names


def _cars(args: argparse.Namespace) -> list[tuple[str, dict, str | None]]:
    """The cars to drive: ``(label, definition, preset name or None)``, the presets of
    ``--preset`` or the car of ``--definition`` (labelled by its file's stem)."""
    from skidpad.engine.fourwheel import definition as engine_definition

    if args.definition is not None:
        from skidpad.cli.options import read_definition

        label = Path(args.definition).stem or "definition"
        return [(label, read_definition(args.definition), None)]
    return [
        (p, engine_definition.validate_definition(engine_definition.load_preset(p)), p)
        for p in _presets(args.preset)
    ]


def _file_name(preset: str, drive: str) -> str:
    return f"{preset}-{drive.replace(':', '-')}.json"


def run(args: argparse.Namespace) -> int:
    from skidpad.cli import comma_list
    from skidpad.engine.fourwheel import definition as engine_definition
    from skidpad.replay import output, recording
    from skidpad.replay.progress import Progress
    from skidpad.replay.recorder import record_drive
    from skidpad.replay.replayer import replay

    if (args.host_hz is not None and args.host_hz <= 0) or (
        args.substep_hz is not None and args.substep_hz <= 0
    ):
        raise SkidpadError("--host-hz and --substep-hz must be positive integers")
    if args.substep_hz is not None and not (
        engine_definition.SUBSTEP_HZ_MIN <= args.substep_hz <= engine_definition.SUBSTEP_HZ_MAX
    ):
        raise SkidpadError(
            f"--substep-hz {args.substep_hz}: a definition's substep rate is "
            f"{engine_definition.SUBSTEP_HZ_MIN}-{engine_definition.SUBSTEP_HZ_MAX} Hz"
        )
    if args.duration is not None and not (0 < args.duration <= 3600):
        raise SkidpadError("--duration must be in (0, 3600] seconds")
    drives = comma_list(args.drive, "--drive")
    check_options(args, drives)
    host_hz = args.host_hz or DEFAULT_HOST_HZ
    cr_drives = [d for d in drives if d.startswith("commonroad:")]
    drives = [d for d in drives if not d.startswith("commonroad:")]
    if drives and args.preset is None and args.definition is None:
        raise SkidpadError(
            f"--drive {drives[0]}: needs --preset (a preset name, list or 'all') or --definition"
        )
    cars = _cars(args) if drives else []
    many = len(cars) * len(drives) + len(cr_drives) > 1
    out = Path(args.output)
    output.check_name_fits(out, out)  # a name too long is refused now, not after the drive
    if many and not out.is_dir():
        raise SkidpadError(
            f"-o {out}: with several presets or drives, -o must be an existing directory"
        )

    def target_for(name: str) -> Path:
        target = out / name if (many or out.is_dir()) else out
        if not target.parent.is_dir():
            raise SkidpadError(f"-o {target}: directory {target.parent} does not exist")
        return target

    # every job is (preset column, drive, target, a function that records the drive)
    jobs = []
    for label, definition, preset in cars:
        for drive in drives:
            driver = make_driver(drive, definition, host_hz, args.duration)

            host = None
            if args.host is not None:
                host = (args.host, args.host_wheels or driven_wheels(definition))
                check_host_wheels(definition, host[1], label)
                warning = host_loop_warning(definition, host_hz, args.substep_hz)
                if warning is not None:
                    print(f"skidpad record: warning: {label}: {warning}", file=sys.stderr)

            def run_job(definition=definition, driver=driver, preset=preset, host=host):
                return record_drive(
                    definition, driver, preset=preset, substep_hz=args.substep_hz, host=host
                )[0]

            name = _file_name(label, drive if host is None else f"{drive}-host-{host[0]}")
            jobs.append((label, drive, target_for(name), run_job))
    for drive in cr_drives:
        from skidpad.replay import commonroad

        model, vehicle = commonroad.parse_drive(drive)
        duration_us = None if args.duration is None else round(args.duration * 1_000_000)

        def run_cr(model=model, vehicle=vehicle, duration_us=duration_us):
            return commonroad.record_scripted(model, vehicle, duration_us)[0]

        name = f"commonroad-{model}-v{vehicle}.json"
        label = "scripted" if duration_us is None else f"scripted {args.duration:g} s"
        jobs.append((f"commonroad:{model}:{vehicle}", label, target_for(name), run_cr))
    output.preflight([target for _, _, target, _ in jobs])  # before any drive runs
    results = []
    bar = Progress(len(jobs), "record", unit="drives", quiet=args.json or len(jobs) < 2)
    for preset, drive, target, run_job in jobs:
        bar.note(f"{preset}, {drive}")
        t0 = time.perf_counter()
        try:
            rec = run_job()
        except NonFiniteStateError as exc:  # the physics failed: a failed check, not bad input
            bar.close()
            print(
                f"skidpad record: {printable(preset)}, {printable(drive)}: "
                f"the drive failed: {printable(exc)}",
                file=sys.stderr,
            )
            return 1
        if rec.steps == 0:
            bar.close()
            print(
                f"skidpad record: {printable(target)}: the drive produced no host steps; "
                "not written",
                file=sys.stderr,
            )
            return 1
        wall = time.perf_counter() - t0
        text = recording.dumps(rec)
        verified = None
        if not args.no_verify:
            again = replay(recording.loads(text))
            if again.final_hash != rec.final_hash:
                bar.close()
                print(
                    f"skidpad record: {printable(target)}: replaying the recording gives "
                    f"{again.final_hash}, "
                    f"the live run ended at {rec.final_hash}; not written",
                    file=sys.stderr,
                )
                return 1
            verified = True
        output.write_text(target, text)
        row = {
            "file": str(target),
            "preset": preset,
            "drive": drive,
            "steps": rec.steps,
            "sim_s": rec.sim_s,
            "final_hash": rec.final_hash,
            "wall_s": round(wall, 3),
            "verified": verified,
            "frames": len(rec.frames),
        }
        results.append(row)
        bar.advance()
        if not args.json:
            bar.close()
            print(
                printable(
                    f"wrote {target}: {preset}, {drive}, {rec.steps} steps ({row['sim_s']:g} s), "
                    f"{len(rec.frames)} frames, final {rec.final_hash}"
                    f"{', replay verified' if verified else ''} ({wall:.1f} s)"
                )
            )
    bar.close()
    if args.json:
        print(json.dumps(results, indent=1))
    return 0
