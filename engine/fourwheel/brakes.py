"""Brakes: per-wheel friction torque capacity from the pedal and the handbrake.

    capacity_front_wheel = brake · T_max · bias / 2
    capacity_rear_wheel  = brake · T_max · (1 - bias) / 2 + handbrake · T_hb

T_max (N·m) is the service brake's total torque at full pedal, ``bias`` its
front share, T_hb the handbrake's torque per rear wheel. A capacity is the
bound of the wheel's brake constraint (:mod:`engine.fourwheel.wheel`): the brake
supplies any torque up to it, in whichever sense holds the wheel. The
drivetrain issue's ABS scales these capacities per substep (never to 0).
"""

from __future__ import annotations

from typing import NamedTuple


class BrakeConstants(NamedTuple):
    """Service torque per front and rear wheel at full pedal, handbrake per rear wheel (N·m)."""

    front: float
    rear: float
    handbrake: float


def constants(b: dict) -> BrakeConstants:
    """(front per-wheel, rear per-wheel service torque at full pedal, handbrake per rear wheel)."""
    t = b["max_torque_nm"]
    return BrakeConstants(
        front=0.5 * t * b["front_bias"],
        rear=0.5 * t * (1.0 - b["front_bias"]),
        handbrake=b["handbrake_torque_nm"],
    )


def capacities(
    k: BrakeConstants, brake: float, handbrake: float
) -> tuple[float, float, float, float]:
    """Brake torque capacity (N·m) of FL, FR, RL, RR for pedal ``brake`` and lever ``handbrake``."""
    f = brake * k.front
    r = brake * k.rear + handbrake * k.handbrake
    return (f, f, r, r)
