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

Evaluation (ADR 0175): the reference's ``cos(atan(u))`` factors (the combined-slip
stiffnesses ``r_bx1 cos(atan(r_bx2 kappa))``, ``r_by1 cos(atan(r_by2 (alpha - r_by3)))`` and
the ``cos(atan(r_vy4 alpha))`` of the slip-induced lateral shift) are computed as
``1/sqrt(1 + u^2)``, the same function without two strict-math calls, and every arc tangent
is ``smath.trig.atan_fast`` (error below 1.5 ulp instead of 1, half the cost). Both keep the
port within the parity tolerances against the reference (1e-13 STD, 1e-7 MB).
"""

from __future__ import annotations

from math import sqrt

from engine import smath
from engine.smath.trig import atan_fast

from .params import TireParams


def _sign(x: float) -> float:
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0


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
    return D_x * smath.sin(C_x * atan(bk - E_x * (bk - atan(bk))) + S_vx)


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
    F_y = D_y * smath.sin(C_y * atan(ba - E_y * (ba - atan(ba)))) + S_vy
    return F_y, mu_y


def formula_longitudinal_comb(kappa: float, alpha: float, F0_x: float, p: TireParams) -> float:
    """Combined-slip longitudinal force [N] from the pure-slip force ``F0_x``."""
    atan = atan_fast
    cos = smath.cos
    S_hxalpha = p.r_hx1
    alpha_s = alpha + S_hxalpha
    u = p.r_bx2 * kappa
    B_xalpha = p.r_bx1 / sqrt(1.0 + u * u)  # r_bx1 cos(atan u)
    C_xalpha = p.r_cx1
    E_xalpha = p.r_ex1
    bs = B_xalpha * S_hxalpha
    D_xalpha = F0_x / (cos(C_xalpha * atan(bs - E_xalpha * (bs - atan(bs)))))
    ba = B_xalpha * alpha_s
    return D_xalpha * cos(C_xalpha * atan(ba - E_xalpha * (ba - atan(ba))))


def formula_lateral_comb(
    kappa: float, alpha: float, gamma: float, mu_y: float, F_z: float, F0_y: float, p: TireParams
) -> float:
    """Combined-slip lateral force [N] from the pure-slip force ``F0_y``."""
    atan = atan_fast
    cos = smath.cos
    S_hykappa = p.r_hy1
    kappa_s = kappa + S_hykappa
    u = p.r_by2 * (alpha - p.r_by3)
    B_ykappa = p.r_by1 / sqrt(1.0 + u * u)  # r_by1 cos(atan u)
    C_ykappa = p.r_cy1
    E_ykappa = p.r_ey1
    bs = B_ykappa * S_hykappa
    D_ykappa = F0_y / (cos(C_ykappa * atan(bs - E_ykappa * (bs - atan(bs)))))
    u = p.r_vy4 * alpha
    D_vykappa = mu_y * F_z * (p.r_vy1 + p.r_vy3 * gamma) / sqrt(1.0 + u * u)
    S_vykappa = D_vykappa * smath.sin(p.r_vy5 * atan(p.r_vy6 * kappa))
    bk = B_ykappa * kappa_s
    return D_ykappa * cos(C_ykappa * atan(bk - E_ykappa * (bk - atan(bk)))) + S_vykappa


def combined_forces(
    kappa: float, alpha: float, gamma: float, F_z: float, p: TireParams
) -> tuple[float, float]:
    """One wheel's combined-slip forces (F_x, F_y) [N]: the pure-slip forces, then combined.

    STD (two wheels, no camber) and MB (four wheels) evaluate exactly this chain per wheel.
    It is the four ``formula_*`` functions above written out in one body, operation for
    operation (``tests/test_commonroad_tire.py`` holds them bit-equal): this is where the
    CommonRoad derivatives spend their time (26 strict-math calls per wheel), and one body
    saves the four calls, the tuple and the repeated parameter lookups.
    """
    atan = atan_fast
    cos = smath.cos
    sin = smath.sin
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
    bs = B * S
    ba = B * (alpha + S)
    F_x = F0_x / (cos(C * atan(bs - E * (bs - atan(bs))))) * cos(C * atan(ba - E * (ba - atan(ba))))
    # combined lateral (formula_lateral_comb)
    S = p.r_hy1
    u = p.r_by2 * (alpha - p.r_by3)
    B = p.r_by1 / sqrt(1.0 + u * u)
    C = p.r_cy1
    E = p.r_ey1
    bs = B * S
    D = F0_y / (cos(C * atan(bs - E * (bs - atan(bs)))))
    u = p.r_vy4 * alpha
    D_v = mu_y * F_z * (p.r_vy1 + p.r_vy3 * gamma) / sqrt(1.0 + u * u)
    S_v = D_v * sin(p.r_vy5 * atan(p.r_vy6 * kappa))
    bk = B * (kappa + S)
    return F_x, D * cos(C * atan(bk - E * (bk - atan(bk)))) + S_v
