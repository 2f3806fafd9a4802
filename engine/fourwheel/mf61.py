"""Magic Formula 6.1: steady-state tire forces and moments from a ``.tir`` parameter set.

The equations are those of Pacejka, *Tire and Vehicle Dynamics*, 3rd ed. (2012), §4.3.2
(eqs. 4.E1-4.E78) and of the MF-Tyre 6.1 documentation, without turn slip (every ζ = 1)
and without the overturning moment Mx. Parameters are :class:`~skidpad.engine.fourwheel.tir.
Mf61Params` (read by :mod:`skidpad.engine.fourwheel.tir`); scaling factors λ (``LFZO``, ``LMUX``,
...) are 1 unless the file gives them. This module is standalone: the four-wheel
substep calls it through :mod:`skidpad.engine.fourwheel.tire` for a tire whose definition
embeds a parameter set (ADR 0260, ADR 0261).

Axes and signs. The equations are evaluated in the TNO **ISO-W** system of the file
(x forward along the wheel, y to the left, z up; slip angle ``tan α = V_sy/V_cx`` and
``α* = tan α·sgn V_cx = V_sy/|V_cx|``, so a wheel sliding to the left has α* > 0 and, with
``PKY1 < 0``, a force to the right;
inclination γ is the right-hand rotation about x: γ > 0 leans the top of the wheel to
the right). The engine's slip angle (:mod:`skidpad.engine.fourwheel.tire`) is
``tan α_e = -V_sy/|V_x|``, so the one conversion, made in :func:`forces`, is
``α* = -tan α_e`` (whichever way the wheel rolls). Everything else is shared:
κ = -V_sx/|V_x| (> 0 driving), F_x > 0 forward, F_y > 0 to the left, M_z > 0
counter-clockwise seen from above, M_y about the wheel's left-pointing axis (< 0 resists
forward rolling), γ as above.

Main equations (dfz = (F_z - F_z0')/F_z0', F_z0' = FNOMIN·LFZO, dp = (p - p0)/p0,
γ* = sin γ, α* = tan α·sgn V_cx, each E clamped to <= 1 as MF-Tyre does):

Pure longitudinal slip::

    Fx0 = Dx sin(Cx atan(Bx κx - Ex (Bx κx - atan(Bx κx)))) + SVx,   κx = κ + SHx
    Cx = PCX1 LCX,   Dx = μx Fz,   μx = (PDX1 + PDX2 dfz)(1 + PPX3 dp + PPX4 dp²)(1 - PDX3 γ²) λμx*
    Ex = (PEX1 + PEX2 dfz + PEX3 dfz²)(1 - PEX4 sgn κx) LEX
    Kxκ = Fz (PKX1 + PKX2 dfz) exp(PKX3 dfz)(1 + PPX1 dp + PPX2 dp²) LKX,   Bx = Kxκ/(Cx Dx)
    SHx = (PHX1 + PHX2 dfz) LHX,   SVx = Fz (PVX1 + PVX2 dfz) LVX λμx'

Pure lateral slip::

    Fy0 = Dy sin(Cy atan(By αy - Ey (By αy - atan(By αy)))) + SVy,   αy = α* + SHy
    μy = (PDY1 + PDY2 dfz)(1 + PPY3 dp + PPY4 dp²)(1 - PDY3 γ*²) λμy*,   Dy = μy Fz
    Ey = (PEY1 + PEY2 dfz)(1 + PEY5 γ*² - (PEY3 + PEY4 γ*) sgn αy) LEY
    Kyα = PKY1 Fz0' (1 + PPY1 dp)(1 - PKY3 |γ*|)
          sin(PKY4 atan(Fz/((PKY2 + PKY5 γ*²)(1 + PPY2 dp) Fz0'))) LKY
    Kyγ0 = Fz (PKY6 + PKY7 dfz)(1 + PPY5 dp) LKYC,   By = Kyα/(Cy Dy)
    SVyγ = Fz (PVY3 + PVY4 dfz) γ* LKYC λμy',   SVy = Fz (PVY1 + PVY2 dfz) LVY λμy' + SVyγ
    SHy = (PHY1 + PHY2 dfz) LHY + (Kyγ0 γ* - SVyγ)/Kyα

Combined slip (weighting functions)::

    Fx = Gxα Fx0,   Gxα = cos(Cxα atan(Bxα αs - Exα(...)))/cos(Cxα atan(Bxα SHxα - Exα(...)))
    Bxα = (RBX1 + RBX3 γ*²) cos(atan(RBX2 κ)) LXAL,  Cxα = RCX1,  Exα = REX1 + REX2 dfz,
    SHxα = RHX1,  αs = α* + SHxα
    Fy = Gyκ Fy0 + SVyκ,   Gyκ likewise with
    Byκ = (RBY1 + RBY4 γ*²) cos(atan(RBY2 (α* - RBY3))) LYKA,
    Cyκ = RCY1, Eyκ = REY1 + REY2 dfz, SHyκ = RHY1 + RHY2 dfz, κs = κ + SHyκ
    SVyκ = μy Fz (RVY1 + RVY2 dfz + RVY3 γ*) cos(atan(RVY4 α*)) sin(RVY5 atan(RVY6 κ)) LVYKA

Aligning moment (pneumatic trail t and residual torque Mzr)::

    Mz = -t F'y + Mzr + s Fx,   F'y = Gyκ Fy0(γ = 0)
    t = Dt cos(Ct atan(Bt αt,eq - Et (Bt αt,eq - atan(Bt αt,eq)))) cos'α
    αt = α* + SHt,  SHt = QHZ1 + QHZ2 dfz + (QHZ3 + QHZ4 dfz) γ*
    αt,eq = sqrt(αt² + (Kxκ/Kyα)² κ²) sgn αt   (αr,eq likewise with αr = α* + SHy + SVy/Kyα)
    Bt = (QBZ1 + QBZ2 dfz + QBZ3 dfz²)(1 + QBZ4 γ + QBZ5 |γ|) LKY/λμy*,   Ct = QCZ1
    Dt = Fz (R0/Fz0')(QDZ1 + QDZ2 dfz)(1 - PPZ1 dp) LTR sgn V_cx (1 + QDZ3 γ + QDZ4 γ²)

(Bt and Dt as in the MF-Tyre 6.1 paper, eqs. A58 and A60, which TNO's own solver
follows and whose keys the MF 6.1 files carry: the book's 4.E40 has a QBZ6 no .tir
file defines.)
    Et = (QEZ1 + QEZ2 dfz + QEZ3 dfz²)(1 + (QEZ4 + QEZ5 γ*)(2/π) atan(Bt Ct αt))
    Mzr = Dr cos(atan(Br αr,eq)),   Br = QBZ9 LKY/λμy* + QBZ10 By Cy
    Dr = Fz R0 ((QDZ6 + QDZ7 dfz) LRES + ((QDZ8 + QDZ9 dfz)(1 + PPZ2 dp)
         + (QDZ10 + QDZ11 dfz)|γ*|) γ* LKZC) λμy* sgn V_cx cos'α
    s = R0 (SSZ1 + SSZ2 Fy/Fz0' + (SSZ3 + SSZ4 dfz) γ*) LS

Rolling resistance moment::

    My = -sgn(V_cx) Fz0' R0 (QSY1 + QSY2 Fx/Fz0' + QSY3 |V_cx/V0| + QSY4 (V_cx/V0)⁴
         + (QSY5 + QSY6 Fz/Fz0') γ²) (Fz/Fz0')^QSY7 (p/p0)^QSY8 LMY,   V0 = LONGVL

Relaxation lengths: from PTX/PTY when the file gives them (the MF 5.2/PAC2002 form that
MF 6.1 files keep)::

    σκ = Fz (PTX1 + PTX2 dfz) exp(-PTX3 dfz) (R0/Fz0') LSGKP
    σα = PTY1 sin(2 atan(Fz/(PTY2 Fz0'))) (1 - PKY3 |γ*|) R0 LFZO LSGAL

else from the carcass stiffnesses of ``[STRUCTURAL]``: σκ = |Kxκ|/Cx, σα = |Kyα|/Cy with
Cx = LONGITUDINAL_STIFFNESS (1 + PCFX1 dfz + PCFX2 dfz²)(1 + PCFX3 dp) (Cy likewise).

Friction with slip speed: λμ* = λμ/(1 + LMUV V_s/V0) (LMUV = 0 by default), and
λμ' = 10 λμ*/(1 + 9 λμ*) (A_μ = 10). Small ε = 1e-6 guard the divisions by C·D and Kyα
(sign-preserving). At F_z <= 0 every force and moment is 0. The model does not clamp
κ, α, γ or F_z to the file's ranges.

Strict-float: ``tan``, ``exp`` and ``pow`` are :mod:`skidpad.engine.smath`'s, ``sin``,
``cos`` and ``atan`` its ``sin_fast``, ``cos_fast`` and ``atan_fast`` (the same bits in every
runtime, below 1.5 ulp, half the cost: the choice ADR 0183 made for today's tire);
``cos(atan x)`` is written ``1/sqrt(1 + x²)`` and ``sin(2 atan q)`` as ``2q/(1 + q²)``
(identities, no trig).
"""

