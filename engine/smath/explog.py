"""Strict exp, expm1, log, log1p, pow, sinh, cosh, tanh, hypot, cbrt.

Same names, arguments, special values and exceptions as Python's ``math``
(C99 Annex F), written only with the operations docs/architecture.md §3 allows, so every
runtime computes the same bits. Accuracy: below 1 ulp on every point tested
against mpmath at >= 120 bits, most results correctly rounded
(``tests/test_smath_explog.py``; ``nox -s accuracy``). Tables and polynomial
coefficients come from ``ci/gen_smath_explog.py`` (``_tables_explog.py``).

Equations (all quantities dimensionless; ``N = 128``):

* exp: ``x = k*ln2/N + r``, ``|r| <= ln2/(2N)``, ``k = N*e + j``;
  ``exp(x) = 2**e * 2**(j/N) * exp(r)``, with ``2**(j/N)`` a double-double
  table entry, ``ln2/N = L1 + L2`` (``kd*L1`` exact) and ``exp(r) - 1`` a
  degree-5 polynomial. The result is ``(T_hi + (T_lo + T_hi*p)) * 2**e``;
  the power-of-two scaling is exact, and results in the subnormal range are
  rounded ONCE (``_scale``: add 2**-1022 so the addition rounds at the
  subnormal ulp, then subtract it exactly).
* the double-double kernel ``_exp_dd`` (pow, expm1, sinh, cosh, tanh) is the
  same reduction with ``T_hi*r`` formed exactly (Dekker) and a degree-6
  polynomial; relative error ~2**-66.
* log: ``x = 2**k * m``, ``m`` in [0.70, 1.41) with a cell ``c`` from the
  leading 8 fraction bits; ``1/c = J * 2**-b`` (J <= 9 bits) so
  ``r = m/c - 1 = (m - c0)*invc + d`` is computed EXACTLY (c0 the cell's
  start, d = c0*invc - 1 exact); ``log x = k*ln2 + log(c) + log1p(r)``,
  ``k*LN2_HI + logc_hi`` exact, ``log1p(r) = r - r^2/2 + r^3*Q(r)``,
  ``|r| <= 2**-8``. The cells around 1 have c = 1, so ``r = x - 1`` exactly
  and log is accurate near 1 with no cancellation.
* log1p: ``u = 1 + x`` with its exact rounding error ``ul``;
  ``log1p(x) = log(u) + ul/u``.
* pow: ``x**y = exp(y * log x)`` with ``log x`` in double-double (relative
  error ~2**-70), ``y * log x`` by Dekker's product, ``exp`` of the
  double-double; integer ``y`` gives the sign for negative ``x``.
* sinh/cosh/tanh from ``E = expm1(|x|)`` or ``exp(|x|)`` in double-double:
  ``sinh = (E + E/(E+1))/2``, ``cosh = (V + 1/V)/2``, ``tanh = E2/(E2+2)``
  with ``E2 = expm1(2|x|)``; small ``|x|``: ``tanh x = x + x^3 P(x^2)``.
* hypot: scaled by a power of two, ``a^2 + b^2`` in double-double, then
  ``h = sqrt(s)`` corrected by ``(s - h^2)/(2h)`` (h^2 exact).
* cbrt: ``|x| = 2**(3q) * a``, ``a`` in [1, 8); seed polynomial, one Newton
  step, one Newton step with the exact residual ``a - y^3``.
"""

import math

from skidpad.engine.floatbits import DOUBLE, UINT64, bits_float

from . import _tables_explog as _t

__all__ = ["exp", "expm1", "log", "log1p", "pow", "sinh", "cosh", "tanh", "hypot", "cbrt"]

# float_bits and bits_float inlined in the hot paths (a call costs as much as the packing)
_pack_d = DOUBLE.pack
_unpack_d = DOUBLE.unpack
_pack_q = UINT64.pack
_unpack_q = UINT64.unpack

_sqrt = math.sqrt
_copysign = math.copysign
_INF = float("inf")
_NAN = float("nan")
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp splitter
_SHIFT = 6755399441055744.0  # 1.5 * 2**52: (t + SHIFT) - SHIFT rounds t to an integer
_TWO_M54 = 5.551115123125783e-17  # 2**-54
_TWO_M26 = 1.4901161193847656e-08  # 2**-26
_TWO_M28 = 3.725290298461914e-09  # 2**-28
_TWO_M1022 = 2.2250738585072014e-308
_FRAC = 0xFFFFFFFFFFFFF
_MIN_NORMAL_BITS = 0x0010000000000000
_INF_BITS = 0x7FF0000000000000


