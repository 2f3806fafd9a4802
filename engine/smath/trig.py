"""Strict trigonometric functions: sin, cos, tan, asin, acos, atan, atan2 (radians).

Only the operations of docs/architecture.md §3 are used (``+ - * /``, comparisons,
``math.sqrt``/``copysign``, ``struct``, Python integers), so every runtime
computes the same bits. Errors stay below 1 ulp on every double tried and
most results are correctly rounded (``tests/test_smath_trig.py``,
``nox -s accuracy``). Constants and tables come from ``ci/gen_smath_trig.py``
(mpmath) via ``_tables_trig.py``.

Range reduction (ADR 0010). ``x = q*pi/2 + r`` with ``|r| <= pi/4``, ``r``
carried as a double-double ``y0 + y1``:

* ``|x| <= pi/4``: none (``r = x``).
* ``|x| < 1.6e6``: Cody-Waite with pi/2 in three pieces (33 + 33 + 53 bits;
  ``q*PIO2_1`` and ``q*PIO2_2`` are exact). Absolute error below 2**-97, so
  it is used only while ``|r| >= 2**-30``.
* otherwise (huge ``x`` or ``x`` within 2**-30 of a multiple of pi/2):
  Payne-Hanek with Python integers: ``x = m*2**e`` exactly, ``m * floor(2/pi *
  2**1400)`` gives ``x*2/pi`` with at least 429 fraction bits, of which 200
  are kept and multiplied by a 130-bit pi/2. Even the worst double (its ``r``
  is about 2**-61) gets ``r`` to the double-double limit, about 2**-105
  relative.

Kernels (ADR 0011), table-driven on a 2**-8 grid so that the polynomial part
is tiny next to the table value and its rounding errors do not show:

* ``sin(a + d) = sin a + cos a * d + [sin a (cos d - 1) + cos a (sin d - d)]``
  with ``a = k/256``, ``|d| <= 2**-9``, ``cos a * d`` formed exactly (26-bit
  Veltkamp halves) and the table values as double-doubles.
* ``cos(a + d) = cos a - sin a * d + [cos a (cos d - 1) - sin a (sin d - d)]``.
* ``atan(u) = atan c + atan((u - c)/(1 + u c))`` for ``u`` in [0, 1], ``c =
  k/256``, the quotient formed as a double-double; ``u > 1`` uses ``pi/2 -
  atan(1/u)`` with a table of ``pi/2 - atan c``; where the result is at least
  pi/4 the quotient needs no double-double correction.
* ``tan = sin/cos`` and ``asin``/``acos`` = ``atan2(x, sqrt(1 - x*x))`` with all
  intermediate quantities as double-doubles, rounded once at the end.

Special values follow C99 Annex F as Python's ``math`` does: signed zeros are
kept (``sin(-0.0) == -0.0``), nan gives nan, ``sin``/``cos``/``tan`` of an
infinity and ``asin``/``acos`` outside [-1, 1] raise ``ValueError("math domain
error")``; ``atan2`` handles every ±0/±inf combination exactly as ``math.atan2``.

Fast kernels for callers that know their argument is small: ``sin_small``,
``cos_small`` and ``sincos_small`` are valid ONLY for ``|x| <= pi/4`` (no
reduction, no special-value checks); ``sincos`` does one reduction for both.

Fast variants, NOT in ``FUNCTIONS`` (ADR 0175, 0178): ``atan_fast`` (below 1.5 ulp) and
``sin_fast``/``cos_fast``/``sincos_fast`` (a double-double table of the strict ``sin``/``cos``
on a 2**-7 grid up to ``FAST_TRIG_MAX``, no reduction, no exact products; see ``sin_fast``) serve
models whose tolerance is far wider than an ulp (the CommonRoad tire and MB) and never the
self-test battery.
"""

from __future__ import annotations

from math import copysign, sqrt
from typing import NamedTuple

from skidpad.engine.floatbits import float_bits

from . import _tables_trig as _t

__all__ = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "atan_fast",
    "sin_fast",
    "cos_fast",
    "sincos_fast",
    "sincos",
    "sin_small",
    "cos_small",
    "sincos_small",
]

_SC = _t.SC_TABLE
_AT = _t.ATAN_TABLE
_S3 = _t.S3
_S5 = _t.S5
_C2 = _t.C2
_C4 = _t.C4
_C6 = _t.C6
_A3 = _t.A3
_A5 = _t.A5
_A7 = _t.A7
_PIO2_1 = _t.PIO2_1
_PIO2_2 = _t.PIO2_2
_PIO2_3 = _t.PIO2_3
_TWO_OVER_PI = _t.TWO_OVER_PI
_PI_HI = _t.PI_HI
_PI_LO = _t.PI_LO
_PIO2_HI = _t.PIO2_HI
_PIO2_LO = _t.PIO2_LO
_PI = _t.PI
_PIO2 = _t.PIO2
_PIO4 = _t.PIO4
_THREE_PIO4 = _t.THREE_PIO4
_TWO_OVER_PI_INT = _t.TWO_OVER_PI_INT
_TWO_OVER_PI_BITS = _t.TWO_OVER_PI_BITS
_PIO2_INT = _t.PIO2_INT
_PH_FRAC_BITS = _t.PH_FRAC_BITS
_PH_SCALE = _t.PH_SCALE

