"""ns per call of every strict math function against the platform's ``math`` (ADR 0023).

Usage: ``python benchmarks/smath.py [--repeat R] [--number N] [--functions a,b] [--json]``

Each function is called on a fixed list of 256 representative arguments (the
range a vehicle model uses: angles of a few radians, slip ratios, speeds), in a
plain ``for`` loop timed with ``timeit``; the best of ``--repeat`` short runs
(a few ms each, so that one of them fits in a time slice) is kept: the least
disturbed by other processes on a shared machine. The bare loop
(``for x in xs: pass``) is timed too and subtracted, so a number is the cost
of one call, call overhead included (a Python-level call costs ~30-50 ns more
than a C builtin's, which is part of the price). ``ratio`` is strict / libm.
``atan_fast`` (ADR 0175), ``sin_fast`` and ``cos_fast`` (ADR 0178), not in the self-test,
are timed against ``math.atan``, ``math.sin`` and ``math.cos``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skidpad.engine import smath  # noqa: E402

#: name -> (libm counterpart, argument ranges)
RANGES = {
    "sin": ((-4.0, 4.0),), "cos": ((-4.0, 4.0),), "tan": ((-1.5, 1.5),),
    "asin": ((-1.0, 1.0),), "acos": ((-1.0, 1.0),), "atan": ((-10.0, 10.0),),
    "atan2": ((-10.0, 10.0), (-10.0, 10.0)),
    "exp": ((-10.0, 10.0),), "expm1": ((-1.0, 1.0),),
    "log": ((1e-3, 100.0),), "log1p": ((-0.5, 10.0),),
    "pow": ((1e-3, 10.0), (-5.0, 5.0)),
    "sinh": ((-5.0, 5.0),), "cosh": ((-5.0, 5.0),), "tanh": ((-3.0, 3.0),),
    "hypot": ((-100.0, 100.0), (-100.0, 100.0)),
    "cbrt": ((-1000.0, 1000.0),), "sqrt": ((0.0, 1000.0),),
}
N_ARGS = 256
#: entry points outside ``smath.FUNCTIONS`` (not in the self-test), with their libm counterpart
EXTRA = {
    "atan_fast": (smath.trig.atan_fast, 1, "atan"),
    "sin_fast": (smath.trig.sin_fast, 1, "sin"),
    "cos_fast": (smath.trig.cos_fast, 1, "cos"),
}
RANGES["atan_fast"] = RANGES["atan"]
RANGES["sin_fast"] = RANGES["sin"]
RANGES["cos_fast"] = RANGES["cos"]


def libm(name: str):
    return getattr(math, name)


def arguments(name: str, seed: int = 2026) -> list[tuple[float, ...]]:
    rng = random.Random(f"{seed}:{name}")
    return [tuple(rng.uniform(lo, hi) for lo, hi in RANGES[name]) for _ in range(N_ARGS)]


def _loop_ns(fn, args: list[tuple[float, ...]], repeat: int, number: int) -> float:
    """Best-of-``repeat`` ns per element of the loop calling ``fn`` (None: the bare loop)."""
    call1, call2 = ("f(x)", "f(x, y)") if fn is not None else ("pass", "pass")
    if len(args[0]) == 1:
        xs = [a[0] for a in args]
        stmt = f"for x in xs: {call1}"
        env = {"f": fn, "xs": xs}
    else:
        stmt = f"for x, y in xs: {call2}"
        env = {"f": fn, "xs": args}
    t = timeit.Timer(stmt, globals=env)
    best = min(t.repeat(repeat=repeat, number=number))
    return best / (number * len(args)) * 1e9


def bench(names: list[str], repeat: int, number: int) -> list[dict]:
    overhead = {
        1: _loop_ns(None, [(0.5,)] * N_ARGS, repeat, number),
        2: _loop_ns(None, [(0.5, 0.5)] * N_ARGS, repeat, number),
    }
    rows = []
    for name in names:
        if name in EXTRA:
            fn, arity, counterpart = EXTRA[name]
        else:
            (fn, arity), counterpart = smath.FUNCTIONS[name], name
        args = arguments(name)
        strict = _loop_ns(fn, args, repeat, number) - overhead[arity]
        native = _loop_ns(libm(counterpart), args, repeat, number) - overhead[arity]
        rows.append({
            "function": name,
            "strict_ns": strict,
            "libm_ns": native,
            "ratio": strict / native if native > 0 else float("inf"),
            "strict_is_libm": fn is libm(counterpart),
        })
    return rows


def format_table(rows: list[dict], overhead_note: str) -> str:
    lines = [f"{'function':<8} {'strict ns':>10} {'math ns':>9} {'ratio':>7}"]
    for r in rows:
        flag = "  (the libm function itself)" if r["strict_is_libm"] else ""
        lines.append(f"{r['function']:<8} {r['strict_ns']:>10.0f} {r['libm_ns']:>9.0f} "
                     f"{r['ratio']:>6.1f}x{flag}")
    lines.append(overhead_note)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=30, help="timing runs, best kept (default 30)")
    p.add_argument("--number", type=int, default=3,
                   help="passes over the 256 arguments per run (default 3)")
    p.add_argument("--functions", default="", help="comma-separated subset (default: all)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    known = [*smath.FUNCTIONS, *EXTRA]
    names = [s.strip() for s in args.functions.split(",") if s.strip()] or known
    unknown = [n for n in names if n not in known]
    if unknown or args.repeat < 1 or args.number < 1:
        what = f"unknown function {unknown[0]!r}" if unknown else "--repeat/--number must be >= 1"
        print(f"benchmarks/smath.py: {what}", file=sys.stderr)
        return 2
    rows = bench(names, args.repeat, args.number)
    info = {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "platform": platform.platform(), "repeat": args.repeat, "number": args.number,
            "args_per_function": N_ARGS}
    if args.json:
        print(json.dumps({**info, "functions": rows}, indent=1))
    else:
        note = (f"Python {info['python']} on {info['platform']}; best of {args.repeat} x "
                f"{args.number} x {N_ARGS} calls; loop overhead subtracted")
        print(format_table(rows, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
