"""CPU time and memory of loading a large legal recording (README "Budgets").

Usage: ``python benchmarks/load.py [--mib 40] [--repeat 3]``.
Writes a four-wheel recording of about ``--mib`` MiB into a temporary
directory: the kart's definition, one distinct frame per host step (a steady
random throttle, the rest from ``recordings/kart-lap.json``), at 250 Hz, so
it stays inside the default 1 h budget. Each run loads it in a fresh child
process and reports the load's CPU time, the process's peak resident set
size (``ru_maxrss``) beside its size after the imports, and, in one more
run, tracemalloc's peak for the load alone. Best (lowest) CPU time of
``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST_HZ = 250
sys.path.insert(0, str(ROOT))

from skidpad.replay import output, recording  # noqa: E402

CHILD = """
import json, os, resource, sys, time, tracemalloc
sys.path.insert(0, {root!r})
from skidpad.replay import recording
import engine.fourwheel.simulation, replay.commonroad
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
traced = sys.argv[2] == "trace"
if traced:
    tracemalloc.start()
t = time.process_time()
rec = recording.load(sys.argv[1])
cpu = time.process_time() - t
peak = tracemalloc.get_traced_memory()[1] if traced else 0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"cpu_s": cpu, "rss_kib": rss, "base_kib": base, "traced": peak,
                  "steps": rec.steps}}))
"""


def make_recording(path: Path, mib: float) -> int:
    rec = recording.load(ROOT / "recordings" / "kart-lap.json")
    doc = json.loads(recording.dumps(rec))
    lap = doc["frames"]
    rng = random.Random(1)
    frames = []
    size = 0
    while size < mib * 2**20:
        f = list(lap[len(frames) % len(lap)])
        f[0] = 1
        f[1] = rng.random()
        frames.append(f)
        size += len(json.dumps(f)) + 4  # the frame's line: indent, frame, comma, newline
    claims = {"final_hash": None, "checkpoint_every": 100, "checkpoints": [], "laps": None}
    doc.update(frames=frames, steps=len(frames), claims=claims, host_hz=HOST_HZ)
    text = recording.dump_document(doc, recording.KEYS, ("definition", "initial"))
    output.write_text(path, text)
    return len(frames)


def child(path: Path, mode: str) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), str(path), mode],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        sys.exit(f"loading failed: {r.stderr.strip().splitlines()[-1]}")
    return json.loads(r.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=40.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", metavar="PATH", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write:  # in a child of its own: a child inherits its parent's peak RSS
        print(make_recording(Path(args.write), args.mib))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.json"
        made = subprocess.run(
            [sys.executable, __file__, "--mib", str(args.mib), "--write", str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        n = int(made.stdout)
        size = os.path.getsize(path) / 2**20
        runs = [child(path, "rss") for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["cpu_s"])
        traced = child(path, "trace")["traced"] / 2**20
    rss = best["rss_kib"] / 1024
    base = best["base_kib"] / 1024
    print(f"file {size:.1f} MiB, {n} frames ({n / HOST_HZ:.0f} s at {HOST_HZ} Hz)")
    print(f"load CPU time, best of {args.repeat}: {best['cpu_s']:.2f} s")
    print(
        f"peak RSS {rss:.0f} MiB ({base:.0f} after imports): "
        f"{(rss - base) / size:.1f}x the file for the load"
    )
    print(f"tracemalloc peak of the load: {traced:.0f} MiB ({traced / size:.1f}x the file)")


if __name__ == "__main__":
    main()
