"""The stages of a four-wheel substep: one function per stage over named records, and the
one list that orders them (:data:`STAGES`).

Each stage is a function ``(sim, s, out) -> values``: ``sim`` holds the constants (the
simulation's, built once, and the host step's inputs, ``sim.host``), ``s`` is the state at the
substep's start (:class:`~engine.fourwheel.vehicle_layout.SubstepStart`), ``out`` what earlier
stages produced (:class:`Produced`, which the stage adds to). It calls its subsystem's module
and returns the values the probe sees under its name. :data:`NEW_STATE` says where the state's
new values are once the stages have run.

Both paths run these functions (ADR 0130): the simulation's readable substep calls them in
order (:meth:`engine.fourwheel.simulation.Simulation._substep`), and the fast path
(:mod:`engine.fourwheel.fastpath`) specialises them to one definition. The order of the stages
and what each does is the simulation's module docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import NamedTuple

from skidpad.engine.fourwheel import (
    assists,
    body,
    compliance,
    drive,
    kinematics,
    load_transfer,
    steering,
    suspension,
    tire,
    wheel,
)
from skidpad.engine.fourwheel import host as external
from skidpad.engine.fourwheel.telemetry import Derived
from skidpad.engine.fourwheel.vehicle_layout import SubstepStart, write_start


class Stage(NamedTuple):
    """One stage of the substep: the name the probe reports it by, and its function
    ``function(sim, s, out) -> values`` (the module docstring); ``values`` are reported."""

    name: str
    function: Callable


class Produced:
    """What the stages of one substep produce, by name, each set by the stage that owns it."""

    __slots__ = (
        "ground", "kin", "geo", "frames", "loads", "tf", "act", "dt", "ws", "dc", "bd", "sus",
    )  # fmt: skip

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, None)


def _ground(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Each wheel's friction factor and the rolling resistance its surface adds
    (:mod:`engine.fourwheel.ground`)."""
    g = sim.ground
    out.ground = sim.flat_ground if g is None else g.factors(s.x, s.y, s.heading_c, s.heading_s)
    return out.ground