# Literals used in the hot paths (exact binary values, written out because
# ``**`` on floats is banned):
#   134217729.0           = 2**27 + 1, Veltkamp splitter
#   0.49999999999999994   = 1/2 - 2**-54: int(u*256 + this) is a rounding
#                           that never lands above a half-way point, which keeps
#                           u - k/256 exact (Sterbenz) for k = 1
#   1.4901161193847656e-08 = 2**-26, below it sin x, asin x round to x
#   7.450580596923828e-09 = 2**-27, below it cos x rounds to 1, tan x, atan x to x
#   6755399441055744.0    = 1.5 * 2**52, round-to-integer constant
#   34359738368.0         = 2**35, rounds u in [0, 1] to a multiple of 2**-17
#   9.313225746154785e-10 = 2**-30, Cody-Waite is trusted while |r| >= this
#   1.152921504606847e+18 = 2**60, above it atan x = pi/2 - 1/x to the last bit
_INF = float("inf")
_DOMAIN = "math domain error"


def _reduce_big(ax: float) -> tuple[int, float, float]:
    """``ax = q*pi/2 + (y0 + y1)``, ``|y0 + y1| <= pi/4``, exact Payne-Hanek (finite ax > 0).

    Returns ``(q mod 4, y0, y1)``; ``y0 + y1`` is ``r`` to about 2**-105
    relative (the double-double limit) even at the hardest doubles.
    """
    bits = float_bits(ax)
    m = (bits & 0xFFFFFFFFFFFFF) | 0x10000000000000  # ax >= pi/4 is normal
    e = (bits >> 52) - 1075  # ax = m * 2**e
    f = _TWO_OVER_PI_BITS - e  # fraction bits of prod = x*2/pi * 2**f
    prod = m * _TWO_OVER_PI_INT
    q = prod >> f
    frac = prod - (q << f)
    if frac >> (f - 1):  # fraction >= 1/2: round the quotient up, r < 0
        q += 1
        frac -= 1 << f
    r = (frac >> (f - _PH_FRAC_BITS)) * _PIO2_INT  # r * 2**(PH_FRAC_BITS + PIO2_INT_BITS)
    hi = float(r)  # correctly rounded int -> float
    lo = float(r - int(hi))
    return q & 3, hi * _PH_SCALE, lo * _PH_SCALE


def _reduce(ax: float) -> tuple[int, float, float]:
    """Reduction of a finite ``ax > pi/4``: ``(q mod 4, y0, y1)`` (see module docstring).

    The strict functions inline this Cody-Waite step; this is the reference copy
    the tests compare with Payne-Hanek.
    """
    if ax < 1.6e6:
        fk = (ax * _TWO_OVER_PI + 6755399441055744.0) - 6755399441055744.0
        t1 = ax - fk * _PIO2_1  # exact: fk*PIO2_1 exact, Sterbenz
        w = fk * _PIO2_2  # exact
        y0 = t1 - w
        bb = y0 - t1
        y1 = ((t1 - (y0 - bb)) - (w + bb)) - fk * _PIO2_3
        r = y0 + y1
        y1 = y1 - (r - y0)
        if r >= 9.313225746154785e-10 or r <= -9.313225746154785e-10:
            return int(fk) & 3, r, y1
    return _reduce_big(ax)


# The kernels, for y = y0 + y1 with 0 <= y0 <= pi/4 + small, k = round(256 y0),
# a = k/256, d = y0 - a (exact, |d| <= 2**-9), z = d*d:
#   sp = sin d - d = d z (S3 + z S5)       (next term below 2**-75)
#   cm = cos d - 1 = z (C2 + z (C4 + z C6)) (next term below 2**-87)
#   sin y = sin a + cos a*d + [sin a*cm + cos a*(sp + y1) + ...]: cos a*d is
#     formed exactly as chh*dh (26-bit x 26-bit, dh the Veltkamp high half of
#     d: relative, so the rest stays small even for tiny d) plus small products, and
#     sin a + chh*dh is split exactly (|sin a| >= |chh*dh| when k >= 1);
#   cos y = cos a - sin a*d + [cos a*cm - sin a*(sp + y1) + ...].
# Both return hi + lo with lo small next to hi, rounded once by the caller.