# 2**e for e in [-1074, 1023], built exactly from bits; index e + 1074.
_POW2 = tuple(
    bits_float((e + 1023) << 52) if e >= -1022 else bits_float(1 << (e + 1074))
    for e in range(-1074, 1024)
)
# the same powers indexed by e itself for -1024 <= e <= 1023 (negative e wraps around)
_P2E = tuple(_POW2[e + 1074] for e in range(0, 1024)) + tuple(
    _POW2[e + 1074] for e in range(-1024, 0)
)
_TWO_P52 = _POW2[52 + 1074]
_TWO_P54 = _POW2[54 + 1074]
_TWO_P500 = _POW2[500 + 1074]
_TWO_M500 = _POW2[-500 + 1074]
_TWO_P600 = _POW2[600 + 1074]
_TWO_M600 = _POW2[-600 + 1074]
_TWO_P64 = _POW2[64 + 1074]
_TWO_P53 = _POW2[53 + 1074]

_EXP_INVL = _t.EXP_INVL
_L1 = _t.EXP_L1
_L2 = _t.EXP_L2
_EXP_T = _t.EXP_T
_EXP_T2 = tuple((row[0], row[1]) for row in _t.EXP_T)
_C2, _C3, _C4, _C5 = _t.EXP_C
_D2, _D3, _D4, _D5, _D6 = _t.EXPM1_C
_EXP_OVF = _t.EXP_OVF
_SINH_OVF = _t.SINH_OVF
_R0 = 0.0027  # below ln2/256: expm1 by its polynomial alone (k = 0)

_LN2_HI = _t.LN2_HI
_LN2_LO = _t.LN2_LO
_LOG_T = _t.LOG_T
# 2**(1023 - be) for the biased exponent be of a normal double: x * _RSCALE[be] is in [1, 2)
_RSCALE = tuple(_POW2[1023 - be + 1074] if 1 <= be <= 2046 else 0.0 for be in range(2048))
_Q0, _Q1, _Q2, _Q3, _Q4 = _t.LOG_Q
_W0, _W1, _W2, _W3, _W4, _W5 = _t.POW_Q

_LOG1P_DIRECT = 0.00390625  # 2**-8 <= LOG_RMAX: the log1p(r) polynomial applies to x itself
_TANH_SMALL = _t.TANH_SMALL
_P0, _P1, _P2, _P3, _P4, _P5, _P6, _P7, _P8 = _t.TANH_P
_B0, _B1, _B2, _B3, _B4, _B5 = _t.CBRT_P
_CBRT2 = _t.CBRT2


def _domain() -> ValueError:
    return ValueError("math domain error")


def _range() -> OverflowError:
    return OverflowError("math range error")


# --------------------------------------------------------------------------- scaling


def _scale(h: float, lo: float, e: int) -> float:
    """fl((h + lo) * 2**e), rounded once, for h > 0 (lo small); may return inf."""
    if e > -1000:
        v = h + lo
        if e > 1023:
            return (v * _POW2[e - 1 + 1074]) * 2.0
        return v * _POW2[e + 1074]
    # in units of 2**-1022: w = (h + lo) * 2**(e + 1022)
    s = _POW2[e + 1022 + 1074] if e + 1022 >= -1074 else 0.0
    w = h * s
    wl = lo * s
    if w + wl >= 1.0:
        return (w + wl) * _TWO_M1022
    t = 1.0 + w  # w < 1: the sum rounds at 2**-52 = 2**-1074 after rescaling
    err = (1.0 - t) + w
    t = t + (err + wl)
    return (t - 1.0) * _TWO_M1022


# --------------------------------------------------------------------------- exp


def exp(x: float) -> float:
    """e**x; OverflowError where the result is not finite, 0.0 below the subnormals."""
    if -707.0 < x < 709.0:
        kd = x * _EXP_INVL + _SHIFT
        kd -= _SHIFT
        r = x - kd * _L1 - kd * _L2
        k = int(kd)
        hi, lo = _EXP_T2[k & 127]
        p = r + r * r * (_C2 + r * (_C3 + r * (_C4 + r * _C5)))
        return (hi + (lo + hi * p)) * _P2E[k >> 7]
    return _exp_rare(x)


def _exp_rare(x: float) -> float:
    if x != x:
        return x
    if x > _EXP_OVF:
        if x == _INF:
            return x
        raise _range()
    if x < -746.0:
        return 0.0
    kd = x * _EXP_INVL + _SHIFT
    kd -= _SHIFT
    r = x - kd * _L1 - kd * _L2
    k = int(kd)
    hi, lo = _EXP_T2[k & 127]
    p = r + r * r * (_C2 + r * (_C3 + r * (_C4 + r * _C5)))
    return _scale(hi, lo + hi * p, k >> 7)


