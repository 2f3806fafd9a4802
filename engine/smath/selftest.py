"""The math self-test: a fixed battery of inputs, their results, and one hash.

See docs/architecture.md §3.

Every runtime computes :func:`selftest_hash` before it replays anything. If it
differs from the golden value in ``hashes/math.json``, the strict math does not
produce the same bits here, and no state hash computed after it can be trusted.

The battery (:func:`battery`) visits ``engine.smath.FUNCTIONS`` in order. For
each function it holds

* the edge cases: signed zeros, infinities, NaN, the smallest subnormal, the
  smallest normal, the largest double, small integers and halves, and the
  function's own thresholds (overflow limits, the edges of the domain, the
  hardest argument for trigonometric reduction); for the two-argument
  functions, the full cross product of a set of special values;
* ``POINTS_PER_FUNCTION`` points drawn from a splitmix64 integer generator
  (seed ``SEED``), cycling through five kinds: a random bit pattern inside the
  domain, an ordinary-range value, a tiny value, a subnormal, and a value near
  a special point (a multiple of pi/2, 1 for the logarithms, an overflow
  threshold ...). Every double is built from integer bits with ``struct`` or
  from exact float operations, so the battery is identical in every runtime.

Results (:func:`selftest_results`) are packed little-endian binary64 in
battery order, with two normalisations that make the bytes a function of the
math alone (docs/adr/0021-selftest-domain-errors-and-nan.md):

* any NaN result is packed as the canonical quiet NaN ``0x7ff8000000000000``
  (the sign and payload of a NaN are not specified by IEEE 754 and differ
  between x86 and WebAssembly);
* an input on which the function raises is packed as a reserved NaN payload
  naming the exception: ``ValueError`` (domain error) ``0x7ff80000000dead1``,
  ``OverflowError`` ``0x7ff80000000dead2``, ``ZeroDivisionError``
  ``0x7ff80000000dead3``. A function that raises where it should not, or stops
  raising, changes the hash like a wrong bit does. Other exceptions propagate.
"""

from __future__ import annotations

import struct

from skidpad.engine.floatbits import bits_float, float_bits
from skidpad.engine.prng import SplitMix64
from skidpad.engine.smath import FUNCTIONS
from skidpad.engine.state import hash_bytes

#: bump when the battery or the packing changes (the golden hash changes with it).
SELFTEST_VERSION = 1

#: seed of the splitmix64 stream of the battery.
SEED = 0x5EED_5C1D_9A4D_2026

#: generated points per function (edge cases come on top).
POINTS_PER_FUNCTION = 300

CANONICAL_NAN_BITS = 0x7FF8000000000000
#: exception class -> the NaN payload packed in place of a result.
EXCEPTION_BITS = {
    ValueError: 0x7FF80000000DEAD1,
    OverflowError: 0x7FF80000000DEAD2,
    ZeroDivisionError: 0x7FF80000000DEAD3,
}

_INF = float("inf")
_NAN = float("nan")
_DBL_MAX = 1.7976931348623157e308
_DBL_MIN = 2.2250738585072014e-308  # smallest normal
_TRUE_MIN = 5e-324  # smallest subnormal
_HALF_PI = 1.5707963267948966  # the double nearest pi/2
_EXP_MAX = 709.782712893384  # largest x with finite exp(x)
_EXP_MIN = -745.1332191019411  # smallest x with exp(x) > 0
_SINH_MAX = 710.4758600739439  # largest |x| with finite sinh/cosh
_HARD_TRIG = 5.319372648326541e255  # 6381956970095103 * 2**797: nearest to a multiple of pi/2


def _nudge(x: float, k: int) -> float:
    """``x`` moved ``k`` doubles along its own sign's direction (finite, nonzero x; small k)."""
    return bits_float(float_bits(x) + k)


