"""Read-only telemetry after a host step (derived quantities; not part of the hashed state).

Pose and motion: ``x``, ``y`` (m), ``yaw`` (rad), ``vx``, ``vy`` (m/s, body
frame), ``speed`` (m/s), ``yaw_rate`` (rad/s); ``ax``, ``ay`` the body-frame
acceleration (m/s², d(v)/dt + ω×v, gravity included) and ``accel_x``,
``accel_y`` what an accelerometer reads (gravity excluded); ``roll``, ``pitch``
(rad, positive right side down / nose down).

Per wheel, tuples in the order FL, FR, RL, RR: ``fz`` load, ``fx``/``fy``
tire force in the wheel frame, ``mz`` aligning torque (N, N·m), ``omega``
spin (rad/s), ``wheel_angle`` road-wheel angle (rad, toe, compliance and kinematic steer
included), ``slip_ratio`` κ = (R·ω - V_x)/max(|V_x|, 0.5 m/s) and
``slip_angle`` α = -atan(V_sy/max(|V_x|, 0.5 m/s)) (rad; kinematic slips,
regularised below 0.5 m/s — the tire itself works from its deflection),
``brake_torque`` the torque the bounded constraint applied (N·m, brake +
rolling resistance), ``brake_capacity`` its bound, ``locked`` True when the
constraint held the wheel exactly still, ``drive_torque`` (N·m),
``deflection_x``/``deflection_y`` (m).

Drivetrain: ``engine_omega`` (rad/s) and ``engine_rpm`` of the power unit,
``engine_torque`` its crank torque (N·m, negative = engine braking or
regeneration), ``gear`` (-1 reverse, 0 neutral, 1..n), ``shifting`` (a
shift is running), ``upshift_interruption`` (an upshift's torque
interruption is running), ``clutch_torque`` (N·m, engine side) and
``clutch_locked``, ``throttle_effective`` (the throttle the power unit burns
after traction control, stability control, the shift lift, the idle
governor and the rev limiter).

Assists (seed 003's channels): ``abs_activity`` per wheel (1 - the ABS
factor on its brake capacity; 0 when idle), ``tc_activity`` (1 - the
traction-control throttle factor), ``esc_yaw_error`` (rad/s, yaw rate minus
the reference), ``esc_brake_torque`` (N·m) and ``esc_wheel`` (index 0..3 of
the wheel it brakes, -1 for none), ``steer_assist_scale`` (the steering
assist's factor on the steer input, 1 when it does not act).

Kinematics (:mod:`engine.fourwheel.kinematics`), per wheel: ``camber`` against the road
(rad, SAE: positive with the top leaning away from the car; 0 on an axle without
kinematics) and ``travel_outside`` (True while the wheel's travel lies past the ends of
its camber-gain table, whose end value then holds).
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, fields
from math import sqrt
from typing import NamedTuple

from skidpad.engine import smath
from skidpad.engine.fourwheel import kinematics
from skidpad.engine.fourwheel.vehicle_layout import (
    I_AX,
    I_AY,
    I_DC,
    I_ENGINE,
    I_GEAR,
    I_OMEGA,
    I_PITCH,
    I_R,
    I_ROLL,
    I_SHIFT,
    I_SHIFT_UP,
    I_THROTTLE,
    I_UX,
    I_UY,
    I_VX,
    I_VY,
    I_X,
    I_Y,
    I_YAW,
)

V_REG = 0.5  # m/s, regularisation speed of the reported kinematic slips
RPM_PER_RADPS = 9.549296585513721  # 60/(2π)


@dataclass(frozen=True, slots=True)
class Telemetry:
    step: int
    tick: int
    time_s: float
    x: float
    y: float
    yaw: float
    vx: float
    vy: float
    speed: float
    yaw_rate: float
    ax: float
    ay: float
    accel_x: float
    accel_y: float
    yaw_accel: float
    roll: float
    pitch: float
    steer_angle: float
    throttle: float
    fz: tuple
    fx: tuple
    fy: tuple
    mz: tuple
    omega: tuple
    wheel_angle: tuple
    slip_ratio: tuple
    slip_angle: tuple
    brake_torque: tuple
    brake_capacity: tuple
    locked: tuple
    drive_torque: tuple
    deflection_x: tuple
    deflection_y: tuple
    engine_omega: float
    engine_rpm: float
    engine_torque: float
    gear: int
    shifting: bool
    upshift_interruption: bool
    clutch_torque: float
    clutch_locked: bool
    throttle_effective: float
    abs_activity: tuple
    tc_activity: float
    esc_yaw_error: float
    esc_brake_torque: float
    esc_wheel: int
    steer_assist_scale: float
    camber: tuple = (0.0, 0.0, 0.0, 0.0)
    travel_outside: tuple = (False, False, False, False)

    def as_dict(self) -> dict:
        """Telemetry as a plain dict (tuples become lists)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


