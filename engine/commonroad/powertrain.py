"""EV powertrain, road loads and the acceleration controller (longitudinal stack).

Sign convention: forces along the direction of travel are positive; the
direction factor ``dirn = clamp(v / v_hold, -1, 1)`` makes every resisting
force (brakes, regen, rolling) oppose the motion and fade to zero at rest,
so braking never drives the car backwards (a stop-and-hold, not a reverse).
No reverse gear: throttle always pushes forwards.

Motor (at the wheels, total): ``F_drive,max = min(T_max / R_w, P_max / max(|v|, v_floor))``
scaled by the SOC drive factor (0 at ``soc_min``, 1 from ``soc_min + taper``);
the drive force ``throttle F_drive,max`` is capped at ``F_traction`` (what the
driven tires transmit, :func:`traction_limit`, ADR 0126) times the same factor.
Regeneration: ``F_regen,max = min(T_regen / R_w, P_regen / max(|v|, v_floor))``
scaled by the SOC regen factor (1 up to ``soc_max - taper``, 0 at ``soc_max``)
and faded below ``regen_fade_speed``.

Acceleration controller (throttle ``t``, brake ``b`` in [0, 1]): brake wins a
conflict (throttle is scaled by ``1 - b``); the brake demand is
``b m a_brake,max`` plus a lift-off regen demand ``coast_regen_decel m`` when
neither pedal is pressed. Regen serves as much of the demand as it can, the
friction brake the rest. Road loads: aero ``rho CdA v |v| / 2`` and rolling
``C_rr m g dirn``. The model's acceleration input is the net force over m::

    a = (F_drive - (F_regen + F_friction) dirn - F_aero - F_roll) / m

Battery (Euler over the substep)::

    P_batt = F_drive v / eta_drive - F_regen |v| eta_regen + P_aux

and
``SOC' = -P_batt / E``; SOC is kept in [0, 1].

Parameters: :func:`build_powertrain` checks every value against
:data:`POWERTRAIN_RANGES` once, when the set is built (``> 0`` for the
divisors ``battery_energy``, ``hold_speed``, ``regen_fade_speed``,
``eta_drive``, ``speed_floor``; efficiencies and SOC limits in [0, 1] with
``soc_min < soc_max``); :func:`load_powertrain` builds the data file's set with
overrides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from skidpad.engine.errors import DefinitionError

from .params import (
    Range,
    VehicleParams,
    checked_values,
    load_data_file,
    non_negative,
    positive,
    within,
)

G = 9.81


@dataclass(frozen=True)
class PowertrainParams:
    """EV powertrain and road-load parameters of one vehicle (see powertrain.json)."""

    wheel_torque_max: float  # [N m]
    power_max: float  # [W]
    regen_torque_max: float  # [N m]
    regen_power_max: float  # [W]
    battery_energy: float  # [J]
    drag_area: float  # Cd A [m^2]
    air_density: float  # [kg/m^3]
    rolling_resistance: float  # C_rr [-]
    hold_speed: float  # [m/s]
    brake_decel_max: float  # [m/s^2]
    coast_regen_decel: float  # [m/s^2]
    regen_fade_speed: float  # [m/s]
    eta_drive: float
    eta_regen: float
    aux_power: float  # [W]
    soc_min: float
    soc_drive_taper: float
    soc_max: float
    soc_regen_taper: float
    soc_initial: float
    speed_floor: float  # [m/s] for the power limits


#: Valid range of every powertrain parameter. Upper bounds are generous physical limits
#: (far past any road vehicle) that keep the longitudinal stack finite.
POWERTRAIN_RANGES: dict[str, Range] = {
    "wheel_torque_max": non_negative(1.0e5),
    "power_max": non_negative(1.0e7),
    "regen_torque_max": non_negative(1.0e5),
    "regen_power_max": non_negative(1.0e7),
    "battery_energy": positive(1.0e11),  # SOC' = -P / E
    "drag_area": non_negative(100.0),
    "air_density": non_negative(10.0),
    "rolling_resistance": non_negative(1.0),
    "hold_speed": positive(10.0),  # dirn = v / hold_speed
    "brake_decel_max": non_negative(100.0),
    "coast_regen_decel": non_negative(100.0),
    "regen_fade_speed": positive(100.0),  # fade = |v| / regen_fade_speed
    "eta_drive": positive(1.0),  # P_batt = P_drive / eta_drive
    "eta_regen": positive(1.0),
    "aux_power": non_negative(1.0e6),
    "soc_min": within(0.0, 1.0),  # and soc_min < soc_max
    "soc_drive_taper": within(0.0, 1.0),
    "soc_max": within(0.0, 1.0),
    "soc_regen_taper": within(0.0, 1.0),
    "soc_initial": within(0.0, 1.0),
    "speed_floor": positive(100.0),  # P_max / max(|v|, speed_floor)
}


def build_powertrain(data: Mapping) -> PowertrainParams:
    """A validated :class:`PowertrainParams` from every one of its values, by name.

    Each value is checked against :data:`POWERTRAIN_RANGES` (and ``soc_min < soc_max``)
    once, here; the DefinitionError names the parameter
    (``powertrain parameter regen_fade_speed must be > 0, not 0.0``).
    """
    values = checked_values(data, POWERTRAIN_RANGES, "powertrain parameter ")
    if not values["soc_min"] < values["soc_max"]:
        raise DefinitionError(
            f"powertrain parameter soc_min must be < soc_max ({values['soc_max']!r}), "
            f"not {values['soc_min']!r}"
        )
    return PowertrainParams(**values)


def load_powertrain(vehicle_id: int, overrides: dict | None = None) -> PowertrainParams:
    """The powertrain of a vehicle from ``powertrain.json``, with ``overrides`` (name -> value)."""
    data = load_data_file("powertrain.json")
    merged = dict(data["common"])
    merged.update(data["vehicles"][str(vehicle_id)])
    merged.update(overrides or {})
    return build_powertrain(merged)


@dataclass(frozen=True)
class Longitudinal:
    """One evaluation of the longitudinal stack (forces [N], powers [W])."""

    accel: float  # acceleration command to the model [m/s^2]
    drive_force: float
    regen_force: float
    friction_force: float
    aero_force: float
    rolling_force: float
    drive_power: float  # mechanical, at the wheels
    regen_power: float  # mechanical, recovered at the wheels
    battery_power: float  # electrical, drawn from the battery (negative = charging)
    soc_drive_limited: bool
    soc_regen_limited: bool


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def soc_drive_factor(pt: PowertrainParams, soc: float) -> float:
    """1 above ``soc_min + soc_drive_taper``, linear to 0 at ``soc_min``."""
    if pt.soc_drive_taper <= 0.0:
        return 1.0 if soc > pt.soc_min else 0.0
    return _clamp((soc - pt.soc_min) / pt.soc_drive_taper, 0.0, 1.0)


def soc_regen_factor(pt: PowertrainParams, soc: float) -> float:
    """1 below ``soc_max - soc_regen_taper``, linear to 0 at ``soc_max``."""
    if pt.soc_regen_taper <= 0.0:
        return 1.0 if soc < pt.soc_max else 0.0
    return _clamp((pt.soc_max - soc) / pt.soc_regen_taper, 0.0, 1.0)


#: Share of the driven tires' peak longitudinal force the motor controller asks for.
TRACTION_SHARE = 0.8


def traction_limit(p: VehicleParams) -> float:
    """The largest drive force [N] the driven axles transmit at ``TRACTION_SHARE`` of their grip.

    The motor controller (an EV's own traction control) never asks for more
    torque than the driven tires can put down on their static loads, so a
    full-throttle launch does not spin the wheels up. The load transfer that
    acceleration brings to the rear is not counted: MB's suspension takes a
    few tenths of a second to pitch, and a launch needs the grip at once.
    With the drive force split ``T_se`` front, ``1 - T_se`` rear, the static
    axle loads ``m g b / l`` and ``m g a / l`` and peak friction ``mu = p_dx1``::

        front: F <= TRACTION_SHARE mu m g b / (l T_se)
        rear:  F <= TRACTION_SHARE mu m g a / (l (1 - T_se))
    """
    grip = TRACTION_SHARE * p.tire.p_dx1 * p.m * G / (p.a + p.b)
    limit = float("inf")
    if p.T_se > 0.0:
        limit = grip * p.b / p.T_se
    if p.T_se < 1.0:
        rear = grip * p.a / (1.0 - p.T_se)
        if rear < limit:
            limit = rear
    return limit


def longitudinal(
    pt: PowertrainParams, p: VehicleParams, v: float, soc: float, throttle: float, brake: float
) -> Longitudinal:
    """The acceleration command and its force/power breakdown at speed ``v``."""
    m = p.m
    speed = abs(v)
    vf = max(speed, pt.speed_floor)
    dirn = _clamp(v / pt.hold_speed, -1.0, 1.0)

    throttle = throttle * (1.0 - brake)
    fd_soc = soc_drive_factor(pt, soc)
    f_drive_max = min(pt.wheel_torque_max / p.R_w, pt.power_max / vf) * fd_soc
    f_drive = throttle * f_drive_max
    f_grip = traction_limit(p) * fd_soc
    if f_drive > f_grip:
        f_drive = f_grip

    demand = brake * m * pt.brake_decel_max
    if throttle <= 0.0 and brake <= 0.0:
        demand = m * pt.coast_regen_decel
    fr_soc = soc_regen_factor(pt, soc)
    fade = min(1.0, speed / pt.regen_fade_speed)
    f_regen_max = min(pt.regen_torque_max / p.R_w, pt.regen_power_max / vf) * fr_soc * fade
    f_regen = min(demand, f_regen_max)
    f_fric = demand - f_regen
    if throttle <= 0.0 and brake <= 0.0:
        f_fric = 0.0  # lift-off deceleration is regen only

    f_aero = 0.5 * pt.air_density * pt.drag_area * v * speed
    f_roll = pt.rolling_resistance * m * G * dirn
    accel = (f_drive - (f_regen + f_fric) * dirn - f_aero - f_roll) / m

    p_drive = f_drive * v
    p_regen = f_regen * speed * abs(dirn)
    p_batt = p_drive / pt.eta_drive - p_regen * pt.eta_regen + pt.aux_power
    return Longitudinal(
        accel,
        f_drive,
        f_regen,
        f_fric,
        f_aero,
        f_roll,
        p_drive,
        p_regen,
        p_batt,
        fd_soc < 1.0,
        fr_soc < 1.0,
    )


def soc_after(pt: PowertrainParams, soc: float, battery_power: float, h: float) -> float:
    """SOC after ``h`` seconds at ``battery_power`` (Euler), kept in [0, 1]."""
    return _clamp(soc - battery_power * h / pt.battery_energy, 0.0, 1.0)
