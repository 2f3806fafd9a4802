"""Telemetry: a read-only snapshot of the daemon after a host step.

Derived quantities only; nothing here is part of the hashed state. Units SI
(m, s, rad, N, N m, W, J); angles in rad; ``stage`` is the safety stage's
name. ``to_json`` is canonical (sorted keys, compact separators).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    yaw: float


@dataclass(frozen=True)
class Velocity:
    vx: float  # body frame, forwards [m/s]
    vy: float  # body frame, leftwards [m/s]
    speed: float
    yaw_rate: float


@dataclass(frozen=True)
class Slip:
    beta: float  # slip angle at the CoG
    alpha_front: float
    alpha_rear: float
    wheel: tuple[float, ...]  # longitudinal slip per wheel (STD: F, R; MB: LF, RF, LR, RR)
    lat_saturation_front: float  # |F_y| / (mu F_z)
    lat_saturation_rear: float


@dataclass(frozen=True)
class Steering:
    desired: float  # steering angle demanded (after safety) [rad]
    actual: float  # steering angle state [rad]
    rate_command: float  # steering rate sent to the model [rad/s]


@dataclass(frozen=True)
class PowertrainT:
    accel_command: float  # [m/s^2]
    drive_force: float
    regen_force: float
    friction_brake_force: float
    aero_force: float
    rolling_force: float
    drive_power: float
    regen_power: float
    battery_power: float
    soc: float
    soc_drive_limited: bool
    soc_regen_limited: bool


@dataclass(frozen=True)
class Axle:
    drive_torque: float  # [N m]
    brake_torque: float  # [N m], regen + friction, positive = retarding
    fx: float
    fy: float
    fz: float
    friction_use: float  # sqrt(fx^2 + fy^2) / (mu fz)


@dataclass(frozen=True)
class Totals:
    distance_m: float
    energy_j: float  # net electrical energy drawn from the battery
    regen_energy_j: float  # electrical energy recovered


@dataclass(frozen=True)
class SafetyT:
    stage: str
    severity: float
    worst_metric: str
    blend: float
    drift: bool


@dataclass(frozen=True)
class Telemetry:
    step: int
    time_us: int
    model: str
    vehicle_id: int
    dt_requested_us: int
    dt_us: int
    substeps: int
    substep_s: float
    dt_clamped: bool
    tire_forces: bool  # axle forces from the tire model (STD, MB) or quasi-static
    pose: Pose
    velocity: Velocity
    slip: Slip
    steering: Steering
    powertrain: PowertrainT
    front: Axle
    rear: Axle
    totals: Totals
    safety: SafetyT

    def as_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
