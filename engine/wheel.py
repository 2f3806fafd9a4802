"""Wheel spin with the brake as a bounded constraint, solved each substep.

State per wheel: ``wheel.<W>.omega`` (rad/s, positive rolling forward).

Equation of the wheel (inertia I, loaded radius R, substep h):

    I·(ω' - ω)/h = T_d - R·F_x' - T_b

where T_d is the drive torque (from :mod:`engine.drive`, later the
drivetrain) and F_x' the tire's longitudinal force at the end of the substep.
The tire force is linear in ω' inside one substep (:mod:`engine.tire`: the
spring part from the deflection at the start, the low-speed damper on the
implicit deflection rate), ``F_x' = P + Q·ω'``, so

    (I/h + R·Q)·ω' = I·ω/h + T_free - T_b,      T_free = T_d - R·P.

The resisting torque T_b (service brake + handbrake + rolling resistance,
all friction about the axle) is not applied and then corrected: it is the
torque of a **bounded constraint** (a friction joint with a maximum impulse,
as in Box2D's friction and motor joints). We solve for the torque that would
bring ω' to the target (0 for a brake) given all the other torques,

    T_req = I·ω/h + T_free - (I/h + R·Q)·ω_target,

and if ``|T_req| <= capacity`` the constraint holds: ω' = ω_target exactly
(the wheel is locked: no overshoot, no chatter between rolling and locked).
Otherwise ``T_b = ±capacity`` (sign of T_req) and the wheel slips with the
full capacity. The same solve with a non-zero target and another capacity is
the slipping clutch or a locked differential of the drivetrain issue; a
coupled pair there solves the same bound on the relative speed.
"""

from __future__ import annotations

from engine.state import Field

WHEELS = ("FL", "FR", "RL", "RR")

FIELDS = tuple(
    Field(f"wheel.{w}.omega", "f", "rad/s", "wheel spin, positive rolling forward") for w in WHEELS
)


def bounded_solve(
    a: float, omega: float, t_free: float, diag: float, capacity: float, target: float = 0.0
) -> tuple[float, float, bool]:
    """Solve ``diag·ω' = a·ω + t_free - T_b`` with ``|T_b| <= capacity`` aiming at ``target``.

    ``a`` = I/h, ``diag`` = I/h + R·Q. Returns ``(ω', T_b, held)``: ``held`` is
    True when the constraint is inside its bound (ω' is exactly ``target``).
    """
    rhs = a * omega + t_free
    t_req = rhs - diag * target
    if -capacity <= t_req <= capacity:
        return target, t_req, True
    t_b = capacity if t_req > 0.0 else -capacity
    return (rhs - t_b) / diag, t_b, False
