"""One table of every benchmark: substep cost per runtime, CommonRoad and strict-math ratios.

Usage: ``python benchmarks/bench.py [--json] [--seconds S] [--repeat R] [--runtimes LIST]
[--wheel FILE] [--no-commonroad] [--no-smath]`` (``nox -s bench`` runs it; ``nox -s bench --
--json`` for machines).

* **Substep** — ``benchmarks/substep.py --json`` (all assists on, 1 kHz, CPU µs per substep,
  best of ``--repeat`` runs) in CPython 3.11, 3.12 and 3.13 (pyenv's interpreters, found as
  the parity harness finds them) and in Pyodide under Node.js
  (``benchmarks/pyodide_run.mjs`` with the project wheel).
* **CommonRoad** — ``benchmarks/commonroad.py --json`` in this interpreter (it needs the
  reference package, the test extra): our derivatives against the reference's, and against
  the yardstick, the reference's MB derivative timed in the same run; the daemon per model;
  and the CPU time of replaying the MB 30 s drive (``recordings/commonroad-mb-v2.json``).
* **Strict math** — ``benchmarks/smath.py --json`` in this interpreter: ns per call of each
  ``engine.smath`` function and its ratio to ``math``.

The runs are sequential (the benchmarks share the machine with nothing of their own). A
runtime that is missing or fails is a row saying so; the exit status is then 1. Each
benchmark is a child process, so a figure never includes another's warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from skidpad.parity.runtimes.cpython import PINNED, find_cpython, install_hint  # noqa: E402

BENCH = ROOT / "benchmarks"
RUNTIMES = [f"cpython{minor}" for minor in PINNED] + ["node"]
AIMS = {"cpython_us": 30.0, "node_us": 80.0}  # issue 16's aims per substep
MB_DRIVE = ROOT / "recordings" / "commonroad-mb-v2.json"  # aim: replays at >= 5x real time


def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
    }


def run_json(argv: list[str], what: str, timeout_s: float = 3600.0) -> dict:
    """Run one benchmark child and parse the JSON it prints; ``{"error": ...}`` on failure."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"{what}: {exc}"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"{what}: exit {proc.returncode}: {tail}"}
    try:
        return json.loads(proc.stdout)
    except ValueError:
        pass
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"error": f"{what}: no JSON in its output"}


def substep_argv(args: argparse.Namespace) -> list[str]:
    out = ["--json", "--seconds", str(args.seconds), "--repeat", str(args.repeat)]
    for preset in args.preset or ():
        out += ["--preset", preset]
    return out


def run_substep(runtime: str, args: argparse.Namespace) -> dict:
    script = str(BENCH / "substep.py")
    if runtime == "node":
        node = shutil.which("node")
        pyodide = ROOT / "node_modules" / "pyodide"
        if node is None:
            return {"error": "node: `node` is not on PATH; install Node.js 20"}
        if not (pyodide / "pyodide.mjs").is_file():
            return {"error": "node: node_modules/pyodide is missing; install it with `npm ci`"}
        wheel = args.wheel
        if wheel is None:
            from skidpad.parity.wheel import build_wheel

            wheel = str(build_wheel())
        runner = str(BENCH / "pyodide_run.mjs")
        argv = [node, runner, "--pyodide", str(pyodide), "--wheel", wheel, script]
        return run_json(argv + substep_argv(args), "node")
    minor = runtime.removeprefix("cpython")
    python = sys.executable if sys.version.startswith(minor + ".") else find_cpython(minor)
    if python is None:
        return {"error": f"CPython {minor} not found; {install_hint(minor)}"}
    return run_json([python, script, *substep_argv(args)], runtime)


def progress(args: argparse.Namespace, message: str) -> None:
    # nox merges a session's stderr into its stdout: with --json, stdout is JSON only
    if not args.json:
        print(f"bench: {message} ...", file=sys.stderr, flush=True)


def collect(args: argparse.Namespace) -> dict:
    report: dict = {
        "machine": machine(),
        "seconds": args.seconds,
        "repeat": args.repeat,
        "substep": {},
    }
    for runtime in args.runtimes:
        progress(args, f"substep in {runtime}")
        report["substep"][runtime] = run_substep(runtime, args)
    if args.commonroad:
        progress(args, "CommonRoad derivatives")
        report["commonroad"] = run_json(
            [sys.executable, str(BENCH / "commonroad.py"), "--json", "--replay", str(MB_DRIVE)],
            "commonroad",
        )
    if args.smath:
        progress(args, "strict math")
        report["smath"] = run_json([sys.executable, str(BENCH / "smath.py"), "--json"], "smath")
    return report


def failures(report: dict) -> list[str]:
    parts = list(report["substep"].values())
    parts += [report[k] for k in ("commonroad", "smath") if k in report]
    return [p["error"] for p in parts if "error" in p]


