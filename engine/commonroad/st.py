"""ST: dynamic single-track model, reference point the CoG (7 states).

States: x, y [m], delta [rad], v [m/s] speed at the CoG, psi [rad] yaw,
psi' [rad/s] yaw rate, beta [rad] slip angle at the CoG. Inputs: steering
rate and acceleration (constrained). Linear tires with friction mu = p_dy1
and cornering stiffness C_S = -p_ky1 / p_dy1 on both axles; load transfer
through the CoG height h_s; g = 9.81 m/s^2; l = lf + lr::

    x' = v cos(beta + psi),  y' = v sin(beta + psi),  delta' = u0,  v' = u1,  psi' = psi'
    psi'' = -mu m / (v I l) (lf^2 C_Sf (g lr - u1 h) + lr^2 C_Sr (g lf + u1 h)) psi'
            + mu m / (I l) (lr C_Sr (g lf + u1 h) - lf C_Sf (g lr - u1 h)) beta
            + mu m / (I l) lf C_Sf (g lr - u1 h) delta
    beta' = (mu / (v^2 l) (C_Sr (g lf + u1 h) lr - C_Sf (g lr - u1 h) lf) - 1) psi'
            - mu / (v l) (C_Sr (g lf + u1 h) + C_Sf (g lr - u1 h)) beta
            + mu / (v l) C_Sf (g lr - u1 h) delta

For |v| < 0.1 m/s the equations (which divide by v) are replaced by the
kinematic model about the CoG and its yaw/slip rates (``ks_cog``).
"""

from __future__ import annotations

from collections.abc import Sequence

from skidpad.engine import smath

from . import ks_cog
from .constraints import acceleration_constraints, steering_constraints
from .params import VehicleParams

STATE_NAMES = ("x", "y", "delta", "v", "psi", "yaw_rate", "beta")
G = 9.81
LOW_SPEED = 0.1


def derivatives(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Right-hand side of the ST equations."""
    u0 = steering_constraints(x[2], u[0], p.steering)
    u1 = acceleration_constraints(x[3], u[1], p.longitudinal)
    v = x[3]
    if abs(v) < LOW_SPEED:
        f = ks_cog.derivatives_constrained(x, (u0, u1), p)
        dd_psi, d_beta = ks_cog.low_speed_rates(x[2], v, x[6], u0, u1, p)
        f.append(dd_psi)
        f.append(d_beta)
        return f
    g = G
    tp = p.tire
    mu = tp.p_dy1
    C_Sf = -tp.p_ky1 / tp.p_dy1
    C_Sr = -tp.p_ky1 / tp.p_dy1
    lf = p.a
    lr = p.b
    h = p.h_s
    m = p.m
    I = p.I_z
    load_f = g * lr - u1 * h
    load_r = g * lf + u1 * h
    r = x[5]
    beta = x[6]
    dd_psi = (
        -mu * m / (v * I * (lr + lf)) * (lf * lf * C_Sf * load_f + lr * lr * C_Sr * load_r) * r
        + mu * m / (I * (lr + lf)) * (lr * C_Sr * load_r - lf * C_Sf * load_f) * beta
        + mu * m / (I * (lr + lf)) * lf * C_Sf * load_f * x[2]
    )
    d_beta = (
        (mu / (v * v * (lr + lf)) * (C_Sr * load_r * lr - C_Sf * load_f * lf) - 1.0) * r
        - mu / (v * (lr + lf)) * (C_Sr * load_r + C_Sf * load_f) * beta
        + mu / (v * (lr + lf)) * (C_Sf * load_f) * x[2]
    )
    return [
        v * smath.cos(beta + x[4]),
        v * smath.sin(beta + x[4]),
        u0,
        u1,
        r,
        dd_psi,
        d_beta,
    ]
