"""Input constraints shared by every CommonRoad model.

Steering (angle ``delta`` [rad], commanded rate ``v_delta`` [rad/s]): at an
angle limit a rate pushing further is zeroed; otherwise the rate is clipped to
``[v_min, v_max]``.

Acceleration (speed ``v`` [m/s], commanded ``a`` [m/s^2]): above the switching
speed the positive limit falls as ``a_max * v_switch / v`` (constant power);
at a speed limit an acceleration pushing further is zeroed; otherwise ``a`` is
clipped to ``[-a_max, positive limit]``.

Both are idempotent: applying them twice gives the first result, which is why
the kinematic helper can take inputs that were already constrained.
"""

from __future__ import annotations

from .params import LongitudinalParams, SteeringParams


def steering_constraints(delta: float, v_delta: float, p: SteeringParams) -> float:
    """The admissible steering rate [rad/s] at steering angle ``delta``."""
    if (delta <= p.min and v_delta <= 0.0) or (delta >= p.max and v_delta >= 0.0):
        return 0.0
    if v_delta <= p.v_min:
        return p.v_min
    if v_delta >= p.v_max:
        return p.v_max
    return v_delta


def acceleration_constraints(v: float, a: float, p: LongitudinalParams) -> float:
    """The admissible longitudinal acceleration [m/s^2] at speed ``v``."""
    if v > p.v_switch:
        pos_limit = p.a_max * p.v_switch / v
    else:
        pos_limit = p.a_max
    if (v <= p.v_min and a <= 0.0) or (v >= p.v_max and a >= 0.0):
        return 0.0
    if a <= -p.a_max:
        return -p.a_max
    if a >= pos_limit:
        return pos_limit
    return a