from __future__ import annotations

from math import fabs, pi, sqrt
from typing import NamedTuple

from skidpad.engine.fourwheel.tir import Mf61Params
from skidpad.engine.smath import exp, pow, tan
from skidpad.engine.smath.trig import atan_fast as atan
from skidpad.engine.smath.trig import cos_fast as cos
from skidpad.engine.smath.trig import sin_fast as sin

#: Small guard of the divisions by C·D and by Kyα (MF-Tyre's ε).
EPS = 1e-6
#: Friction degression factor A_μ of λμ' (MF-Tyre's default).
A_MU = 10.0
_TWO_OVER_PI = 2.0 / pi


class Mf61Forces(NamedTuple):
    """The tire's forces (N), moments (N·m) and relaxation lengths (m), engine signs."""

    fx: float
    fy: float
    mz: float
    my: float
    sigma_kappa: float
    sigma_alpha: float


class _Load(NamedTuple):
    """The load- and pressure-dependent terms shared by every equation."""

    fz: float
    fz0: float  # Fz0' = FNOMIN·LFZO
    dfz: float
    dp: float
    p_ratio: float  # p/p0 (1 without pressure data)


class _PureY(NamedTuple):
    fy0: float
    mu_y: float
    kya: float  # Kyα (sign of PKY1)
    by: float
    cy: float
    shy: float
    svy: float


