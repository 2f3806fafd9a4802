"""Accuracy of the strict math (docs/architecture.md §3): an mpmath oracle and the ulp measurement.

This module is a *measuring instrument*, never imported by ``engine/``.

* :func:`reference` evaluates a function with mpmath at ``REF_PREC`` (128) bits;
  mpmath raises its working precision internally for cancellation (near the
  zeros of sin, near 1 for log, huge trigonometric arguments), so the result
  carries far more correct bits than the 53 being judged.
* :func:`ulp_error` is ``|got - exact| / ulp(exact)`` where ``ulp(exact)`` is
  the spacing of binary64 numbers in the binade of the *exact* value
  (``2**(e-52)`` for ``2**e <= |exact| < 2**(e+1)``, never below the subnormal
  spacing ``2**-1074``; above ``DBL_MAX`` the top binade's spacing ``2**971``
  is used as if the exponent range went on). A result that is an infinity
  counts as exact (error 0) only when the exact value rounds to that same
  infinity; otherwise its error is infinite. NaN is exact only for NaN.
* :func:`correctly_rounded` compares ``got`` with the exact value rounded to
  nearest-even binary64 (:func:`round_to_double`, integer arithmetic,
  subnormal-aware).
* :func:`sample_points` draws a seeded, reproducible mix of arguments from a
  splitmix64 integer generator: random bit patterns over the function's whole
  domain, ordinary-range values, subnormals, and points near the places where
  functions are hard (multiples of pi/2, 1 for log, the overflow thresholds).
* :func:`measure` runs one strict function over those points.

A strict function that raises ``OverflowError`` where the exact value rounds to
an infinity is correct (Python's ``math`` does the same); raising anywhere else
on a sampled point (all are inside the domain) is an infinite error.

CLI: ``python -m parity.accuracy [--points N] [--functions a,b] [--seed S]
[--jobs J] [--json]`` prints one row per function and exits 1 if any maximum
error is >= 1 ulp.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import struct
import sys
import time
from collections.abc import Callable, Sequence

import mpmath
from mpmath import mpf

from engine.prng import SplitMix64 as _ProjectSplitMix64

#: bits of precision of the oracle (docs/architecture.md §3 asks for at least 100).
REF_PREC = 128

#: the functions the oracle knows, in ``engine.smath.FUNCTIONS`` order.
FUNCTION_NAMES = (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "exp", "expm1", "log", "log1p", "pow",
    "sinh", "cosh", "tanh", "hypot", "cbrt", "sqrt",
)
ARITY = {name: (2 if name in ("atan2", "pow", "hypot") else 1) for name in FUNCTION_NAMES}

DBL_MAX = sys.float_info.max
DBL_MIN = sys.float_info.min  # smallest normal, 2**-1022
DBL_TRUE_MIN = 5e-324  # 2**-1074
_MASK64 = (1 << 64) - 1


# --------------------------------------------------------------------------- PRNG

class SplitMix64(_ProjectSplitMix64):
    """The project generator (``engine.prng``) plus the sampler's own draws."""

    __slots__ = ()

    def subnormal(self) -> float:
        """A random nonzero subnormal of random sign."""
        m = 1 + self.below((1 << 52) - 1)
        s = self.next() >> 63
        return struct.unpack("<d", struct.pack("<Q", (s << 63) | m))[0]


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _from_bits(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b & _MASK64))[0]


def _nudge(x: float, k: int) -> float:
    """``x`` moved ``k`` representable doubles away (towards +inf for k > 0)."""
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


def float_hex(x: float) -> str:
    return float.hex(x) if math.isfinite(x) else repr(x)


# --------------------------------------------------------------------------- oracle

class DomainError(ValueError):
    """The point is outside the function's real domain (Python's math raises ValueError)."""


def _is_odd_int(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y) and abs(y) < 2.0**53 and int(y) % 2 == 1


def _ref_pow(x: mpf, y: mpf, xf: float, yf: float) -> mpf:
    if yf == 0.0:
        return mpf(1)
    if xf == 0.0:
        if yf < 0.0:
            raise DomainError("pow(0, negative)")
        return mpf(0)
    if xf < 0.0:
        if yf != math.floor(yf):
            raise DomainError("pow(negative, non-integer)")
        r = _pow_positive(-x, y, yf)
        return -r if _is_odd_int(yf) else r
    return _pow_positive(x, y, yf)


