"""The points the accuracy of the strict math is measured on: seeded, reproducible, any slice alone.

:func:`sample_points` draws a mix of arguments from the project's splitmix64
integer generator: random bit patterns over the function's whole domain,
ordinary-range values, subnormals, and points near the places where functions
are hard (multiples of pi/2, 1 for log, the overflow thresholds). Every point is
finite and inside the function's real domain. The list is made of blocks of
``BLOCK`` points, each from its own stream, so a slice can be drawn (and
measured in parallel) without the rest.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import mpmath
from skidpad.engine.floatbits import bits_float
from skidpad.engine.prng import MASK64
from skidpad.engine.prng import SplitMix64 as _ProjectSplitMix64
from skidpad.parity.oracle import ARITY, FUNCTION_NAMES, round_to_double

DBL_MAX = sys.float_info.max


class SplitMix64(_ProjectSplitMix64):
    """The project generator (``engine.prng``) plus the sampler's own draws."""

    __slots__ = ()

    def subnormal(self) -> float:
        """A random nonzero subnormal of random sign."""
        m = 1 + self.below((1 << 52) - 1)
        s = self.next() >> 63
        return bits_float((s << 63) | m)


def _nudge(x: float, k: int) -> float:
    """``x`` moved ``k`` representable doubles away (towards +inf for k > 0)."""
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


_LN2 = math.log(2.0)
#: largest x with finite exp(x), smallest x with nonzero exp(x), sinh/cosh limit.
_EXP_MAX = 709.782712893384
_EXP_MIN = -745.1332191019411
_SINH_MAX = 710.4758600739439


def _pi_multiple(k: int, num: int = 1, den: int = 2) -> float:
    """The double nearest ``k * pi * num / den`` (from the oracle, not from float pi)."""
    with mpmath.workprec(200):
        return float(round_to_double(k * mpmath.pi * num / den))


def _in_domain(name: str, args: tuple[float, ...]) -> bool:
    """Finite arguments inside the function's real domain with a finite, nonzero-range result."""
    if not all(math.isfinite(v) for v in args):
        return False
    x = args[0]
    if name in ("asin", "acos"):
        return abs(x) <= 1.0
    if name == "log":
        return x > 0.0
    if name == "log1p":
        return x > -1.0
    if name == "sqrt":
        return x >= 0.0
    if name == "exp":
        return x <= _EXP_MAX
    if name == "expm1":
        return x <= _EXP_MAX
    if name in ("sinh", "cosh"):
        return abs(x) <= _SINH_MAX
    if name == "pow":
        y = args[1]
        if x == 0.0:
            return y >= 0.0
        if x < 0.0 and y != math.floor(y):
            return False
        if x == 1.0 or y == 0.0:
            return True
        return math.log2(abs(x)) * y < 1024.5  # overflow just above DBL_MAX is sampled too
    if name == "hypot":
        return math.hypot(*args) < math.inf
    return True


def _ordinary(name: str, r: SplitMix64) -> tuple[float, ...]:
    if name in ("sin", "cos", "tan"):
        return (r.uniform(-10.0, 10.0),) if r.below(2) else (r.uniform(-1000.0, 1000.0),)
    if name in ("asin", "acos"):
        return (r.uniform(-1.0, 1.0),)
    if name == "atan":
        return (r.uniform(-20.0, 20.0),)
    if name == "atan2":
        return (r.uniform(-10.0, 10.0), r.uniform(-10.0, 10.0))
    if name in ("exp", "expm1"):
        return (r.uniform(-40.0, 40.0),) if r.below(2) else (r.uniform(-2.0, 2.0),)
    if name == "log":
        return (r.uniform(0.0, 10.0) or 1.0,) if r.below(2) else (r.uniform(0.0, 1e6) or 1.0,)
    if name == "log1p":
        return (r.uniform(-0.999, 10.0),)
    if name == "pow":
        return (r.uniform(0.0, 20.0) or 2.0, r.uniform(-10.0, 10.0))
    if name in ("sinh", "cosh", "tanh"):
        return (r.uniform(-30.0, 30.0),) if r.below(2) else (r.uniform(-1.0, 1.0),)
    if name == "hypot":
        return (r.uniform(-100.0, 100.0), r.uniform(-100.0, 100.0))
    if name == "cbrt":
        return (r.uniform(-1000.0, 1000.0),)
    if name == "sqrt":
        return (r.uniform(0.0, 1000.0),)
    raise KeyError(name)


