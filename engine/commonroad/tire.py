"""Pacejka Magic Formula tire forces as the CommonRoad models use them.

Turn slip is neglected and every scaling factor is 1 (ADAMS handbook form).
Inputs: longitudinal slip ``kappa`` [-], slip angle ``alpha`` [rad], camber
``gamma`` [rad], vertical load ``F_z`` [N]. Outputs in N.

Pure longitudinal (the sign of ``kappa`` is flipped first, as in the
reference, whose slip is defined ``1 - R_w omega / u``)::

    kx = -kappa + p_hx1,  D = p_dx1 (1 - p_dx3 gamma^2) F_z,  B = p_kx1 F_z / (p_cx1 D)
    F0_x = D sin(p_cx1 atan(B kx - p_ex1 (B kx - atan(B kx))) + p_vx1 F_z)

(the vertical shift sits inside the sine in the reference; kept as is).

Pure lateral, returns (F0_y, mu_y)::

    S_hy = sgn(gamma)(p_hy1 + p_hy3 |gamma|),  S_vy = sgn(gamma) F_z (p_vy1 + p_vy3 |gamma|)
    mu_y = p_dy1 (1 - p_dy3 gamma^2),  D = mu_y F_z,  B = p_ky1 F_z / (p_cy1 D)
    F0_y = D sin(p_cy1 atan(B ay - p_ey1 (B ay - atan(B ay)))) + S_vy,  ay = alpha + S_hy

Combined slip scales the pure forces with cosine weighting functions
(``formula_longitudinal_comb``, ``formula_lateral_comb``); ``combined_forces``
chains the four for one wheel, as every wheel of STD and MB uses them.

Evaluation (ADR 0175, 0178): the reference's ``cos(atan(u))`` factors (the combined-slip
stiffnesses ``r_bx1 cos(atan(r_bx2 kappa))``, ``r_by1 cos(atan(r_by2 (alpha - r_by3)))`` and
the ``cos(atan(r_vy4 alpha))`` of the slip-induced lateral shift) are computed as
``1/sqrt(1 + u^2)``, the same function without two strict-math calls; every arc tangent
is ``smath.trig.atan_fast`` (below 1.5 ulp instead of 1, half the cost) and every sine and
cosine ``sin_fast``/``cos_fast`` (a double-double table on a 2**-7 grid, no reduction). The
combined-slip weights at the constant shift, ``cos(C atan(s - E (s - atan s)))`` with
``s = B S_h`` and ``|s| <= |r_b1 r_h1|``, are their Taylor polynomials in ``s^2``
(``weight_series``, below half an ulp; vehicles 1-3 have ``|s| <= 0.068``). All of it
keeps the port within the parity tolerances against the reference (1e-13 STD, 1e-7 MB).
``tire_fast`` derives ``combined_forces`` specialised to one tire with the specialiser
(``engine.specialise``, ADR 0230), bit-equal to it; MB inlines this same text.
"""

from __future__ import annotations

from math import sqrt

from skidpad.engine.smath.trig import atan_fast, cos_fast, sin_fast

from .params import TireParams


def _sign(x: float) -> float:
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0


#: Taylor coefficients ``c_0 .. c_n`` of a combined-slip weight in ``z = s^2`` (``shift_weight``),
#: or ``None`` where the series is not used.
WeightSeries = tuple[float, ...] | None

#: The series is used only for shifts up to this size: the nearest singularities of the weight
#: are at |s| ~ 1, so its terms fall at least ~16x per degree here.
SERIES_MAX_SHIFT = 0.25
#: Terms are kept while they can reach this relative size: far below the ulp of the weight (~1).
SERIES_TAIL = 1.0 / 1152921504606846976.0  # 2**-60
SERIES_MAX_TERMS = 16


def _mul(a: list[float], b: list[float]) -> list[float]:
    """Product of two power series truncated to ``len(a)`` terms."""
    m = len(a)
    c = [0.0] * m
    for i in range(m):
        ai = a[i]
        if ai != 0.0:
            for j in range(m - i):
                c[i + j] += ai * b[j]
    return c


def _atan_series(w: list[float]) -> list[float]:
    """``atan`` of a power series with ``w[0] = 0``: sum (-1)^k w^(2k+1)/(2k+1)."""
    m = len(w)
    w2 = _mul(w, w)
    out = [0.0] * m
    power = list(w)
    k = 0
    while 2 * k + 1 < m:
        f = (1.0 if k % 2 == 0 else -1.0) / (2 * k + 1)
        for i in range(m):
            out[i] += f * power[i]
        power = _mul(power, w2)
        k += 1
    return out