def _pow_positive(x: mpf, y: mpf, yf: float) -> mpf:
    """``x**y`` for ``x > 0``. mpmath raises integer powers exactly (a 53-bit mantissa
    to the 10**6th power has 53 million bits), so beyond small exponents use
    ``exp(y log x)`` with enough extra bits that the product keeps REF_PREC + 32 bits
    (no exact power with |y| > 64 can be a rounding midpoint)."""
    if abs(yf) <= 64.0:
        return mpmath.power(x, y)
    extra = 32 + max(0, math.frexp(yf)[1]) + 12  # bits of y, and of log x up to 2**11
    with mpmath.extraprec(extra):
        return mpmath.exp(y * mpmath.log(x))


def _ref(name: str, a: Sequence[mpf], f: Sequence[float]) -> mpf:
    x = a[0]
    if name == "sin":
        return mpmath.sin(x)
    if name == "cos":
        return mpmath.cos(x)
    if name == "tan":
        return mpmath.tan(x)
    if name == "asin":
        if abs(f[0]) > 1.0:
            raise DomainError("asin outside [-1, 1]")
        return mpmath.asin(x)
    if name == "acos":
        if abs(f[0]) > 1.0:
            raise DomainError("acos outside [-1, 1]")
        return mpmath.acos(x)
    if name == "atan":
        return mpmath.atan(x)
    if name == "atan2":
        return mpmath.atan2(a[0], a[1])
    if name == "exp":
        return mpmath.exp(x)
    if name == "expm1":
        return mpmath.expm1(x)
    if name == "log":
        if f[0] <= 0.0:
            raise DomainError("log of a non-positive number")
        return mpmath.log(x)
    if name == "log1p":
        if f[0] <= -1.0:
            raise DomainError("log1p at or below -1")
        return mpmath.log1p(x)
    if name == "pow":
        return _ref_pow(a[0], a[1], f[0], f[1])
    if name == "sinh":
        return mpmath.sinh(x)
    if name == "cosh":
        return mpmath.cosh(x)
    if name == "tanh":
        return mpmath.tanh(x)
    if name == "hypot":
        return mpmath.hypot(a[0], a[1])
    if name == "cbrt":
        r = mpmath.cbrt(abs(x))
        return -r if f[0] < 0.0 else r
    if name == "sqrt":
        if f[0] < 0.0:
            raise DomainError("sqrt of a negative number")
        return mpmath.sqrt(x)
    raise KeyError(f"no reference for function {name!r}; known: {', '.join(FUNCTION_NAMES)}")


def reference(name: str, *args: float) -> mpf:
    """The exact value of ``name(*args)`` to ``REF_PREC`` bits, as an mpmath ``mpf``.

    Arguments are finite or infinite doubles (NaN gives ``mpf('nan')``).
    Raises :class:`DomainError` outside the real domain.
    """
    if name not in ARITY:
        raise KeyError(f"no reference for function {name!r}; known: {', '.join(FUNCTION_NAMES)}")
    if len(args) != ARITY[name]:
        raise TypeError(f"{name} takes {ARITY[name]} argument(s), got {len(args)}")
    with mpmath.workprec(REF_PREC):
        return _reference_at_prec(name, tuple(float(v) for v in args))


_make_mpf = mpmath.mp.make_mpf
_from_float = mpmath.libmp.from_float


def _reference_at_prec(name: str, fargs: tuple[float, ...]) -> mpf:
    """:func:`reference` at the current mpmath precision (the caller sets it)."""
    for v in fargs:
        if v != v and not (name == "pow" and fargs[1] == 0.0):
            return mpf("nan")
    return _ref(name, tuple(_make_mpf(_from_float(v)) for v in fargs), fargs)


# --------------------------------------------------------------------------- ulps

def _exact_parts(exact: mpf) -> tuple[int, int, int]:
    """``exact == sign * man * 2**exp`` with integer ``man`` (mpmath's representation)."""
    sign, man, exp, _bc = exact._mpf_
    return (-1 if sign else 1), int(man), int(exp)


def _binade_exp(exact: mpf) -> int:
    """``e`` with ``2**e <= |exact| < 2**(e+1)`` (exact must be finite and nonzero)."""
    _s, man, exp = _exact_parts(exact)
    return exp + man.bit_length() - 1


