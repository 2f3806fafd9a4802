"""PROVISIONAL drive: a documented per-axle throttle -> wheel-torque map.

This stands in for the drivetrain (engine, clutch, gearbox, differentials)
until the drivetrain issue replaces this module. Its interface is the seam
that issue keeps: a per-wheel drive torque into the wheel solve
(:mod:`engine.wheel`), and the wheel speeds coming back.

State: ``drive.throttle`` (1), the throttle the "power unit" delivers,
following the pedal with a first-order lag of time constant τ
(``drive.response_time_s``), integrated implicitly:

    θ' = θ + (pedal - θ)·h/(τ + h)

Map (an ideal single-speed power unit with an open differential per axle):

    T_axle = θ' · share_axle · min(T_max, P_max/max(ω̄_axle, ω_min))
    T_wheel = T_axle / 2

T_max is the total wheel torque at full throttle (N·m), P_max the power
(W), ω̄_axle the mean spin of the axle's wheels, share the front share of
torque (``drive.front_share``; the rear gets 1 - share). There is no engine
braking and no reverse; the drivetrain issue adds both.
"""

from __future__ import annotations

from engine.state import Field

FIELDS = (Field("drive.throttle", "f", "1", "delivered throttle (provisional drive map, lagged)"),)

OMEGA_MIN = 5.0  # rad/s: below it the power limit is not applied (finite torque at launch)


def constants(d: dict) -> tuple[float, float, float, float]:
    """(front share, T_max N·m, P_max W, τ s)."""
    return (d["front_share"], d["max_wheel_torque_nm"], d["max_power_w"], d["response_time_s"])


def update_throttle(k: tuple, theta: float, pedal: float, h: float) -> float:
    """The lagged delivered throttle after one substep of length ``h``."""
    return theta + (pedal - theta) * h / (k[3] + h)


def wheel_torques(
    k: tuple, theta: float, w_fl: float, w_fr: float, w_rl: float, w_rr: float
) -> tuple[float, float, float, float]:
    """Drive torque (N·m) of FL, FR, RL, RR for delivered throttle ``theta`` and wheel spins."""
    if theta <= 0.0:
        return (0.0, 0.0, 0.0, 0.0)
    share, t_max, p_max = k[0], k[1], k[2]
    wf = max(0.5 * (w_fl + w_fr), OMEGA_MIN)
    wr = max(0.5 * (w_rl + w_rr), OMEGA_MIN)
    tf = 0.5 * theta * share * min(t_max, p_max / wf)
    tr = 0.5 * theta * (1.0 - share) * min(t_max, p_max / wr)
    return (tf, tf, tr, tr)