def _sgn(x: float) -> float:
    """+1 for x >= 0, -1 below (MF-Tyre's sign of a speed: zero counts as forward)."""
    return 1.0 if x >= 0.0 else -1.0


def _sgn0(x: float) -> float:
    """The sign with sgn(0) = 0 (equivalent slips keep the zero of α_t)."""
    return 0.0 if x == 0.0 else (1.0 if x > 0.0 else -1.0)


def _guard(x: float) -> float:
    """x + ε·sgn(x): a division by a stiffness never divides by zero."""
    return x + EPS if x >= 0.0 else x - EPS


def _mf(b: float, c: float, d: float, e: float, x: float) -> float:
    """D sin(C atan(B x - E (B x - atan(B x)))): the Magic Formula."""
    bx = b * x
    return d * sin(c * atan(bx - e * (bx - atan(bx))))


def _weight(b: float, c: float, e: float, x: float) -> float:
    """cos(C atan(B x - E (B x - atan(B x)))): the combined-slip weighting shape."""
    bx = b * x
    return cos(c * atan(bx - e * (bx - atan(bx))))


def load_terms(p: Mf61Params, fz: float) -> _Load:
    """dfz, dp and p/p0 at load ``fz`` (N) and the file's inflation pressure."""
    fz0 = p.FNOMIN * p.LFZO
    if p.NOMPRES is None:
        dp, ratio = 0.0, 1.0
    else:
        infl = p.NOMPRES if p.INFLPRES is None else p.INFLPRES
        dp = (infl - p.NOMPRES) / p.NOMPRES
        ratio = infl / p.NOMPRES
    return _Load(fz, fz0, (fz - fz0) / fz0, dp, ratio)


