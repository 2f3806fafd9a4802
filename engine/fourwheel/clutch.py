"""The launch clutch: a slipping friction clutch whose capacity is the bound of a constraint.

The clutch sits between the power unit (speed ω_e) and the gearbox input
(speed G·ω_o, G the signed overall ratio, ω_o the output speed). Like the
brake (:mod:`engine.fourwheel.wheel`, ADR 0036) it is not a torque that is applied and
then corrected: each substep :mod:`engine.fourwheel.differential` solves for the
clutch torque T_c that makes the slip speed ω_e' - G·ω_o' zero at the end of
the substep, given every other torque and inertia (the engine, the wheels
with their tires and brakes). If ``|T_c| <= capacity`` the clutch is locked
(no slip, the engine's inertia rides with the wheels: reflected through the
gearbox as J_e·G², it is what the brakes must also stop, so the driven
wheels lock after the undriven ones); otherwise it slips with
``T_c = ±capacity`` in the sense of the requested torque.

Capacity (N·m) = ``max_torque_nm`` · e · s, where

* e, the engagement, rises linearly with the power unit's speed from 0 at
  ω_d = ``disengage_rpm`` to 1 at ω_d + S(θ), with the span
  S(θ) = (ω_full - ω_d)·max(θ, s_0), ω_full = ``engage_rpm``, s_0 =
  ``closed_throttle_span`` (0 < s_0 <= 1):
  at full throttle the clutch bites progressively up to ``engage_rpm``
  (the launch: the engine revs to where its torque meets the capacity),
  with the throttle closed it is fully engaged just above ω_d (so on a
  lift or under braking the engine stays coupled and its inertia and drag
  reach the wheels). With the engine at idle, below ω_d, nothing is
  transmitted and the car does not creep; when a locked wheel drags the
  engine down to ω_d, the clutch lets go. An automatic's launch clutch
  (s_0 = 0.1), or with s_0 = 1 a centrifugal clutch whose bite depends on
  the engine speed alone (the kart: at low speed it slips smoothly, with a
  capacity that grows steadily with the engine speed);
* s, the shift factor from :mod:`engine.fourwheel.gearbox` (0 while a shift opens
  the clutch, ramping back to 1 as it re-engages).

A power unit without a clutch (the electric motor's fixed reduction) uses
:data:`RIGID`, a capacity no torque reaches: always locked.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_object
from skidpad.engine.fourwheel.powertrain import RPM

RIGID = 1.0e12  # N·m: the capacity of a shaft, never exceeded by a finite solve

KEYS = ("max_torque_nm", "disengage_rpm", "engage_rpm", "closed_throttle_span")


def validate(c: object, path: str = "drivetrain.clutch") -> dict:
    """A normalised copy of a clutch block; DefinitionError names the bad parameter."""
    c = require_object(c, path)
    refuse_unknown(c, path, KEYS)
    out = {}
    for key in KEYS:
        if key not in c:
            raise DefinitionError(f"{path}.{key}: is missing")
        out[key] = number(f"{path}.{key}", c[key])
    if out["closed_throttle_span"] > 1.0:
        raise DefinitionError(f"{path}.closed_throttle_span: must be <= 1")
    if out["engage_rpm"] <= out["disengage_rpm"]:
        raise DefinitionError(f"{path}.engage_rpm: must be > disengage_rpm")
    return out


class ClutchConstants(NamedTuple):
    """The clutch's folded constants (see the module docstring)."""

    max_torque: float  # capacity when fully engaged (N·m)
    disengage_omega: float  # ω_d, below which nothing is transmitted (rad/s)
    inv_engage_span: float  # 1/(ω_full - ω_d) (s/rad); 0 marks a rigid shaft
    closed_throttle_span: float  # s_0, the span's fraction with the throttle closed (1)


def constants(c: dict | None) -> ClutchConstants:
    """The folded constants of a validated clutch block; None = rigid (:data:`RIGID`)."""
    if c is None:
        return ClutchConstants(
            max_torque=RIGID, disengage_omega=-1.0e30, inv_engage_span=0.0, closed_throttle_span=1.0
        )
    w0 = c["disengage_rpm"] * RPM
    w1 = c["engage_rpm"] * RPM
    return ClutchConstants(
        max_torque=c["max_torque_nm"],
        disengage_omega=w0,
        inv_engage_span=1.0 / (w1 - w0),
        closed_throttle_span=c["closed_throttle_span"],
    )


def engagement(k: ClutchConstants, omega_e: float, theta: float = 1.0) -> float:
    """Engagement 0..1 at power-unit speed ``omega_e`` (rad/s) and throttle ``theta``."""
    if k.inv_engage_span == 0.0:
        return 1.0
    e = (omega_e - k.disengage_omega) * k.inv_engage_span
    if e <= 0.0:
        return 0.0
    s0 = k.closed_throttle_span
    span = theta if theta > s0 else s0
    if e >= span:
        return 1.0
    return e / span


def capacity(k: ClutchConstants, omega_e: float, shift_factor: float, theta: float = 1.0) -> float:
    """Torque capacity (N·m) of the clutch: max · engagement · shift factor."""
    if k.inv_engage_span == 0.0:
        return k.max_torque if shift_factor > 0.0 else 0.0
    e = (omega_e - k.disengage_omega) * k.inv_engage_span  # engagement(), inlined
    if e <= 0.0:
        return 0.0
    s0 = k.closed_throttle_span
    span = theta if theta > s0 else s0
    if e >= span:
        return k.max_torque * shift_factor
    return k.max_torque * (e / span) * shift_factor