class Derived(NamedTuple):
    """What the last substep computed that the state does not hold: the telemetry's source.

    Per-wheel fields are tuples in the order FL, FR, RL, RR. Both substep paths
    build it; :meth:`flat` is its fixed layout in a snapshot.
    """

    fz: tuple  # wheel loads (N)
    fx: tuple  # tire forces in the wheel frame (N) and aligning torques (N·m)
    fy: tuple
    mz: tuple
    brake_torque: tuple  # the bounded constraint's torque (N·m)
    brake_capacity: tuple  # its bound (N·m)
    locked: tuple  # the constraint held the wheel exactly still
    drive_torque: tuple  # (N·m)
    v_x: tuple  # hub velocity in the wheel frame (m/s)
    v_sy: tuple
    dvx: float  # body-frame accelerations d(v)/dt + ω×v (m/s²) and yaw acceleration (rad/s²)
    dvy: float
    dr: float
    engine_torque: float  # (N·m)
    clutch_torque: float  # (N·m)
    clutch_locked: bool
    throttle_used: float  # the throttle the power unit burns
    abs_scale: tuple  # ABS factor on each brake capacity
    tc_scale: float  # traction-control factor on the throttle
    esc_yaw_error: float  # (rad/s)
    esc_torque: float  # (N·m)
    esc_wheel: int  # -1 for none
    steer_assist_scale: float

    def flat(self) -> list:
        """The values as floats in the snapshot's order: ten per wheel, then the rest."""
        out: list = []
        for i in range(4):
            out += (
                self.fz[i],
                self.fx[i],
                self.fy[i],
                self.mz[i],
                self.brake_torque[i],
                self.brake_capacity[i],
                1.0 if self.locked[i] else 0.0,
                self.drive_torque[i],
                self.v_x[i],
                self.v_sy[i],
            )
        out += (self.dvx, self.dvy, self.dr, self.engine_torque, self.clutch_torque)
        out += (1.0 if self.clutch_locked else 0.0, self.throttle_used)
        out += self.abs_scale
        out += (self.tc_scale, self.esc_yaw_error, self.esc_torque, float(self.esc_wheel))
        out.append(self.steer_assist_scale)
        return out

    @classmethod
    def from_flat(cls, v: list) -> Derived:
        """The inverse of :meth:`flat`."""

        def wheels(j: int) -> tuple:
            return (v[j], v[10 + j], v[20 + j], v[30 + j])

        return cls(
            wheels(0),
            wheels(1),
            wheels(2),
            wheels(3),
            wheels(4),
            wheels(5),
            tuple(x == 1.0 for x in wheels(6)),
            wheels(7),
            wheels(8),
            wheels(9),
            v[40],
            v[41],
            v[42],
            v[43],
            v[44],
            v[45] == 1.0,
            v[46],
            (v[47], v[48], v[49], v[50]),
            v[51],
            v[52],
            v[53],
            int(v[54]),
            v[55],
        )


#: Before the first substep every derived value reads 0.
DERIVED_FLOATS = 56
DERIVED_ZERO = Derived.from_flat([0.0] * DERIVED_FLOATS)


class TelemetrySource(NamedTuple):
    """What one host step's telemetry is assembled from, captured as the step ends.

    Everything in it is immutable (the state is copied), so assembling it later gives what
    assembling it at once would have given, whatever the simulation does in between.
    """

    step: int  # host steps done
    tick: int  # substeps done
    substep_hz: int
    state: tuple  # the state vector after the step (engine.fourwheel.vehicle_layout)
    derived: Derived  # the last substep's derived values
    delta: float  # the reference steering angle (rad) and the per-wheel angles of the
    angles: tuple  # steering geometry the last substep used: ((δ, cos δ, sin δ) per wheel)
    radii: tuple  # wheel radii (m), FL FR RL RR
    kinematics: tuple | None = None  # each wheel's (engine.fourwheel.kinematics), if any


def capture(sim) -> TelemetrySource:  # noqa: ANN001  (engine.fourwheel.simulation.Simulation)
    """The source of the telemetry after the simulation's last host step (cheap: a copy of
    the state and references to immutable values)."""
    g = sim.geometry
    return TelemetrySource(
        sim.step_count,
        sim.tick,
        sim.substep_hz,
        tuple(sim.state),
        sim.derived,
        g.delta,
        g.angles,
        sim.radii,
        sim.kinematics_k,
    )


def build_telemetry(sim) -> Telemetry:  # noqa: ANN001  (engine.fourwheel.simulation.Simulation)
    """Telemetry from the simulation's state and last-substep derived values."""
    return assemble(capture(sim))


