"""Accuracy of the strict math (docs/architecture.md §3): every strict function over the
sampler's points, judged by the oracle, and the command line.

* :mod:`parity.oracle`: the mpmath reference at 128 bits, the ulp error, correct rounding.
* :mod:`parity.sampler`: the seeded points each function is tested on.
* :func:`measure` / :func:`measure_all`: maximum error, worst arguments and the share
  correctly rounded per function (split over processes, same result for any split);
  :func:`check_edge_cases`: the self-test battery's zeros, infinities and NaNs, which
  must match Python's ``math`` bit for bit.

CLI: ``python -m parity.accuracy [--points N] [--functions a,b] [--seed S]
[--jobs J] [--json]`` prints one row per function and exits 1 if any maximum
error is >= 1 ulp.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence

import mpmath
from skidpad.engine.smath import FUNCTIONS
from skidpad.engine.smath.selftest import edge_cases
from skidpad.parity.oracle import (
    ARITY,
    FUNCTION_NAMES,
    REF_PREC,
    DomainError,
    evaluate_at_prec,
)
from skidpad.parity.sampler import BLOCK, sample_points
from skidpad.replay import table


def float_hex(x: float) -> str:
    return float.hex(x) if math.isfinite(x) else repr(x)


def _strict(name: str) -> Callable[..., float]:
    return FUNCTIONS[name][0]


def _outcome(fn: Callable[..., float], args: tuple[float, ...]) -> str:
    """What ``fn(*args)`` does, as text: ``raises ValueError``, ``nan`` or the value in hex."""
    try:
        y = fn(*args)
    except (ValueError, OverflowError, ZeroDivisionError) as exc:
        return f"raises {type(exc).__name__}"
    if not isinstance(y, float):
        return f"returns {type(y).__name__} {y!r}"
    return "nan" if y != y else float_hex(y)


def _is_special(args: tuple[float, ...]) -> bool:
    return any(v == 0.0 or not math.isfinite(v) for v in args)


def check_edge_cases(name: str) -> list[dict]:
    """The self-test battery's edge cases of ``name`` on which the strict function is wrong.

    Where an argument is a zero, an infinity or NaN, C99 Annex F fixes the exact
    result (or Python's exception), so the strict function must do bit for bit
    what ``math.<name>`` does (NaN compared as NaN, signed zeros by sign). The
    finite edge cases (the largest double, thresholds) go through the oracle
    and must be below 1 ulp.
    """
    fn = _strict(name)
    libm = getattr(math, name)
    bad = []
    with mpmath.workprec(REF_PREC):
        for args in edge_cases(name, ARITY[name]):
            if _is_special(args):
                want, got = _outcome(libm, args), _outcome(fn, args)
                if want != got:
                    bad.append({"args": [float_hex(v) for v in args], "want": want, "got": got})
                continue
            try:
                err, _ok = evaluate_at_prec(fn, name, args)
            except DomainError:  # outside the domain: must raise ValueError as math does
                want, got = _outcome(libm, args), _outcome(fn, args)
                if want != got:
                    bad.append({"args": [float_hex(v) for v in args], "want": want, "got": got})
                continue
            if not err < 1.0:
                bad.append(
                    {
                        "args": [float_hex(v) for v in args],
                        "want": "< 1 ulp",
                        "got": f"{err:.3g} ulp ({_outcome(fn, args)})",
                    }
                )
    return bad


def _measure_slice(task: tuple[str, int, int, int, int]) -> dict:
    name, n, seed, start, stop = task
    t0 = time.process_time()
    fn = _strict(name)
    pts = sample_points(name, stop, seed, start)
    worst, worst_args, good = -1.0, (), 0
    with mpmath.workprec(REF_PREC):
        for args in pts:
            err, ok = evaluate_at_prec(fn, name, args)
            good += ok
            if err > worst:
                worst, worst_args = err, args
    return {
        "max_ulp": worst,
        "worst_args": worst_args,
        "good": good,
        "points": len(pts),
        "cpu_s": time.process_time() - t0,
    }


def _combine(name: str, parts: list[dict]) -> dict:
    best = max(parts, key=lambda p: p["max_ulp"])  # the first slice among equals
    points = 0
    good = 0
    cpu = 0.0
    for p in parts:
        points += p["points"]
        good += p["good"]
        cpu += p["cpu_s"]
    return {
        "function": name,
        "points": points,
        "max_ulp": best["max_ulp"],
        "worst_args": best["worst_args"],
        "worst_args_hex": [float_hex(v) for v in best["worst_args"]],
        "pct_correctly_rounded": 100.0 * good / points if points else 0.0,
        "cpu_s": cpu,
    }


def measure(name: str, n: int, seed: int = 1) -> dict:
    """Max ulp error, worst arguments and share correctly rounded of ``engine.smath.<name>``."""
    return _combine(name, [_measure_slice((name, n, seed, 0, n))])


def measure_all(
    names: Sequence[str],
    n: int,
    seed: int = 1,
    jobs: int = 1,
    chunk: int = 4 * BLOCK,
    edge_cases: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """:func:`measure` for several functions, split into chunks over ``jobs`` processes.

    The result does not depend on ``jobs`` or ``chunk``: every chunk draws the
    same deterministic point list and evaluates its own slice. With
    ``edge_cases`` each row also carries ``edge_failures`` (:func:`check_edge_cases`).
    """
    tasks = [(name, n, seed, s, min(s + chunk, n)) for name in names for s in range(0, n, chunk)]
    results: list[dict] = []
    if jobs <= 1 or len(tasks) <= 1:
        for t in tasks:
            results.append(_measure_slice(t))
            if progress:
                progress(len(results), len(tasks))
    else:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(min(jobs, len(tasks))) as pool:
            for res in pool.imap(_measure_slice, tasks, chunksize=1):
                results.append(res)
                if progress:
                    progress(len(results), len(tasks))
    out = []
    for name in names:
        parts = [res for t, res in zip(tasks, results, strict=True) if t[0] == name]
        row = _combine(name, parts)
        if edge_cases:
            row["edge_failures"] = check_edge_cases(name)
        out.append(row)
    return out


def json_safe(obj):
    """``obj`` with non-finite floats as the strings "inf"/"-inf"/"nan" (strict JSON)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    return obj


def _edge_cell(row: dict) -> str:
    if "edge_failures" not in row:
        return "-"
    return "ok" if not row["edge_failures"] else f"{len(row['edge_failures'])}bad"


def failed_functions(rows: Sequence[dict]) -> list[str]:
    """Functions with a max error >= 1 ulp or a wrong edge case."""
    return [r["function"] for r in rows if not r["max_ulp"] < 1.0 or r.get("edge_failures")]


def failure_lines(rows: Sequence[dict]) -> list[str]:
    """One line per wrong edge case, then the FAIL line naming every failed function (none
    when all pass)."""
    lines = [
        f"edge case {r['function']}({', '.join(e['args'])}): want {e['want']}, got {e['got']}"
        for r in rows
        for e in r.get("edge_failures", [])
    ]
    bad = failed_functions(rows)
    if bad:
        lines.append(f"FAIL: max error >= 1 ulp or a wrong edge case in {', '.join(bad)}")
    return lines


def format_table(rows: Sequence[dict]) -> str:
    """The accuracy rows as one table (``replay.table.format_table``), numbers right-aligned."""
    head = ["function", "points", "max ulp", "% CR", "edge", "cpu s", "worst argument(s)"]
    body = []
    for row in rows:
        mx = row["max_ulp"]
        mxs = "inf" if math.isinf(mx) else (f"{mx:.4f}" if mx < 1000 else f"{mx:.3g}")
        body.append([
            row["function"],
            str(row["points"]),
            mxs,
            f"{row['pct_correctly_rounded']:.3f}%",
            _edge_cell(row),
            f"{row['cpu_s']:.1f}",
            ", ".join(row["worst_args_hex"]),
        ])
    return table.format_table([head, *body], right={1, 2, 3, 4, 5})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m parity.accuracy", description="accuracy of engine.smath against mpmath"
    )
    p.add_argument("--points", type=int, default=2000, help="points per function (default 2000)")
    p.add_argument("--functions", default="", help="comma-separated subset (default: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: CPU count)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    args = p.parse_args(argv)
    names = [s.strip() for s in args.functions.split(",") if s.strip()] or list(FUNCTION_NAMES)
    unknown = [s for s in names if s not in ARITY]
    if unknown:
        print(
            f"accuracy: unknown function {unknown[0]!r}; known: {', '.join(FUNCTION_NAMES)}",
            file=sys.stderr,
        )
        return 2
    if args.points < 1:
        print("accuracy: --points must be >= 1", file=sys.stderr)
        return 2
    t0 = time.perf_counter()

    def show(done: int, total: int) -> None:
        print(
            f"\raccuracy: {done}/{total} chunks, {time.perf_counter() - t0:.0f} s",
            end="\n" if done == total else "",
            file=sys.stderr,
            flush=True,
        )

    rows = measure_all(
        names, args.points, args.seed, jobs=args.jobs, progress=None if args.quiet else show
    )
    wall = time.perf_counter() - t0
    bad = failed_functions(rows)
    if args.json:
        print(
            json.dumps(
                json_safe(
                    {
                        "seed": args.seed,
                        "ref_prec": REF_PREC,
                        "wall_s": wall,
                        "functions": rows,
                        "failed": bad,
                    }
                ),
                indent=1,
                allow_nan=False,
            )
        )
    else:
        print(format_table(rows))
        print(
            f"{len(rows)} functions x {args.points} points, seed {args.seed}, "
            f"oracle {REF_PREC} bits, {wall:.1f} s"
        )
        for line in failure_lines(rows):
            print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
