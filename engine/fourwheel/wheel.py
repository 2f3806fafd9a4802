"""Wheel spin with the brake as a bounded constraint, solved each substep.

State per wheel: ``wheel.<W>.omega`` (rad/s, positive rolling forward).

Equation of the wheel (inertia I, loaded radius R, substep h):

    I·(ω' - ω)/h = T_d - R·F_x' - T_b

where T_d is the drive torque (from :mod:`engine.fourwheel.drive`, later the
drivetrain) and F_x' the tire's longitudinal force at the end of the substep.
The tire force is linear in ω' inside one substep (:mod:`engine.fourwheel.tire`: the
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
full capacity (:mod:`engine.fourwheel.constraint`). The clutch and a limited-slip
differential are the same bounded constraint (:mod:`engine.fourwheel.differential`).
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.fourwheel import differential, tire
from skidpad.engine.fourwheel.tire import WheelConstants
from skidpad.engine.state import Field

WHEELS = ("FL", "FR", "RL", "RR")

FIELDS = tuple(
    Field(f"wheel.{w}.omega", "f", "rad/s", "wheel spin, positive rolling forward") for w in WHEELS
)


def constants(
    x: float, y: float, k: tire.TireConstants, inertia: float, h: float
) -> WheelConstants:
    """The constants of a wheel at (x, y) with tire ``k`` and ``inertia``, for substep ``h``."""
    return WheelConstants(
        x,
        y,
        k,
        k.radius,
        inertia,
        inertia / h,
        h / k.sigma_x,
        h / k.sigma_y,
        1.0 / k.sigma_x,
        k.rolling_resistance * k.radius,
    )


class WheelSolution(NamedTuple):
    """The ``wheel_solve`` stage: per wheel (FL, FR, RL, RR) and the power unit after it."""

    omega: tuple  # new spins (rad/s)
    ux: tuple  # new deflections (m)
    uy: tuple
    fx: tuple  # tire forces over the substep, wheel frame (N, N·m)
    fy: tuple
    mz: tuple
    brake_torque: tuple  # the bounded constraint's torque (N·m)
    held: tuple  # the constraint held the wheel exactly still
    drive_torque: tuple  # (N·m)
    engine_omega: float  # the power unit's new speed (rad/s)
    clutch_torque: float  # (N·m)
    clutch_locked: bool


def solve(
    wheels: tuple,
    diff_k: differential.DiffConstants,
    tf: tire.TireForces,
    omega: tuple,
    g: float,
    eta: float,
    w_e: float,
    t_e: float,
    j_e: float,
    clutch_cap: float,
    motor: bool,
    h: float,
    inv_h: float,
    pinned: tuple = (),
) -> WheelSolution:
    """The ``wheel_solve`` stage: the coupled driveline solve, then each patch's deflection.

    ``omega`` are the spins at the start of the substep. ``pinned`` holds
    ``(wheel, ω)`` pairs for wheels whose spin an external host owns
    (:mod:`engine.fourwheel.host`): they keep that spin, and their patches deflect with it.

    A patch that slides while its low-speed damper acts (its deflection would pass
    the sliding cap, or the damped force the friction ellipse) is undamped, and all
    wheels are solved again (a sliding patch does not deflect further, so the damper
    sees no rate; and no tire force exceeds what friction allows).
    """
    terms = list(tf.terms)
    rhs = list(tf.rhs)
    diag = list(tf.diag)
    cap = tf.capacity
    sol = differential.solve(diff_k, rhs, diag, cap, g, eta, w_e, t_e, j_e, clutch_cap, h)
    for i, w in pinned:
        sol[0][i] = w
    patches = _deflect_all(wheels, terms, sol[0], tf.v_x, h, inv_h)
    # A solve again moves every wheel's spin, so a patch still damped may slide in it:
    # each pass undamps at least one more patch, so four passes end it.
    for _pass in range(4):
        redo = False
        for i in range(4):
            t = terms[i]
            if t is not None and slid_damped(t, patches[i].slid):
                t = tire.sliding(t)
                terms[i] = t
                rhs[i], diag[i] = undamped_row(wheels[i], t, omega[i])
                redo = True
        if not redo:
            break
        sol = differential.solve(diff_k, rhs, diag, cap, g, eta, w_e, t_e, j_e, clutch_cap, h)
        for i, w in pinned:
            sol[0][i] = w
        patches = _deflect_all(wheels, terms, sol[0], tf.v_x, h, inv_h)
    omega, t_b, held, t_d, w_e_n, t_c, c_locked, _w_out = sol
    w_e_n = forwards_only(motor, w_e_n)
    return WheelSolution(
        tuple(omega),
        tuple(p.ux for p in patches),
        tuple(p.uy for p in patches),
        tuple(p.fx for p in patches),
        tuple(p.fy for p in patches),
        tuple(p.mz for p in patches),
        tuple(t_b),
        tuple(held),
        tuple(t_d),
        w_e_n,
        t_c,
        c_locked,
    )


def slid_damped(t: tire.PatchTerms, slid: bool) -> bool:
    """The patch slid while its low-speed damper acted: it is to be undamped
    (:func:`engine.fourwheel.tire.sliding`) and every wheel solved again."""
    return slid and (t.damper_x != 0.0 or t.damper_y != 0.0)


def undamped_row(w: WheelConstants, t: tire.PatchTerms, omega: float) -> tuple[float, float]:
    """The wheel's row of the solve, ``(rhs, diag)``, for a patch without damper (``Q = 0``);
    ``omega`` is the spin at the start of the substep."""
    return w.a * omega - w.radius * t.p, w.a


def forwards_only(motor: bool, w_e: float) -> float:
    """The power unit's speed after the solve: an engine does not turn backwards (a motor
    may)."""
    if not motor and w_e < 0.0:
        w_e = 0.0
    return w_e


_AIRBORNE = tire.PatchUpdate(0.0, 0.0, 0.0, 0.0, 0.0, False)


def _deflect_all(
    wheels: tuple, terms: list, omega: list, v_x: tuple, h: float, inv_h: float
) -> tuple:
    return tuple(
        _AIRBORNE
        if terms[i] is None
        else tire.deflect(wheels[i], terms[i], omega[i], v_x[i], h, inv_h)
        for i in range(4)
    )
