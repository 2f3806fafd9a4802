"""The fast kernels split by the sign of their argument, for the specialiser to inline.

``engine.specialise`` inlines a call of :func:`trig.atan_fast`, :func:`trig.sin_fast`,
:func:`trig.cos_fast` or :func:`trig.sincos_fast` as ``if x < 0.0: <negative side> else:
<positive side>``, each side one of the functions below. :data:`SIGN_SPLIT` declares that
pairing; it is a claim, not a proof, and ``tests/test_smath_kernels.py`` checks it: each
split gives the kernel's bits on every grid point of its tables and around it, special
values included, both sides and (for a caller that knows ``x >= 0`` or nan) the positive
side alone.

Why split (ADR 0185): the negative side works on ``x`` itself with tables of negated rows
(``(-c, -atan c)``, ``(-a, -sin a, cos a)``), so every operation gives the exact negation of
the positive side's on ``|x|`` (rounding to nearest is symmetric; the divisors are at least 1
and the results of the table paths are never zero): an odd function then needs no ``|x|`` and
no final negation. The table index is ``IDX(t)`` for a non-negative ``t``: ``math.floor``
where that is the cheaper call (CPython before 3.13), ``int`` elsewhere; both return the
same integer for every non-negative finite float. Arguments beyond the tables (and nan)
call the kernel itself, so the result is the kernel's in every case.
"""

from __future__ import annotations

import sys
from math import floor

from .trig import FAST_TRIG_MAX, KERNEL, atan_fast, cos_fast, sin_fast, sincos_fast

IDX = floor if sys.version_info < (3, 13) else int

_A3, _A5, _A7 = KERNEL.a3, KERNEL.a5, KERNEL.a7
_S3, _S5 = KERNEL.s3, KERNEL.s5
_C2, _C4, _C6 = KERNEL.c2, KERNEL.c4, KERNEL.c6
_TOP = FAST_TRIG_MAX
_NTOP = -FAST_TRIG_MAX

#: atan_fast's table as rows (c, atan c hi, lo) and (c, pi/2 - atan c hi, lo); N: negated
ATL = tuple((c, ah, al) for c, ah, al, _bh, _bl in KERNEL.atan_table)
ATH = tuple((c, bh, bl) for c, _ah, _al, bh, bl in KERNEL.atan_table)
ATLN = tuple((-c, -ah, -al) for c, ah, al in ATL)
ATHN = tuple((-c, -bh, -bl) for c, bh, bl in ATH)
#: sin_fast's table as rows (k/128, sin hi, lo, cos hi, lo); N: (-k/128, -sin hi, -lo, cos hi, lo)
FSCA = tuple((k * 0.0078125, *row) for k, row in enumerate(KERNEL.fast_sincos_table))
FSCAN = tuple((-a, -sh, -sl, ch, cl) for a, sh, sl, ch, cl in FSCA)


def atan_pos(x: float) -> float:
    """``atan_fast(x)`` for ``x`` not below zero (nan included)."""
    if x <= 1.0:
        if x < 7.450580596923828e-09:
            return x
        c, ah, al = ATL[IDX(x * 256.0 + 0.49999999999999994)]
        r = (x - c) / (1.0 + x * c)
        z = r * r
        return ah + (r + (al + r * z * (_A3 + z * (_A5 + z * _A7))))
    if x < 1.152921504606847e18:
        c, bh, bl = ATH[IDX(256.0 / x + 0.49999999999999994)]
        r = (1.0 - c * x) / (x + c)
        z = r * r
        return bh - (r - (bl - r * z * (_A3 + z * (_A5 + z * _A7))))
    return atan_fast(x)


def atan_neg(x: float) -> float:
    """``atan_fast(x)`` for ``x < 0``, on the negated tables."""
    if x >= -1.0:
        if x > -7.450580596923828e-09:
            return x
        c, ah, al = ATLN[IDX(0.49999999999999994 - x * 256.0)]
        r = (x - c) / (1.0 + x * c)
        z = r * r
        return ah + (r + (al + r * z * (_A3 + z * (_A5 + z * _A7))))
    if x > -1.152921504606847e18:
        c, bh, bl = ATHN[IDX(0.49999999999999994 - 256.0 / x)]
        r = (1.0 - c * x) / (x + c)
        z = r * r
        return bh - (r - (bl - r * z * (_A3 + z * (_A5 + z * _A7))))
    return atan_fast(x)


