"""Read-only telemetry after a host step (derived quantities; not part of the hashed state).

Pose and motion: ``x``, ``y`` (m), ``yaw`` (rad), ``vx``, ``vy`` (m/s, body
frame), ``speed`` (m/s), ``yaw_rate`` (rad/s); ``ax``, ``ay`` the body-frame
acceleration (m/s², d(v)/dt + ω×v, gravity included) and ``accel_x``,
``accel_y`` what an accelerometer reads (gravity excluded); ``roll``, ``pitch``
(rad, positive right side down / nose down).

Per wheel, tuples in the order FL, FR, RL, RR: ``fz`` load, ``fx``/``fy``
tire force in the wheel frame, ``mz`` aligning torque (N, N·m), ``omega``
spin (rad/s), ``wheel_angle`` road-wheel angle (rad, toe and compliance
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
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from math import sqrt

from engine import smath
from engine.vehicle_layout import (
    I_AX,
    I_AY,
    I_DC_FL,
    I_DC_FR,
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

    def as_dict(self) -> dict:
        """Telemetry as a plain dict (tuples become lists)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


def build_telemetry(sim) -> Telemetry:  # noqa: ANN001  (engine.simulation.Simulation)
    """Assemble telemetry from the simulation's state and last-substep derived values."""
    st = sim.state
    d = sim._derived
    vx = st[I_VX]
    vy = st[I_VY]
    o = I_OMEGA
    omega = (st[o[0]], st[o[1]], st[o[2]], st[o[3]])
    pw = sim._per_wheel
    slip_ratio = [0.0, 0.0, 0.0, 0.0]
    slip_angle = [0.0, 0.0, 0.0, 0.0]
    for i in range(4):
        j = 10 * i
        v_x = d[j + 8]
        den = max(abs(v_x), V_REG)
        slip_ratio[i] = (pw[i][3] * omega[i] - v_x) / den
        slip_angle[i] = -smath.atan(d[j + 9] / den)
    ha = sim._host_angles
    ux, uy = I_UX, I_UY
    return Telemetry(
        step=sim.step_count,
        tick=sim.tick,
        time_s=sim.tick / sim.substep_hz,
        x=st[I_X],
        y=st[I_Y],
        yaw=st[I_YAW],
        vx=vx,
        vy=vy,
        speed=sqrt(vx * vx + vy * vy),
        yaw_rate=st[I_R],
        ax=d[40],
        ay=d[41],
        accel_x=st[I_AX],
        accel_y=st[I_AY],
        yaw_accel=d[42],
        roll=st[I_ROLL],
        pitch=st[I_PITCH],
        steer_angle=sim._delta_ref,
        throttle=st[I_THROTTLE],
        fz=(d[0], d[10], d[20], d[30]),
        fx=(d[1], d[11], d[21], d[31]),
        fy=(d[2], d[12], d[22], d[32]),
        mz=(d[3], d[13], d[23], d[33]),
        omega=omega,
        wheel_angle=(ha[0][0] + st[I_DC_FL], ha[1][0] + st[I_DC_FR], ha[2][0], ha[3][0]),
        slip_ratio=tuple(slip_ratio),
        slip_angle=tuple(slip_angle),
        brake_torque=(d[4], d[14], d[24], d[34]),
        brake_capacity=(d[5], d[15], d[25], d[35]),
        locked=(d[6] == 1.0, d[16] == 1.0, d[26] == 1.0, d[36] == 1.0),
        drive_torque=(d[7], d[17], d[27], d[37]),
        deflection_x=(st[ux[0]], st[ux[1]], st[ux[2]], st[ux[3]]),
        deflection_y=(st[uy[0]], st[uy[1]], st[uy[2]], st[uy[3]]),
        engine_omega=st[I_ENGINE],
        engine_rpm=st[I_ENGINE] * RPM_PER_RADPS,
        engine_torque=d[43],
        gear=st[I_GEAR],
        shifting=st[I_SHIFT] > 0,
        upshift_interruption=st[I_SHIFT_UP] == 1 and st[I_SHIFT] > 0,
        clutch_torque=d[44],
        clutch_locked=d[45] == 1.0,
        throttle_effective=d[46],
        abs_activity=(1.0 - d[47], 1.0 - d[48], 1.0 - d[49], 1.0 - d[50]),
        tc_activity=1.0 - d[51],
        esc_yaw_error=d[52],
        esc_brake_torque=d[53],
        esc_wheel=int(d[54]),
        steer_assist_scale=d[55],
    )