def weight_series(C: float, E: float, s_max: float) -> WeightSeries:
    """Taylor coefficients in ``z = s^2`` of ``G(s) = cos(C atan(s - E (s - atan s)))``.

    ``G`` is even and analytic for |s| < ~1. For ``|s| <= s_max <= SERIES_MAX_SHIFT`` the
    coefficients are kept up to the last one whose term can exceed ``SERIES_TAIL`` (relative
    to ``G ~ 1``), so the truncation is far below the rounding of the evaluation. Computed
    with plain float series arithmetic (the same bits in every runtime). ``None`` when
    ``s_max`` is too large: the weight is then evaluated directly.
    """
    if not s_max <= SERIES_MAX_SHIFT:
        return None
    m = 2 * SERIES_MAX_TERMS + 2  # powers of s up to s^(2 SERIES_MAX_TERMS + 1)
    s = [0.0] * m
    s[1] = 1.0
    a = _atan_series(s)
    w = [s[i] - E * (s[i] - a[i]) for i in range(m)]
    t = _atan_series(w)
    v = [C * ti for ti in t]
    v2 = _mul(v, v)
    g = [0.0] * m
    g[0] = 1.0
    term = list(g)
    j = 1
    while 2 * j < m:
        term = _mul(term, v2)
        f = -1.0 / ((2 * j - 1) * (2 * j))
        term = [f * ti for ti in term]
        for i in range(m):
            g[i] += term[i]
        j += 1
    coeffs = [g[2 * k] for k in range(SERIES_MAX_TERMS + 1)]
    zmax = s_max * s_max
    n = 0
    reach = 1.0
    for k in range(1, SERIES_MAX_TERMS + 1):
        reach *= zmax
        if abs(coeffs[k]) * reach > SERIES_TAIL:
            n = k
    return tuple(coeffs[: n + 1])


def shift_weight(s: float, C: float, E: float, series: WeightSeries) -> float:
    """The combined-slip weight at the shift, ``cos(C atan(s - E (s - atan s)))`` [-].

    ``s = B S_h`` is the weight's stiffness times the constant horizontal shift, so
    ``|s| <= |r_b1 r_h1|``; with a ``series`` (``weight_series``) it is the Taylor
    polynomial in ``z = s^2`` by Horner's rule (two strict ``atan`` and one ``cos`` fewer),
    else the formula itself.
    """
    if series is None:
        atan = atan_fast
        return cos_fast(C * atan(s - E * (s - atan(s))))
    z = s * s
    n = len(series) - 1
    g = series[n]
    for k in range(n - 1, -1, -1):
        g = series[k] + z * g
    return g


def weight_series_x(p: TireParams) -> WeightSeries:
    """The longitudinal combined-slip weight's series for ``p`` (``weight_series``)."""
    return weight_series(p.r_cx1, p.r_ex1, abs(p.r_bx1 * p.r_hx1))


def weight_series_y(p: TireParams) -> WeightSeries:
    """The lateral combined-slip weight's series for ``p`` (``weight_series``)."""
    return weight_series(p.r_cy1, p.r_ey1, abs(p.r_by1 * p.r_hy1))


def formula_longitudinal(kappa: float, gamma: float, F_z: float, p: TireParams) -> float:
    """Pure-slip longitudinal force [N]."""
    atan = atan_fast
    kappa = -kappa
    S_hx = p.p_hx1
    S_vx = F_z * p.p_vx1
    kappa_x = kappa + S_hx
    mu_x = p.p_dx1 * (1.0 - p.p_dx3 * (gamma * gamma))
    C_x = p.p_cx1
    D_x = mu_x * F_z
    E_x = p.p_ex1
    K_x = F_z * p.p_kx1
    B_x = K_x / (C_x * D_x)
    bk = B_x * kappa_x
    return D_x * sin_fast(C_x * atan(bk - E_x * (bk - atan(bk))) + S_vx)


def formula_lateral(alpha: float, gamma: float, F_z: float, p: TireParams) -> tuple[float, float]:
    """Pure-slip lateral force [N] and the lateral friction coefficient mu_y [-]."""
    atan = atan_fast
    sg = _sign(gamma)
    ag = abs(gamma)
    S_hy = sg * (p.p_hy1 + p.p_hy3 * ag)
    S_vy = sg * F_z * (p.p_vy1 + p.p_vy3 * ag)
    alpha_y = alpha + S_hy
    mu_y = p.p_dy1 * (1.0 - p.p_dy3 * (gamma * gamma))
    C_y = p.p_cy1
    D_y = mu_y * F_z
    E_y = p.p_ey1
    K_y = F_z * p.p_ky1
    B_y = K_y / (C_y * D_y)
    ba = B_y * alpha_y
    F_y = D_y * sin_fast(C_y * atan(ba - E_y * (ba - atan(ba)))) + S_vy
    return F_y, mu_y


def formula_longitudinal_comb(
    kappa: float, alpha: float, F0_x: float, p: TireParams, wx: WeightSeries
) -> float:
    """Combined-slip longitudinal force [N] from the pure-slip force ``F0_x``.

    ``wx`` is ``weight_series(p.r_cx1, p.r_ex1, |p.r_bx1 p.r_hx1|)`` (see ``shift_weight``).
    """
    atan = atan_fast
    cos = cos_fast
    S_hxalpha = p.r_hx1
    alpha_s = alpha + S_hxalpha
    u = p.r_bx2 * kappa
    B_xalpha = p.r_bx1 / sqrt(1.0 + u * u)  # r_bx1 cos(atan u)
    C_xalpha = p.r_cx1
    E_xalpha = p.r_ex1
    D_xalpha = F0_x / shift_weight(B_xalpha * S_hxalpha, C_xalpha, E_xalpha, wx)
    ba = B_xalpha * alpha_s
    return D_xalpha * cos(C_xalpha * atan(ba - E_xalpha * (ba - atan(ba))))


