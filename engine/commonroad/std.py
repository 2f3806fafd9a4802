"""STD: single-track drift model with Pacejka tires (9 states).

States: the seven ST states (x, y, delta, v, psi, yaw_rate, beta) plus the
front and rear wheel spin omega_f, omega_r [rad/s]. Inputs: steering rate
and acceleration (constrained). Reference point: the CoG; lf = a, lr = b.

Tire kinematics (v_min = 0.1 m/s; below it slip angles are zero)::

    alpha_f = atan((v sin(beta) + r lf) / (v cos(beta))) - delta
    alpha_r = atan((v sin(beta) - r lr) / (v cos(beta)))
    u_wf = max(0, v cos(beta) cos(delta) + (v sin(beta) + a r) sin(delta))
    u_wr = max(0, v cos(beta))
    s_f = 1 - R_w omega_f / max(u_wf, v_min),  s_r likewise
    F_zf = m (-u1 h_s + g lr) / l,  F_zr = m (u1 h_s + g lf) / l

Forces: Pacejka pure slip then combined slip (``tire``). Drive/brake torque
m R_w u1 split by T_se / T_sb. Dynamics::

    v' = (-F_yf sin(delta - beta) + F_yr sin(beta) + F_xr cos(beta)
          + F_xf cos(delta - beta)) / m
    psi'' = (F_yf cos(delta) lf - F_yr lr + F_xf sin(delta) lf) / I_z
    beta' = -r + (F_yf cos(delta - beta) + F_yr cos(beta) - F_xr sin(beta)
                  + F_xf sin(delta - beta)) / (m v)
    omega' = (-R_w F_x + share_b T_B + share_e T_E) / I_y_w   (0 while the wheel spin is negative)

The result is blended with the kinematic model about the CoG (wheel spins
relaxing to rolling with a 0.02 s time constant) by
``w = (tanh((v - 0.2) / 0.05) + 1) / 2`` — dynamic weight w, kinematic 1 - w.
Negative wheel spins are treated as zero (the reference clamps its input
state in place; this port never mutates its input).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import isfinite, sqrt

from skidpad.engine import smath
from skidpad.engine.smath.trig import atan_fast, sincos_fast

from .constraints import acceleration_constraints, steering_constraints
from .params import VehicleParams
from .tire_fast import forces_for

STATE_NAMES = ("x", "y", "delta", "v", "psi", "yaw_rate", "beta", "omega_f", "omega_r")
G = 9.81
V_S = 0.2  # blend centre [m/s]
V_B = 0.05  # blend width [m/s]
V_MIN = V_S / 2  # slip-computation floor [m/s]
KS_OMEGA_TAU = 0.02  # kinematic wheel-spin relaxation time [s]


def derivatives(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Right-hand side of the STD equations."""
    return derivatives_ext(x, u, p)[0]