def _exp_dd(xh: float, xl: float) -> tuple[int, float, float]:
    """exp(xh + xl) = 2**e * (s + lo) to ~2**-66 relative; s in [0.99, 2.02]."""
    kd = xh * _EXP_INVL + _SHIFT
    kd -= _SHIFT
    t = xh - kd * _L1
    p = kd * _L2
    r0 = t - p
    r = r0 + xl
    rl = ((r0 - r) + xl) + ((t - r0) - p)
    k = int(kd)
    hi, lo, h1, h2 = _EXP_T[k & 127]
    q = r * r * (_D2 + r * (_D3 + r * (_D4 + r * (_D5 + r * _D6)))) + rl
    c = _SPLIT * r
    r1 = c - (c - r)
    r2 = r - r1
    ah = hi * r
    al = ((h1 * r1 - ah) + h1 * r2 + h2 * r1) + h2 * r2
    s = hi + ah
    lo = ((hi - s) + ah) + al + lo + hi * q + lo * r
    h = s + lo
    return k >> 7, h, (s - h) + lo


def _expm1_dd(a: float) -> tuple[float, float]:
    """expm1(a) as a double-double, for 2**-60 < a < 709 (a > 0)."""
    if a < _R0:
        q = a * a * (_D2 + a * (_D3 + a * (_D4 + a * (_D5 + a * _D6))))
        h = a + q
        return h, q - (h - a)
    e, s, lo = _exp_dd(a, 0.0)
    sc = _POW2[e + 1074]
    big = s * sc
    h = big - 1.0
    lo = ((big - h) - 1.0) + lo * sc
    big = h + lo
    return big, (h - big) + lo


def expm1(x: float) -> float:
    """e**x - 1, accurate near 0."""
    if -_R0 < x < _R0:
        if -_TWO_M54 < x < _TWO_M54:
            return float(x)
        return x + x * x * (_D2 + x * (_D3 + x * (_D4 + x * (_D5 + x * _D6))))
    if -38.0 < x < 709.0:
        # 2**e * (s + lo) = e**x in double-double (the kernel of _exp_dd, inlined; tied by
        # test_inlined_exp_kernel_in_expm1_matches_exp_dd)
        kd = x * _EXP_INVL + _SHIFT
        kd -= _SHIFT
        t = x - kd * _L1
        p = kd * _L2
        r = t - p
        rl = (t - r) - p
        k = int(kd)
        hi, lo, h1, h2 = _EXP_T[k & 127]
        q = r * r * (_D2 + r * (_D3 + r * (_D4 + r * (_D5 + r * _D6)))) + rl
        c = _SPLIT * r
        r1 = c - (c - r)
        r2 = r - r1
        ah = hi * r
        al = ((h1 * r1 - ah) + h1 * r2 + h2 * r1) + h2 * r2
        s = hi + ah
        lo = ((hi - s) + ah) + al + lo + hi * q + lo * r
        sc = _P2E[k >> 7]
        big = s * sc
        lo *= sc
        h = big - 1.0
        if big >= 1.0:
            t = ((big - h) - 1.0) + lo
        else:
            t = (big - (h + 1.0)) + lo
        return h + t
    if x != x:
        return x
    if x <= -38.0:
        return -1.0
    return exp(x)


# --------------------------------------------------------------------------- log


def log(x: float, base: float | None = None) -> float:
    """Natural logarithm (or log to ``base``, as math.log); ValueError for x <= 0."""
    ix = _unpack_q(_pack_d(x))[0]
    if _MIN_NORMAL_BITS <= ix < _INF_BITS and base is None:
        # _log_parts inlined (tied by test_inlined_log_kernel_in_log_and_log1p_matches_log_parts)
        i = ix >> 44
        c0, invc, d, lh, ll, ea = _LOG_T[i & 255]
        be = i >> 8
        m = x * _RSCALE[be]
        r = (m - c0) * invc + d  # exact
        k = be + ea
        hi = k * _LN2_HI + lh
        s = hi + r
        return s + (
            ((hi - s) + r)
            + (ll + k * _LN2_LO)
            + r * r * (-0.5 + r * (_Q0 + r * (_Q1 + r * (_Q2 + r * (_Q3 + r * _Q4)))))
        )
    if base is not None:
        return _log_base(x, base)
    if ix == 0 or ix >= 0x8000000000000000:
        if x != x:
            return x
        raise _domain()
    if ix >= _INF_BITS:
        return x  # +inf or nan
    h, lo = _log_parts(x * _TWO_P52, -52)
    return h + lo


