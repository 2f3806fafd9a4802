"""The mpmath oracle: the exact value of a strict function and the error of a result in ulps.

A *measuring instrument* (docs/architecture.md §3), never imported by ``engine/``.

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
* :func:`evaluate` judges one call of a function: a strict function that raises
  ``OverflowError`` where the exact value rounds to an infinity is correct
  (Python's ``math`` does the same); raising anywhere else is an infinite error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import mpmath
from mpmath import mpf
from skidpad.engine.smath import FUNCTIONS

#: bits of precision of the oracle (docs/architecture.md §3 asks for at least 100).
REF_PREC = 128

#: the functions the oracle knows: every strict function, in ``engine.smath.FUNCTIONS`` order.
FUNCTION_NAMES = tuple(FUNCTIONS)
ARITY = {name: arity for name, (_fn, arity) in FUNCTIONS.items()}


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
        return reference_at_prec(name, tuple(float(v) for v in args))


_make_mpf = mpmath.mp.make_mpf
_from_float = mpmath.libmp.from_float


def reference_at_prec(name: str, fargs: tuple[float, ...]) -> mpf:
    """:func:`reference` at the current mpmath precision (the caller sets it)."""
    for v in fargs:
        if v != v and not (name == "pow" and fargs[1] == 0.0):
            return mpf("nan")
    return _ref(name, tuple(_make_mpf(_from_float(v)) for v in fargs), fargs)


def _exact_parts(exact: mpf) -> tuple[int, int, int]:
    """``exact == sign * man * 2**exp`` with integer ``man`` (mpmath's representation)."""
    sign, man, exp, _bc = exact._mpf_
    return (-1 if sign else 1), int(man), int(exp)


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


def evaluate(fn: Callable[..., float], name: str, args: tuple[float, ...]) -> tuple[float, bool]:
    """(ulp error, correctly rounded) of ``fn(*args)`` against the oracle."""
    with mpmath.workprec(REF_PREC):
        return evaluate_at_prec(fn, name, args)


def evaluate_at_prec(
    fn: Callable[..., float], name: str, args: tuple[float, ...]
) -> tuple[float, bool]:
    """:func:`evaluate` at the current mpmath precision (the caller sets it)."""
    exact = reference_at_prec(name, args)
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