def derivatives_ext(x: Sequence[float], u: Sequence[float], p: VehicleParams):
    """(derivatives, (s_f, s_r, alpha_f, alpha_r, F_xf, F_xr, F_yf, F_yr, F_zf, F_zr))."""
    atan = atan_fast
    g = G
    lf = p.a
    lr = p.b
    m = p.m
    I = p.I_z
    v_min = V_MIN
    tp = p.tire

    u0 = steering_constraints(x[2], u[0], p.steering)
    u1 = acceleration_constraints(x[3], u[1], p.longitudinal)

    delta = x[2]
    v = x[3]
    r = x[5]
    beta = x[6]
    sb, cb = sincos_fast(beta)
    sd, cd = sincos_fast(delta)

    if v > v_min:
        alpha_f = atan((v * sb + r * lf) / (v * cb)) - delta
        alpha_r = atan((v * sb - r * lr) / (v * cb))
    else:
        alpha_f = 0.0
        alpha_r = 0.0

    F_zf = m * (-u1 * p.h_s + g * lr) / (lr + lf)
    F_zr = m * (u1 * p.h_s + g * lf) / (lr + lf)

    u_wf = max(0.0, v * cb * cd + (v * sb + p.a * r) * sd)
    u_wr = max(0.0, v * cb)

    s_f = 1.0 - p.R_w * x[7] / max(u_wf, v_min)
    s_r = 1.0 - p.R_w * x[8] / max(u_wr, v_min)

    # tire.combined_forces specialised to this tire (tire_fast, the same bits)
    combined_forces = forces_for(tp)
    F_xf, F_yf = combined_forces(s_f, alpha_f, 0.0, F_zf)
    F_xr, F_yr = combined_forces(s_r, alpha_r, 0.0, F_zr)

    if u1 > 0.0:
        T_B = 0.0
        T_E = m * p.R_w * u1
    else:
        T_B = m * p.R_w * u1
        T_E = 0.0

    sdb, cdb = sincos_fast(delta - beta)
    d_v = 1.0 / m * (-F_yf * sdb + F_yr * sb + F_xr * cb + F_xf * cdb)
    dd_psi = 1.0 / I * (F_yf * cd * lf - F_yr * lr + F_xf * sd * lf)
    if v > v_min:
        d_beta = -r + 1.0 / (m * v) * (F_yf * cdb + F_yr * cb - F_xr * sb + F_xf * sdb)
    else:
        d_beta = 0.0

    omega_f = x[7]
    omega_r = x[8]
    if omega_f >= 0.0:
        d_omega_f = 1.0 / p.I_y_w * (-p.R_w * F_xf + p.T_sb * T_B + p.T_se * T_E)
    else:
        d_omega_f = 0.0
        omega_f = 0.0
    if omega_r >= 0.0:
        d_omega_r = 1.0 / p.I_y_w * (-p.R_w * F_xr + (1.0 - p.T_sb) * T_B + (1.0 - p.T_se) * T_E)
    else:
        d_omega_r = 0.0
        omega_r = 0.0

    w_std = 0.5 * (smath.tanh((v - V_S) / V_B) + 1.0)
    w_ks = 1.0 - w_std
    l_wb = lf + lr
    d_omega_f_ks = (1.0 / KS_OMEGA_TAU) * (u_wf / p.R_w - omega_f)
    d_omega_r_ks = (1.0 / KS_OMEGA_TAU) * (u_wr / p.R_w - omega_r)
    if w_ks == 0.0 and r != 0.0 and dd_psi != 0.0 and d_beta != 0.0 and isfinite(v):
        # Fully dynamic (v above ~1.15 m/s): w_std * X + 0.0 * Y is X for any finite Y and
        # X != 0, so the kinematic rates (three strict-math calls) are not evaluated.
        ks_yaw_rate = dd_psi_ks = d_beta_ks = 0.0
    else:
        # Kinematic model about the CoG (ks_cog), blended in around V_S; the sines and
        # cosines of delta and beta are the ones above (same arguments, same bits).
        t = smath.tan(delta)
        q = t * lr / l_wb
        ks_yaw_rate = v / sqrt(1.0 + q * q) * t / l_wb  # v cos(atan q) t / l
        q = t * t * lr / l_wb
        d_beta_ks = (lr * u0) / (l_wb * (cd * cd) * (1.0 + q * q))
        dd_psi_ks = 1.0 / l_wb * (u1 * cb * t - v * sb * d_beta_ks * t + v * cb * u0 / (cd * cd))

    sp, cp = sincos_fast(beta + x[4])
    f = [
        v * cp,
        v * sp,
        u0,
        w_std * d_v + w_ks * u1,
        w_std * r + w_ks * ks_yaw_rate,
        w_std * dd_psi + w_ks * dd_psi_ks,
        w_std * d_beta + w_ks * d_beta_ks,
        w_std * d_omega_f + w_ks * d_omega_f_ks,
        w_std * d_omega_r + w_ks * d_omega_r_ks,
    ]
    return f, (s_f, s_r, alpha_f, alpha_r, F_xf, F_xr, F_yf, F_yr, F_zf, F_zr)
