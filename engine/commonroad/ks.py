"""KS: kinematic single-track model, reference point the rear axle (5 states).

States: x, y [m] (rear axle, global frame), delta [rad] steering angle,
v [m/s] speed, psi [rad] yaw. Inputs: steering rate [rad/s] and longitudinal
acceleration [m/s^2], both constrained (``constraints``). With l = a + b::

    x' = v cos(psi),  y' = v sin(psi),  delta' = u0,  v' = u1,  psi' = v tan(delta) / l
"""

from __future__ import annotations

from collections.abc import Sequence

from skidpad.engine import smath

from .constraints import acceleration_constraints, steering_constraints
from .params import VehicleParams

STATE_NAMES = ("x", "y", "delta", "v", "psi")


def derivatives(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Right-hand side of the KS equations."""
    l = p.a + p.b
    u0 = steering_constraints(x[2], u[0], p.steering)
    u1 = acceleration_constraints(x[3], u[1], p.longitudinal)
    return [
        x[3] * smath.cos(x[4]),
        x[3] * smath.sin(x[4]),
        u0,
        u1,
        x[3] / l * smath.tan(x[2]),
    ]
