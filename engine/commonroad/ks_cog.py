"""Kinematic single-track model about the centre of gravity (internal helper).

Not a selectable model: ST, STD and MB fall back to it at low speed, where
their tire equations divide by the speed. States (first five of every
single-track state vector): x, y [m], steering angle delta [rad], speed at
the CoG v [m/s], yaw psi [rad]. Inputs: constrained steering rate [rad/s] and
acceleration [m/s^2]. With wheelbase l = a + b::

    beta = atan(tan(delta) b / l)
    x' = v cos(beta + psi),  y' = v sin(beta + psi),  delta' = u0,  v' = u1
    psi' = v cos(beta) tan(delta) / l

``low_speed_rates`` gives the yaw-acceleration and slip-rate of the same
kinematic motion, which the dynamic models use below their switch speed::

    beta' = b u0 / (l cos^2(delta) (1 + (tan^2(delta) b / l)^2))
    psi'' = (u1 cos(beta) tan(delta) - v sin(beta) beta' tan(delta)
             + v cos(beta) u0 / cos^2(delta)) / l

(``beta`` there is the model's slip-angle state, as in the reference.)
"""

from __future__ import annotations

from collections.abc import Sequence

from skidpad.engine import smath

from .params import VehicleParams


def derivatives_constrained(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """The five kinematic derivatives for inputs that are already constrained."""
    tan = smath.tan
    l_wb = p.a + p.b
    t = tan(x[2])
    beta = smath.atan(t * p.b / l_wb)
    v = x[3]
    return [
        v * smath.cos(beta + x[4]),
        v * smath.sin(beta + x[4]),
        u[0],
        u[1],
        v * smath.cos(beta) * t / l_wb,
    ]


def low_speed_rates(
    delta: float, v: float, beta: float, u0: float, u1: float, p: VehicleParams
) -> tuple[float, float]:
    """(yaw acceleration [rad/s^2], slip-angle rate [rad/s]) of kinematic motion."""
    lwb = p.a + p.b
    c = smath.cos(delta)
    t = smath.tan(delta)
    q = t * t * p.b / lwb
    d_beta = (p.b * u0) / (lwb * (c * c) * (1.0 + q * q))
    cb = smath.cos(beta)
    dd_psi = 1.0 / lwb * (u1 * cb * t - v * smath.sin(beta) * d_beta * t + v * cb * u0 / (c * c))
    return dd_psi, d_beta