def sin_pos(x: float) -> float:
    """``sin_fast(x)`` for ``x`` not below zero (nan included)."""
    if x < _TOP:
        if x >= 1.4901161193847656e-08:
            a, sh, sl, ch, cl = FSCA[IDX(x * 128.0 + 0.5)]
            d = x - a
            z = d * d
            return sh + (ch * d + (sl + sh * (z * (_C2 + z * (_C4 + z * _C6))) + ch * (d * z * (_S3 + z * _S5))))  # fmt: skip  # noqa: E501
        return x
    return sin_fast(x)


def sin_neg(x: float) -> float:
    """``sin_fast(x)`` for ``x < 0``, on the negated table."""
    if x > _NTOP:
        if x <= -1.4901161193847656e-08:
            a, sh, sl, ch, cl = FSCAN[IDX(0.5 - x * 128.0)]
            d = x - a
            z = d * d
            return sh + (ch * d + (sl + sh * (z * (_C2 + z * (_C4 + z * _C6))) + ch * (d * z * (_S3 + z * _S5))))  # fmt: skip  # noqa: E501
        return x
    return sin_fast(x)


def cos_pos(x: float) -> float:
    """``cos_fast(x)`` for ``x`` not below zero (nan included)."""
    if x < _TOP:
        if x >= 7.450580596923828e-09:
            a, sh, sl, ch, cl = FSCA[IDX(x * 128.0 + 0.5)]
            d = x - a
            z = d * d
            return ch + (cl + ch * (z * (_C2 + z * (_C4 + z * _C6))) - sh * (d + d * z * (_S3 + z * _S5)))  # fmt: skip  # noqa: E501
        return 1.0
    return cos_fast(x)


def cos_neg(x: float) -> float:
    """``cos_fast(x)`` for ``x < 0``, on the negated table."""
    if x > _NTOP:
        if x <= -7.450580596923828e-09:
            a, sh, sl, ch, cl = FSCAN[IDX(0.5 - x * 128.0)]
            d = x - a
            z = d * d
            return ch + (cl + ch * (z * (_C2 + z * (_C4 + z * _C6))) - sh * (d + d * z * (_S3 + z * _S5)))  # fmt: skip  # noqa: E501
        return 1.0
    return cos_fast(x)


def sincos_pos(x: float) -> tuple[float, float]:
    """``sincos_fast(x)`` for ``x`` not below zero (nan included)."""
    if x < _TOP:
        if x >= 1.4901161193847656e-08:
            a, sh, sl, ch, cl = FSCA[IDX(x * 128.0 + 0.5)]
            d = x - a
            z = d * d
            cm = z * (_C2 + z * (_C4 + z * _C6))
            sp = d * z * (_S3 + z * _S5)
            return sh + (ch * d + (sl + sh * cm + ch * sp)), ch + (cl + ch * cm - sh * (d + sp))
        if x < 7.450580596923828e-09:
            return x, 1.0
        return x, cos_fast(x)
    return sin_fast(x), cos_fast(x)


def sincos_neg(x: float) -> tuple[float, float]:
    """``sincos_fast(x)`` for ``x < 0``, on the negated table."""
    if x > _NTOP:
        if x <= -1.4901161193847656e-08:
            a, sh, sl, ch, cl = FSCAN[IDX(0.5 - x * 128.0)]
            d = x - a
            z = d * d
            cm = z * (_C2 + z * (_C4 + z * _C6))
            sp = d * z * (_S3 + z * _S5)
            return sh + (ch * d + (sl + sh * cm + ch * sp)), ch + (cl + ch * cm - sh * (d + sp))
        if x > -7.450580596923828e-09:
            return x, 1.0
        return x, cos_fast(x)
    return sin_fast(x), cos_fast(x)


#: kernel -> (its negative side, its positive side): ``kernel(x)`` is ``negative(x)`` for
#: ``x < 0.0`` and ``positive(x)`` otherwise, bit for bit (tests/test_smath_kernels.py)
SIGN_SPLIT = {
    atan_fast: (atan_neg, atan_pos),
    sin_fast: (sin_neg, sin_pos),
    cos_fast: (cos_neg, cos_pos),
    sincos_fast: (sincos_neg, sincos_pos),
}