def _make(sign: int, exponent: int, mantissa: int) -> float:
    """The double with the given sign bit, biased exponent (0..2046) and 52-bit mantissa."""
    return bits_float((sign << 63) | (exponent << 52) | (mantissa & ((1 << 52) - 1)))


# --------------------------------------------------------------------------- domains


def _in_domain(name: str, args: tuple[float, ...]) -> bool:
    """Inside the real domain with a finite result (comparisons only: exact everywhere)."""
    x = args[0]
    for v in args:
        if not (-_DBL_MAX <= v <= _DBL_MAX):
            return False
    if name in ("asin", "acos"):
        return -1.0 <= x <= 1.0
    if name in ("log", "sqrt"):
        return x > 0.0
    if name == "log1p":
        return x > -1.0
    if name in ("exp", "expm1"):
        return x <= _EXP_MAX
    if name in ("sinh", "cosh"):
        return -_SINH_MAX <= x <= _SINH_MAX
    if name == "pow":
        return x > 0.0 and _pow_magnitude(x) * abs(args[1]) < 1000.0
    if name == "hypot":
        return abs(x) < 1e300 and abs(args[1]) < 1e300
    return True


def _pow_magnitude(x: float) -> float:
    """An upper bound on ``|log2(x)|`` (x > 0), so that ``pow(x, y)`` stays finite.

    Near 1, ``|ln x| <= |x - 1| / min(x, 1)`` (the integral of 1/t); elsewhere
    the exponent bits bound it.
    """
    if 0.5 <= x <= 2.0:
        return 1.4426950408889634 * abs(x - 1.0) / min(x, 1.0) * 1.0000001
    e = (float_bits(x) >> 52) & 0x7FF
    return float(abs(e - 1023) + 1) if e else 1075.0


# --------------------------------------------------------------------------- point kinds

_ORDINARY = {
    "sin": (-10.0, 10.0),
    "cos": (-10.0, 10.0),
    "tan": (-10.0, 10.0),
    "asin": (-1.0, 1.0),
    "acos": (-1.0, 1.0),
    "atan": (-20.0, 20.0),
    "atan2": (-10.0, 10.0),
    "exp": (-40.0, 40.0),
    "expm1": (-3.0, 3.0),
    "log": (0.0, 100.0),
    "log1p": (-0.9, 10.0),
    "pow": (0.0, 10.0),
    "sinh": (-20.0, 20.0),
    "cosh": (-20.0, 20.0),
    "tanh": (-5.0, 5.0),
    "hypot": (-100.0, 100.0),
    "cbrt": (-1000.0, 1000.0),
    "sqrt": (0.0, 1000.0),
}


def _ordinary(name: str, r: SplitMix64) -> tuple[float, ...]:
    lo, hi = _ORDINARY[name]
    if name == "pow":
        return (r.uniform(lo, hi), r.uniform(-8.0, 8.0))
    if name in ("atan2", "hypot"):
        return (r.uniform(lo, hi), r.uniform(lo, hi))
    return (r.uniform(lo, hi),)


def _random_bits(name: str, r: SplitMix64) -> tuple[float, ...]:
    for _ in range(64):
        if name == "pow":
            x = bits_float(r.next() >> 1)  # positive
            args: tuple[float, ...] = (x, r.uniform(-1.0, 1.0) * (1000.0 / _pow_magnitude(x)))
        elif name in ("atan2", "hypot"):
            args = (bits_float(r.next()), bits_float(r.next()))
        elif name in ("log", "sqrt"):
            args = (bits_float(r.next() >> 1),)
        else:
            args = (bits_float(r.next()),)
        if _in_domain(name, args):
            return args
    return _ordinary(name, r)


def _tiny(name: str, r: SplitMix64) -> tuple[float, ...]:
    """A normal number between 2**-1022 and 2**-20."""
    x = _make(r.below(2), 1 + r.below(1002), r.next())
    if name in ("log", "sqrt", "pow"):
        x = abs(x)
    if name == "pow":
        return (x, r.uniform(-0.9, 0.9))
    if name in ("atan2", "hypot"):
        return (x, r.uniform(-2.0, 2.0)) if r.below(2) else (r.uniform(-2.0, 2.0), x)
    return (x,)