def _log_parts(x: float, kadj: int) -> tuple[float, float]:
    """log(x * 2**kadj) for a positive normal x: (s, lo), ~2**-64 relative."""
    i = _unpack_q(_pack_d(x))[0] >> 44
    c0, invc, d, lh, ll, ea = _LOG_T[i & 255]
    be = i >> 8
    m = x * _RSCALE[be]
    r = (m - c0) * invc + d  # exact
    k = be + ea + kadj
    hi = k * _LN2_HI + lh
    s = hi + r
    return s, (
        ((hi - s) + r)
        + (ll + k * _LN2_LO)
        + r * r * (-0.5 + r * (_Q0 + r * (_Q1 + r * (_Q2 + r * (_Q3 + r * _Q4)))))
    )


def _log_dd(x: float, i: int, kadj: int) -> tuple[float, float]:
    """log(x * 2**kadj) to ~2**-70 relative; x positive normal, i = its bits >> 44."""
    c0, invc, d, lh, ll, ea = _LOG_T[i & 255]
    be = i >> 8
    m = x * _RSCALE[be]
    r = (m - c0) * invc + d  # exact
    k = be + ea + kadj
    a = k * _LN2_HI + lh  # exact
    c = _SPLIT * r
    r1 = c - (c - r)
    r2 = r - r1
    sq = r * r
    sql = ((r1 * r1 - sq) + 2.0 * r1 * r2) + r2 * r2  # r^2 = sq + sql exactly
    hq = -0.5 * sq
    s1 = a + r
    e1 = (a - s1) + r
    s2 = s1 + hq
    e2 = (s1 - s2) + hq
    t = r * sq * (_W0 + r * (_W1 + r * (_W2 + r * (_W3 + r * (_W4 + r * _W5)))))
    lo = e1 + e2 + (-0.5 * sql + t) + (ll + k * _LN2_LO)
    h = s2 + lo
    return h, (s2 - h) + lo


def _log_base(x: float, base: float) -> float:
    num = _log_special_dd(x)
    den = _log_special_dd(base)
    nh, nl = num
    dh, dl = den
    if dh == 0.0:
        raise ZeroDivisionError("float division by zero")
    if not (math.isfinite(nh) and math.isfinite(dh)):
        return nh / dh
    q = nh / dh
    ph, pl = _two_prod(q, dh)
    return q + (((nh - ph) - pl) + nl - q * dl) / dh


def _log_special_dd(x: float) -> tuple[float, float]:
    ix = _unpack_q(_pack_d(x))[0]
    if _MIN_NORMAL_BITS <= ix < _INF_BITS:
        return _log_dd(x, ix >> 44, 0)
    if ix == 0 or ix >= 0x8000000000000000:
        if x != x:
            return x, 0.0
        raise _domain()
    if ix >= _INF_BITS:
        return x, 0.0
    x = x * _TWO_P52
    return _log_dd(x, _unpack_q(_pack_d(x))[0] >> 44, -52)


def _two_prod(a: float, b: float) -> tuple[float, float]:
    p = a * b
    c = _SPLIT * a
    a1 = c - (c - a)
    a2 = a - a1
    c = _SPLIT * b
    b1 = c - (c - b)
    b2 = b - b1
    return p, ((a1 * b1 - p) + a1 * b2 + a2 * b1) + a2 * b2


def log1p(x: float) -> float:
    """log(1 + x), accurate near 0; ValueError for x <= -1."""
    if -_LOG1P_DIRECT < x < _LOG1P_DIRECT:
        # log1p(x) = x - x^2/2 + x^3*Q(x) directly (Q is fitted on |r| <= LOG_RMAX)
        if -_TWO_M54 < x < _TWO_M54:
            return float(x)
        return x + x * x * (-0.5 + x * (_Q0 + x * (_Q1 + x * (_Q2 + x * (_Q3 + x * _Q4)))))
    if -1.0 < x < _INF:
        u = 1.0 + x
        if -1.0 <= x <= 1.0:
            ul = (1.0 - u) + x
        else:
            ul = (x - u) + 1.0
        # log(u) + ul/u with _log_parts inlined (tied by the same test as log)
        i = _unpack_q(_pack_d(u))[0] >> 44
        c0, invc, d, lh, ll, ea = _LOG_T[i & 255]
        be = i >> 8
        m = u * _RSCALE[be]
        r = (m - c0) * invc + d  # exact
        k = be + ea
        hi = k * _LN2_HI + lh
        s = hi + r
        return s + (
            ((hi - s) + r)
            + (ll + k * _LN2_LO + ul / u)
            + r * r * (-0.5 + r * (_Q0 + r * (_Q1 + r * (_Q2 + r * (_Q3 + r * _Q4)))))
        )
    if x == _INF or x != x:
        return x
    raise _domain()


# --------------------------------------------------------------------------- pow


