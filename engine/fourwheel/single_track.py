"""Single-track (bicycle) model from the same definition, and the linear-theory understeer gradient.

The cross-check of the four-wheel model (docs/architecture.md §6; ISO 4138). Both
wheels of an axle are lumped into one, each tire at its **static** load on
flat ground, with the four-wheel model's own tire law (:mod:`engine.fourwheel.tire`,
steady state: deflection = σ·slip), pneumatic trail, front compliance
steer and the rear suspension's compliance steer under lateral force; no load transfer,
no roll, no longitudinal slip.

Steady turning at speed V on radius R (r = V/R, v_x = V), unknowns v_y and δ:

    tan α_f = -V_sy,f / V_x,f  (front hub velocity rotated into the wheel, steer δ + δ_c)
    tan α_r = -V_sy,r / V_x,r  (rear hub velocity rotated into the wheel, steer δ_cr)
    F_yf·cos δ + F_yr·cos δ_cr = m·r·V              (lateral)
    a·F_yf·cos δ - b·F_yr·cos δ_cr + M_zf + M_zr = 0 (yaw)
    δ_c = c·M_zf/2                                   (compliance steer, per wheel)
    δ_cr = c_y·F_yr/2                                (rear compliance steer, per wheel)

solved by Newton's method (finite-difference Jacobian). Its understeer
gradient is the slope of ``δ - L·r/V`` over ``a_y = V·r`` (ISO 4138).

Linear theory with the arms corrected for pneumatic trail t (the front force
acts t_f behind the front axle, the rear t_r behind the rear one):

    a' = a - t_f,  b' = b + t_r,  L' = a' + b'
    C_f = 2·C_α(F_zf) / (1 + C_α(F_zf)·c·t_f)   (compliance-corrected)
    C_r = 2·C_α(F_zr) / (1 - C_α(F_zr)·c_y)      (the rear compliance steer's)
    K_us = (m/L')·(b'/C_f - a'/C_r)   [rad per m/s²]

Units: ``*_deg_per_g`` = degrees of road-wheel angle per g (9.80665 m/s²).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skidpad.engine import smath
from skidpad.engine.errors import SteadyStateError
from skidpad.engine.fourwheel import compliance as rear_compliance
from skidpad.engine.fourwheel import load_transfer, steering, tire
from skidpad.engine.fourwheel.definition import validate_definition
from skidpad.engine.fourwheel.steering import DEG

G = load_transfer.G
RAD_TO_DEG_PER_G = G / DEG  # (rad per m/s²) -> (deg per g)


@dataclass(frozen=True)
class Axles:
    """The single-track model's parameters, derived from a definition."""

    m: float
    a: float
    b: float
    fz_f: float
    fz_r: float
    k_f: tuple
    k_r: tuple
    c_alpha_f: float
    c_alpha_r: float
    trail_f: float
    trail_r: float
    compliance: float  # rad per N·m of a front wheel's moment (with a steering system, c + 2/K_r)
    mechanical_trail: float  # m, a steering system's t_m (0.0 without)
    rear_compliance: float = 0.0  # c_y, rad per N of a rear wheel's lateral force (0.0 without)


def axles(definition: dict) -> Axles:
    """Single-track parameters from ``definition`` (static loads on flat ground)."""
    d = validate_definition(definition)
    lt = load_transfer.constants(d)
    s_f, s_r = load_transfer.static_loads(lt, G)
    tf, tr = d["tires"]["front"], d["tires"]["rear"]
    k_f, k_r = tire.axle_constants(d, "front", s_f, G), tire.axle_constants(d, "rear", s_r, G)
    compliance, mechanical_trail = steering.linear_compliance(d["steering"])
    return Axles(
        m=lt["m"],
        a=lt["a"],
        b=lt["b"],
        fz_f=s_f,
        fz_r=s_r,
        k_f=k_f,
        k_r=k_r,
        c_alpha_f=tire.cornering_stiffness(tf, s_f),
        c_alpha_r=tire.cornering_stiffness(tr, s_r),
        trail_f=k_f.trail,  # (the pneumatic trail, an MF 6.1 tire's at small slip)
        trail_r=k_r.trail,
        compliance=compliance,
        mechanical_trail=mechanical_trail,
        rear_compliance=rear_compliance.lateral_compliance(d),
    )


