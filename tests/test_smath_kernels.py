"""The declared sign split of the fast kernels (engine.smath.kernels.SIGN_SPLIT) holds: each
kernel is its negative side below zero and its positive side elsewhere, bit for bit."""

from __future__ import annotations

import math
import random

import pytest
from skidpad.engine.floatbits import float_bits
from skidpad.engine.smath import kernels


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


def _bits(y: float) -> object:
    return "nan" if y != y else float_bits(y)


def outcome(fn, x: float) -> object:
    try:
        y = fn(x)
    except ValueError as exc:  # sin and cos of an infinity
        return str(exc)
    return tuple(map(_bits, y)) if isinstance(y, tuple) else _bits(y)


SPLITS = {fn.__name__: (fn, neg, pos) for fn, (neg, pos) in kernels.SIGN_SPLIT.items()}


@pytest.mark.parametrize("index", [math.floor, int], ids=["floor", "int"])
@pytest.mark.parametrize("name", sorted(SPLITS))
def test_the_split_gives_the_kernels_bits(name: str, index, monkeypatch) -> None:
    """Both sides on every grid point and around it, special values included, with either
    table-index function ``IDX`` may be."""
    fn, neg, pos = SPLITS[name]
    monkeypatch.setattr(kernels, "IDX", index)
    wrong = [x for x in POINTS if outcome(neg if x < 0.0 else pos, x) != outcome(fn, x)]
    assert not wrong, f"{name}: the split differs from the kernel at {wrong[:5]}"


def test_a_one_ulp_change_of_a_side_is_caught(monkeypatch) -> None:
    """The check above can fail: a table row nudged by one ulp on the negative side."""
    rows = list(kernels.ATLN)
    c, ah, al = rows[100]
    rows[100] = (c, math.nextafter(ah, 0.0), al)
    monkeypatch.setattr(kernels, "ATLN", tuple(rows))
    fn, neg, pos = SPLITS["atan_fast"]
    assert any(outcome(neg if x < 0.0 else pos, x) != outcome(fn, x) for x in POINTS)


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