def pow(x: float, y: float) -> float:
    """x**y as math.pow: C99 Annex F special cases, ValueError/OverflowError as math."""
    ix = _unpack_q(_pack_d(x))[0]
    if _MIN_NORMAL_BITS <= ix < _INF_BITS and -_TWO_P64 < y < _TWO_P64:
        if y == 2.0:
            r = x * x
            if r == _INF:
                raise _range()
            return r
        if y == 0.5:
            return _sqrt(x)
        # log x in double-double (as _log_dd, inlined; tied to _pow_pos by
        # test_inlined_log_and_exp_kernels_in_pow_match_pow_pos)
        i = ix >> 44
        c0, invc, d, lh, ll, ea = _LOG_T[i & 255]
        be = i >> 8
        m = x * _RSCALE[be]
        r = (m - c0) * invc + d  # exact
        k = be + ea
        a = k * _LN2_HI + lh  # exact
        c = _SPLIT * r
        r1 = c - (c - r)
        r2 = r - r1
        sq = r * r
        sql = ((r1 * r1 - sq) + 2.0 * r1 * r2) + r2 * r2
        hq = -0.5 * sq
        s1 = a + r
        s2 = s1 + hq
        lo = (
            ((a - s1) + r)
            + ((s1 - s2) + hq)
            + (
                -0.5 * sql
                + r * sq * (_W0 + r * (_W1 + r * (_W2 + r * (_W3 + r * (_W4 + r * _W5)))))
            )
            + (ll + k * _LN2_LO)
        )
        h = s2 + lo
        lo = (s2 - h) + lo
        # z = y * log x (Dekker product)
        zh = y * h
        if not -746.0 < zh < 710.0 or zh == 0.0:
            return _pow_outside(zh)
        c = _SPLIT * y
        y1 = c - (c - y)
        y2 = y - y1
        c = _SPLIT * h
        h1 = c - (c - h)
        h2 = h - h1
        zl = (((y1 * h1 - zh) + y1 * h2 + y2 * h1) + y2 * h2) + y * lo
        # exp(zh + zl) (as _exp_dd, inlined)
        kd = zh * _EXP_INVL + _SHIFT
        kd -= _SHIFT
        t = zh - kd * _L1
        p = kd * _L2
        r0 = t - p
        r = r0 + zl
        rl = ((r0 - r) + zl) + ((t - r0) - p)
        k = int(kd)
        hi, lo, h1, h2 = _EXP_T[k & 127]
        q = r * r * (_D2 + r * (_D3 + r * (_D4 + r * (_D5 + r * _D6)))) + rl
        c = _SPLIT * r
        r1 = c - (c - r)
        r2 = r - r1
        ah = hi * r
        al = ((h1 * r1 - ah) + h1 * r2 + h2 * r1) + h2 * r2
        s = hi + ah
        lo = ((hi - s) + ah) + al + lo + hi * q + lo * r
        e = k >> 7
        if -1000 < e < 1023:
            return (s + lo) * _P2E[e]
        v = _scale(s, lo, e)
        if v == _INF:
            raise _range()
        return v
    return _pow_rare(x, y, ix)


def _pow_outside(zh: float) -> float:
    """exp(zh) for y*log x = zh outside (-746, 710), or zero (x == 1, y == 0, or tiny)."""
    if zh == 0.0:
        return 1.0
    if zh > 0.0:
        raise _range()
    return 0.0


def _pow_pos(x: float, i: int, kadj: int, y: float, negate: bool) -> float:
    """(+-) exp(y * log(x * 2**kadj)), x positive normal with bits >> 44 = i, |y| < 2**64."""
    h, lo = _log_dd(x, i, kadj)
    zh = y * h
    if zh != zh or zh == 0.0:  # y == 0 or x == 1 (h == 0)
        return -1.0 if negate else 1.0
    c = _SPLIT * y
    y1 = c - (c - y)
    y2 = y - y1
    c = _SPLIT * h
    h1 = c - (c - h)
    h2 = h - h1
    zl = (((y1 * h1 - zh) + y1 * h2 + y2 * h1) + y2 * h2) + y * lo
    if zh > 710.0:
        raise _range()
    if zh < -746.0:
        return -0.0 if negate else 0.0
    e, s, lo = _exp_dd(zh, zl)
    if -1000 < e < 1023:
        v = (s + lo) * _POW2[e + 1074]
    else:
        v = _scale(s, lo, e)
        if v == _INF:
            raise _range()
    return -v if negate else v