def _random_bits(name: str, r: SplitMix64) -> tuple[float, ...]:
    """Uniform random bit patterns restricted to the domain (rejection, bounded)."""
    for _ in range(200):
        if name == "pow":
            x = abs(r.bits_double())
            if r.below(4) == 0:
                # negative base, integer exponent
                x = -x
                y = float(r.below(2001) - 1000)
            elif r.below(2) and x not in (0.0, 1.0) and math.isfinite(x):
                # exponent chosen so that the result spans the whole double range
                t = r.uniform(-1074.0, 1023.0)
                y = t / math.log2(x)
            else:
                y = r.bits_double()
            args: tuple[float, ...] = (x, y)
        elif ARITY[name] == 2:
            args = (r.bits_double(), r.bits_double())
        else:
            x = r.bits_double()
            if name in ("log", "sqrt"):
                x = abs(x)
            args = (x,)
        if _in_domain(name, args):
            return args
    return _ordinary(name, r)


def _subnormal(name: str, r: SplitMix64) -> tuple[float, ...]:
    s = r.subnormal()
    if name in ("log", "sqrt"):
        return (abs(s),)
    if name == "pow":
        k = r.below(3)
        if k == 0:
            return (abs(s), r.uniform(0.0, 1.0))  # subnormal base, result up to 1
        if k == 1:
            return (r.uniform(0.5, 2.0), r.uniform(-1.0, 1.0) * 1e-300)
        return (abs(s), 0.5 * (1 + r.below(3)))  # exponents 0.5, 1, 1.5
    if name == "atan2":
        k = r.below(3)
        if k == 0:
            return (s, r.uniform(-1.0, 1.0))
        if k == 1:
            return (r.uniform(-1.0, 1.0), s)
        return (s, r.subnormal())
    if name == "hypot":
        return (s, r.subnormal()) if r.below(2) else (s, r.uniform(-1e-300, 1e-300))
    return (s,)


def _near_special(name: str, r: SplitMix64) -> tuple[float, ...]:
    """Points near where the function is hard to get right."""
    d = r.below(9) - 4  # a few ulps either side
    if name in ("sin", "cos", "tan"):
        k = r.below(5)
        if k == 0:
            m = r.below(64)  # small multiples of pi/2
        elif k == 1:
            m = r.below(1 << 20)
        elif k == 2:
            m = r.below(1 << 60)
        else:
            # huge arguments: the nearest double to a huge multiple of pi/2, or any huge double
            e = r.below(1024 - 30) + 30
            if k == 3:
                return (math.ldexp(1.0 + r.unit(), e) * (1 if r.below(2) else -1),)
            m = r.below(1 << 30) << max(0, e - 30)
        x = _pi_multiple(m) * (1 if r.below(2) else -1)
        if x == 0.0:
            x = _pi_multiple(1)
        return (_nudge(x, d),)
    if name in ("asin", "acos"):
        c = (1.0, -1.0, 0.5, -0.5, 0.0)[r.below(5)]
        if c == 0.0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)),)
        x = _nudge(c, d)
        if abs(x) > 1.0:
            x = c
        return (x if r.below(2) else c - math.copysign(math.ldexp(r.unit(), -r.below(60)), c),)
    if name == "atan":
        c = (1.0, -1.0, 0.0, 1e16, -1e16)[r.below(5)]
        if c == 0.0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(30)),)
        return (_nudge(c, d) * (math.ldexp(1.0 + r.unit(), r.below(40)) if abs(c) > 1 else 1.0),)
    if name == "atan2":
        k = r.below(4)
        y = r.uniform(-10.0, 10.0)
        if k == 0:  # y/x near +-1 (the quadrant bisectors)
            return (y, _nudge(y, d) * (1 if r.below(2) else -1))
        if k == 1:  # wildly different magnitudes
            return (y, math.ldexp(r.uniform(-1.0, 1.0), r.below(2000) - 1000))
        if k == 2:  # near the negative x axis (result near +-pi)
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)), -abs(y))
        return (math.ldexp(r.uniform(-1.0, 1.0), r.below(2000) - 1000), y)
    if name == "exp":
        c = (_EXP_MAX, _EXP_MIN, 0.0, -708.39641853226408, _LN2, -_LN2)[r.below(6)]
        if c == 0.0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)),)
        x = _nudge(c, d) if r.below(2) else c - r.unit()
        return (min(x, _EXP_MAX),)
    if name == "expm1":
        c = (0.0, _LN2, -_LN2, _EXP_MAX, -40.0, 1e-5)[r.below(6)]
        if c == 0.0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)),)
        return (min(_nudge(c, d) if r.below(2) else c + r.uniform(-0.01, 0.01), _EXP_MAX),)
    if name == "log":
        k = r.below(4)
        if k == 0:
            if r.below(2):
                return (_nudge(1.0, d),)
            return (1.0 + math.ldexp(r.uniform(-1.0, 1.0), -r.below(50)),)
        if k == 1:
            return (math.ldexp(1.0, r.below(2098) - 1074) * (_nudge(1.0, d)),)
        if k == 2:
            return (_nudge(DBL_MAX, -r.below(5)),)
        return (math.ldexp(r.uniform(0.70, 1.42), r.below(60) - 30),)
    if name == "log1p":
        k = r.below(3)
        if k == 0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)),)
        if k == 1:
            return (-1.0 + math.ldexp(r.unit() or 0.5, -r.below(53)),)
        return (math.ldexp(1.0 + r.unit(), r.below(1023)),)
    if name == "pow":
        k = r.below(5)
        if k == 0:  # base near 1, large exponent
            x = 1.0 + math.ldexp(r.uniform(-1.0, 1.0), -r.below(52) - 1)
            lim = 700.0 / abs(math.log(x)) if x != 1.0 else 1e300
            return (x, r.uniform(-lim, lim))
        if k == 1:  # results near overflow / underflow
            x = r.uniform(1.5, 1e10)
            t = 1023.99 if r.below(2) else -1074.0 + r.unit() * 40.0
            return (x, t / math.log2(x))
        if k == 2:  # integer exponents, negative bases
            return (r.uniform(-3.0, 3.0) or 1.5, float(r.below(121) - 60))
        if k == 3:  # exact powers of two and small integers
            return (float(1 + r.below(16)), float(r.below(40) - 20))
        return (r.uniform(0.0, 4.0) or 2.0, 0.5 + r.below(7))
    if name in ("sinh", "cosh"):
        c = (_SINH_MAX, -_SINH_MAX, 0.0, 22.0, -22.0)[r.below(5)]
        if c == 0.0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)),)
        x = _nudge(c, d) if abs(c) < _SINH_MAX else c - math.copysign(r.unit(), c)
        return (x,)
    if name == "tanh":
        c = (0.0, 19.06, -19.06, 0.55, -0.55)[r.below(5)]
        if c == 0.0:
            return (math.ldexp(r.uniform(-1.0, 1.0), -r.below(60)),)
        return (c + r.uniform(-0.5, 0.5),)
    if name == "hypot":
        k = r.below(3)
        if k == 0:  # near overflow
            return (math.ldexp(r.uniform(0.5, 0.7), 1024), math.ldexp(r.uniform(0.5, 0.7), 1024))
        if k == 1:  # one much smaller than the other
            x = r.uniform(-10.0, 10.0)
            return (x, x * math.ldexp(r.uniform(-1.0, 1.0), -r.below(40) - 10))
        x = r.uniform(-10.0, 10.0)  # nearly equal
        return (x, _nudge(x, d))
    if name == "cbrt":
        n = float(r.below(1 << 17) + 1) * (1 if r.below(2) else -1)
        return (_nudge(n * n * n, d) * math.ldexp(1.0, 3 * (r.below(600) - 300)),)
    if name == "sqrt":
        n = float(r.below(1 << 26) + 1)
        return (_nudge(n * n, d),)
    raise KeyError(name)


