"""Wall time of one derivative evaluation per CommonRoad model: ours vs the reference.

Usage: ``python benchmarks/commonroad.py [--repeat 7] [--number 300] [--json]``.
Needs the test extra (``commonroad-vehicle-models``). Evaluates each model on
the reference's own unit-test state (vehicle 2), best of ``repeat`` runs of
``number`` calls, and prints CPU microseconds per call, the ratio to the same
model of the reference, and the ratio to the *yardstick*: the reference's MB
derivative, timed in the same run (before and after the others, the faster
kept), so that figures from runs on a differently loaded machine compare.
Ours runs on the strict math of ``engine.smath`` (pure Python); the reference
on libm. Also prints the daemon's CPU time per simulated second for each
model (``--daemon-seconds 0`` skips it), and with ``--replay FILE`` the CPU
time of replaying a committed CommonRoad recording (x real time, and whether
the final state hash matched the recording's).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skidpad.engine.commonroad import ks, mb_fast, st, std  # noqa: E402
from skidpad.engine.commonroad.daemon import CommonRoadDaemon  # noqa: E402
from skidpad.engine.commonroad.params import load_vehicle  # noqa: E402
from skidpad.engine.errors import SkidpadError  # noqa: E402
from skidpad.replay.commonroad import build_daemon, from_document  # noqa: E402
from vehiclemodels.vehicle_dynamics_ks import vehicle_dynamics_ks  # noqa: E402
from vehiclemodels.vehicle_dynamics_mb import vehicle_dynamics_mb  # noqa: E402
from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st  # noqa: E402
from vehiclemodels.vehicle_dynamics_std import vehicle_dynamics_std  # noqa: E402
from vehiclemodels.vehicle_parameters import setup_vehicle_parameters  # noqa: E402

U = [0.15, 0.63 * 9.81]
X_ST = [2.0233348142065677, 0.0041907137716636, 0.0197545248559617, 15.7216236334290116,
        0.0025857914776859, 0.0529001056654038, 0.0033012170610298]
X = {
    "ks": [3.9579422297936526, 0.0391650102771405, 0.0378491427211811, 16.3546957860883566,
           0.0294717351052816],
    "st": X_ST,
    "std": X_ST + [53.6551710641082451, 56.7917911784219598],
    "mb": [10.8808433066274794, 0.5371850187869442, 0.0980442671005920, 18.0711398687457745,
           0.1649995631003776, 0.6158755000936103, -0.1198403612262477, -0.2762672756169581,
           0.0131909920269115, -0.0718483683742141, -0.3428324595054725, 0.0103233373083297,
           -0.0399590564140291, -0.0246468320579360, -0.0551575051990853, 0.5798277643297529,
           0.0172059354801703, 0.0067890113155477, -0.0184269459410162, -0.0408207136116175,
           -1.0064484829203018, 0.0166808347900582, -0.0049188492004049, 53.6551710641082451,
           50.7045242506744316, 56.7917911784219598, 200.7079633169796296, -0.0939969123691911,
           -0.0881514621614376],
}
OURS = {
    "ks": ks.derivatives,
    "st": st.derivatives,
    "std": std.derivatives,
    "mb": mb_fast.derivatives,  # the generated derivative the daemon runs
}
REF = {"ks": vehicle_dynamics_ks, "st": vehicle_dynamics_st, "std": vehicle_dynamics_std,
       "mb": vehicle_dynamics_mb}


def best_us(fn, number: int, repeat: int) -> float:
    """Best-of-``repeat`` CPU microseconds per call (CPU time: other jobs count less)."""
    timer = timeit.Timer(fn, timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeat)) / number * 1e6


def derivative_rows(number: int, repeat: int) -> tuple[float, list[dict]]:
    """(yardstick us, one row per model): ours and the reference's us per call."""
    po = load_vehicle(2)
    pr = setup_vehicle_parameters(2)

    def yardstick() -> float:
        return best_us(lambda: vehicle_dynamics_mb(list(X["mb"]), U, pr), number, repeat)

    first = yardstick()
    rows = []
    for m in ("ks", "st", "std", "mb"):
        x = X[m]
        ours = best_us(lambda f=OURS[m], x=x: f(x, U, po), number, repeat)
        ref = best_us(lambda f=REF[m], x=x: f(list(x), U, pr), number, repeat)
        rows.append({"model": m, "ours_us": ours, "ref_us": ref, "ours_over_ref": ours / ref})
    yard = min(first, yardstick())
    for r in rows:
        r["ours_over_yardstick"] = r["ours_us"] / yard
    return yard, rows