def _ksincos(y0: float, y1: float) -> tuple[float, float, float, float]:
    """``(sin hi, sin lo, cos hi, cos lo)`` of ``y0 + y1``, ``0 <= y0 <= pi/4 + small``.

    The reference copy of the kernels that sin, cos, sincos and tan inline.
    """
    k = int(y0 * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = y0 - a
    z = d * d
    sp = d * z * (_S3 + z * _S5) + y1
    cm = z * (_C2 + z * (_C4 + z * _C6))
    if k == 0:  # sin y = d + sp exactly as a pair (dh may be 0 for tiny d)
        return d, sp, 1.0, cm
    dh = 134217729.0 * d
    dh = dh - (dh - d)
    p = chh * dh
    s = sh + p
    st = (p - (s - sh)) + chh * (d - dh) + cx * d + sl + sh * cm + ch * sp
    p = sh * d
    c = ch - p
    return s, st, c, ((ch - c) - p) + cl + ch * cm - sh * sp - sl * d


def sin(x: float) -> float:
    """sine of x (radians); ValueError for an infinity, nan for nan."""
    ax = -x if x < 0.0 else x
    if ax <= 0.7853981633974483:
        if ax < 1.4901161193847656e-08:
            return x  # also ±0 and subnormals
        y0 = ax
        y1 = 0.0
        q = 0
    elif ax < 1.6e6:  # inline _reduce
        fk = (ax * _TWO_OVER_PI + 6755399441055744.0) - 6755399441055744.0
        t1 = ax - fk * _PIO2_1
        w = fk * _PIO2_2
        y0 = t1 - w
        bb = y0 - t1
        y1 = ((t1 - (y0 - bb)) - (w + bb)) - fk * _PIO2_3
        r = y0 + y1
        y1 = y1 - (r - y0)
        y0 = r
        if -9.313225746154785e-10 < r < 9.313225746154785e-10:
            q, y0, y1 = _reduce_big(ax)
        else:
            q = int(fk) & 3
        if y0 < 0.0:
            y0 = -y0
            y1 = -y1
            if not q & 1:
                q ^= 2  # sin(-y) = -sin y; cos(-y) = cos y
    elif ax - ax != 0.0:
        if ax == _INF:
            raise ValueError(_DOMAIN)
        return x
    else:
        q, y0, y1 = _reduce_big(ax)
        if y0 < 0.0:
            y0 = -y0
            y1 = -y1
            if not q & 1:
                q ^= 2
    # inline kernel (see _ksincos); q odd: cos y, q even: sin y
    k = int(y0 * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = y0 - a
    z = d * d
    sp = d * z * (_S3 + z * _S5) + y1
    cm = z * (_C2 + z * (_C4 + z * _C6))
    if q & 1:
        p = sh * d
        s = ch - p
        s = s + (((ch - s) - p) + cl + ch * cm - sh * sp - sl * d)
    else:
        dh = 134217729.0 * d
        dh = dh - (dh - d)
        p = chh * dh
        s = sh + p
        s = s + ((p - (s - sh)) + chh * (d - dh) + cx * d + sl + sh * cm + ch * sp)
    if q & 2:
        s = -s
    return -s if x < 0.0 else s


def cos(x: float) -> float:
    """cosine of x (radians); ValueError for an infinity, nan for nan."""
    ax = -x if x < 0.0 else x
    if ax <= 0.7853981633974483:
        if ax < 7.450580596923828e-09:
            return 1.0
        y0 = ax
        y1 = 0.0
        q = 0
    elif ax < 1.6e6:  # inline _reduce
        fk = (ax * _TWO_OVER_PI + 6755399441055744.0) - 6755399441055744.0
        t1 = ax - fk * _PIO2_1
        w = fk * _PIO2_2
        y0 = t1 - w
        bb = y0 - t1
        y1 = ((t1 - (y0 - bb)) - (w + bb)) - fk * _PIO2_3
        r = y0 + y1
        y1 = y1 - (r - y0)
        y0 = r
        if -9.313225746154785e-10 < r < 9.313225746154785e-10:
            q, y0, y1 = _reduce_big(ax)
        else:
            q = int(fk) & 3
        if y0 < 0.0:
            y0 = -y0
            y1 = -y1
            if q & 1:
                q ^= 2  # cos(x) = -sin y for q = 1, sin y for q = 3: odd in y
    elif ax - ax != 0.0:
        if ax == _INF:
            raise ValueError(_DOMAIN)
        return x
    else:
        q, y0, y1 = _reduce_big(ax)
        if y0 < 0.0:
            y0 = -y0
            y1 = -y1
            if q & 1:
                q ^= 2
    # inline kernel (see _ksincos); cos x = cos y, -sin y, -cos y, sin y for q = 0..3
    k = int(y0 * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = y0 - a
    z = d * d
    sp = d * z * (_S3 + z * _S5) + y1
    cm = z * (_C2 + z * (_C4 + z * _C6))
    if q & 1:
        dh = 134217729.0 * d
        dh = dh - (dh - d)
        p = chh * dh
        s = sh + p
        s = s + ((p - (s - sh)) + chh * (d - dh) + cx * d + sl + sh * cm + ch * sp)
        return s if q & 2 else -s
    p = sh * d
    s = ch - p
    s = s + (((ch - s) - p) + cl + ch * cm - sh * sp - sl * d)
    return -s if q & 2 else s


def sincos(x: float) -> tuple[float, float]:
    """``(sin x, cos x)`` with one range reduction; bit-identical to ``(sin(x), cos(x))``."""
    ax = -x if x < 0.0 else x
    if ax <= 0.7853981633974483:
        if ax < 1.4901161193847656e-08:
            return x, (1.0 if ax < 7.450580596923828e-09 else cos(ax))
        y0 = ax
        y1 = 0.0
        q = 0
    elif ax < 1.6e6:  # inline _reduce
        fk = (ax * _TWO_OVER_PI + 6755399441055744.0) - 6755399441055744.0
        t1 = ax - fk * _PIO2_1
        w = fk * _PIO2_2
        y0 = t1 - w
        bb = y0 - t1
        y1 = ((t1 - (y0 - bb)) - (w + bb)) - fk * _PIO2_3
        r = y0 + y1
        y1 = y1 - (r - y0)
        y0 = r
        if -9.313225746154785e-10 < r < 9.313225746154785e-10:
            q, y0, y1 = _reduce_big(ax)
        else:
            q = int(fk) & 3
    elif ax - ax != 0.0:
        if ax == _INF:
            raise ValueError(_DOMAIN)
        return x, x
    else:
        q, y0, y1 = _reduce_big(ax)
    neg = y0 < 0.0
    if neg:
        y0 = -y0
        y1 = -y1
    # inline _ksincos
    k = int(y0 * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = y0 - a
    z = d * d
    sp = d * z * (_S3 + z * _S5) + y1
    cm = z * (_C2 + z * (_C4 + z * _C6))
    dh = 134217729.0 * d
    dh = dh - (dh - d)
    p = chh * dh
    sv = sh + p
    sv = sv + ((p - (sv - sh)) + chh * (d - dh) + cx * d + sl + sh * cm + ch * sp)
    p = sh * d
    cv = ch - p
    cv = cv + (((ch - cv) - p) + cl + ch * cm - sh * sp - sl * d)
    if neg:
        sv = -sv
    if q & 1:
        sv, cv = cv, -sv
    if q & 2:
        sv = -sv
        cv = -cv
    return (-sv if x < 0.0 else sv), cv


def sin_small(x: float) -> float:
    """sin x for ``|x| <= pi/4`` ONLY (no reduction, no checks); equals ``sin(x)`` there."""
    ax = -x if x < 0.0 else x
    if ax < 1.4901161193847656e-08:
        return x
    k = int(ax * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = ax - a
    z = d * d
    dh = 134217729.0 * d
    dh = dh - (dh - d)
    p = chh * dh
    s = sh + p
    s = s + (
        (p - (s - sh))
        + chh * (d - dh)
        + cx * d
        + sl
        + sh * (z * (_C2 + z * (_C4 + z * _C6)))
        + ch * (d * z * (_S3 + z * _S5))
    )
    return -s if x < 0.0 else s


def cos_small(x: float) -> float:
    """cos x for ``|x| <= pi/4`` ONLY (no reduction, no checks); equals ``cos(x)`` there."""
    ax = -x if x < 0.0 else x
    if ax < 7.450580596923828e-09:
        return 1.0
    k = int(ax * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, _chh, _cx = _SC[k]
    d = ax - a
    z = d * d
    p = sh * d
    s = ch - p
    return s + (
        ((ch - s) - p)
        + cl
        + ch * (z * (_C2 + z * (_C4 + z * _C6)))
        - sh * (d * z * (_S3 + z * _S5))
        - sl * d
    )


def sincos_small(x: float) -> tuple[float, float]:
    """``(sin x, cos x)`` for ``|x| <= pi/4`` ONLY, sharing the table lookup; equals sincos(x)."""
    ax = -x if x < 0.0 else x
    if ax < 1.4901161193847656e-08:
        return x, (1.0 if ax < 7.450580596923828e-09 else cos_small(ax))
    k = int(ax * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = ax - a
    z = d * d
    sp = d * z * (_S3 + z * _S5)
    cm = z * (_C2 + z * (_C4 + z * _C6))
    dh = 134217729.0 * d
    dh = dh - (dh - d)
    p = chh * dh
    s = sh + p
    s = s + ((p - (s - sh)) + chh * (d - dh) + cx * d + sl + sh * cm + ch * sp)
    p = sh * d
    c = ch - p
    c = c + (((ch - c) - p) + cl + ch * cm - sh * sp - sl * d)
    return (-s if x < 0.0 else s), c


def tan(x: float) -> float:
    """tangent of x (radians); ValueError for an infinity, nan for nan."""
    ax = -x if x < 0.0 else x
    if ax <= 0.7853981633974483:
        if ax < 7.450580596923828e-09:
            return x
        q = 0
        y0 = ax
        y1 = 0.0
    elif ax - ax != 0.0:
        if ax == _INF:
            raise ValueError(_DOMAIN)
        return x
    else:
        q, y0, y1 = _reduce(ax)
    neg = x < 0.0
    if y0 < 0.0:  # tan y and -1/tan y are both odd in y
        y0 = -y0
        y1 = -y1
        neg = not neg
    # inline _ksincos(y0, y1)
    k = int(y0 * 256.0 + 0.49999999999999994)
    a, sh, sl, ch, cl, chh, cx = _SC[k]
    d = y0 - a
    z = d * d
    sp = d * z * (_S3 + z * _S5) + y1
    cm = z * (_C2 + z * (_C4 + z * _C6))
    if k == 0:
        st = sp
        sh = d
        ct = cm
        ch = 1.0
    else:
        dh = 134217729.0 * d
        dh = dh - (dh - d)
        p = chh * dh
        s = sh + p
        st = (p - (s - sh)) + chh * (d - dh) + cx * d + sl + sh * cm + ch * sp
        p = sh * d
        c = ch - p
        ct = ((ch - c) - p) + cl + ch * cm - sh * sp - sl * d
        sh = s
        ch = c
    if q & 1:  # tan x = -cos y / sin y
        nh, nl, dh, dl = ch, ct, -sh, -st
    else:
        nh, nl, dh, dl = sh, st, ch, ct
    # normalise both double-doubles, then one corrected division
    a = nh + nl
    nl = nl - (a - nh)
    nh = a
    a = dh + dl
    dl = dl - (a - dh)
    dh = a
    qh = nh / dh
    c = 134217729.0 * qh
    qhh = c - (c - qh)
    qhl = qh - qhh
    c = 134217729.0 * dh
    dhh = c - (c - dh)
    dhl = dh - dhh
    p = qh * dh
    e = ((qhh * dhh - p) + qhh * dhl + qhl * dhh) + qhl * dhl
    r = qh + ((((nh - p) - e) + nl) - qh * dl) / dh
    return -r if neg else r


def _atan_near(uh: float, ul: float) -> float:
    """Rounded ``atan(uh + ul)`` for ``0 <= uh <= 1``, ``|ul| <= ulp(uh)``: the exact kernel.

    ``atan u = atan c + atan r``, ``r = (u - c)/(1 + u c)``, ``c = k/256``:
    ``u - c`` is exact (Sterbenz), ``1 + xh c`` is exact and short (``xh`` is
    ``u`` rounded to a multiple of 2**-17), so ``r`` comes out as the
    double-double ``rh + t`` from one division and one exact product. The
    result can be as small as ``u``, so every part is kept to ~2**-60.
    """
    k = int(uh * 256.0 + 0.49999999999999994)
    c, ah, al, _bh, _bl = _AT[k]
    n = uh - c  # exact (Sterbenz)
    xh = (uh + 34359738368.0) - 34359738368.0  # uh to a multiple of 2**-17
    dh = 1.0 + xh * c  # exact, at most 26 significant bits
    dl = ((uh - xh) + ul) * c
    rh = n / dh
    cc = 134217729.0 * rh
    rhh = cc - (cc - rh)
    p = rh * dh
    e = (rhh * dh - p) + (rh - rhh) * dh  # rh*dh - p exactly (dh is short)
    t = (((n - p) - e) + ul - rh * dl) / (dh + dl)  # r - rh
    r1 = rh + t  # the polynomial needs r to ~2**-50 relative; dl can be 2**-18 of dh
    z = r1 * r1
    s = ah + rh
    return s + ((rh - (s - ah)) + al + t + r1 * z * (_A3 + z * (_A5 + z * _A7)))


def _atan_far(nh: float, nl: float, dh: float, dl: float, sel: int) -> float:
    """Rounded ``offset -/+ atan((nh + nl)/(dh + dl))``, ``0 <= nh <= dh`` (normal, < 2**1000).

    sel 1: ``pi/2 - atan u``; 2: ``pi/2 + atan u``; 3: ``pi - atan u``. The
    result is at least pi/4 and ``|r| <= 2**-9``, so ``r = (n - c d)/(d + c n)``
    needs only ~2**-51 relative accuracy (its error is below 2**-60 of the
    result): ``c*d`` is split exactly (9-bit ``c`` times 44-bit half of ``d``),
    the rest is plain rounded arithmetic. (An error in ``u`` itself would not
    shrink like that, hence the low parts ``nl``, ``dl`` of inexact operands.)
    """
    k = int(nh / dh * 256.0 + 0.49999999999999994)
    c, ah, al, bh, bl = _AT[k]
    w = 513.0 * dh  # Veltkamp split at 44 bits: c * hh is exact
    hh = w - (w - dh)
    r = (((nh - c * hh) - c * (dh - hh)) + (nl - c * dl)) / (dh + (dl + c * nh))
    z = r * r
    t = r * z * (_A3 + z * (_A5 + z * _A7))
    if sel == 1:
        s = bh - r
        return s + (((bh - s) - r) + bl - t)
    if sel == 2:
        s1 = _PIO2_HI + ah
        e1 = ah - (s1 - _PIO2_HI)
        s = s1 + r
        return s + ((r - (s - s1)) + e1 + _PIO2_LO + al + t)
    s1 = _PI_HI - ah
    e1 = (_PI_HI - s1) - ah
    s = s1 - r
    return s + (((s1 - s) - r) + e1 + _PI_LO - al - t)


def atan(x: float) -> float:
    """arc tangent of x in [-pi/2, pi/2]; atan(±inf) = ±pi/2."""
    ax = -x if x < 0.0 else x
    if ax <= 1.0:
        if ax < 7.450580596923828e-09:
            return x
        # inline _atan_near(ax, 0.0)
        k = int(ax * 256.0 + 0.49999999999999994)
        c, ah, al, _bh, _bl = _AT[k]
        n = ax - c
        xh = (ax + 34359738368.0) - 34359738368.0
        dh = 1.0 + xh * c
        rh = n / dh
        cc = 134217729.0 * rh
        rhh = cc - (cc - rh)
        p = rh * dh
        dl = (ax - xh) * c
        t = (((n - p) - ((rhh * dh - p) + (rh - rhh) * dh)) - rh * dl) / (dh + dl)
        r1 = rh + t
        z = r1 * r1
        s = ah + rh
        s = s + ((rh - (s - ah)) + al + t + r1 * z * (_A3 + z * (_A5 + z * _A7)))
        return -s if x < 0.0 else s
    if ax < 1.152921504606847e18:
        # inline _atan_far(1.0, 0.0, ax, 0.0, 1): atan x = pi/2 - atan(1/x)
        k = int(256.0 / ax + 0.49999999999999994)
        c, _ah, _al, bh, bl = _AT[k]
        w = 513.0 * ax
        hh = w - (w - ax)
        r = ((1.0 - c * hh) - c * (ax - hh)) / (ax + c)
        z = r * r
        s = bh - r
        s = s + (((bh - s) - r) + bl - r * z * (_A3 + z * (_A5 + z * _A7)))
        return -s if x < 0.0 else s
    if ax == ax:  # huge or inf: pi/2 - 1/x is below 2**-60, one rounding
        s = _PIO2_HI + (_PIO2_LO - 1.0 / ax)
        return -s if x < 0.0 else s
    return x


def atan_fast(x: float) -> float:
    """arc tangent of x with an error below 1.5 ulp (not in ``FUNCTIONS``; ADR 0175).

    The same table and polynomial as ``atan`` without the double-double
    correction of the reduced argument: ``r = (u - c)/(1 + u c)`` is one
    rounded division (``u - c`` is exact), ``atan u = atan c + r + r^3 P(r^2)``
    summed once. Half the cost of ``atan``; its results are not always the
    nearest double, so it serves models whose tolerance is far wider than an
    ulp (the CommonRoad tire) and never the self-test battery. Same special
    values as ``atan`` (signed zeros, ±inf, nan).
    """
    ax = -x if x < 0.0 else x
    if ax <= 1.0:
        if ax < 7.450580596923828e-09:
            return x
        k = int(ax * 256.0 + 0.49999999999999994)
        c, ah, al, _bh, _bl = _AT[k]
        r = (ax - c) / (1.0 + ax * c)  # ax - c exact (Sterbenz)
        z = r * r
        s = ah + (r + (al + r * z * (_A3 + z * (_A5 + z * _A7))))
        return -s if x < 0.0 else s
    if ax < 1.152921504606847e18:  # pi/2 - atan(1/x); the result is at least pi/4
        k = int(256.0 / ax + 0.49999999999999994)
        c, _ah, _al, bh, bl = _AT[k]
        r = (1.0 - c * ax) / (ax + c)
        z = r * r
        s = bh - (r - (bl - r * z * (_A3 + z * (_A5 + z * _A7))))
        return -s if x < 0.0 else s
    if ax == ax:
        s = _PIO2_HI + (_PIO2_LO - 1.0 / ax)
        return -s if x < 0.0 else s
    return x


def atan2(y: float, x: float) -> float:
    """arc tangent of y/x in [-pi, pi] using the signs of both (C99 Annex F special cases)."""
    ax = -x if x < 0.0 else x
    ay = -y if y < 0.0 else y
    if 0.0 < ax < _INF and 0.0 < ay < _INF:  # finite, nonzero: the common case
        if ay <= ax:
            num = ay
            den = ax
            sel = 0 if x > 0.0 else 3
        else:
            num = ax
            den = ay
            sel = 1 if x > 0.0 else 2
        if num < den * 8.673617379884035e-19:  # ratio < 2**-60: atan u = u to the last bit
            u = num / den
            if sel == 0:
                s = u
            elif sel == 3:
                s = _PI_HI + (_PI_LO - u)
            elif sel == 1:
                s = _PIO2_HI + (_PIO2_LO - u)
            else:
                s = _PIO2_HI + (_PIO2_LO + u)
            return -s if y < 0.0 else s
        if den > 3.273390607896142e150:  # 2**500: scale both by 2**-600 (exact)
            num = num * 2.409919865102884e-181
            den = den * 2.409919865102884e-181
        elif den < 3.054936363499605e-151:  # 2**-500: scale both by 2**600 (exact)
            num = num * 4.149515568880993e180
            den = den * 4.149515568880993e180
        if sel:
            s = _atan_far(num, 0.0, den, 0.0, sel)
            return -s if y < 0.0 else s
        # u = num/den as the double-double uh + ul (Dekker division) ...
        uh = num / den
        c = 134217729.0 * uh
        hh = c - (c - uh)
        c = 134217729.0 * den
        dh = c - (c - den)
        dl = den - dh
        p = uh * den
        ul = ((num - p) - (((hh * dh - p) + hh * dl + (uh - hh) * dh) + (uh - hh) * dl)) / den
        # ... then inline _atan_near(uh, ul)
        k = int(uh * 256.0 + 0.49999999999999994)
        c, ah, al, _bh, _bl = _AT[k]
        n = uh - c
        xh = (uh + 34359738368.0) - 34359738368.0
        dh = 1.0 + xh * c
        dl = ((uh - xh) + ul) * c
        rh = n / dh
        cc = 134217729.0 * rh
        rhh = cc - (cc - rh)
        p = rh * dh
        t = (((n - p) - ((rhh * dh - p) + (rh - rhh) * dh)) + ul - rh * dl) / (dh + dl)
        r1 = rh + t
        z = r1 * r1
        s = ah + rh
        s = s + ((rh - (s - ah)) + al + t + r1 * z * (_A3 + z * (_A5 + z * _A7)))
        return -s if y < 0.0 else s
    if x != x or y != y:
        return x + y
    if ay == 0.0:  # y = ±0
        if x > 0.0 or (x == 0.0 and copysign(1.0, x) > 0.0):
            return y
        return copysign(_PI, y)
    if ax == 0.0:
        return copysign(_PIO2, y)
    if ax == _INF:
        if ay == _INF:
            return copysign(_PIO4 if x > 0.0 else _THREE_PIO4, y)
        return copysign(0.0, y) if x > 0.0 else copysign(_PI, y)
    return copysign(_PIO2, y)  # y = ±inf, x finite


def _sqrt_one_minus_sq(ax: float) -> tuple[float, float]:
    """``sqrt(1 - ax*ax)`` as a double-double for ``0 <= ax < 1`` (asin/acos inline it).

    ``1 - ax*ax`` is exact as ``wh + wl`` (Dekker square; ``1 - p`` is exact by
    Sterbenz when ``p >= 1/2`` and its error is recovered otherwise); one
    Newton correction of ``sqrt(wh)`` gives the low part.
    """
    c = 134217729.0 * ax
    h = c - (c - ax)
    lo = ax - h
    p = ax * ax
    e = ((h * h - p) + 2.0 * h * lo) + lo * lo
    wh = 1.0 - p
    wl = ((1.0 - wh) - p) - e
    a = wh + wl
    wl = wl - (a - wh)
    wh = a
    sh = sqrt(wh)
    c = 134217729.0 * sh
    h = c - (c - sh)
    lo = sh - h
    p = sh * sh
    e = ((h * h - p) + 2.0 * h * lo) + lo * lo
    return sh, (((wh - p) - e) + wl) / (2.0 * sh)


def _div_dd(nh: float, nl: float, dh: float, dl: float) -> tuple[float, float]:
    """``(nh + nl)/(dh + dl)`` as a double-double (operands of moderate size)."""
    qh = nh / dh
    c = 134217729.0 * qh
    qhh = c - (c - qh)
    qhl = qh - qhh
    c = 134217729.0 * dh
    dhh = c - (c - dh)
    dhl = dh - dhh
    p = qh * dh
    e = ((qhh * dhh - p) + qhh * dhl + qhl * dhh) + qhl * dhl
    return qh, (((nh - p) - e) + nl - qh * dl) / dh


def asin(x: float) -> float:
    """arc sine of x in [-pi/2, pi/2]; ValueError outside [-1, 1].

    ``asin x = atan2(x, sqrt(1 - x*x))`` with the square root a double-double.
    """
    ax = -x if x < 0.0 else x
    if ax < 1.0:
        if ax < 1.4901161193847656e-08:
            return x
        # inline _sqrt_one_minus_sq(ax)
        c = 134217729.0 * ax
        h = c - (c - ax)
        lo = ax - h
        p = ax * ax
        wh = 1.0 - p
        wl = ((1.0 - wh) - p) - (((h * h - p) + 2.0 * h * lo) + lo * lo)
        c = wh + wl
        wl = wl - (c - wh)
        wh = c
        sh = sqrt(wh)
        c = 134217729.0 * sh
        h = c - (c - sh)
        lo = sh - h
        p = sh * sh
        sl = (((wh - p) - (((h * h - p) + 2.0 * h * lo) + lo * lo)) + wl) / (2.0 * sh)
        if ax <= sh:
            uh, ul = _div_dd(ax, 0.0, sh, sl)
            s = _atan_near(uh, ul)
        else:
            s = _atan_far(sh, sl, ax, 0.0, 1)
        return -s if x < 0.0 else s
    if ax == 1.0:
        return copysign(_PIO2, x)
    if ax != ax:
        return x
    raise ValueError(_DOMAIN)


def acos(x: float) -> float:
    """arc cosine of x in [0, pi]; ValueError outside [-1, 1].

    ``acos x = atan2(sqrt(1 - x*x), x)`` with the square root a double-double.
    """
    ax = -x if x < 0.0 else x
    if ax < 1.0:
        # inline _sqrt_one_minus_sq(ax)
        c = 134217729.0 * ax
        h = c - (c - ax)
        lo = ax - h
        p = ax * ax
        wh = 1.0 - p
        wl = ((1.0 - wh) - p) - (((h * h - p) + 2.0 * h * lo) + lo * lo)
        c = wh + wl
        wl = wl - (c - wh)
        wh = c
        sh = sqrt(wh)
        c = 134217729.0 * sh
        h = c - (c - sh)
        lo = sh - h
        p = sh * sh
        sl = (((wh - p) - (((h * h - p) + 2.0 * h * lo) + lo * lo)) + wl) / (2.0 * sh)
        if sh <= ax:
            if x > 0.0:
                uh, ul = _div_dd(sh, sl, ax, 0.0)
                return _atan_near(uh, ul)
            return _atan_far(sh, sl, ax, 0.0, 3)
        return _atan_far(ax, 0.0, sh, sl, 2 if x < 0.0 else 1)
    if x == 1.0:
        return 0.0
    if x == -1.0:
        return _PI
    if ax != ax:
        return x
    raise ValueError(_DOMAIN)


#: ``sin_fast``/``cos_fast`` use their table for ``|x| <`` this, the strict functions beyond.
FAST_TRIG_MAX = 6.25


def _table_entry(a: float) -> tuple[float, float, float, float]:
    """``(sin hi, sin lo, cos hi, cos lo)`` of ``a >= 0`` as normalised double-doubles, from
    the strict reduction and kernels (about 2**-100 relative: the same bits everywhere)."""
    if a <= 0.7853981633974483:
        q, y0, y1 = 0, a, 0.0
    else:
        q, y0, y1 = _reduce(a)
    neg = y0 < 0.0
    if neg:
        y0, y1 = -y0, -y1
    if y0 == 0.0:
        sh, sl, ch, cl = 0.0, 0.0, 1.0, 0.0
    else:
        sh, sl, ch, cl = _ksincos(y0, y1)
    if neg:
        sh, sl = -sh, -sl
    for _ in range(q):  # a = y + q pi/2: (sin, cos) -> (cos, -sin) per quarter turn
        sh, sl, ch, cl = ch, cl, -sh, -sl
    s = sh + sl
    c = ch + cl
    return s, sl - (s - sh), c, cl - (c - ch)


#: (sin a hi, sin a lo, cos a hi, cos a lo) for a = k/128, k = 0..800 (``_table_entry``).
FAST_SC_TABLE = _FSC = tuple(_table_entry(k * 0.0078125) for k in range(801))


def sin_fast(x: float) -> float:
    """sine of x (radians), below 1.5 ulp where the result is at least 1/64 and within
    ``2**-53`` absolute everywhere on the table's range (ADR 0178).

    For ``|x| < FAST_TRIG_MAX``: ``x = a + d`` with ``a = k/128`` the nearest grid point
    (``d`` exact, ``|d| <= 2**-8``), ``sin x = sh + (ch d + (sl + sh (cos d - 1) + ch (sin d -
    d)))`` with the table's double-double ``sin a = sh + sl``, ``cos a = ch + cl`` and the
    kernels' polynomials, the small part summed in plain doubles and added once. About half
    the cost of ``sin`` (no reduction, no exact products). Beyond, and for tiny, infinite or
    nan ``x``, it is ``sin`` (same special values). Not in ``FUNCTIONS`` (ADR 0178).
    """
    ax = -x if x < 0.0 else x
    if 1.4901161193847656e-08 <= ax < 6.25:
        k = int(ax * 128.0 + 0.5)
        sh, sl, ch, cl = _FSC[k]
        d = ax - k * 0.0078125  # exact (Sterbenz for k >= 1)
        z = d * d
        cm = z * (_C2 + z * (_C4 + z * _C6))
        s = sh + (ch * d + (sl + sh * cm + ch * (d * z * (_S3 + z * _S5))))
        return -s if x < 0.0 else s
    return sin(x)


def cos_fast(x: float) -> float:
    """cosine of x (radians): ``ch + (cl + ch (cos d - 1) - sh (d + (sin d - d)))`` on the
    grid of ``sin_fast`` (same accuracy); ``cos`` elsewhere. Not in ``FUNCTIONS`` (ADR 0178)."""
    ax = -x if x < 0.0 else x
    if 7.450580596923828e-09 <= ax < 6.25:
        k = int(ax * 128.0 + 0.5)
        sh, sl, ch, cl = _FSC[k]
        d = ax - k * 0.0078125
        z = d * d
        cm = z * (_C2 + z * (_C4 + z * _C6))
        return ch + (cl + ch * cm - sh * (d + d * z * (_S3 + z * _S5)))
    return cos(x)


def sincos_fast(x: float) -> tuple[float, float]:
    """``(sin_fast(x), cos_fast(x))`` with one table lookup, the same bits as the two calls."""
    ax = -x if x < 0.0 else x
    if 1.4901161193847656e-08 <= ax < 6.25:
        k = int(ax * 128.0 + 0.5)
        sh, sl, ch, cl = _FSC[k]
        d = ax - k * 0.0078125
        z = d * d
        cm = z * (_C2 + z * (_C4 + z * _C6))
        sp = d * z * (_S3 + z * _S5)
        s = sh + (ch * d + (sl + sh * cm + ch * sp))
        return (-s if x < 0.0 else s), ch + (cl + ch * cm - sh * (d + sp))
    return sin_fast(x), cos_fast(x)


class KernelConstants(NamedTuple):
    """The tables and coefficients the kernels above use, for code generators that inline
    them operation for operation (``engine.fourwheel.fastpath``,
    ``engine.commonroad.tire_fast``)."""

    atan_table: tuple  # (c, atan c hi, lo, pi/2 - atan c hi, lo) for c = k/256
    sincos_table: tuple  # (a, sin a hi, lo, cos a hi, lo, cos a Veltkamp-high, rest) for a = k/256
    fast_sincos_table: tuple  # FAST_SC_TABLE
    a3: float  # atan polynomial
    a5: float
    a7: float
    s3: float  # sin d - d = d z (s3 + z s5)
    s5: float
    c2: float  # cos d - 1 = z (c2 + z (c4 + z c6))
    c4: float
    c6: float
    two_over_pi: float  # Cody-Waite reduction
    pio2_1: float
    pio2_2: float
    pio2_3: float


KERNEL = KernelConstants(
    atan_table=_AT,
    sincos_table=_SC,
    fast_sincos_table=FAST_SC_TABLE,
    a3=_A3,
    a5=_A5,
    a7=_A7,
    s3=_S3,
    s5=_S5,
    c2=_C2,
    c4=_C4,
    c6=_C6,
    two_over_pi=_TWO_OVER_PI,
    pio2_1=_PIO2_1,
    pio2_2=_PIO2_2,
    pio2_3=_PIO2_3,
)
