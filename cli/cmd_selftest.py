"""``skidpad selftest``: the math self-test hash vs ``hashes/math.json``.

See docs/architecture.md §3, §7.

Prints the hash of the strict math on the fixed battery of
``engine.smath.selftest`` and compares it with the golden value in
``<hashes>/math.json`` (``{"math_hash": "<16 hex>", ...}``). When mpmath is
importable it also prints the accuracy summary of every strict function against
the mpmath oracle of ``parity.accuracy`` (``--points`` seeded points each;
``--points 0`` skips it); without mpmath it says that the summary needs mpmath.

Exit status: 0 when the hash matches (and every function measured is below
1 ulp), 1 on a hash mismatch or an accuracy failure, 2 when ``math.json`` is
missing or malformed (the hash is still printed, so it can be blessed).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from skidpad.cli.options import add_json_flag
from skidpad.engine.errors import SkidpadError
from skidpad.replay.golden import MATH_FILE, require_math

DEFAULT_POINTS = 300
ACCURACY_SEED = 1


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_json_flag(p, "the table")
    p.add_argument(
        "--hashes", default="hashes", help="directory holding math.json (default: hashes)"
    )
    p.add_argument(
        "--points",
        type=int,
        default=DEFAULT_POINTS,
        help=f"accuracy points per function (default {DEFAULT_POINTS}; 0 skips)",
    )


def accuracy_summary(points: int) -> tuple[list[dict] | None, str]:
    """Rows of ``parity.accuracy`` for every strict function, or None and the reason."""
    try:
        import mpmath  # noqa: F401
    except ImportError:
        return None, "the accuracy summary needs mpmath (pip install 'skidpad[test]')"
    from skidpad.engine.smath import FUNCTIONS
    from skidpad.parity import accuracy

    names = [n for n in FUNCTIONS if n in accuracy.ARITY]
    rows = accuracy.measure_all(names, points, ACCURACY_SEED, jobs=1)
    return rows, ""


def failed_functions(rows: list[dict]) -> list[str]:
    from skidpad.parity.accuracy import failed_functions as failed

    return failed(rows)


def _json_rows(rows: list[dict] | None) -> list[dict] | None:
    if rows is None:
        return None
    from skidpad.parity.accuracy import json_safe

    return json_safe(rows)


def run(args: argparse.Namespace) -> int:
    from skidpad.engine.smath import FUNCTIONS
    from skidpad.engine.smath.selftest import SELFTEST_VERSION, battery, selftest_hash

    if args.points < 0:
        raise SkidpadError("--points must be >= 0")
    t0 = time.perf_counter()
    here = selftest_hash()
    selftest_s = time.perf_counter() - t0
    n_results = len(battery())

    golden_error = ""
    try:
        golden: str | None = require_math(Path(args.hashes))
    except SkidpadError as exc:
        golden, golden_error = None, str(exc)
    match = golden == here if golden is not None else None

    rows, note = (
        (None, "skipped (--points 0)") if args.points == 0 else accuracy_summary(args.points)
    )
    failed = failed_functions(rows) if rows else []

    if args.json:
        print(
            json.dumps(
                {
                    "math_hash": here,
                    "python": sys.version,
                    "platform": sys.platform,
                    "selftest_version": SELFTEST_VERSION,
                    "results": n_results,
                    "functions": list(FUNCTIONS),
                    "selftest_s": selftest_s,
                    "golden": golden,
                    "golden_error": golden_error or None,
                    "match": match,
                    "accuracy": _json_rows(rows),
                    "accuracy_note": note or None,
                    "accuracy_failed": failed,
                },
                indent=1,
                allow_nan=False,
            )
        )
    else:
        print(
            f"math self-test v{SELFTEST_VERSION}: {n_results} results over "
            f"{len(FUNCTIONS)} functions in {selftest_s * 1000:.0f} ms "
            f"({platform.python_implementation()} {platform.python_version()}, "
            f"{sys.platform})"
        )
        print(f"math hash  {here}")
        if golden is not None:
            verdict = "match" if match else "MISMATCH"
            print(f"golden     {golden}  ({Path(args.hashes) / MATH_FILE}): {verdict}")
        if rows is not None:
            from skidpad.parity.accuracy import failure_lines, format_table

            print(
                f"\naccuracy against mpmath ({args.points} points per function, "
                f"seed {ACCURACY_SEED}):"
            )
            print(format_table(rows))
            for line in failure_lines(rows):
                print(line)
        else:
            print(f"accuracy summary: {note}")
    if golden_error:
        print(f"skidpad selftest: {golden_error}", file=sys.stderr)
        return 2
    return 0 if match and not failed else 1
