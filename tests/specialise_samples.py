"""Small readable functions for tests/test_specialise.py (the specialiser reads their source)."""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.smath.trig import atan_fast


class Consts(NamedTuple):
    gain: float
    offsets: tuple
    mode: str


def scaled(x: float, k: Consts) -> float:
    return k.gain * x + 0.5 * k.gain


def corners(x: float, k: Consts) -> float:
    total = 0.0
    for i in range(4):
        total = total + k.offsets[i] * x
    if k.mode == "plain":
        return total
    return total + atan_fast(x)


def helper(a: float, b: float) -> float:
    if a > b:
        return a - b
    return b - a


def caller(x: float, y: float) -> float:
    return helper(x, y) * 2.0 + helper(y * 3.0, x)


def unsupported(x: float) -> float:
    while x > 1.0:
        x = x * 0.5
    return x


class Pair(NamedTuple):
    sum: float
    parts: tuple


def make_pair(a: float, b: float) -> Pair:
    s = a + b
    return Pair(s, (a * 0.5, b - s))


def uses_records(x: float, y: float) -> float:
    p = make_pair(x, y)
    q = Pair(p.sum * 2.0, p.parts)
    lo, hi = q.parts
    hi, lo = lo, hi  # a swap: both read before either is stored
    r = Pair(x, (y, y))
    x = 3.0  # a parameter reassigned after a record captured it: the record keeps the old
    return q.sum - lo * hi + p.parts[1] * x + r.sum


def record_in_a_branch(x: float, y: float) -> float:
    p = make_pair(x, y)
    if x > y:
        p = Pair(x, (y, y))
    return p.sum + p.parts[0]


def unread_division(x: float, y: float) -> float:
    p = Pair(x / y, (x, y))  # the sum is never read, but dividing by zero raises
    return p.parts[0] * 2.0