#: share of each kind of point: (random bit patterns, ordinary range, subnormal, near-special).
_MIX = (4, 2, 1, 3)


#: points are drawn in independent blocks of this many, so that a slice of the
#: point list can be generated (and measured in parallel) without the rest.
BLOCK = 5000


def _block_rng(name: str, seed: int, block: int) -> SplitMix64:
    code = 0
    for ch in name.encode("ascii"):
        code = (code * 131 + ch) & MASK64
    mixer = SplitMix64((seed & MASK64) ^ (code << 8) ^ (block * 0xD1B54A32D192ED03))
    mixer.next()
    return SplitMix64(mixer.next())


def _sample_block(name: str, seed: int, block: int, count: int) -> list[tuple[float, ...]]:
    r = _block_rng(name, seed, block)
    kinds = [k for k, w in enumerate(_MIX) for _ in range(w)]
    makers: tuple[Callable[[str, SplitMix64], tuple[float, ...]], ...] = (
        _random_bits,
        _ordinary,
        _subnormal,
        _near_special,
    )
    out: list[tuple[float, ...]] = []
    for i in range(count):
        args = makers[kinds[i % len(kinds)]](name, r)
        if not _in_domain(name, args):
            args = _ordinary(name, r)
        out.append(tuple(float(v) for v in args))
    return out


def sample_points(name: str, n: int, seed: int = 1, start: int = 0) -> list[tuple[float, ...]]:
    """Points ``start .. n-1`` of the reproducible argument list for ``name``.

    All are finite and inside the domain. Their kind cycles through random bit
    patterns over the whole domain, ordinary-range values, subnormals and
    near-special points in the proportions of ``_MIX``. The list is made of
    blocks of ``BLOCK`` points, each drawn from its own splitmix64 stream seeded
    from (seed, function name, block number), so any slice is reproducible alone.
    """
    if name not in ARITY:
        raise KeyError(f"no sampler for function {name!r}; known: {', '.join(FUNCTION_NAMES)}")
    out: list[tuple[float, ...]] = []
    first = start // BLOCK
    for b in range(first, (n + BLOCK - 1) // BLOCK):
        pts = _sample_block(name, seed, b, min(BLOCK, n - b * BLOCK))
        out.extend(pts[start - b * BLOCK :] if b == first else pts)
    return out