def ulp_of(exact: mpf) -> mpf:
    """The binary64 spacing in the binade of ``exact``: ``2**-1074`` at the bottom
    (subnormals and zero), the top binade's ``2**971`` above ``DBL_MAX``."""
    if exact == 0:
        return mpf(2) ** -1074
    e = _binade_exp(exact)
    return mpf(2) ** (min(max(e, -1022), 1023) - 52)


def round_to_double(exact: mpf) -> float:
    """``exact`` rounded to the nearest binary64, ties to even (inf on overflow)."""
    if mpmath.isnan(exact):
        return math.nan
    if mpmath.isinf(exact):
        return math.inf if exact > 0 else -math.inf
    if exact == 0:
        return 0.0
    sign, man, exp = _exact_parts(exact)
    e = exp + man.bit_length() - 1
    if e < -1080:  # below half the smallest subnormal
        return sign * 0.0
    if e > 1100:
        return sign * math.inf
    q = max(e, -1022) - 52  # exponent of the ulp of the result
    if exp >= q:
        n = man << (exp - q)
    else:
        shift = q - exp
        n, rem = man >> shift, man & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and n & 1):
            n += 1
    if n.bit_length() + q > 1024:
        return sign * math.inf
    return sign * math.ldexp(float(n), q)


def ulp_error(got: float, exact: mpf) -> float:
    """``|got - exact|`` in ulps of the exact value's binade (see module docstring)."""
    if mpmath.isnan(exact):
        return 0.0 if math.isnan(got) else math.inf
    if math.isnan(got):
        return math.inf
    if math.isinf(got):
        return 0.0 if round_to_double(exact) == got else math.inf
    if mpmath.isinf(exact):
        return math.inf
    # exact integer arithmetic: exact = es * em * 2**ee, got = gn / 2**gd (as_integer_ratio)
    if exact == 0:
        es, em, ee, q = 1, 0, 0, -1074
    else:
        es, em, ee = _exact_parts(exact)
        e = ee + em.bit_length() - 1
        q = min(max(e, -1022), 1023) - 52  # the ulp is 2**q
    gn, gd = got.as_integer_ratio()  # gd is a power of two
    ge = 1 - gd.bit_length()  # got == gn * 2**ge
    m = min(ee, ge)
    diff = abs(es * (em << (ee - m)) - (gn << (ge - m)))  # |exact - got| == diff * 2**m
    if diff == 0:
        return 0.0
    shift = max(0, diff.bit_length() - 60)
    return math.ldexp(float(diff >> shift), m + shift - q) if m + shift - q < 1024 else math.inf


def correctly_rounded(got: float, exact: mpf) -> bool:
    """True when ``got`` is ``exact`` rounded to nearest-even (nan for nan; zeros by value)."""
    r = round_to_double(exact)
    if math.isnan(r):
        return math.isnan(got)
    return got == r


# --------------------------------------------------------------------------- sampling

_PI = math.pi
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
            t = (1023.99 if r.below(2) else -1074.0 + r.unit() * 40.0)
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
        code = (code * 131 + ch) & _MASK64
    mixer = SplitMix64((seed & _MASK64) ^ (code << 8) ^ (block * 0xD1B54A32D192ED03))
    mixer.next()
    return SplitMix64(mixer.next())


def _sample_block(name: str, seed: int, block: int, count: int) -> list[tuple[float, ...]]:
    r = _block_rng(name, seed, block)
    kinds = [k for k, w in enumerate(_MIX) for _ in range(w)]
    makers: tuple[Callable[[str, SplitMix64], tuple[float, ...]], ...] = (
        _random_bits, _ordinary, _subnormal, _near_special)
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
        out.extend(pts[start - b * BLOCK:] if b == first else pts)
    return out


# --------------------------------------------------------------------------- measuring

def _strict(name: str) -> Callable[..., float]:
    from engine import smath

    return smath.FUNCTIONS[name][0]


def evaluate(fn: Callable[..., float], name: str, args: tuple[float, ...]) -> tuple[float, bool]:
    """(ulp error, correctly rounded) of ``fn(*args)`` against the oracle."""
    with mpmath.workprec(REF_PREC):
        return _evaluate(fn, name, args)