def _kinematics(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Each wheel's inclination and kinematic steer from the roll and pitch at the substep's
    start (:mod:`engine.fourwheel.kinematics`; upright and straight where an axle has none)."""
    kin = out.kin = kinematics.attitude(sim.kinematics_k, s.roll, s.pitch)
    return kin.lean + kin.turn


def _steering(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Road-wheel angles: the host step's geometry (the steering assist may cap it) rotated
    by the compliance steer and, with kinematics, by each wheel's kinematic steer; the rear
    wheels turn only with kinematics or a rear compliance steer (``sim.rear_wheels_turn``;
    :mod:`engine.fourwheel.steering`)."""
    out.geo = sim.steering_assist(s.vx, s.vy)
    angles, dc = out.geo.angles, s.compliance
    if not sim.rear_wheels_turn:
        f = out.frames = steering.wheel_frames(angles, dc[0], dc[1])
    else:
        f = out.frames = steering.turned_frames(angles, dc, out.kin.turn)
    return f.angle + f.cos + f.sin  # the frames later stages read, reported


def _load_transfer(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Wheel loads (:mod:`engine.fourwheel.load_transfer`, :mod:`engine.fourwheel.aero`)."""
    out.loads = load_transfer.loads(
        sim.load_k, sim.aero_k, sim.static_loads[0], sim.static_loads[2], s.vx, s.ax, s.ay,
        _suspension_at_start(s), out.geo.jack,
    )  # fmt: skip
    return out.loads.fz


def _tire_forces(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Hub velocities and patch springs (:mod:`engine.fourwheel.tire`); a host's wheels
    memoryless."""
    f, g = out.frames, out.ground
    friction, rolling = g[:4], g[4:]
    tf = tire.forces(
        sim.wheels, f.cos, f.sin, s.vx, s.vy, s.yaw_rate, s.omega, s.ux, s.uy, out.loads.fz,
        friction, rolling, sim.host.capacities, sim.h, out.kin.lean,
    )  # fmt: skip
    link = sim.host_link
    if link is not None:
        tf = external.memoryless(
            link, sim.wheels, tf, s.omega, out.loads.fz, friction, sim.h, out.kin.lean
        )
    out.tf = tf
    return tf.spring


def _assists(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Stability control, ABS, traction control (:mod:`engine.fourwheel.assists`, stateless)."""
    host = sim.host
    act = assists.apply(
        sim.assist_k, host.abs_on, host.tc_on, host.esc_on, s.vx, s.vy, s.yaw_rate,
        out.geo.tan_delta_over_l, sim.radii, s.omega, out.tf.v_x, sim.driven, out.tf.capacity,
    )  # fmt: skip
    out.act = act
    extra = (act.tc_scale, act.esc_yaw_error, act.esc_torque, act.esc_throttle)
    return act.abs_scale + extra + (sim.steer_assist_scale,)


def _drivetrain(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Gearbox, power unit torque and clutch capacity (:mod:`engine.fourwheel.drive`)."""
    host = sim.host
    dt = drive.drivetrain(
        sim.drive_k, s.gear, s.shift_ticks, s.shift_up, s.last_request, host.gear_request,
        s.omega, host.pedal, host.braking, out.act.tc_scale, out.act.esc_throttle, s.throttle,
        s.engine_omega, sim.h,
    )  # fmt: skip
    out.dt = dt
    return (dt.engine_torque, dt.ratio, float(dt.gear), dt.clutch_capacity, dt.throttle)


def _wheel_solve(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """The coupled solve of power unit, clutch, differentials and wheels, then the patch
    deflections (:mod:`engine.fourwheel.wheel`, :mod:`engine.fourwheel.differential`)."""
    dt, link = out.dt, sim.host_link
    tf = out.tf._replace(capacity=out.act.capacity)
    if link is None:
        ws = wheel.solve(
            sim.wheels, sim.drive_k.layout, tf, s.omega, dt.ratio, dt.efficiency, s.engine_omega,
            dt.engine_torque, sim.engine_inertia, dt.clutch_capacity, sim.drive_k.motor, sim.h,
            sim.inv_h,
        )  # fmt: skip
    else:  # the engine's driveline drives only the wheels it still owns
        ws = wheel.solve(
            sim.wheels, link.layout, tf, s.omega, dt.ratio, dt.efficiency, s.engine_omega,
            dt.engine_torque, sim.engine_inertia,
            dt.clutch_capacity if link.engine_drives else 0.0, sim.drive_k.motor, sim.h,
            sim.inv_h, external.pinned(link, s.omega),
        )  # fmt: skip
        external.accumulate(
            link, sim.wheels, ws.fx, out.loads.fz, out.act.capacity, out.ground[4:], sim.h
        )
    out.ws = ws
    held = tuple(1.0 if x else 0.0 for x in ws.held)
    return ws.omega + ws.fx + ws.fy + held + (ws.engine_omega, ws.clutch_torque)


def _steering_compliance(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """The compliance steer of the front wheels under their aligning torques, or, with a
    steering system, under their moments about the steering axes, on their linkages and,
    summed, on the rack (:mod:`engine.fourwheel.steering`); of the rear wheels under their
    forces, where the rear suspension has a compliance steer
    (:mod:`engine.fourwheel.compliance`)."""
    k, ws, dc, h = sim.steer_k, out.ws, s.compliance, sim.h
    mz = ws.mz
    if k.system is None:
        fl = steering.update_compliance(k, dc[0], mz[0], h)
        fr = steering.update_compliance(k, dc[1], mz[1], h)
    else:
        left = steering.kingpin_moment(k.system, 1.0, mz[0], ws.fy[0], ws.fx[0])
        right = steering.kingpin_moment(k.system, -1.0, mz[1], ws.fy[1], ws.fx[1])
        axle = left + right
        fl = steering.update_rack_compliance(k, dc[0], left, axle, h)
        fr = steering.update_rack_compliance(k, dc[1], right, axle, h)
    rk = sim.rear_compliance_k
    if rk is None:
        out.dc = (fl, fr, dc[2], dc[3])
    else:
        rl = compliance.update(rk, dc[2], 1.0, ws.fy[2], ws.fx[2], h)
        rr = compliance.update(rk, dc[3], -1.0, ws.fy[3], ws.fx[3], h)
        out.dc = (fl, fr, rl, rr)
    return out.dc


def _body_integration(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Newton-Euler for the body, semi-implicit Euler (:mod:`engine.fourwheel.body`)."""
    f, ws = out.frames, out.ws
    state = body.BodyState(s.x, s.y, s.yaw, s.heading_c, s.heading_s, s.vx, s.vy, s.yaw_rate)
    patch = body.PatchForces(ws.fx, ws.fy, ws.mz)
    bd = out.bd = body.integrate(sim.body_k, f.cos, f.sin, patch, out.loads.drag, state)
    return (bd.ax, bd.ay, bd.dr)


def _suspension(sim: object, s: SubstepStart, out: Produced) -> tuple:
    """Roll and pitch under the new specific force (:mod:`engine.fourwheel.suspension`)."""
    bd = out.bd
    out.sus = suspension.step(sim.suspension_k, sim.h, bd.ax, bd.ay, _suspension_at_start(s))
    return out.sus


def _suspension_at_start(s: SubstepStart) -> suspension.SuspensionState:
    """The ``suspension.*`` fields of the state at the substep's start, as their record."""
    return suspension.SuspensionState(s.roll, s.roll_rate, s.pitch, s.pitch_rate)


#: The stages of one substep, in order: the readable substep runs each over the named records
#: and reports it to the probe under its name; the fast path specialises them. A stage is
#: added here (one line) and written in its subsystem's module (docs/architecture.md).
STAGES: tuple[Stage, ...] = (
    Stage("ground", _ground),
    Stage("kinematics", _kinematics),
    Stage("steering", _steering),
    Stage("load_transfer", _load_transfer),
    Stage("tire_forces", _tire_forces),
    Stage("assists", _assists),
    Stage("drivetrain", _drivetrain),
    Stage("wheel_solve", _wheel_solve),
    Stage("steering_compliance", _steering_compliance),
    Stage("body_integration", _body_integration),
    Stage("suspension", _suspension),
)


def derived(out: Produced, sa: float) -> Derived:
    loads, ws, act, dt, tf, bd = out.loads, out.ws, out.act, out.dt, out.tf, out.bd
    return Derived(
        fz=loads.fz,
        fx=ws.fx,
        fy=ws.fy,
        mz=ws.mz,
        brake_torque=ws.brake_torque,
        brake_capacity=act.capacity,
        locked=ws.held,
        drive_torque=ws.drive_torque,
        v_x=tf.v_x,
        v_sy=tf.v_sy,
        dvx=bd.dvx,
        dvy=bd.dvy,
        dr=bd.dr,
        engine_torque=dt.engine_torque,
        clutch_torque=ws.clutch_torque,
        clutch_locked=ws.clutch_locked,
        throttle_used=dt.throttle_used,
        abs_scale=act.abs_scale,
        tc_scale=act.tc_scale,
        esc_yaw_error=act.esc_yaw_error,
        esc_torque=act.esc_torque,
        esc_wheel=act.esc_wheel,
        steer_assist_scale=sa,
    )


#: Where each field of the state (:data:`engine.fourwheel.vehicle_layout.START`) finds its value
#: after the substep: the record and field of :class:`Produced` that holds it. A stage that
#: makes a new state field registers it here (docs/architecture.md).
NEW_STATE = {
    "x": "bd.x",
    "y": "bd.y",
    "yaw": "bd.yaw",
    "heading_c": "bd.heading_c",
    "heading_s": "bd.heading_s",
    "vx": "bd.vx",
    "vy": "bd.vy",
    "yaw_rate": "bd.yaw_rate",
    "ax": "bd.ax",
    "ay": "bd.ay",
    "roll": "sus.roll",
    "roll_rate": "sus.roll_rate",
    "pitch": "sus.pitch",
    "pitch_rate": "sus.pitch_rate",
    "compliance": "dc",
    "omega": "ws.omega",
    "ux": "ws.ux",
    "uy": "ws.uy",
    "throttle": "dt.throttle",
    "engine_omega": "ws.engine_omega",
    "gear": "dt.gear",
    "shift_ticks": "dt.shift_ticks",
    "shift_up": "dt.shift_up",
    "last_request": "dt.last_request",
}
if sorted(NEW_STATE) != sorted(SubstepStart._fields):
    raise ImportError(f"NEW_STATE names {sorted(NEW_STATE)}, the state {SubstepStart._fields}")
_NEW_VALUES = attrgetter(*(NEW_STATE[field] for field in SubstepStart._fields))


def write_state(st: list, out: Produced) -> None:
    write_start(st, _NEW_VALUES(out))


__all__ = ["NEW_STATE", "STAGES", "Produced", "Stage", "derived", "write_state"]
