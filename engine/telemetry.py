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
"""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt

from engine import smath

V_REG = 0.5  # m/s, regularisation speed of the reported kinematic slips


@dataclass(frozen=True)
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

    def as_dict(self) -> dict:
        """Telemetry as a plain dict (tuples become lists)."""
        out = {}
        for k, v in self.__dict__.items():
            out[k] = list(v) if isinstance(v, tuple) else v
        return out


def build_telemetry(sim) -> Telemetry:  # noqa: ANN001  (engine.simulation.Simulation)
    """Assemble telemetry from the simulation's state and last-substep derived values."""
    from engine import simulation as S

    st = sim.state
    d = sim._derived
    vx, vy = st[S.I_VX], st[S.I_VY]
    per = [d[10 * i : 10 * i + 10] for i in range(4)]
    omega = tuple(st[S.I_OMEGA[i]] for i in range(4))
    radius = tuple(sim._per_wheel[i][3] for i in range(4))
    slip_ratio = []
    slip_angle = []
    for i in range(4):
        v_x, v_sy = per[i][8], per[i][9]
        den = max(abs(v_x), V_REG)
        slip_ratio.append((radius[i] * omega[i] - v_x) / den)
        slip_angle.append(-smath.atan(v_sy / den))
    angles = [a[0] for a in sim._host_angles]
    angles[0] += st[S.I_DC_FL]
    angles[1] += st[S.I_DC_FR]
    return Telemetry(
        step=sim.step_count,
        tick=sim.tick,
        time_s=sim.tick / sim.substep_hz,
        x=st[S.I_X],
        y=st[S.I_Y],
        yaw=st[S.I_YAW],
        vx=vx,
        vy=vy,
        speed=sqrt(vx * vx + vy * vy),
        yaw_rate=st[S.I_R],
        ax=d[40],
        ay=d[41],
        accel_x=st[S.I_AX],
        accel_y=st[S.I_AY],
        yaw_accel=d[42],
        roll=st[S.I_ROLL],
        pitch=st[S.I_PITCH],
        steer_angle=sim._delta_ref,
        throttle=st[S.I_THROTTLE],
        fz=tuple(p[0] for p in per),
        fx=tuple(p[1] for p in per),
        fy=tuple(p[2] for p in per),
        mz=tuple(p[3] for p in per),
        omega=omega,
        wheel_angle=tuple(angles),
        slip_ratio=tuple(slip_ratio),
        slip_angle=tuple(slip_angle),
        brake_torque=tuple(p[4] for p in per),
        brake_capacity=tuple(p[5] for p in per),
        locked=tuple(p[6] == 1.0 for p in per),
        drive_torque=tuple(p[7] for p in per),
        deflection_x=tuple(st[S.I_UX[i]] for i in range(4)),
        deflection_y=tuple(st[S.I_UY[i]] for i in range(4)),
    )
