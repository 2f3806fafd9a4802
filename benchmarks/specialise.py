"""CPU milliseconds to specialise one definition (engine.specialise, ADR 0230), per family.

Usage: ``python benchmarks/specialise.py [--repeat 5]``. For each CommonRoad vehicle, the
tire (``tire_fast``) and the MB derivative (``mb_fast``): the syntax-tree work and the
compile, best of ``repeat`` (the parsed readable functions are cached after the first run,
as in a long-lived process; the first run's figure is printed beside it); for each four-wheel
preset, the whole fast path (its tire shapes specialised, the text written and compiled,
caches cleared each run). Target: at most 100 ms per definition in CPython 3.11 (issue 29).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skidpad.engine.commonroad import mb_fast, tire_fast  # noqa: E402
from skidpad.engine.commonroad.params import load_vehicle  # noqa: E402
from skidpad.engine.fourwheel import fastpath  # noqa: E402
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset  # noqa: E402
from skidpad.engine.specialise import compile_specialised  # noqa: E402


def cost(make, arg) -> float:
    t = time.process_time()
    compile_specialised(make(arg))
    return (time.process_time() - t) * 1e3


def four_wheel(sim) -> float:
    """The fast path of ``sim`` built from nothing: tire stage specialised, text, compile."""
    getattr(fastpath, "_SHAPES", {}).clear()  # (the trees of earlier versions)
    getattr(fastpath, "_TIRES", {}).clear()
    getattr(fastpath, "_DERIVED", {}).clear()  # (the derived texts kept per definition)
    fastpath._CODE.clear()
    t = time.process_time()
    fastpath.build(sim)
    return (time.process_time() - t) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"python {platform.python_version()} ({platform.python_implementation()})")
    print(f"{'definition':<16}{'first ms':>10}{'best ms':>10}")
    for vid in (1, 2, 3):
        p = load_vehicle(vid)
        for label, make, arg in (
            (f"tire v{vid}", tire_fast.specialised, p.tire),
            (f"mb v{vid}", mb_fast.specialised, p),
        ):
            first = cost(make, arg)
            best = min(cost(make, arg) for _ in range(max(1, args.repeat)))
            print(f"{label:<16}{first:>10.1f}{best:>10.1f}")
    from skidpad.engine.fourwheel.simulation import Simulation

    for preset in PRESET_NAMES:
        sim = Simulation(load_preset(preset))
        first = four_wheel(sim)
        best = min(four_wheel(sim) for _ in range(max(1, args.repeat)))
        print(f"{preset:<16}{first:>10.1f}{best:>10.1f}")


if __name__ == "__main__":
    main()