def linear_understeer(definition: dict) -> float:
    """Linear-theory K_us (deg/g) with trail-corrected arms and compliance-corrected C_f."""
    ax = axles(definition)
    a_p = ax.a - ax.trail_f
    b_p = ax.b + ax.trail_r
    l_p = a_p + b_p
    c_f = front_stiffness(ax)
    c_r = rear_stiffness(ax)
    return ax.m / l_p * (b_p / c_f - a_p / c_r) * RAD_TO_DEG_PER_G


def front_stiffness(ax: Axles) -> float:
    """The front axle's cornering stiffness (N/rad) with its compliance steer: each wheel's
    moment ``-(t + t_m)·F_y`` turns it out of the turn by ``c·(t + t_m)·F_y``."""
    arm = ax.trail_f + ax.mechanical_trail
    return 2.0 * ax.c_alpha_f / (1.0 + ax.c_alpha_f * ax.compliance * arm)


def rear_stiffness(ax: Axles) -> float:
    """The rear axle's cornering stiffness (N/rad) with its compliance steer: each wheel
    steers by ``c_y·F_y`` with its force, so the slip grows by that much."""
    return 2.0 * ax.c_alpha_r / (1.0 - ax.c_alpha_r * ax.rear_compliance)


def _residual(ax: Axles, v: float, r: float, vy: float, delta: float) -> tuple[float, float]:
    # Each axle's compliance steer depends on the force it produces: the front's on its
    # moment about the steering axis, the rear's on its lateral force.
    fy_f, mz_f, dc = _compliant_wheel(
        ax.k_f, ax.fz_f, v, vy + ax.a * r, delta,
        lambda fy, mz: ax.compliance * (mz - ax.mechanical_trail * fy),
    )  # fmt: skip
    fy_r, mz_r, dc_r = _compliant_wheel(
        ax.k_r, ax.fz_r, v, vy - ax.b * r, 0.0, lambda fy, mz: ax.rear_compliance * fy
    )
    cd = smath.cos(delta + dc)
    cr = smath.cos(dc_r)
    lat = 2.0 * fy_f * cd + 2.0 * fy_r * cr - ax.m * r * v
    yaw = ax.a * 2.0 * fy_f * cd - ax.b * 2.0 * fy_r * cr + 2.0 * mz_f + 2.0 * mz_r
    return lat, yaw


def _compliant_wheel(
    k: object, fz: float, hvx: float, hvy: float, steer: float, compliance_of: object
) -> tuple[float, float, float]:
    """A wheel's steady (F_y, M_z) and its compliance steer δ_c (rad), where
    ``δ_c = compliance_of(F_y, M_z)`` depends on the force it produces: the fixed point, with
    the hub's velocity (``hvx``, ``hvy``) rotated into the wheel at ``steer + δ_c``."""
    dc = 0.0
    for _ in range(30):
        d = steer + dc
        c, s = smath.cos(d), smath.sin(d)
        v_x = hvx * c + hvy * s
        v_sy = -hvx * s + hvy * c
        fy, mz = tire.steady_lateral(k, fz, 1.0, -v_sy / v_x)
        new_dc = compliance_of(fy, mz)
        if abs(new_dc - dc) <= 1e-15:
            dc = new_dc
            break
        dc = new_dc
    return fy, mz, dc