def _x_at_load(
    p: Mf61Params, ld: _Load, gamma: float, lmux: float
) -> tuple[float, float, float, float]:
    """(Cx, Dx, Kxκ, Bx): the longitudinal terms that depend on load and camber, not slip."""
    dfz, dp = ld.dfz, ld.dp
    cx = p.PCX1 * p.LCX
    mu_x = (p.PDX1 + p.PDX2 * dfz) * (1.0 + p.PPX3 * dp + p.PPX4 * dp * dp)
    mu_x = mu_x * (1.0 - p.PDX3 * gamma * gamma) * lmux
    dx = mu_x * ld.fz
    kxk = ld.fz * (p.PKX1 + p.PKX2 * dfz) * exp(p.PKX3 * dfz)
    kxk = kxk * (1.0 + p.PPX1 * dp + p.PPX2 * dp * dp) * p.LKX
    return cx, dx, kxk, kxk / (cx * dx + EPS)


def _y_at_load(
    p: Mf61Params, ld: _Load, gstar: float, lmuy: float
) -> tuple[float, float, float, float, float]:
    """(Cy, μy, Dy, Kyα, By): the lateral terms that depend on load and camber, not slip."""
    dfz, dp, fz0 = ld.dfz, ld.dp, ld.fz0
    g2 = gstar * gstar
    cy = p.PCY1 * p.LCY
    mu_y = (p.PDY1 + p.PDY2 * dfz) * (1.0 + p.PPY3 * dp + p.PPY4 * dp * dp)
    mu_y = mu_y * (1.0 - p.PDY3 * g2) * lmuy
    dy = mu_y * ld.fz
    q = ld.fz / ((p.PKY2 + p.PKY5 * g2) * (1.0 + p.PPY2 * dp) * fz0)
    kya = p.PKY1 * fz0 * (1.0 + p.PPY1 * dp) * (1.0 - p.PKY3 * fabs(gstar))
    kya = kya * sin(p.PKY4 * atan(q)) * p.LKY
    return cy, mu_y, dy, kya, kya / (cy * dy + EPS)


def pure_fx(
    p: Mf61Params, ld: _Load, kappa: float, gamma: float, lmux: float
) -> tuple[float, float]:
    """(Fx0, Kxκ): pure longitudinal force (N) and slip stiffness (N) at slip ``kappa``."""
    return _pure_fx_of(p, ld, _x_at_load(p, ld, gamma, lmux), kappa, lmux)


def _pure_fx_of(
    p: Mf61Params, ld: _Load, x: tuple, kappa: float, lmux: float
) -> tuple[float, float]:
    """:func:`pure_fx` given its load terms ``x`` (:func:`_x_at_load`)."""
    dfz = ld.dfz
    cx, dx, kxk, bx = x
    shx = (p.PHX1 + p.PHX2 * dfz) * p.LHX
    svx = ld.fz * (p.PVX1 + p.PVX2 * dfz) * p.LVX * _prime(lmux)
    kx = kappa + shx
    ex = (p.PEX1 + p.PEX2 * dfz + p.PEX3 * dfz * dfz) * (1.0 - p.PEX4 * _sgn0(kx)) * p.LEX
    return _mf(bx, cx, dx, min(ex, 1.0), kx) + svx, kxk


def pure_fy(p: Mf61Params, ld: _Load, alpha_star: float, gstar: float, lmuy: float) -> _PureY:
    """Pure lateral force and its terms at ``alpha_star`` = tan α·sgn V_cx, γ* = sin γ."""
    return _pure_fy_of(p, ld, _y_at_load(p, ld, gstar, lmuy), alpha_star, gstar, lmuy)


def _pure_fy_of(
    p: Mf61Params, ld: _Load, yl: tuple, alpha_star: float, gstar: float, lmuy: float
) -> _PureY:
    """:func:`pure_fy` given its load terms ``yl`` (:func:`_y_at_load`)."""
    dfz, dp = ld.dfz, ld.dp
    g2 = gstar * gstar
    cy, mu_y, dy, kya, by = yl
    kyg0 = ld.fz * (p.PKY6 + p.PKY7 * dfz) * (1.0 + p.PPY5 * dp) * p.LKYC
    lmuy_p = _prime(lmuy)
    svyg = ld.fz * (p.PVY3 + p.PVY4 * dfz) * gstar * p.LKYC * lmuy_p
    svy = ld.fz * (p.PVY1 + p.PVY2 * dfz) * p.LVY * lmuy_p + svyg
    shy = (p.PHY1 + p.PHY2 * dfz) * p.LHY + (kyg0 * gstar - svyg) / _guard(kya)
    ay = alpha_star + shy
    ey = (p.PEY1 + p.PEY2 * dfz) * (1.0 + p.PEY5 * g2 - (p.PEY3 + p.PEY4 * gstar) * _sgn0(ay))
    ey = min(ey * p.LEY, 1.0)
    return _PureY(_mf(by, cy, dy, ey, ay) + svy, mu_y, kya, by, cy, shy, svy)