def _pow_rare(x: float, y: float, ix: int) -> float:
    """pow outside the fast path: special values, x <= 0, subnormal x, |y| >= 2**64."""
    x = float(x)
    y = float(y)
    if not (math.isfinite(x) and math.isfinite(y)):
        if x != x:
            return 1.0 if y == 0.0 else x
        if y != y:
            return 1.0 if x == 1.0 else y
        if x == _INF or x == -_INF:
            odd_y = math.isfinite(y) and _is_odd_integer(y)
            if y > 0.0:
                return x if odd_y else abs(x)
            if y == 0.0:
                return 1.0
            return _copysign(0.0, x) if odd_y else 0.0
        # y is +-inf, x finite
        ax = abs(x)
        if ax == 1.0:
            return 1.0
        if (y > 0.0) == (ax > 1.0):
            return _INF
        return 0.0
    if y == 0.0 or x == 1.0:
        return 1.0
    if x == 0.0:
        if y < 0.0:
            raise _domain()  # C99 gives inf (divide-by-zero); Python raises
        return x if _is_odd_integer(y) else 0.0
    negate = False
    if x < 0.0:
        if not _is_integer(y):
            raise _domain()
        negate = _is_odd_integer(y)
        x = -x
        if x >= _TWO_M1022 and abs(y) < _TWO_P64:
            v = pow(x, y)
            return -v if negate else v
    if abs(y) >= _TWO_P64:
        # |y log x| >= 2**64 * 2**-54 > 746 unless x == 1
        if x == 1.0:
            return -1.0 if negate else 1.0
        if (y > 0.0) == (x > 1.0):
            raise _range()
        return -0.0 if negate else 0.0
    if y == 2.0:
        r = x * x
        if r == _INF:
            raise _range()
        return -r if negate else r
    ixa = _unpack_q(_pack_d(x))[0]
    if ixa < _MIN_NORMAL_BITS:
        x = x * _TWO_P52
        return _pow_pos(x, _unpack_q(_pack_d(x))[0] >> 44, -52, y, negate)
    return _pow_pos(x, ixa >> 44, 0, y, negate)


def _is_integer(y: float) -> bool:
    return abs(y) >= _TWO_P53 or y == int(y)


def _is_odd_integer(y: float) -> bool:
    if abs(y) >= _TWO_P53:
        return False
    i = int(y)
    return i == y and (i & 1) == 1


# --------------------------------------------------------------------------- hyperbolic


def sinh(x: float) -> float:
    """Hyperbolic sine; OverflowError where the result is not finite."""
    a = abs(x)
    if 3.0 <= a < 22.0:
        # sinh a = (V - 1/V) / 2 with V = e**a >= 20: no cancellation, and the
        # rounding error of 1/V is below 2**-60 of the result
        e, s, lo = _exp_dd(a, 0.0)
        sc = _POW2[e + 1074]
        vh = s * sc
        q = 1.0 / vh
        h = vh - q
        v = (h + (((vh - h) - q) + lo * sc)) * 0.5
        return v if x > 0.0 else -v
    if a < 22.0:
        if a < _TWO_M26:
            return float(x)
        eh, el = _expm1_dd(a)
        # sinh a = (E + E/(E+1)) / 2
        dh = eh + 1.0
        if eh <= 1.0:
            dl = (eh - (dh - 1.0)) + el
        else:
            dl = (1.0 - (dh - eh)) + el
        q = eh / dh
        c = _SPLIT * q
        q1 = c - (c - q)
        q2 = q - q1
        c = _SPLIT * dh
        d1 = c - (c - dh)
        d2 = dh - d1
        ph = q * dh
        pl = ((q1 * d1 - ph) + q1 * d2 + q2 * d1) + q2 * d2
        ql = (((eh - ph) - pl) + el - q * dl) / dh
        s = eh + q
        if eh >= q:
            err = (eh - s) + q
        else:
            err = (q - s) + eh
        v = (s + (err + el + ql)) * 0.5
        return v if x > 0.0 else -v
    if a <= _SINH_OVF:
        e, s, lo = _exp_dd(a, 0.0)
        v = _scale(s, lo, e - 1)
        return v if x > 0.0 else -v
    if a == _INF or x != x:
        return x
    raise _range()


def cosh(x: float) -> float:
    """Hyperbolic cosine; OverflowError where the result is not finite."""
    a = abs(x)
    if a < 22.0:
        if a < _TWO_M26:
            return 1.0
        e, s, lo = _exp_dd(a, 0.0)
        sc = _POW2[e + 1074]
        vh = s * sc
        vl = lo * sc
        # cosh a = (V + 1/V) / 2 with V = e**a >= 1
        q = 1.0 / vh
        if a >= 3.0:
            # 1/V < cosh/200: its rounding error is below 2**-60 of the result
            h = vh + q
            return (h + (((vh - h) + q) + vl)) * 0.5
        c = _SPLIT * q
        q1 = c - (c - q)
        q2 = q - q1
        c = _SPLIT * vh
        v1 = c - (c - vh)
        v2 = vh - v1
        ph = q * vh
        pl = ((q1 * v1 - ph) + q1 * v2 + q2 * v1) + q2 * v2
        ql = (((1.0 - ph) - pl) - q * vl) / vh
        h = vh + q
        err = (vh - h) + q
        return (h + (err + vl + ql)) * 0.5
    if a <= _SINH_OVF:
        e, s, lo = _exp_dd(a, 0.0)
        return _scale(s, lo, e - 1)
    if a == _INF:
        return a
    if x != x:
        return x
    raise _range()