def steady_state(
    definition_or_axles: dict | Axles, speed: float, radius: float
) -> tuple[float, float]:
    """(δ road-wheel angle rad, v_y m/s) of steady turning at ``speed`` on ``radius``.

    Damped Newton from the linear-theory point: a full step is halved until the
    residual shrinks, so a tire's saturated (flat) region is never jumped into.
    Raises :class:`SteadyStateError` when no steady turn exists (the axles cannot
    supply the centripetal force, or the Jacobian is singular there).
    """
    ax = (
        definition_or_axles
        if isinstance(definition_or_axles, Axles)
        else axles(definition_or_axles)
    )
    r = speed / radius
    vy, delta = _linear_guess(ax, speed, r)
    f0, g0 = _residual(ax, speed, r, vy, delta)
    for _ in range(_NEWTON_ITERATIONS):
        dvy, dd = _newton_step(ax, speed, r, vy, delta, f0, g0)
        if dvy is None:
            break
        norm0 = f0 * f0 + g0 * g0
        for _half in range(_MAX_HALVINGS):
            f1, g1 = _residual(ax, speed, r, vy - dvy, delta - dd)
            if f1 * f1 + g1 * g1 < norm0 or (abs(dvy) < 1e-13 and abs(dd) < 1e-15):
                break
            dvy *= 0.5
            dd *= 0.5
        else:
            break
        vy -= dvy
        delta -= dd
        f0, g0 = f1, g1
        if abs(dvy) < 1e-13 and abs(dd) < 1e-15:
            return delta, vy
    raise SteadyStateError(
        f"no steady turn at {speed:g} m/s on a {radius:g} m radius "
        f"(a_y {speed * r:.3g} m/s^2): the single-track solve found no equilibrium; "
        "the tires saturate or the car is past its critical speed"
    )


_NEWTON_ITERATIONS = 50
_MAX_HALVINGS = 40


def _linear_guess(ax: Axles, v: float, r: float) -> tuple[float, float]:
    """(v_y, δ) of linear theory: each axle's force share over its cornering stiffness."""
    wb = ax.a + ax.b
    m_ay = ax.m * v * r
    alpha_f = m_ay * ax.b / wb / (2.0 * ax.c_alpha_f)
    alpha_r = m_ay * ax.a / wb / (2.0 * ax.c_alpha_r)
    vy = ax.b * r - alpha_r * v
    delta = wb * r / v + alpha_f - alpha_r
    return vy, delta


def _newton_step(
    ax: Axles, v: float, r: float, vy: float, delta: float, f0: float, g0: float
) -> tuple[float | None, float]:
    """The full Newton step (Δv_y, Δδ) with a forward-difference Jacobian; None if singular."""
    e = 1e-7
    f1, g1 = _residual(ax, v, r, vy + e, delta)
    f2, g2 = _residual(ax, v, r, vy, delta + e)
    j11, j21 = (f1 - f0) / e, (g1 - g0) / e
    j12, j22 = (f2 - f0) / e, (g2 - g0) / e
    det = j11 * j22 - j12 * j21
    if det == 0.0 or det != det:
        return None, 0.0
    return (f0 * j22 - g0 * j12) / det, (j11 * g0 - j21 * f0) / det


def fit_understeer(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope (deg/g) of (a_y m/s², δ - L·r/V rad) points."""
    n = float(len(points))
    mx = 0.0
    my = 0.0
    for x, y in points:
        mx += x
        my += y
    mx /= n
    my /= n
    sxx = 0.0
    sxy = 0.0
    for x, y in points:
        sxx += (x - mx) * (x - mx)
        sxy += (x - mx) * (y - my)
    return sxy / sxx * RAD_TO_DEG_PER_G


def understeer(
    definition: dict, radius: float = 40.0, speeds: Sequence[float] = (4.0, 6.0, 8.0, 10.0, 12.0)
) -> tuple[float, list]:
    """Single-track K_us (deg/g) on ``radius`` over ``speeds``, and its (a_y, δ - L/R, δ) points."""
    ax = axles(definition)
    wb = ax.a + ax.b
    pts = []
    for v in speeds:
        delta, _vy = steady_state(ax, v, radius)
        pts.append((v * v / radius, delta - wb / radius, delta))
    return fit_understeer([(p[0], p[1]) for p in pts]), pts
