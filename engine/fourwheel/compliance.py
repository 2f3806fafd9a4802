"""Compliance steer of the rear wheels under their own forces (the suspension's bushings).

A rear wheel's links sit in rubber bushings, so the forces at its contact patch turn it
about a vertical axis. The turn (rad, positive left) is added to the wheel's road-wheel
angle beside its kinematic steer (:func:`engine.fourwheel.steering.turned_frames`):

    δ_c,i → c_y·F_y,i + side·c_x·F_x,i          side = +1 for the left wheel, -1 for the right

F_x and F_y are the wheel-frame forces the wheel solve gave the patch (N; F_y > 0 pushes
the car left, F_x > 0 drives it forward), c_y is
``suspension.rear.compliance_steer.lateral_deg_per_kn`` (positive: the wheel steers with its
lateral force, into the turn, which is understeer at the rear) and c_x
``suspension.rear.compliance_steer.longitudinal_deg_per_kn`` (positive: toe-in under a
braking force, toe-out under a driving one). It follows with the bushings' lag τ
(``time_s``), implicit like the front's compliance steer:

    δ_c' = δ_c + (target - δ_c)·h/(τ + h)

State ``steer.RL.compliance`` and ``steer.RR.compliance`` (rad), updated by the
``steering_compliance`` stage from the forces the wheel solve produced, read by the next
substep's ``steering`` stage. Without a ``compliance_steer`` block they stay 0.

The front wheels' compliance steer under their forces is the steering's: the kingpin moment
``M_z - t_m·F_y - side·r_s·F_x`` on the linkage and the rack (:mod:`engine.fourwheel.steering`),
so the block is refused on the front axle rather than counted twice.

Linear theory: each rear wheel steers by c_y times its share of the axle's force, so the
axle's cornering stiffness becomes ``2·C_α / (1 - C_α·c_y)`` (:mod:`engine.fourwheel.single_track`).

Valid range: the loop from the wheel's steer to its lateral force and back has the gain
``c_y·C_α``; at 1 the axle's stiffness is unbounded and past it the wheel steers ever further
with its own force. A definition is refused unless ``|c_y|·C_α ≤`` :data:`LOOP_GAIN_LIMIT`
with C_α at twice the rear wheel's static load (where a corner's outer wheel may go).
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_keys, require_object

DEG = 0.017453292519943295  # rad per degree

#: The entries of ``suspension.rear.compliance_steer``: name, lower bound, upper bound.
ENTRIES = (
    ("lateral_deg_per_kn", -1.0, 1.0),
    ("longitudinal_deg_per_kn", -1.0, 1.0),
    ("time_s", 0.0, 1.0),
)

#: The most ``|c_y|·C_α`` a definition may have (see the module docstring).
LOOP_GAIN_LIMIT = 0.5


class RearCompliance(NamedTuple):
    """The folded constants of a rear suspension's compliance steer."""

    lateral: float  # c_y, rad per N of the wheel's lateral force
    longitudinal: float  # c_x, rad per N of the wheel's braking force (toe-in positive)
    time: float  # τ (s)


def validate(value: object, path: str) -> dict:
    """A ``suspension.rear.compliance_steer`` block, checked and normalised (every number a
    float): ``lateral_deg_per_kn`` and ``longitudinal_deg_per_kn`` (deg of steer per kN,
    -1 to 1) and ``time_s`` (the lag, 0 to 1 s). DefinitionError names the first bad entry."""
    known = tuple(name for name, *_ in ENTRIES)
    value = require_object(value, path)
    refuse_unknown(value, path, known)
    require_keys(value, path, known)
    return {name: number(f"{path}.{name}", value[name], lo, False, hi) for name, lo, hi in ENTRIES}


def refuse_front(value: object, path: str) -> dict:
    """The front axle has no ``compliance_steer`` block: its wheels' compliance steer under
    their forces is the steering's (``steering.compliance_deg_per_knm``, ``steering.system``)."""
    raise DefinitionError(
        f"{path}: the front wheels' compliance steer is the steering's "
        "(steering.compliance_deg_per_knm and steering.system), not a suspension block"
    )


def check_loop_gain(d: dict, c_alpha: float) -> None:
    """Refuse a validated definition ``d`` whose rear compliance steer leaves the valid range:
    ``|c_y|·C_α`` above :data:`LOOP_GAIN_LIMIT`, with ``c_alpha`` (N/rad) the rear tire's
    cornering stiffness at twice the rear wheel's static load."""
    block = d["suspension"]["rear"].get("compliance_steer")
    if block is None:
        return
    gain = abs(block["lateral_deg_per_kn"]) * DEG / 1000.0 * c_alpha
    if gain > LOOP_GAIN_LIMIT:
        raise DefinitionError(
            "suspension.rear.compliance_steer.lateral_deg_per_kn: with the rear tire's cornering "
            f"stiffness the steer-force loop gain is {gain:.3g}, above {LOOP_GAIN_LIMIT:g} "
            "(the wheel would steer away with its own force)"
        )


def constants(d: dict) -> RearCompliance | None:
    """The folded constants of a validated definition's rear compliance steer, None without."""
    block = d["suspension"]["rear"].get("compliance_steer")
    if block is None:
        return None
    return RearCompliance(
        block["lateral_deg_per_kn"] * DEG / 1000.0,
        block["longitudinal_deg_per_kn"] * DEG / 1000.0,
        block["time_s"],
    )


def lateral_compliance(d: dict) -> float:
    """c_y (rad/N) of a validated definition's rear axle for the linear models, 0 without."""
    k = constants(d)
    return 0.0 if k is None else k.lateral


def update(k: RearCompliance, dc: float, side: float, fy: float, fx: float, h: float) -> float:
    """A rear wheel's compliance steer after one substep under its forces ``fy`` and ``fx``
    (N, wheel frame; ``side`` +1 left, -1 right), with the lag τ."""
    target = k.lateral * fy + side * k.longitudinal * fx
    return dc + (target - dc) * h / (k.time + h)


__all__ = [
    "ENTRIES",
    "LOOP_GAIN_LIMIT",
    "RearCompliance",
    "check_loop_gain",
    "constants",
    "lateral_compliance",
    "refuse_front",
    "update",
    "validate",
]