def daemon_cpu_s(model: str, seconds: float) -> float:
    """CPU seconds of the daemon per simulated second (10 ms host steps, vehicle 2)."""
    d = CommonRoadDaemon(model, 2, initial={"speed": 15.0})
    n = int(seconds * 100)
    t0 = time.process_time()
    for _ in range(n):
        d.step_us({"throttle": 0.3, "steer": 0.02}, 10_000)
    return (time.process_time() - t0) / seconds


def load_recording(path: str):
    """The CommonRoad recording in ``path``, or a one-line reason it cannot be replayed."""
    try:
        with open(path, encoding="utf-8") as fh:
            return from_document(json.load(fh))
    except (OSError, ValueError, SkidpadError) as exc:
        return f"{path}: {exc}"


def replay_cpu(path: str, rec) -> dict:
    """CPU seconds of replaying one CommonRoad recording, and whether its final hash matched."""
    daemon = build_daemon(rec)
    sim_us = 0
    t0 = time.process_time()
    for count, values in rec.frames:
        for _ in range(count):
            daemon.step_us(values[1:], values[0])
            sim_us += values[0]
    cpu = time.process_time() - t0
    return {"recording": os.path.basename(path), "simulated_s": sim_us / 1e6, "cpu_s": cpu,
            "realtime_factor": sim_us / 1e6 / cpu,
            "hash_match": daemon.state_hash() == rec.final_hash}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=300)
    ap.add_argument("--daemon-seconds", type=float, default=1.0)
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--replay", action="append", default=[], metavar="FILE",
                    help="also time replaying this CommonRoad recording (repeatable)")
    args = ap.parse_args(argv)
    recordings = {f: load_recording(f) for f in args.replay}
    bad = [r for r in recordings.values() if isinstance(r, str)]
    if bad:
        print(f"benchmarks/commonroad.py: {bad[0]}", file=sys.stderr)
        return 2
    if args.repeat < 1 or args.number < 1 or args.daemon_seconds < 0:
        print("benchmarks/commonroad.py: --repeat/--number must be >= 1, --daemon-seconds >= 0",
              file=sys.stderr)
        return 2
    yard, rows = derivative_rows(args.number, args.repeat)
    daemon = {}
    if args.daemon_seconds > 0:
        daemon = {m: daemon_cpu_s(m, args.daemon_seconds) for m in ("ks", "st", "std", "mb")}
    replays = [replay_cpu(f, rec) for f, rec in recordings.items()]
    if args.json:
        print(json.dumps({"python": platform.python_version(),
                          "implementation": platform.python_implementation(),
                          "yardstick_us": yard, "models": rows,
                          "daemon_cpu_s_per_simulated_s": daemon, "replays": replays}))
        return 0
    print(f"python {platform.python_version()} ({platform.python_implementation()}); "
          f"yardstick (reference MB derivative) {yard:.1f} us")
    print(f"{'model':6s} {'ours [us]':>10s} {'ref [us]':>10s} {'ours/ref':>9s} {'ours/yard':>10s}")
    for r in rows:
        print(f"{r['model']:6s} {r['ours_us']:10.1f} {r['ref_us']:10.1f} "
              f"{r['ours_over_ref']:9.2f} {r['ours_over_yardstick']:10.2f}")
    if daemon:
        print(f"\ndaemon, 10 ms host steps, {args.daemon_seconds:g} s simulated (vehicle 2):")
        for m, cpu in daemon.items():
            print(f"{m:6s} {cpu:8.3f} s CPU per simulated s ({1.0 / cpu:.1f}x real time)")
    for r in replays:
        match = "match" if r["hash_match"] else "HASH MISMATCH"
        print(f"replay {r['recording']}: {r['simulated_s']:.1f} s in {r['cpu_s']:.2f} s CPU, "
              f"{r['realtime_factor']:.1f}x real time, {match}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