def assemble(src: TelemetrySource) -> Telemetry:
    """Assemble telemetry from a captured source."""
    st = src.state
    d = src.derived
    vx = st[I_VX]
    vy = st[I_VY]
    o = I_OMEGA
    omega = (st[o[0]], st[o[1]], st[o[2]], st[o[3]])
    slip_ratio = [0.0, 0.0, 0.0, 0.0]
    slip_angle = [0.0, 0.0, 0.0, 0.0]
    for i in range(4):
        v_x = d.v_x[i]
        den = max(abs(v_x), V_REG)
        slip_ratio[i] = (src.radii[i] * omega[i] - v_x) / den
        slip_angle[i] = -smath.atan(d.v_sy[i] / den)
    ha = src.angles
    ux, uy = I_UX, I_UY
    return Telemetry(
        step=src.step,
        tick=src.tick,
        time_s=src.tick / src.substep_hz,
        x=st[I_X],
        y=st[I_Y],
        yaw=st[I_YAW],
        vx=vx,
        vy=vy,
        speed=sqrt(vx * vx + vy * vy),
        yaw_rate=st[I_R],
        ax=d.dvx,
        ay=d.dvy,
        accel_x=st[I_AX],
        accel_y=st[I_AY],
        yaw_accel=d.dr,
        roll=st[I_ROLL],
        pitch=st[I_PITCH],
        steer_angle=src.delta,
        throttle=st[I_THROTTLE],
        fz=d.fz,
        fx=d.fx,
        fy=d.fy,
        mz=d.mz,
        omega=omega,
        wheel_angle=_turned(
            (ha[0].angle + st[I_DC[0]], ha[1].angle + st[I_DC[1]], ha[2].angle + st[I_DC[2]],
             ha[3].angle + st[I_DC[3]]),
            src.kinematics, st[I_ROLL], st[I_PITCH],
        ),  # fmt: skip
        slip_ratio=tuple(slip_ratio),
        slip_angle=tuple(slip_angle),
        brake_torque=d.brake_torque,
        brake_capacity=d.brake_capacity,
        locked=d.locked,
        drive_torque=d.drive_torque,
        deflection_x=(st[ux[0]], st[ux[1]], st[ux[2]], st[ux[3]]),
        deflection_y=(st[uy[0]], st[uy[1]], st[uy[2]], st[uy[3]]),
        engine_omega=st[I_ENGINE],
        engine_rpm=st[I_ENGINE] * RPM_PER_RADPS,
        engine_torque=d.engine_torque,
        gear=st[I_GEAR],
        shifting=st[I_SHIFT] > 0,
        upshift_interruption=st[I_SHIFT_UP] == 1 and st[I_SHIFT] > 0,
        clutch_torque=d.clutch_torque,
        clutch_locked=d.clutch_locked,
        throttle_effective=d.throttle_used,
        abs_activity=(
            1.0 - d.abs_scale[0],
            1.0 - d.abs_scale[1],
            1.0 - d.abs_scale[2],
            1.0 - d.abs_scale[3],
        ),
        tc_activity=1.0 - d.tc_scale,
        esc_yaw_error=d.esc_yaw_error,
        esc_brake_torque=d.esc_torque,
        esc_wheel=d.esc_wheel,
        steer_assist_scale=d.steer_assist_scale,
        **_kinematics_of(src.kinematics, st[I_ROLL], st[I_PITCH]),
    )


def _turned(angles: tuple, k: tuple | None, roll: float, pitch: float) -> tuple:
    """The road-wheel angles with each wheel's kinematic steer (without kinematics, none)."""
    if k is None:
        return angles
    return tuple(
        a if c is None else a + kinematics.steer(c, roll, pitch)
        for a, c in zip(angles, k, strict=True)
    )


def _kinematics_of(k: tuple | None, roll: float, pitch: float) -> dict:
    """The camber channels: each wheel's camber against the road and whether its travel lies
    past its table (:mod:`engine.fourwheel.kinematics`); upright wheels without kinematics."""
    if k is None:
        return {}
    camber = tuple(0.0 if c is None else kinematics.camber(c, roll, pitch) for c in k)
    outside = tuple(c is not None and kinematics.outside(c, roll, pitch) for c in k)
    return {"camber": camber, "travel_outside": outside}


class LazyTelemetry:
    """What ``Simulation.step`` returns: that step's :class:`Telemetry`, assembled on first read.

    Reading any field (``tel.speed``), ``as_dict()``, ``resolve()`` or comparing with ``==``
    assembles it once from the :class:`TelemetrySource` captured when the step ended, so the
    values are those after that step even when it is read steps later. A caller that never
    reads the telemetry (a replay verifier, a benchmark) pays only for the capture.
    """

    __slots__ = ("source", "built")

    source: TelemetrySource
    built: Telemetry | None

    def __init__(self, source: TelemetrySource) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "built", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def resolve(self) -> Telemetry:
        """The telemetry itself (assembled on the first call)."""
        built = self.built
        if built is None:
            built = assemble(self.source)
            object.__setattr__(self, "built", built)
        return built

    def __getattr__(self, name: str):  # noqa: ANN204  (a Telemetry field)
        if name in LazyTelemetry.__slots__:  # not yet set (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def as_dict(self) -> dict:
        """Telemetry as a plain dict (tuples become lists)."""
        return self.resolve().as_dict()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyTelemetry):
            other = other.resolve()
        return self.resolve() == other

    def __repr__(self) -> str:
        return repr(self.resolve())