def _prime(lmu: float) -> float:
    """λμ' = A_μ λμ*/(1 + (A_μ - 1) λμ*): the degressive friction scaling of the shifts."""
    return A_MU * lmu / (1.0 + (A_MU - 1.0) * lmu)


def g_xa(p: Mf61Params, ld: _Load, kappa: float, alpha_star: float, gstar: float) -> float:
    """Gxα: the share of Fx0 left at slip angle ``alpha_star`` (1 at α* = 0 when RHX1 = 0)."""
    bxa = (p.RBX1 + p.RBX3 * gstar * gstar) * p.LXAL / sqrt(1.0 + p.RBX2 * kappa * p.RBX2 * kappa)
    exa = min(p.REX1 + p.REX2 * ld.dfz, 1.0)
    shxa = p.RHX1
    return _weight(bxa, p.RCX1, exa, alpha_star + shxa) / _weight(bxa, p.RCX1, exa, shxa)


def g_yk(p: Mf61Params, ld: _Load, kappa: float, alpha_star: float, gstar: float) -> float:
    """Gyκ: the share of Fy0 left at longitudinal slip ``kappa``."""
    d = p.RBY2 * (alpha_star - p.RBY3)
    byk = (p.RBY1 + p.RBY4 * gstar * gstar) * p.LYKA / sqrt(1.0 + d * d)
    eyk = min(p.REY1 + p.REY2 * ld.dfz, 1.0)
    shyk = p.RHY1 + p.RHY2 * ld.dfz
    return _weight(byk, p.RCY1, eyk, kappa + shyk) / _weight(byk, p.RCY1, eyk, shyk)


def sv_yk(
    p: Mf61Params, ld: _Load, kappa: float, alpha_star: float, gstar: float, mu_y: float
) -> float:
    """SVyκ: the κ-induced lateral force ('ply-steer' of combined slip), N."""
    r4 = p.RVY4 * alpha_star
    dvyk = mu_y * ld.fz * (p.RVY1 + p.RVY2 * ld.dfz + p.RVY3 * gstar) / sqrt(1.0 + r4 * r4)
    return dvyk * sin(p.RVY5 * atan(p.RVY6 * kappa)) * p.LVYKA


def relaxation(
    p: Mf61Params, ld: _Load, gstar: float, kxk: float, kya: float
) -> tuple[float, float]:
    """(σκ, σα) in metres at this load (PTX/PTY form when given, else carcass stiffness)."""
    r0, dfz = p.UNLOADED_RADIUS, ld.dfz
    if p.PTX1 != 0.0 and p.PTY1 != 0.0:
        sk = ld.fz * (p.PTX1 + p.PTX2 * dfz) * exp(-p.PTX3 * dfz) * (r0 / ld.fz0) * p.LSGKP
        q = ld.fz / (p.PTY2 * ld.fz0)
        sa = p.PTY1 * (2.0 * q / (1.0 + q * q)) * (1.0 - p.PKY3 * fabs(gstar))
        return sk, sa * r0 * p.LFZO * p.LSGAL
    cx = p.LONGITUDINAL_STIFFNESS * (1.0 + p.PCFX1 * dfz + p.PCFX2 * dfz * dfz)  # type: ignore[operator]
    cy = p.LATERAL_STIFFNESS * (1.0 + p.PCFY1 * dfz + p.PCFY2 * dfz * dfz)  # type: ignore[operator]
    cx = cx * (1.0 + p.PCFX3 * ld.dp)
    cy = cy * (1.0 + p.PCFY3 * ld.dp)
    return fabs(kxk) / cx * p.LSGKP, fabs(kya) / cy * p.LSGAL


