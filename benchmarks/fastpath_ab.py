"""The four-wheel fast path's generated code, another tree's against this one, in one process.

Usage: ``python benchmarks/fastpath_ab.py --old-tree ../main [--rounds 24] [--preset P ...]``.
The old tree's ``engine.fourwheel.fastpath.source`` texts are written by a child process run in that
tree; both texts are then compiled here and drive this tree's ``Simulation`` (one set of
host-step machinery, so only the generated code differs), 180 host steps a run after 20 of
warm-up, alternating old/new and new/old, CPU time, best of ``--rounds``. The final state
hashes must agree (the bits are the same). Two trees timed by ``benchmarks/substep.py`` in
turn measure the same thing with more noise on a shared machine (ADR 0231).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skidpad.engine.fourwheel import fastpath, gearbox, powertrain  # noqa: E402
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset  # noqa: E402
from skidpad.engine.fourwheel.simulation import Simulation  # noqa: E402
from skidpad.engine.smath import kernels, trig  # noqa: E402

DUMP = (
    "import json, sys\n"
    "try:\n"
    "    from skidpad.engine.fourwheel import fastpath\n"
    "    from skidpad.engine.fourwheel.definition import load_preset\n"
    "    from skidpad.engine.fourwheel.simulation import Simulation\n"
    "except ImportError:  # a tree from before the four-wheel package (engine/fourwheel/)\n"
    "    from skidpad.engine import fastpath\n"
    "    from skidpad.engine.definition import load_preset\n"
    "    from skidpad.engine.simulation import Simulation\n"
    "names = json.loads(sys.argv[1])\n"
    "print(json.dumps({p: fastpath.source(Simulation(load_preset(p))) for p in names}))\n"
)
#: the names the templates of earlier trees read besides fastpath.namespace()'s (their
#: kernel text, engine/smath/inline.py before ADR 0231)
OLD_NAMES = {
    "ATL": kernels.ATL,
    "ATH": kernels.ATH,
    "ATLN": kernels.ATLN,
    "ATHN": kernels.ATHN,
    "FSCA": kernels.FSCA,
    "FSCAN": kernels.FSCAN,
    "IDX": kernels.IDX,
    "atan_fast": trig.atan_fast,
    "sin_fast": trig.sin_fast,
    "cos_fast": trig.cos_fast,
}


def frames(n: int) -> list:
    """benchmarks/substep.py's mixed drive with every assist on."""
    out = []
    for k in range(n):
        phase = (k / 100) % 3.0
        if phase < 1.5:
            u = (0.6, 0.0, 0.15, 0.0)
        elif phase < 2.2:
            u = (0.0, 0.6, -0.1, 0.0)
        else:
            u = (0.0, 0.0, 0.0, 0.0)
        out.append(u + (0, 1, 1, 1, 1))
    return out


FRAMES = frames(200)


def run(preset: str, text: str | None) -> tuple[float, str]:
    sim = Simulation(load_preset(preset))
    old_names = {  # what an old tree's drivetrain template called (before ADR 0233)
        **OLD_NAMES,
        "gearbox_update": gearbox.update,
        "pu_torque": powertrain.torque,
        "GEARBOX_K": sim.drive_k.gearbox,
        "POWER_UNIT_K": sim.drive_k.power_unit,
        "OVERALL": sim.drive_k.gearbox.overall,
    }
    sim.fast_run = fastpath.build(sim) if text is None else fastpath.build(sim, text, old_names)
    for u in FRAMES[:20]:
        sim.step(u)
    t = time.process_time()
    for u in FRAMES[20:]:
        sim.step(u)
    us = (time.process_time() - t) / (len(FRAMES[20:]) * sim.substeps_in(0)) * 1e6
    return us, sim.state_hash()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-tree", required=True, help="the other checkout")
    ap.add_argument("--rounds", type=int, default=24)
    ap.add_argument("--preset", action="append", help="only these presets")
    args = ap.parse_args()
    presets = args.preset or list(PRESET_NAMES)
    env = dict(os.environ, PYTHONPATH=str(Path(args.old_tree).resolve()))
    dumped = subprocess.run(
        [sys.executable, "-c", DUMP, json.dumps(presets)],
        env=env,
        cwd=str(Path(args.old_tree).resolve()),
        capture_output=True,
        text=True,
        check=True,
    )
    old = json.loads(dumped.stdout)
    for preset in presets:
        best = {"old": float("inf"), "new": float("inf")}
        hashes = {}
        for r in range(args.rounds):
            for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
                us, h = run(preset, old[preset] if which == "old" else None)
                best[which] = min(best[which], us)
                hashes[which] = h
        same = "same bits" if hashes["old"] == hashes["new"] else "BITS DIFFER"
        o, n = best["old"], best["new"]
        print(f"{preset:<14} old {o:6.2f} us  new {n:6.2f} us  {n / o:.3f}  {same}")


if __name__ == "__main__":
    main()