def tanh(x: float) -> float:
    """Hyperbolic tangent; saturates to exactly +-1 for |x| >= 22."""
    a = abs(x)
    if a < _TANH_SMALL:
        if a < _TWO_M28:
            return float(x)
        x2 = x * x
        return x + x * x2 * (
            _P0
            + x2
            * (
                _P1
                + x2
                * (_P2 + x2 * (_P3 + x2 * (_P4 + x2 * (_P5 + x2 * (_P6 + x2 * (_P7 + x2 * _P8))))))
            )
        )
    if a < 22.0:
        # E = expm1(2a) in double-double (the kernel of _exp_dd, inlined; tied by
        # test_inlined_exp_kernel_in_tanh_matches_exp_dd)
        a2 = a + a
        kd = a2 * _EXP_INVL + _SHIFT
        kd -= _SHIFT
        t = a2 - kd * _L1
        p = kd * _L2
        r = t - p
        rl = (t - r) - p
        k = int(kd)
        hi, lo, h1, h2 = _EXP_T[k & 127]
        qq = r * r * (_D2 + r * (_D3 + r * (_D4 + r * (_D5 + r * _D6)))) + rl
        c = _SPLIT * r
        r1 = c - (c - r)
        r2 = r - r1
        ah = hi * r
        al = ((h1 * r1 - ah) + h1 * r2 + h2 * r1) + h2 * r2
        s = hi + ah
        lo = ((hi - s) + ah) + al + lo + hi * qq + lo * r
        sc = _P2E[k >> 7]
        big = s * sc
        eh = big - 1.0
        el = ((big - eh) - 1.0) + lo * sc
        h = eh + el
        el = (eh - h) + el
        eh = h
        # tanh a = E / (E + 2)
        dh = eh + 2.0
        if eh <= 2.0:
            dl = (eh - (dh - 2.0)) + el
        else:
            dl = (2.0 - (dh - eh)) + el
        q = eh / dh
        c = _SPLIT * q
        q1 = c - (c - q)
        q2 = q - q1
        c = _SPLIT * dh
        d1 = c - (c - dh)
        d2 = dh - d1
        ph = q * dh
        pl = ((q1 * d1 - ph) + q1 * d2 + q2 * d1) + q2 * d2
        q = q + (((eh - ph) - pl) + el - q * dl) / dh
        return q if x > 0.0 else -q
    if x != x:
        return x
    return 1.0 if x > 0.0 else -1.0


# --------------------------------------------------------------------------- hypot, cbrt

_MISSING = object()


def hypot(x: float = _MISSING, y: float = _MISSING, *more: float) -> float:
    """Euclidean norm sqrt(x*x + y*y + ...), as math.hypot; no spurious over/underflow."""
    if more or y is _MISSING:
        return _hypot_n(x, y, more)
    a = abs(x)
    b = abs(y)
    if a < b:
        a, b = b, a
    if not a < _INF:  # a is inf or nan (b may be nan with a finite only if a was nan-compared)
        return _hypot_special(a, b)
    if b != b:
        return b
    if a > b * 134217728.0 or b == 0.0:  # b < a * 2**-27: sqrt(a^2 + b^2) rounds to a
        return float(a)
    if a > _TWO_P500:
        return _hypot_core(a * _TWO_M600, b * _TWO_M600, 600)
    if a < _TWO_M500:
        return _hypot_core(a * _TWO_P600, b * _TWO_P600, -600)
    c = _SPLIT * a
    a1 = c - (c - a)
    a2 = a - a1
    sa = a * a
    sal = ((a1 * a1 - sa) + 2.0 * a1 * a2) + a2 * a2
    c = _SPLIT * b
    b1 = c - (c - b)
    b2 = b - b1
    sb = b * b
    sbl = ((b1 * b1 - sb) + 2.0 * b1 * b2) + b2 * b2
    s = sa + sb
    sl = ((sa - s) + sb) + sal + sbl
    h = _sqrt(s)
    c = _SPLIT * h
    h1 = c - (c - h)
    h2 = h - h1
    hh = h * h
    hl = ((h1 * h1 - hh) + 2.0 * h1 * h2) + h2 * h2
    return h + (((s - hh) - hl) + sl) / (h + h)


def _hypot_special(a: float, b: float) -> float:
    if a == _INF or b == _INF:
        return _INF
    return a if a != a else b


