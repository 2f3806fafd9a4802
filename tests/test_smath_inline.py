"""The inlined fast kernels (engine.smath.inline) give the bits of the functions they copy."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from helpers import strict_float_lint
from skidpad.engine.floatbits import float_bits
from skidpad.engine.smath import inline
from skidpad.engine.smath.trig import atan_fast, cos_fast, sin_fast, sincos_fast

ROOT = Path(__file__).resolve().parent.parent
lint = strict_float_lint()


def kernel_points() -> list[float]:
    """Every grid point of the kernels' tables (k/256, 256/k, k/128) and its neighbours, both
    signs, the thresholds, zeros, tiny, huge and non-finite values, and random ones."""
    rng = random.Random(17)
    base = [0.0, 7.450580596923828e-09, 1.4901161193847656e-08, 1.0, 6.25, 1.152921504606847e18]
    base += [k / 256.0 for k in range(257)] + [256.0 / k for k in range(1, 257)]
    base += [k / 128.0 for k in range(801)] + [(k + 0.5) / 128.0 for k in range(800)]
    base += [(k + 0.5) / 256.0 for k in range(256)] + [1e-300, 1e300, 5e-324]
    base += [rng.uniform(0.0, 7.0) for _ in range(3000)]
    base += [rng.uniform(0, 1e-7) for _ in range(300)]
    base += [math.exp(rng.uniform(-20.0, 45.0)) for _ in range(1000)]
    out = []
    for b in base:
        for v in (b, math.nextafter(b, 0.0), math.nextafter(b, math.inf)):
            out += [v, -v]
    return out + [math.inf, -math.inf, math.nan]


POINTS = kernel_points()


def compile_kernel(lines: list[str], result: str, index: object = None):
    text = "def f(x):\n" + "".join(f"    {line}\n" for line in lines) + f"    return {result}\n"
    names = inline.namespace()
    if index is not None:
        names["IDX"] = index
    exec(compile(text, "<inline test>", "exec"), names)  # strict: allow dynamic-code -- test
    return names["f"]


def _bits(y: float) -> object:
    return "nan" if y != y else float_bits(y)


def outcome(fn, x: float) -> object:
    try:
        y = fn(x)
    except ValueError as exc:  # sin and cos of an infinity
        return str(exc)
    return tuple(map(_bits, y)) if isinstance(y, tuple) else _bits(y)


KERNELS = {
    "atan": (lambda nn: inline.inline_atan("y", "x", nonneg=nn), "y", atan_fast),
    "sin": (lambda nn: inline.inline_sin_or_cos("y", "x", "sin", nonneg=nn), "y", sin_fast),
    "cos": (lambda nn: inline.inline_sin_or_cos("y", "x", "cos", nonneg=nn), "y", cos_fast),
    "sincos": (lambda nn: inline.inline_sincos("s", "c", "x", nonneg=nn), "(s, c)", sincos_fast),
}


@pytest.mark.parametrize("index", [math.floor, int], ids=["floor", "int"])
@pytest.mark.parametrize("nonneg", [False, True], ids=["both signs", "nonneg"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_inlined_kernel_gives_the_functions_bits(name: str, nonneg: bool, index) -> None:
    """Both sides of zero (the negative one on negated tables), and the positive side alone
    for the arguments a ``nonneg`` caller may pass (nan and -0.0 included), with either
    table-index function the namespace may bind."""
    lines, result, fn = KERNELS[name]
    inlined = compile_kernel(lines(nonneg), result, index)
    points = [x for x in POINTS if not x < 0.0] if nonneg else POINTS
    wrong = [x for x in points if outcome(inlined, x) != outcome(fn, x)]
    assert not wrong, f"{name}: the inlined text differs from the function at {wrong[:5]}"


def test_the_index_function_is_int_for_every_index_the_kernels_form() -> None:
    """floor and int agree on the non-negative finite floats the kernels index with."""
    for x in POINTS:
        ax = abs(x)
        if not math.isfinite(ax) or ax > 1.152921504606847e18:
            continue
        for t in (ax * 256.0 + 0.49999999999999994, ax * 128.0 + 0.5):
            assert math.floor(t) == int(t)
        if ax > 1.0:
            t = 256.0 / ax + 0.49999999999999994
            assert math.floor(t) == int(t)


def test_a_one_ulp_change_of_the_table_value_is_caught() -> None:
    text = inline.inline_atan("y", "x")
    planted = [line.replace("y = _ah + (", "y = _ah * 1.0000000000000002 + (") for line in text]
    assert planted != text
    inlined = compile_kernel(planted, "y")
    assert any(outcome(inlined, x) != outcome(atan_fast, x) for x in POINTS)


def test_inlined_text_passes_the_strict_float_lint() -> None:
    for lines, result, _ in KERNELS.values():
        for nonneg in (False, True):
            text = "def f(x):\n" + "".join(f"    {ln}\n" for ln in lines(nonneg))
            assert lint.lint_source(text + f"    return {result}\n", "<inline>") == []