def _evaluate(fn: Callable[..., float], name: str, args: tuple[float, ...]) -> tuple[float, bool]:
    exact = _reference_at_prec(name, args)
    try:
        got = fn(*args)
    except OverflowError:
        # Python's math raises where C returns +-inf: correct iff the exact value overflows
        ok = math.isinf(round_to_double(exact))
        return (0.0 if ok else math.inf), ok
    except (ValueError, ZeroDivisionError):
        return math.inf, False
    if not isinstance(got, float):
        return math.inf, False
    return ulp_error(got, exact), correctly_rounded(got, exact)


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
    from engine.smath.selftest import edge_cases

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
                err, _ok = _evaluate(fn, name, args)
            except DomainError:  # outside the domain: must raise ValueError as math does
                want, got = _outcome(libm, args), _outcome(fn, args)
                if want != got:
                    bad.append({"args": [float_hex(v) for v in args], "want": want, "got": got})
                continue
            if not err < 1.0:
                bad.append({"args": [float_hex(v) for v in args], "want": "< 1 ulp",
                            "got": f"{err:.3g} ulp ({_outcome(fn, args)})"})
    return bad


def _measure_slice(task: tuple[str, int, int, int, int]) -> dict:
    name, n, seed, start, stop = task
    t0 = time.process_time()
    fn = _strict(name)
    pts = sample_points(name, stop, seed, start)
    worst, worst_args, good = -1.0, (), 0
    with mpmath.workprec(REF_PREC):
        for args in pts:
            err, ok = _evaluate(fn, name, args)
            good += ok
            if err > worst:
                worst, worst_args = err, args
    return {"max_ulp": worst, "worst_args": worst_args, "good": good, "points": len(pts),
            "cpu_s": time.process_time() - t0}


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


def measure_all(names: Sequence[str], n: int, seed: int = 1, jobs: int = 1,
                chunk: int = 4 * BLOCK, edge_cases: bool = True,
                progress: Callable[[int, int], None] | None = None) -> list[dict]:
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
    return [r["function"] for r in rows
            if not r["max_ulp"] < 1.0 or r.get("edge_failures")]


def format_table(rows: Sequence[dict]) -> str:
    lines = [f"{'function':<8} {'points':>8} {'max ulp':>9} {'% CR':>8} {'edge':>5} "
             f"{'cpu s':>6}  worst argument(s)"]
    for row in rows:
        mx = row["max_ulp"]
        mxs = "inf" if math.isinf(mx) else (f"{mx:.4f}" if mx < 1000 else f"{mx:.3g}")
        lines.append(f"{row['function']:<8} {row['points']:>8} {mxs:>9} "
                     f"{row['pct_correctly_rounded']:>7.3f}% {_edge_cell(row):>5} "
                     f"{row['cpu_s']:>6.1f}  "
                     f"{', '.join(row['worst_args_hex'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m parity.accuracy",
                                description="accuracy of engine.smath against mpmath")
    p.add_argument("--points", type=int, default=2000, help="points per function (default 2000)")
    p.add_argument("--functions", default="", help="comma-separated subset (default: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: CPU count)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    args = p.parse_args(argv)
    names = [s.strip() for s in args.functions.split(",") if s.strip()] or list(FUNCTION_NAMES)
    unknown = [s for s in names if s not in ARITY]
    if unknown:
        print(f"accuracy: unknown function {unknown[0]!r}; known: {', '.join(FUNCTION_NAMES)}",
              file=sys.stderr)
        return 2
    if args.points < 1:
        print("accuracy: --points must be >= 1", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    def show(done: int, total: int) -> None:
        print(f"\raccuracy: {done}/{total} chunks, {time.perf_counter() - t0:.0f} s",
              end="\n" if done == total else "", file=sys.stderr, flush=True)

    rows = measure_all(names, args.points, args.seed, jobs=args.jobs,
                       progress=None if args.quiet else show)
    wall = time.perf_counter() - t0
    bad = failed_functions(rows)
    if args.json:
        print(json.dumps(json_safe({"seed": args.seed, "ref_prec": REF_PREC, "wall_s": wall,
                                    "functions": rows, "failed": bad}), indent=1,
                         allow_nan=False))
    else:
        print(format_table(rows))
        print(f"{len(rows)} functions x {args.points} points, seed {args.seed}, "
              f"oracle {REF_PREC} bits, {wall:.1f} s")
        for r in rows:
            for e in r.get("edge_failures", []):
                print(f"edge case {r['function']}({', '.join(e['args'])}): "
                      f"want {e['want']}, got {e['got']}")
        if bad:
            print(f"FAIL: max error >= 1 ulp or a wrong edge case in {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