def formula_lateral_comb(
    kappa: float,
    alpha: float,
    gamma: float,
    mu_y: float,
    F_z: float,
    F0_y: float,
    p: TireParams,
    wy: WeightSeries,
) -> float:
    """Combined-slip lateral force [N] from the pure-slip force ``F0_y``.

    ``wy`` is ``weight_series(p.r_cy1, p.r_ey1, |p.r_by1 p.r_hy1|)`` (see ``shift_weight``).
    """
    atan = atan_fast
    cos = cos_fast
    S_hykappa = p.r_hy1
    kappa_s = kappa + S_hykappa
    u = p.r_by2 * (alpha - p.r_by3)
    B_ykappa = p.r_by1 / sqrt(1.0 + u * u)  # r_by1 cos(atan u)
    C_ykappa = p.r_cy1
    E_ykappa = p.r_ey1
    D_ykappa = F0_y / shift_weight(B_ykappa * S_hykappa, C_ykappa, E_ykappa, wy)
    u = p.r_vy4 * alpha
    D_vykappa = mu_y * F_z * (p.r_vy1 + p.r_vy3 * gamma) / sqrt(1.0 + u * u)
    S_vykappa = D_vykappa * sin_fast(p.r_vy5 * atan(p.r_vy6 * kappa))
    bk = B_ykappa * kappa_s
    return D_ykappa * cos(C_ykappa * atan(bk - E_ykappa * (bk - atan(bk)))) + S_vykappa


def combined_forces(
    kappa: float,
    alpha: float,
    gamma: float,
    F_z: float,
    p: TireParams,
    wx: WeightSeries,
    wy: WeightSeries,
) -> tuple[float, float]:
    """One wheel's combined-slip forces (F_x, F_y) [N]: the pure-slip forces, then combined.

    STD (two wheels, no camber) and MB (four wheels) evaluate exactly this chain per wheel.
    It is the four ``formula_*`` functions above written out in one body, operation for
    operation (``tests/test_commonroad_tire.py`` holds them bit-equal): this is where the
    CommonRoad derivatives spend their time (26 strict-math calls per wheel), and one body
    saves the four calls, the tuple and the repeated parameter lookups.
    """
    atan = atan_fast
    cos = cos_fast
    sin = sin_fast
    gg = gamma * gamma
    # pure longitudinal (formula_longitudinal), slip sign flipped as in the reference
    C_x = p.p_cx1
    D_x = p.p_dx1 * (1.0 - p.p_dx3 * gg) * F_z
    bk = (F_z * p.p_kx1) / (C_x * D_x) * (-kappa + p.p_hx1)
    E = p.p_ex1
    F0_x = D_x * sin(C_x * atan(bk - E * (bk - atan(bk))) + F_z * p.p_vx1)
    # pure lateral (formula_lateral)
    if gamma > 0.0:
        sg = 1.0
    elif gamma < 0.0:
        sg = -1.0
    else:
        sg = 0.0
    ag = abs(gamma)
    mu_y = p.p_dy1 * (1.0 - p.p_dy3 * gg)
    C_y = p.p_cy1
    D_y = mu_y * F_z
    ba = (F_z * p.p_ky1) / (C_y * D_y) * (alpha + sg * (p.p_hy1 + p.p_hy3 * ag))
    E = p.p_ey1
    F0_y = D_y * sin(C_y * atan(ba - E * (ba - atan(ba)))) + sg * F_z * (p.p_vy1 + p.p_vy3 * ag)
    # combined longitudinal (formula_longitudinal_comb)
    S = p.r_hx1
    u = p.r_bx2 * kappa
    B = p.r_bx1 / sqrt(1.0 + u * u)
    C = p.r_cx1
    E = p.r_ex1
    ba = B * (alpha + S)
    F_x = F0_x / shift_weight(B * S, C, E, wx) * cos(C * atan(ba - E * (ba - atan(ba))))
    # combined lateral (formula_lateral_comb)
    S = p.r_hy1
    u = p.r_by2 * (alpha - p.r_by3)
    B = p.r_by1 / sqrt(1.0 + u * u)
    C = p.r_cy1
    E = p.r_ey1
    D = F0_y / shift_weight(B * S, C, E, wy)
    u = p.r_vy4 * alpha
    D_v = mu_y * F_z * (p.r_vy1 + p.r_vy3 * gamma) / sqrt(1.0 + u * u)
    S_v = D_v * sin(p.r_vy5 * atan(p.r_vy6 * kappa))
    bk = B * (kappa + S)
    return F_x, D * cos(C * atan(bk - E * (bk - atan(bk)))) + S_v