def _subnormal(name: str, r: SplitMix64) -> tuple[float, ...]:
    x = _make(r.below(2), 0, 1 + r.below((1 << 52) - 1))
    if name in ("log", "sqrt", "pow"):
        x = abs(x)
    if name == "pow":
        return (x, r.uniform(0.0, 0.9))
    if name in ("atan2", "hypot"):
        return (x, _make(r.below(2), 0, r.next()))
    return (x,)


def _near_special(name: str, r: SplitMix64) -> tuple[float, ...]:
    # a few ulps, or up to 2**19 ulps, either side of the special point
    d = r.below(7) - 3 if r.below(2) else r.below(1 << 20) - (1 << 19)
    s = r.sign()
    if name in ("sin", "cos", "tan"):
        k = r.below(3)
        if k == 0:
            x = float(1 + r.below(200)) * _HALF_PI
        elif k == 1:
            x = float(1 + r.below(1 << 40)) * _HALF_PI
        else:  # huge: every exponent up to the top, where exact reduction matters
            x = _make(0, 1023 + 30 + r.below(994), r.next())
        return (s * _nudge(x, d),)
    if name in ("asin", "acos"):
        c = (1.0, 0.5)[r.below(2)]
        return (s * _nudge(c, -abs(d)),)
    if name == "atan":
        return (s * _nudge((1.0, 1e16, 0.25)[r.below(3)], d),)
    if name == "atan2":
        y = r.uniform(-10.0, 10.0)
        return (y, _nudge(y, d) * s) if y != 0.0 else (y, s)
    if name == "exp":
        c = (_EXP_MAX, _EXP_MIN, -708.3964185322641, 0.6931471805599453)[r.below(4)]
        return (min(_nudge(c, -abs(d)) - r.unit(), _EXP_MAX),)
    if name == "expm1":
        c = (0.6931471805599453, 1e-5, 1e-10, 36.7)[r.below(4)]
        return (s * _nudge(c, d),)
    if name in ("log", "log1p"):
        if name == "log1p" and r.below(2):
            return (_nudge(-1.0, -(1 + abs(d)) * 100000),)
        return (_nudge(1.0, d) if name == "log" else s * _nudge(1e-8, d),)
    if name == "pow":
        x = _nudge(1.0, (r.below(7) - 3) * 1000 + 1)  # |log x| < 7e-13, so y*log x < 700
        return (x, s * r.uniform(0.0, 1e15))
    if name in ("sinh", "cosh"):
        return (s * (_SINH_MAX - r.unit()),)
    if name == "tanh":
        return (s * _nudge((19.06, 0.55, 1e-8)[r.below(3)], d),)
    if name == "hypot":
        x = r.uniform(-10.0, 10.0)
        return (x, _nudge(x, d) if x != 0.0 else 1.0)
    if name == "cbrt":
        n = float(1 + r.below(1 << 17))
        return (s * _nudge(n * n * n, d),)
    if name == "sqrt":
        n = float(1 + r.below(1 << 26))
        return (_nudge(n * n, d),)
    raise KeyError(name)


_KINDS = (_random_bits, _ordinary, _tiny, _subnormal, _near_special)


# --------------------------------------------------------------------------- edge cases

_SPECIALS = (
    0.0,
    -0.0,
    _INF,
    -_INF,
    _NAN,
    _TRUE_MIN,
    -_TRUE_MIN,
    _DBL_MIN,
    -_DBL_MIN,
    _DBL_MAX,
    -_DBL_MAX,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
)