def strict_power(x: float, y: float) -> float:
    """x**y, strict (:func:`skidpad.engine.smath.pow`), under a name that is not the built-in's
    (a text that calls it, such as a specialised one, reads as the strict function)."""
    return pow(x, y)


def rolling_moment(p: Mf61Params, ld: _Load, fx: float, gamma: float, vx: float) -> float:
    """My (N·m), ISO sign: < 0 while rolling forward (it resists the rolling)."""
    v = vx / p.LONGVL
    v2 = v * v
    fz0 = ld.fz0
    poly = p.QSY1 + p.QSY2 * fx / fz0 + p.QSY3 * fabs(v) + p.QSY4 * v2 * v2
    poly = poly + (p.QSY5 + p.QSY6 * ld.fz / fz0) * gamma * gamma
    scale = strict_power(ld.fz / fz0, p.QSY7)
    if p.QSY8 != 0.0:
        scale = scale * strict_power(ld.p_ratio, p.QSY8)
    return -_sgn(vx) * fz0 * p.UNLOADED_RADIUS * poly * scale * p.LMY


def aligning_moment(
    p: Mf61Params,
    ld: _Load,
    kappa: float,
    alpha_star: float,
    gamma: float,
    gstar: float,
    cos_a: float,
    fx: float,
    fy: float,
    kxk: float,
    y: _PureY,
    lmuy: float,
    fy_g0: float,
) -> float:
    """Mz (N·m): -t·F'y + Mzr + s·Fx with the equivalent slips of combined slip."""
    dfz, fz, r0 = ld.dfz, ld.fz, p.UNLOADED_RADIUS
    kya_g = _guard(y.kya)
    ratio2 = (kxk / kya_g) * (kxk / kya_g) * kappa * kappa
    # the trail multiplies the lateral force at zero camber (camber acts through Mzr);
    # at γ = 0 that is the pure force already computed (the same operations, the same bits)
    if gstar == 0.0:
        fy_prime = fy_g0
    else:
        y0 = pure_fy(p, ld, alpha_star, 0.0, lmuy)
        fy_prime = g_yk(p, ld, kappa, alpha_star, 0.0) * y0.fy0
    sht = p.QHZ1 + p.QHZ2 * dfz + (p.QHZ3 + p.QHZ4 * dfz) * gstar
    at = alpha_star + sht
    ar = alpha_star + y.shy + y.svy / kya_g
    at_eq = sqrt(at * at + ratio2) * _sgn0(at)
    ar_eq = sqrt(ar * ar + ratio2) * _sgn0(ar)
    bt = (p.QBZ1 + p.QBZ2 * dfz + p.QBZ3 * dfz * dfz) * (
        1.0 + p.QBZ4 * gamma + p.QBZ5 * fabs(gamma)
    )
    bt = bt * p.LKY / lmuy
    ct = p.QCZ1
    dt = fz * (r0 / ld.fz0) * (p.QDZ1 + p.QDZ2 * dfz) * (1.0 - p.PPZ1 * ld.dp) * p.LTR
    sv = 1.0 if cos_a >= 0.0 else -1.0  # sgn V_cx: Dt and Dr carry it besides cos'α
    dt = dt * (1.0 + p.QDZ3 * gamma + p.QDZ4 * gamma * gamma) * sv
    et = p.QEZ1 + p.QEZ2 * dfz + p.QEZ3 * dfz * dfz
    et = min(et * (1.0 + (p.QEZ4 + p.QEZ5 * gstar) * _TWO_OVER_PI * atan(bt * ct * at)), 1.0)
    t = _mf_cos(bt, ct, dt, et, at_eq) * cos_a
    br = p.QBZ9 * p.LKY / lmuy + p.QBZ10 * y.by * y.cy
    camber = (
        ((p.QDZ8 + p.QDZ9 * dfz) * (1.0 + p.PPZ2 * ld.dp) + (p.QDZ10 + p.QDZ11 * dfz) * fabs(gstar))
        * gstar
        * p.LKZC
    )
    dr = fz * r0 * ((p.QDZ6 + p.QDZ7 * dfz) * p.LRES + camber) * lmuy * sv * cos_a
    mzr = dr / sqrt(1.0 + (br * ar_eq) * (br * ar_eq))  # Cr = 1: cos(atan(Br αr))
    s = r0 * (p.SSZ1 + p.SSZ2 * fy / ld.fz0 + (p.SSZ3 + p.SSZ4 * dfz) * gstar) * p.LS
    return -t * fy_prime + mzr + s * fx