def substep_table(report: dict) -> list[str]:
    runtimes = list(report["substep"])
    cells: dict[str, dict[str, str]] = {}
    for runtime, res in report["substep"].items():
        for row in res.get("rows", ()):
            cells.setdefault(row["preset"], {})[runtime] = (
                f"{row['us_per_substep']:6.1f} {row['realtime_factor']:5.1f}x"
            )
    head = f"{'preset':14s}" + "".join(f" {r:>14s}" for r in runtimes)
    lines = [
        "substep, all assists on, 1 kHz: CPU us per substep and x real time "
        f"(best of {report['repeat']} runs of {report['seconds']:g} s)",
        head,
    ]
    for preset, row in cells.items():
        lines.append(f"{preset:14s}" + "".join(f" {row.get(r, '-'):>14s}" for r in runtimes))
    for runtime, res in report["substep"].items():
        yard, rows = res.get("yardstick_us"), res.get("rows", ())
        if yard and rows:
            worst = max(rows, key=lambda r: r["us_per_substep"])
            lines.append(
                f"{runtime}: worst substep ({worst['preset']}) = "
                f"{worst['us_per_substep'] / yard:.2f}x the yardstick ({yard:.1f} us, same process)"
            )
    lines.append(
        f"aims: <= {AIMS['cpython_us']:g} us in CPython 3.11 (and 3.13 no slower), "
        f"<= {AIMS['node_us']:g} us in Pyodide/Node"
    )
    return lines


def commonroad_table(cr: dict) -> list[str]:
    lines = [
        f"CommonRoad derivatives, CPython {cr['python']}: CPU us per call; yardstick = "
        f"the reference's MB derivative, {cr['yardstick_us']:.1f} us in the same run",
        f"{'model':6s} {'ours us':>8s} {'ref us':>8s} {'ours/ref':>9s} {'ours/yard':>10s}",
    ]
    for r in cr["models"]:
        lines.append(
            f"{r['model']:6s} {r['ours_us']:8.1f} {r['ref_us']:8.1f} "
            f"{r['ours_over_ref']:9.2f} {r['ours_over_yardstick']:10.2f}"
        )
    for model, cpu in cr.get("daemon_cpu_s_per_simulated_s", {}).items():
        lines.append(f"daemon {model:4s} {1.0 / cpu:6.1f}x real time (10 ms host steps)")
    for r in cr.get("replays", ()):
        match = "hash match" if r["hash_match"] else "HASH MISMATCH"
        lines.append(
            f"replay {r['recording']}: {r['simulated_s']:.1f} s simulated in {r['cpu_s']:.2f} s "
            f"CPU = {r['realtime_factor']:.1f}x real time ({match})"
        )
    return lines


def smath_table(sm: dict) -> list[str]:
    lines = [
        f"strict math, Python {sm['python']}: ns per call (best of {sm['repeat']}), ratio to math",
        f"{'function':8s} {'strict ns':>10s} {'math ns':>8s} {'ratio':>7s}",
    ]
    for r in sorted(sm["functions"], key=lambda r: -r["ratio"]):
        lines.append(
            f"{r['function']:8s} {r['strict_ns']:10.0f} {r['libm_ns']:8.0f} {r['ratio']:6.1f}x"
        )
    return lines


def format_report(report: dict) -> str:
    m = report["machine"]
    lines = [f"machine: {m['cpu']}, {m['cores']} cores, {m['platform']}", ""]
    lines += substep_table(report)
    for key, table in (("commonroad", commonroad_table), ("smath", smath_table)):
        if key in report and "error" not in report[key]:
            lines += [""] + table(report[key])
    errors = failures(report)
    if errors:
        lines += [""] + [f"FAILED: {e}" for e in errors]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--seconds", type=float, default=3.0, help="simulated s per substep run")
    ap.add_argument("--repeat", type=int, default=3, help="substep runs per preset, best kept")
    ap.add_argument("--preset", action="append", help="only these presets")
    ap.add_argument(
        "--runtimes",
        default=",".join(RUNTIMES),
        help=f"comma-separated subset of {','.join(RUNTIMES)}",
    )
    ap.add_argument("--wheel", help="project wheel for Pyodide (default: build it)")
    ap.add_argument("--no-commonroad", dest="commonroad", action="store_false")
    ap.add_argument("--no-smath", dest="smath", action="store_false")
    args = ap.parse_args(argv)
    args.runtimes = [r.strip() for r in args.runtimes.split(",") if r.strip()]
    bad = [r for r in args.runtimes if r not in RUNTIMES]
    if bad:
        ap.exit(2, f"benchmarks/bench.py: unknown runtime {bad[0]!r} (one of {RUNTIMES})\n")
    if args.seconds <= 0 or args.repeat < 1:
        ap.exit(2, "benchmarks/bench.py: --seconds must be > 0 and --repeat >= 1\n")
    if args.wheel and not Path(args.wheel).is_file():
        ap.exit(2, f"benchmarks/bench.py: wheel {args.wheel} not found\n")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = collect(args)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return 1 if failures(report) else 0


if __name__ == "__main__":
    raise SystemExit(main())