_EXTRA = {
    "sin": (_HARD_TRIG, 1e22, 1e300, _HALF_PI, 3.141592653589793),
    "cos": (_HARD_TRIG, 1e22, 1e300, _HALF_PI, 3.141592653589793),
    "tan": (_HARD_TRIG, 1e22, 1e300, _HALF_PI, -_HALF_PI),
    "asin": (1.0000000000000002, -1.0000000000000002, 0.9999999999999999),
    "acos": (1.0000000000000002, -1.0000000000000002, 0.9999999999999999),
    "atan": (1e16, -1e16, 1e300),
    "exp": (_EXP_MAX, 709.7827128933841, 710.0, _EXP_MIN, -745.2, -1000.0, 1e-300),
    "expm1": (_EXP_MAX, 710.0, -40.0, -1000.0, 1e-300),
    "log": (0.9999999999999999, 1.0000000000000002),
    "log1p": (-0.9999999999999999, -1.0000000000000002, 1e-300),
    "sinh": (_SINH_MAX, 710.5, -710.5, 1e-300),
    "cosh": (_SINH_MAX, 710.5, -710.5, 1e-300),
    "tanh": (19.06, 22.0, 1e-300),
    "cbrt": (27.0, -27.0, 1e300),
    "sqrt": (4.0, 1e300),
}

_PAIR_EXTRA = {
    "pow": (
        (-8.0, 1.0 / 3.0),
        (2.0, 1e6),
        (2.0, -1e6),
        (-2.0, 1025.0),
        (-2.0, 1023.0),
        (0.0, -3.0),
        (-0.0, -3.0),
        (-0.0, -2.0),
        (10.0, 308.0),
        (10.0, -323.0),
        (1.0000000000000002, 4503599627370496.0),
        (-1.0, 4503599627370497.0),
    ),
    "atan2": ((1e-300, 1e300), (1e300, 1e-300), (-1e-300, -1e300)),
    "hypot": ((1e308, 1e308), (3.0, 4.0), (1e-320, 1e-320)),
}


def edge_cases(name: str, arity: int) -> list[tuple[float, ...]]:
    """The fixed edge-case inputs of one function (the first part of its battery block)."""
    if arity == 1:
        return [(x,) for x in _SPECIALS + _EXTRA.get(name, ())]
    pairs = [(x, y) for x in _SPECIALS for y in _SPECIALS]
    return pairs + list(_PAIR_EXTRA.get(name, ()))


# --------------------------------------------------------------------------- battery


def battery() -> list[tuple[str, tuple[float, ...]]]:
    """``[(function name, args), ...]``: the fixed inputs, in ``FUNCTIONS`` order."""
    out: list[tuple[str, tuple[float, ...]]] = []
    for index, (name, (_fn, arity)) in enumerate(FUNCTIONS.items()):
        out.extend((name, args) for args in edge_cases(name, arity))
        r = SplitMix64(SEED + index * 0x9E3779B97F4A7C15)
        for i in range(POINTS_PER_FUNCTION):
            out.append((name, _KINDS[i % len(_KINDS)](name, r)))
    return out


def _result_bits(fn, args: tuple[float, ...]) -> int:
    try:
        y = fn(*args)
    except (ValueError, OverflowError, ZeroDivisionError) as exc:
        for cls, bits in EXCEPTION_BITS.items():
            if isinstance(exc, cls):
                return bits
        raise
    if not isinstance(y, float):
        raise TypeError(f"{fn.__name__}{args!r} returned {type(y).__name__}, not float")
    if y != y:
        return CANONICAL_NAN_BITS
    return float_bits(y)


def selftest_results() -> bytes:
    """Every battery result, packed little-endian binary64 (see the module docstring)."""
    chunks = []
    for name, args in battery():
        chunks.append(struct.pack("<Q", _result_bits(FUNCTIONS[name][0], args)))
    return b"".join(chunks)


def selftest_hash() -> str:
    """The math self-test hash: 16 hex digits of SHA-256 over :func:`selftest_results`."""
    return hash_bytes(selftest_results())
