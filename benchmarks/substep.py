"""Microseconds per substep and real-time factor at 1000 Hz, per preset, in this interpreter.

Runs each preset through a fixed mixed drive (accelerate and steer, brake,
coast) at the definition's substep rate and a 100 Hz host rate, after a
warm-up, and prints µs per substep — host-step work (inputs, steering
geometry, telemetry) included — as CPU time of this process (so the other
jobs on a shared machine count as little as possible; wall time is printed
beside it), best of ``--repeat`` runs, and the real-time factor
``1e6 / (µs · substep_hz)`` from the CPU figure. ADR 0023 target: >= 10x in
CPython 3.11.

    python benchmarks/substep.py [--seconds 3] [--repeat 3] [--assists on|off|preset]
        [--path fast|readable] [--json]

With the reference package installed (CPython, the test extra) it also times the fixed
yardstick of issue 16, the reference's MB derivative, before and after the presets in the
same process, and gives each preset's cost as a multiple of it (``over_yardstick``).

``--assists on`` (the default) switches ABS, traction control, stability
control and the steering assist on for every preset through the input
channels (issue 4 measures the substep with all of them on). ``--path readable``
measures the substep's readable stages instead of the code generated from them
(ADR 0130); both give the same bits.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset  # noqa: E402
from skidpad.engine.fourwheel.simulation import Simulation  # noqa: E402


def drive(k: int, host_hz: int, switches: tuple = ()) -> tuple:
    t = k / host_hz
    phase = t % 3.0
    if phase < 1.5:
        return (0.6, 0.0, 0.15, 0.0) + switches
    if phase < 2.2:
        return (0.0, 0.6, -0.1, 0.0) + switches
    return (0.0, 0.0, 0.0, 0.0) + switches


def measure(
    name: str,
    seconds: float,
    repeat: int,
    host_hz: int = 100,
    assists: str = "preset",
    path: str = "fast",
) -> dict:
    # gear request 0, then the four assist switches: -1 off, 0 as the preset ships, 1 on
    switches = {"preset": (), "on": (0, 1, 1, 1, 1), "off": (0, -1, -1, -1, -1)}[assists]
    best = None
    best_wall = None
    ticks = 0
    for _ in range(repeat):
        sim = Simulation(load_preset(name), host_hz=host_hz, initial={"speed_mps": 15.0}, path=path)
        for k in range(20):
            sim.step(drive(k, host_hz, switches))
        w0 = time.perf_counter()
        t0 = time.process_time()
        tick0 = sim.tick
        for k in range(20, 20 + int(seconds * host_hz)):
            sim.step(drive(k, host_hz, switches))
        dt = time.process_time() - t0
        dw = time.perf_counter() - w0
        ticks = sim.tick - tick0
        us = dt / ticks * 1e6
        best = us if best is None else min(best, us)
        wall = dw / ticks * 1e6
        best_wall = wall if best_wall is None else min(best_wall, wall)
    return {
        "preset": name,
        "us_per_substep": best,
        "wall_us_per_substep": best_wall,
        "substep_hz": sim.substep_hz,
        "realtime_factor": 1e6 / (best * sim.substep_hz),
        "substeps": ticks,
        "path": path,
    }


def yardstick_us(repeat: int = 7, number: int = 300) -> float | None:
    """CPU µs of the reference package's MB derivative (``vehiclemodels``, the fixed yardstick
    of issue 16, as ``benchmarks/commonroad.py`` times it), best of ``repeat``; None where the
    package is not installed (Pyodide)."""
    try:
        from vehiclemodels.vehicle_dynamics_mb import vehicle_dynamics_mb
        from vehiclemodels.vehicle_parameters import setup_vehicle_parameters

        from benchmarks.commonroad import U, X
    except ImportError:
        return None
    import timeit

    p = setup_vehicle_parameters(2)
    timer = timeit.Timer(lambda: vehicle_dynamics_mb(list(X["mb"]), U, p), timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeat)) / number * 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="simulated seconds per run")
    ap.add_argument("--repeat", type=int, default=3, help="runs per preset (best is kept)")
    ap.add_argument("--preset", action="append", help="only these presets")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument(
        "--assists",
        choices=("preset", "on", "off"),
        default="on",
        help="ABS, traction and stability control, steering assist: all on (default), "
        "all off, or as each preset ships them",
    )
    ap.add_argument(
        "--path",
        choices=("fast", "readable"),
        default="fast",
        help="the generated substep (default) or its readable stages",
    )
    args = ap.parse_args(argv)
    # the yardstick before and after the presets, the faster kept: a load that changes during
    # the run moves both sides of the ratio alike
    before = yardstick_us()
    rows = [
        measure(n, args.seconds, args.repeat, assists=args.assists, path=args.path)
        for n in (args.preset or PRESET_NAMES)
    ]
    after = yardstick_us()
    yard = None if before is None or after is None else min(before, after)
    for r in rows:
        r["over_yardstick"] = None if yard is None else r["us_per_substep"] / yard
    if args.json:
        doc = {"python": sys.version, "platform": platform.platform(), "rows": rows}
        print(json.dumps({**doc, "yardstick_us": yard}))
        return 0
    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}),"
        f" assists: {args.assists}, path: {args.path}"
    )
    print(f"{'preset':14s} {'us/substep':>10s} {'x real time':>12s} {'wall us':>9s}")
    for r in rows:
        print(
            f"{r['preset']:14s} {r['us_per_substep']:10.1f} {r['realtime_factor']:11.1f}x"
            f" {r['wall_us_per_substep']:9.1f}"
        )
    if yard is not None:
        worst = max(rows, key=lambda r: r["us_per_substep"])
        print(
            f"yardstick (reference MB derivative, this process) {yard:.1f} us; worst substep "
            f"{worst['preset']} = {worst['over_yardstick']:.2f}x yardstick"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