def _mf_cos(b: float, c: float, d: float, e: float, x: float) -> float:
    """D cos(C atan(B x - E (B x - atan(B x)))): the trail's cosine version."""
    return d * _weight(b, c, e, x)


def forces(
    p: Mf61Params, fz: float, kappa: float, alpha: float, gamma: float, vx: float
) -> Mf61Forces:
    """Forces, moments and relaxation lengths of the tire, in the engine's conventions.

    ``fz`` load (N), ``kappa`` longitudinal slip (engine = ISO), ``alpha`` the engine's
    slip angle (rad, ``tan α_e = -V_sy/|V_x|``: converted here, once, to ISO's
    ``α* = -tan α_e``), ``gamma`` inclination (rad, > 0 top leaning right), ``vx`` the wheel
    centre's forward speed (m/s; its sign selects driving forwards or backwards).
    """
    if not fz > 0.0:
        return Mf61Forces(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    # MF-Tyre's α* = tan α·sgn V_cx with tan α = V_sy/V_cx is V_sy/|V_cx|: the engine's
    # α_e (tan α_e = -V_sy/|V_x|) gives it directly, in either direction of travel, so the
    # force opposes the lateral sliding when reversing too
    return forces_at(p, fz, kappa, tan(-alpha), gamma, vx, 1.0)


def forces_at(
    p: Mf61Params,
    fz: float,
    kappa: float,
    alpha_star: float,
    gamma: float,
    vx: float,
    friction: float,
) -> Mf61Forces:
    """:func:`forces` at ISO's slip ``alpha_star`` = α* = -tan α_e (what a patch deflection
    gives without a trigonometric call), on a road whose friction factor ``friction``
    multiplies the file's λμx and λμy."""
    if not fz > 0.0:
        return Mf61Forces(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return forces_loaded(p, loaded(p, fz, gamma, friction), kappa, alpha_star, gamma, vx, friction)


class Loaded(NamedTuple):
    """The terms of one load, camber and road friction that do not depend on the slips
    (:func:`loaded`), shared by :func:`at_load_of` and :func:`forces_loaded`."""

    ld: _Load
    gstar: float  # γ* = sin γ
    x: tuple  # :func:`_x_at_load`
    y: tuple  # :func:`_y_at_load`
    sigma: tuple  # (σκ, σα), :func:`relaxation`


def loaded(p: Mf61Params, fz: float, gamma: float, friction: float) -> Loaded:
    """The slip-independent terms at load ``fz`` (> 0, N), inclination ``gamma`` (rad) and
    road friction factor ``friction`` (λμ without its slip-speed decay)."""
    ld = load_terms(p, fz)
    gstar = sin(gamma)
    x = _x_at_load(p, ld, gamma, p.LMUX * friction)
    y = _y_at_load(p, ld, gstar, p.LMUY * friction)
    return Loaded(ld, gstar, x, y, relaxation(p, ld, gstar, x[2], y[3]))


def forces_loaded(
    p: Mf61Params,
    lo: Loaded,
    kappa: float,
    alpha_star: float,
    gamma: float,
    vx: float,
    friction: float,
) -> Mf61Forces:
    """:func:`forces_at` given the slip-independent terms ``lo`` of its load (:func:`loaded`,
    at the same ``gamma`` and ``friction``): a patch computes them once for both calls."""
    ld = lo.ld
    ta = alpha_star
    gstar = lo.gstar
    lmux, lmuy = p.LMUX * friction, p.LMUY * friction
    x, yl = lo.x, lo.y
    if p.LMUV != 0.0:  # friction falls with slip speed V_s = |V_x|·sqrt(κ² + tan²α)
        decay = 1.0 + p.LMUV * fabs(vx) * sqrt(kappa * kappa + ta * ta) / p.LONGVL
        lmux, lmuy = lmux / decay, lmuy / decay
        x = _x_at_load(p, ld, gamma, lmux)
        yl = _y_at_load(p, ld, gstar, lmuy)
    fx0, kxk = _pure_fx_of(p, ld, x, kappa, lmux)
    y = _pure_fy_of(p, ld, yl, alpha_star, gstar, lmuy)
    fx = g_xa(p, ld, kappa, alpha_star, gstar) * fx0
    gyk_fy0 = g_yk(p, ld, kappa, alpha_star, gstar) * y.fy0
    fy = gyk_fy0 + sv_yk(p, ld, kappa, alpha_star, gstar, y.mu_y)
    cos_a = _sgn(vx) / sqrt(1.0 + ta * ta)  # cos'α = V_cx/V_c
    mz = aligning_moment(
        p, ld, kappa, alpha_star, gamma, gstar, cos_a, fx, fy, kxk, y, lmuy, gyk_fy0
    )
    my = rolling_moment(p, ld, fx, gamma, vx)
    # (Kxκ and Kyα do not depend on λμ: the relaxation lengths are the load's)
    sk, sa = lo.sigma if p.LMUV == 0.0 else relaxation(p, ld, gstar, kxk, y.kya)
    return Mf61Forces(fx, fy, mz, my, sk, sa)


class Mf61Load(NamedTuple):
    """What a contact patch needs of the tire at one load and camber before its slips are
    known (:func:`at_load`); magnitudes, whatever the file's sign convention."""

    sigma_kappa: float  # σκ (m)
    sigma_alpha: float  # σα (m)
    bx: float  # |Bx|: the normalised longitudinal slip per unit κ
    by: float  # |By|: the normalised lateral slip per unit tan α
    dx: float  # |Dx| + |SVx|: the largest longitudinal force the file gives at this load (N)
    dy: float  # |Dy| + |SVy| + the largest |SVyκ|: the largest lateral force (N)
    kxk: float  # |Kxκ|: the longitudinal slip stiffness (N)
    kya: float  # |Kyα|: the cornering stiffness (N/rad)
    cx: float  # the pure-slip curves' shape factors and curvatures (E <= 1; the E terms of
    ex: float  # slip sign and camber left out): what the transient model reads of the shape
    cy: float
    ey: float


def at_load(p: Mf61Params, fz: float, gamma: float, friction: float) -> Mf61Load:
    """The relaxation lengths, slip normalisation and friction limits at load ``fz`` (> 0,
    N), inclination ``gamma`` (rad) and road friction factor ``friction``: the terms of
    :func:`forces_at` that do not depend on the slips (λμ without its slip-speed decay)."""
    return at_load_of(p, loaded(p, fz, gamma, friction), friction)


def at_load_of(p: Mf61Params, lo: Loaded, friction: float) -> Mf61Load:
    """:func:`at_load` from the load's terms ``lo`` (:func:`loaded`, at ``friction``)."""
    ld, gstar = lo.ld, lo.gstar
    cx, dx, kxk, bx = lo.x
    cy, mu_y, dy, kya, by = lo.y
    sk, sa = lo.sigma
    dfz = ld.dfz
    # the curves' vertical shifts move their peaks off D: the force limits include them
    lmux_p, lmuy_p = _prime(p.LMUX * friction), _prime(p.LMUY * friction)
    svx = ld.fz * (p.PVX1 + p.PVX2 * dfz) * p.LVX * lmux_p
    svy = ld.fz * (p.PVY1 + p.PVY2 * dfz) * p.LVY * lmuy_p
    svy = svy + ld.fz * (p.PVY3 + p.PVY4 * dfz) * gstar * p.LKYC * lmuy_p
    dvyk = mu_y * ld.fz * (p.RVY1 + p.RVY2 * dfz + p.RVY3 * gstar) * p.LVYKA
    ex = min((p.PEX1 + p.PEX2 * dfz + p.PEX3 * dfz * dfz) * p.LEX, 1.0)
    ey = min((p.PEY1 + p.PEY2 * dfz) * p.LEY, 1.0)
    return Mf61Load(
        sk, sa, fabs(bx), fabs(by), fabs(dx) + fabs(svx), fabs(dy) + fabs(svy) + fabs(dvyk),
        fabs(kxk), fabs(kya), cx, ex, cy, ey,
    )  # fmt: skip