def _hypot_core(a: float, b: float, e: int) -> float:
    """hypot(a, b) * 2**e for a >= b >= 0 scaled into a safe range, rounded once."""
    c = _SPLIT * a
    a1 = c - (c - a)
    a2 = a - a1
    sa = a * a
    sal = ((a1 * a1 - sa) + 2.0 * a1 * a2) + a2 * a2
    c = _SPLIT * b
    b1 = c - (c - b)
    b2 = b - b1
    sb = b * b
    sbl = ((b1 * b1 - sb) + 2.0 * b1 * b2) + b2 * b2
    s = sa + sb
    sl = ((sa - s) + sb) + sal + sbl
    return _sqrt_dd_scaled(s, sl, e)


def _sqrt_dd_scaled(s: float, sl: float, e: int) -> float:
    """sqrt(s + sl) * 2**e, rounded once (s > 0 normal, sl small)."""
    h = _sqrt(s)
    c = _SPLIT * h
    h1 = c - (c - h)
    h2 = h - h1
    hh = h * h
    hl = ((h1 * h1 - hh) + 2.0 * h1 * h2) + h2 * h2
    corr = (((s - hh) - hl) + sl) / (h + h)
    if e == 0:
        return h + corr
    if e > 0 or h * _POW2[e + 1074] >= _TWO_M1022:
        return (h + corr) * _POW2[e + 1074]
    # subnormal result: round once at 2**-1074 (see _scale)
    sc = _POW2[e + 1022 + 1074]
    w = h * sc
    wl = corr * sc
    t = 1.0 + w
    t = t + (((1.0 - t) + w) + wl)
    return (t - 1.0) * _TWO_M1022


def _hypot_n(x, y, more) -> float:
    """math.hypot with any number of coordinates (0, 1, or more than 2)."""
    coords = [] if x is _MISSING else [x] if y is _MISSING else [x, y]
    coords.extend(more)
    vals = [abs(float(v)) for v in coords]
    if not vals:
        return 0.0
    big = 0.0
    found_nan = False
    for v in vals:
        if v == _INF:
            return _INF
        if v != v:
            found_nan = True
        elif v > big:
            big = v
    if found_nan:
        return _NAN
    if big == 0.0:
        return 0.0
    if len(vals) == 1:
        return big
    if big > _TWO_P500:
        sc, e = _TWO_M600, 600
    elif big < _TWO_M500:
        sc, e = _TWO_P600, -600
    else:
        sc, e = 1.0, 0
    s = 0.0
    sl = 0.0
    for v in vals:
        v = v * sc
        c = _SPLIT * v
        v1 = c - (c - v)
        v2 = v - v1
        sq = v * v
        sql = ((v1 * v1 - sq) + 2.0 * v1 * v2) + v2 * v2
        t = s + sq
        bb = t - s
        err = (s - (t - bb)) + (sq - bb)
        s = t
        sl = sl + (err + sql)
    t = s + sl
    sl = sl - (t - s)
    return _sqrt_dd_scaled(t, sl, e)


def cbrt(x: float) -> float:
    """Real cube root, sign-preserving; exact for perfect cubes."""
    ix = _unpack_q(_pack_d(x))[0]
    ab = ix & 0x7FFFFFFFFFFFFFFF
    a = abs(x)
    if ab < _MIN_NORMAL_BITS:
        if ab == 0:
            return float(x)
        a = a * _TWO_P54
        ab = _unpack_q(_pack_d(a))[0]
        eb = (ab >> 52) - 1023 - 54
    elif ab >= _INF_BITS:
        return float(x)
    else:
        eb = (ab >> 52) - 1023
    m = _unpack_d(_pack_q((ab & _FRAC) | 0x3FF0000000000000))[0]  # [1, 2)
    q, rem = divmod(eb, 3)
    am = m * (1.0, 2.0, 4.0)[rem]  # a = 2**(3q) * am, am in [1, 8)
    y = (_B0 + m * (_B1 + m * (_B2 + m * (_B3 + m * (_B4 + m * _B5))))) * _CBRT2[rem]
    y = y - (y * y * y - am) / (3.0 * y * y)
    # Newton step with the exact residual am - y^3
    c = _SPLIT * y
    y1 = c - (c - y)
    y2 = y - y1
    sq = y * y
    sql = ((y1 * y1 - sq) + 2.0 * y1 * y2) + y2 * y2
    c = _SPLIT * sq
    s1 = c - (c - sq)
    s2 = sq - s1
    cu = sq * y
    cul = (((s1 * y1 - cu) + s1 * y2 + s2 * y1) + s2 * y2) + sql * y
    y = y + ((am - cu) - cul) / (3.0 * sq)
    v = y * _POW2[q + 1074]
    return v if ix < 0x8000000000000000 else -v
