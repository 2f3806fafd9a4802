"""Roll and pitch of the sprung mass as damped second-order states.

State: ``suspension.roll`` (rad, positive = right side down, i.e. rotation
about +x), ``suspension.roll_rate`` (rad/s), ``suspension.pitch`` (rad,
positive = nose down, rotation about +y), ``suspension.pitch_rate`` (rad/s).

    I_x·φ'' = m_s·f_y·(h_s - h_ra) + m_s·g·(h_s - h_ra)·φ - K_φ·φ - C_φ·φ'
    I_y·θ'' = -m_s·f_x·h_s·(1 - anti) - K_θ·θ - C_θ·θ'

with K_φ = K_φf + K_φr, C_φ = C_φf + C_φr (springs + bars, dampers, see
:mod:`engine.fourwheel.load_transfer`), h_ra the roll-axis height under the sprung CoG,
K_θ, C_θ the pitch stiffness/damping of the springs about the sprung CoG and
``anti`` the anti-dive/anti-squat share (carried by the linkages, not the
springs). f_x, f_y are the specific forces of the previous substep. Heave is
taken as quasi-static. Integrated with semi-implicit (symplectic) Euler.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.state import Field

FIELDS = (
    Field("suspension.roll", "f", "rad", "sprung-mass roll, positive right side down"),
    Field("suspension.roll_rate", "f", "rad/s", "roll rate"),
    Field("suspension.pitch", "f", "rad", "sprung-mass pitch, positive nose down"),
    Field("suspension.pitch_rate", "f", "rad/s", "pitch rate"),
)


class SuspensionConstants(NamedTuple):
    """Roll and pitch coefficients per unit inertia."""

    roll_per_fy: float  # m_s·(h_s - h_ra)/I_x
    roll_stiffness: float  # (K_φ - m_s·g·(h_s - h_ra))/I_x
    roll_damping: float
    pitch_braking: float  # m_s·h_s·(1 - anti)/I_y when f_x < 0
    pitch_driving: float
    pitch_stiffness: float
    pitch_damping: float


def folded(c: dict, g: float) -> SuspensionConstants:
    """Roll and pitch coefficients per unit inertia (see :class:`SuspensionConstants`)."""
    arm = c["hs"] - c["h_ra"]
    return SuspensionConstants(
        c["ms"] * arm / c["ix"],
        (c["k_roll_f"] + c["k_roll_r"] - c["ms"] * g * arm) / c["ix"],
        (c["c_roll_f"] + c["c_roll_r"]) / c["ix"],
        c["ms"] * c["hs"] * (1.0 - c["anti_brake"]) / c["iy"],
        c["ms"] * c["hs"] * (1.0 - c["anti_drive"]) / c["iy"],
        c["k_pitch"] / c["iy"],
        c["c_pitch"] / c["iy"],
    )


class SuspensionState(NamedTuple):
    """Roll and pitch (the ``suspension.*`` fields of the state)."""

    roll: float
    roll_rate: float
    pitch: float
    pitch_rate: float


def step(
    k: SuspensionConstants,
    h: float,
    fx: float,
    fy: float,
    sus: SuspensionState,
) -> SuspensionState:
    """Roll and pitch after one substep of length ``h`` from ``sus``, at its start."""
    roll, roll_rate, pitch, pitch_rate = sus.roll, sus.roll_rate, sus.pitch, sus.pitch_rate
    roll_rate = roll_rate + h * (
        k.roll_per_fy * fy - k.roll_stiffness * roll - k.roll_damping * roll_rate
    )
    roll = roll + h * roll_rate
    mx = k.pitch_braking if fx < 0.0 else k.pitch_driving
    pitch_rate = pitch_rate + h * (
        -mx * fx - k.pitch_stiffness * pitch - k.pitch_damping * pitch_rate
    )
    pitch = pitch + h * pitch_rate
    return SuspensionState(roll, roll_rate, pitch, pitch_rate)


def equilibrium(k: SuspensionConstants, fx: float, fy: float) -> tuple[float, float]:
    """Steady (roll, pitch) under constant specific forces (for initial conditions)."""
    mx = k.pitch_braking if fx < 0.0 else k.pitch_driving
    return (k.roll_per_fy * fy / k.roll_stiffness, -mx * fx / k.pitch_stiffness)
