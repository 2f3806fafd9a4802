"""CommonRoad vehicle parameter sets (vehicles 1-3) as plain, immutable data.

The values live in ``engine/commonroad/data/vehicle<N>.json``; they are the
reference package's own data (commonroad-vehicle-models 3.0.2, BSD-3-Clause),
copied exactly and checked against it by ``tests/test_commonroad_parity.py``
(ADR 0060). All units are SI: m, kg, s, rad, N; stiffnesses N/m, dampings
N s/m, inertias kg m^2. Names follow the reference (``I_z``, ``K_sf``, ``R_w``,
``p_dy1`` ...) so the model modules read like the published equations.

``load_vehicle(id_or_name)`` returns a :class:`VehicleParams` whose
``steering``, ``longitudinal`` and ``tire`` members are namespaces of the
matching blocks; ``build_vehicle_params(data)`` builds one from plain data (a
data file or a recording's embedded parameters, ``replay.commonroad``).

Valid ranges: every numeric parameter has one (:data:`VEHICLE_RANGES`, a
:class:`Range`), checked once when a parameter set is built, never in the
models: finite always; > 0 where the models divide by it (masses, inertias,
``a``, ``b``, ``R_w``, track widths, tire shape and friction factors,
``v_switch``); a sign where the other one destabilises the model (spring and
tire vertical rates, ``p_ky1 <= 0``, ``p_dx3``/``p_dy3 <= 0``, the roll
stiffnesses ``K_tsf``/``K_tsr <= 0``); and a generous physical upper bound.
Two conditions combine parameters: ``I_xz_s^2 < I_z I_Phi_s`` (MB divides by
the difference) and ``a_max h_s < g min(a, b)`` (both single-track axle loads
stay positive at the acceleration limit; the tire formula divides by the
load). A value outside raises DefinitionError naming its path:
``vehicle parameter tire/p_dy1 must be > 0, not 0.0``. ``powertrain`` and
``safety`` use the same :class:`Range` for their parameters.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from skidpad.engine.errors import DefinitionError

_DIR = Path(__file__).parent / "data"

#: Known vehicles: id -> (file stem, name).
VEHICLES: dict[int, tuple[str, str]] = {
    1: ("vehicle1", "Ford Escort"),
    2: ("vehicle2", "BMW 320i"),
    3: ("vehicle3", "VW Vanagon"),
}


@dataclass(frozen=True)
class SteeringParams:
    """Steering limits: angle [rad] and angle rate [rad/s]."""

    min: float
    max: float
    v_min: float
    v_max: float
    kappa_dot_max: float
    kappa_dot_dot_max: float


@dataclass(frozen=True)
class LongitudinalParams:
    """Speed limits [m/s], switching speed [m/s], |acceleration| limit [m/s^2], jerk limits."""

    v_min: float
    v_max: float
    v_switch: float
    a_max: float
    j_max: float
    j_dot_max: float


@dataclass(frozen=True)
class TireParams:
    """Pacejka Magic Formula coefficients (ADAMS handbook names; all scaling factors 1)."""

    p_cx1: float
    p_dx1: float
    p_dx3: float
    p_ex1: float
    p_kx1: float
    p_hx1: float
    p_vx1: float
    r_bx1: float
    r_bx2: float
    r_cx1: float
    r_ex1: float
    r_hx1: float
    p_cy1: float
    p_dy1: float
    p_dy3: float
    p_ey1: float
    p_ky1: float
    p_hy1: float
    p_hy3: float
    p_vy1: float
    p_vy3: float
    r_by1: float
    r_by2: float
    r_by3: float
    r_cy1: float
    r_ey1: float
    r_hy1: float
    r_vy1: float
    r_vy3: float
    r_vy4: float
    r_vy5: float
    r_vy6: float


@dataclass(frozen=True)
class VehicleParams:
    """One CommonRoad vehicle: body, masses, inertias, suspension, tire (reference names)."""

    vehicle_id: int
    name: str
    l: float  # body length [m]
    w: float  # body width [m]
    steering: SteeringParams
    longitudinal: LongitudinalParams
    m: float  # total mass [kg]
    m_s: float  # sprung mass [kg]
    m_uf: float  # unsprung mass front [kg]
    m_ur: float  # unsprung mass rear [kg]
    a: float  # CoG to front axle [m]
    b: float  # CoG to rear axle [m]
    I_Phi_s: float  # sprung-mass roll inertia [kg m^2]
    I_y_s: float  # sprung-mass pitch inertia [kg m^2]
    I_z: float  # yaw inertia [kg m^2]
    I_xz_s: float  # roll-yaw product of inertia [kg m^2]
    K_sf: float  # suspension spring rate front [N/m]
    K_sdf: float  # suspension damping front [N s/m]
    K_sr: float  # suspension spring rate rear [N/m]
    K_sdr: float  # suspension damping rear [N s/m]
    T_f: float  # track width front [m]
    T_r: float  # track width rear [m]
    K_ras: float  # lateral spring rate of the compliant pin joint [N/m]
    K_tsf: float  # auxiliary torsion roll stiffness front [N m/rad]
    K_tsr: float  # auxiliary torsion roll stiffness rear [N m/rad]
    K_rad: float  # damping rate of the compliant pin joint [N s/m]
    K_zt: float  # vertical tire spring rate [N/m]
    h_cg: float  # CoG height of the total mass [m]
    h_raf: float  # roll axis height front [m]
    h_rar: float  # roll axis height rear [m]
    h_s: float  # sprung-mass CoG height [m]
    I_uf: float  # unsprung roll inertia front [kg m^2]
    I_ur: float  # unsprung roll inertia rear [kg m^2]
    I_y_w: float  # wheel spin inertia [kg m^2]
    K_lt: float  # lateral tire compliance [m/N]
    R_w: float  # effective wheel radius [m]
    T_sb: float  # front share of brake torque [-]
    T_se: float  # front share of engine torque [-]
    D_f: float  # camber per suspension travel front [rad/m]
    D_r: float  # camber per suspension travel rear [rad/m]
    E_f: float  # quadratic camber coefficient front
    E_r: float  # quadratic camber coefficient rear
    tire: TireParams


# ----------------------------------------------------------------------------- valid ranges


@dataclass(frozen=True)
class Range:
    """The values a parameter may take: always finite, and between ``lo`` and ``hi``.

    ``None`` leaves a side unbounded; ``lo_open``/``hi_open`` exclude the bound itself
    (a parameter something divides by is ``> 0``, not ``>= 0``).
    """

    lo: float | None
    hi: float | None
    lo_open: bool = False
    hi_open: bool = False

    def check(self, value: object, label: str) -> float:
        """``value`` as a float, or a DefinitionError that starts with ``label``, saying why."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DefinitionError(f"{label} must be a number, not {type(value).__name__}")
        v = float(value)
        if not math.isfinite(v):
            raise DefinitionError(f"{label} must be finite, not {v!r}")
        lo, hi = self.lo, self.hi
        if lo is not None and (v < lo or (v == lo and self.lo_open)):
            bound = f"{'>' if self.lo_open else '>='} {lo:g}"
            raise DefinitionError(f"{label} must be {bound}, not {v!r}")
        if hi is not None and (v > hi or (v == hi and self.hi_open)):
            bound = f"{'<' if self.hi_open else '<='} {hi:g}"
            raise DefinitionError(f"{label} must be {bound}, not {v!r}")
        return v


def checked_values(data: Mapping, ranges: Mapping[str, Range], label: str) -> dict[str, float]:
    """Exactly the parameters ``ranges`` names, each checked against its range, by name.

    ``label`` starts every message (``"powertrain parameter "``): an unknown or missing
    name is refused as such, so a misspelt parameter never falls back to anything.
    """
    for name in data:
        if name not in ranges:
            raise DefinitionError(f"{label}{name} is unknown")
    values = {}
    for name, rng in ranges.items():
        if name not in data:
            raise DefinitionError(f"{label}{name} is missing")
        values[name] = rng.check(data[name], f"{label}{name}")
    return values


def positive(hi: float | None = None) -> Range:
    """``(0, hi]``: something divides by it, or only a positive value means anything."""
    return Range(0.0, hi, lo_open=True)


def non_negative(hi: float | None = None) -> Range:
    """``[0, hi]``: zero switches the effect off; a negative value has no meaning."""
    return Range(0.0, hi)


def within(lo: float, hi: float) -> Range:
    """``[lo, hi]``."""
    return Range(lo, hi)


def magnitude(hi: float) -> Range:
    """``[-hi, hi]``: either sign is meaningful; the bound keeps the arithmetic finite."""
    return Range(-hi, hi)


#: Acceleration of gravity [m/s^2], as the models use it (for the axle-load check).
G = 9.81

# The upper bounds are generous physical limits (from a few times to thousands of times
# the three reference vehicles' values), not tuning advice. They keep every product in the
# model equations far from overflow, so an absurd value is refused here, by name, instead
# of turning into NaN or a math domain error inside an RK4 substep. The stiffness and
# damping bounds are also where MB's explicit RK4 (1 ms substeps) stays stable: each
# range's ends, alone with vehicle 2's other values, replay the scripted drive's first 50
# host steps in every model. No set of ranges makes every combination stable: one that is
# not is reported by the daemon's finiteness check (NonFiniteStateError, naming the field).
_LENGTH = 20.0  # [m] CoG-to-axle distances, body length
_MASS = 1.0e4  # [kg]
_INERTIA = 1.0e6  # [kg m^2]
_SPRING = 1.0e8  # [N/m]
_DAMPER = 3.0e4  # [N s/m]
_ROLL_STIFFNESS = 1.0e5  # [N m/rad]
_SPEED = 200.0  # [m/s]
_COEFFICIENT = 1000.0  # dimensionless Magic Formula coefficients

#: Valid range of every numeric vehicle parameter, by path (``tire/p_dy1``).
VEHICLE_RANGES: dict[str, Range] = {
    # body (the models do not use these; reference data)
    "l": positive(_LENGTH),
    "w": positive(10.0),
    # steering angle limits stay inside +-1.5 rad, where tan(delta) is finite
    "steering/min": within(-1.5, 0.0),
    "steering/max": within(0.0, 1.5),
    "steering/v_min": within(-100.0, 0.0),
    "steering/v_max": within(0.0, 100.0),
    "steering/kappa_dot_max": non_negative(),  # not used by the models
    "steering/kappa_dot_dot_max": non_negative(),  # not used by the models
    "longitudinal/v_min": within(-_SPEED, 0.0),
    "longitudinal/v_max": positive(_SPEED),
    # above v_switch the limit is a_max v_switch / v: v_switch > 0 keeps v away from 0
    "longitudinal/v_switch": positive(_SPEED),
    "longitudinal/a_max": positive(100.0),
    "longitudinal/j_max": non_negative(),  # not used by the models
    "longitudinal/j_dot_max": non_negative(),  # not used by the models
    # masses and inertias divide the equations of motion
    "m": positive(_MASS),
    "m_s": positive(_MASS),
    "m_uf": positive(_MASS),
    "m_ur": positive(_MASS),
    "a": positive(_LENGTH),
    "b": positive(_LENGTH),
    "I_Phi_s": positive(_INERTIA),
    "I_y_s": positive(_INERTIA),
    "I_z": positive(_INERTIA),
    "I_xz_s": magnitude(_INERTIA),  # and I_xz_s^2 < I_z I_Phi_s (checked with the others)
    "K_sf": positive(_SPRING),
    "K_sdf": non_negative(_DAMPER),
    "K_sr": positive(_SPRING),
    "K_sdr": non_negative(_DAMPER),
    "T_f": positive(5.0),  # track widths divide the roll-stiffness moments
    "T_r": positive(5.0),
    "K_ras": positive(_SPRING),
    # a roll stiffness is negative in the reference's sign convention (its vehicles have
    # -6.9e3 to -3.4e4); a positive one destabilises the roll
    "K_tsf": within(-_ROLL_STIFFNESS, 0.0),
    "K_tsr": within(-_ROLL_STIFFNESS, 0.0),
    "K_rad": non_negative(_DAMPER),
    "K_zt": positive(_SPRING),
    "h_cg": positive(10.0),  # not used by the models
    "h_raf": magnitude(2.0),
    "h_rar": magnitude(2.0),
    "h_s": positive(10.0),
    "I_uf": positive(_INERTIA),
    "I_ur": positive(_INERTIA),
    "I_y_w": positive(_INERTIA),
    "K_lt": non_negative(1.0e-3),  # [m/N]: 5 m of compliance at 5 kN
    "R_w": positive(2.0),
    "T_sb": within(0.0, 1.0),
    "T_se": within(0.0, 1.0),
    "D_f": magnitude(100.0),  # [rad/m]
    "D_r": magnitude(100.0),
    "E_f": magnitude(1000.0),  # [rad/m^2]
    "E_r": magnitude(1000.0),
    # Magic Formula: shape factors C and peak friction D divide the stiffness factor B;
    # mu (1 - p_d3 gamma^2) stays positive at every camber only with p_dx3, p_dy3 <= 0;
    # the curvature factors E are <= 1 (Pacejka); a positive cornering stiffness needs
    # p_ky1 <= 0 (ST's C_S = -p_ky1 / p_dy1).
    "tire/p_cx1": positive(10.0),
    "tire/p_dx1": positive(10.0),
    "tire/p_dx3": within(-_COEFFICIENT, 0.0),
    "tire/p_ex1": within(-_COEFFICIENT, 1.0),
    "tire/p_kx1": magnitude(_COEFFICIENT),
    "tire/p_hx1": magnitude(1.0),
    "tire/p_vx1": magnitude(1.0),
    "tire/r_bx1": magnitude(_COEFFICIENT),
    "tire/r_bx2": magnitude(_COEFFICIENT),
    "tire/r_cx1": positive(10.0),
    "tire/r_ex1": within(-_COEFFICIENT, 1.0),
    "tire/r_hx1": magnitude(1.0),
    "tire/p_cy1": positive(10.0),
    "tire/p_dy1": positive(10.0),
    "tire/p_dy3": within(-_COEFFICIENT, 0.0),
    "tire/p_ey1": within(-_COEFFICIENT, 1.0),
    "tire/p_ky1": within(-_COEFFICIENT, 0.0),
    "tire/p_hy1": magnitude(1.0),
    "tire/p_hy3": magnitude(_COEFFICIENT),
    "tire/p_vy1": magnitude(1.0),
    "tire/p_vy3": magnitude(1.0),
    "tire/r_by1": magnitude(_COEFFICIENT),
    "tire/r_by2": magnitude(_COEFFICIENT),
    "tire/r_by3": magnitude(1.0),
    "tire/r_cy1": positive(10.0),
    "tire/r_ey1": within(-_COEFFICIENT, 1.0),
    "tire/r_hy1": magnitude(1.0),
    "tire/r_vy1": magnitude(1.0),
    "tire/r_vy3": magnitude(1.0),
    "tire/r_vy4": magnitude(_COEFFICIENT),
    "tire/r_vy5": magnitude(_COEFFICIENT),
    "tire/r_vy6": magnitude(_COEFFICIENT),
}

#: The nested parameter blocks of :class:`VehicleParams`, by field name.
BLOCKS: dict[str, type] = {
    "steering": SteeringParams,
    "longitudinal": LongitudinalParams,
    "tire": TireParams,
}


def _vehicle_label(path: str) -> str:
    return f"vehicle parameter {path}"


def _build_block(cls: type, data: Mapping, prefix: str) -> Any:
    if not isinstance(data, Mapping):
        raise DefinitionError(f"{_vehicle_label(prefix.rstrip('/'))} must be an object")
    kwargs: dict[str, object] = {}
    for f in fields(cls):
        path = prefix + f.name
        if f.name not in data:
            raise DefinitionError(f"{_vehicle_label(path)} is missing")
        v = data[f.name]
        if f.name in BLOCKS:
            kwargs[f.name] = _build_block(BLOCKS[f.name], v, path + "/")
        elif f.name == "vehicle_id":
            if isinstance(v, bool) or not isinstance(v, int) or v not in VEHICLES:
                raise DefinitionError(f"{_vehicle_label(path)} must be one of {list(VEHICLES)}")
            kwargs[f.name] = v
        elif f.name == "name":
            if not isinstance(v, str):
                raise DefinitionError(f"{_vehicle_label(path)} must be a string")
            kwargs[f.name] = v
        else:
            kwargs[f.name] = VEHICLE_RANGES[path].check(v, _vehicle_label(path))
    return cls(**kwargs)


def _check_combined(p: VehicleParams) -> None:
    """The conditions no single range can state; each guards a division of the models."""
    if not p.I_xz_s * p.I_xz_s < p.I_z * p.I_Phi_s:
        # MB divides by I_z - I_xz^2 / I_Phi and I_Phi - I_xz^2 / I_z
        raise DefinitionError(
            f"vehicle parameter I_xz_s must satisfy I_xz_s^2 < I_z I_Phi_s, not {p.I_xz_s!r}"
        )
    for axle, lever in (("front", p.b), ("rear", p.a)):
        # the single-track axle load m (g lever -+ u h_s) / l must stay positive up to
        # |u| = a_max: the tire formula divides by it, and a lifted axle is outside the models
        if not p.longitudinal.a_max * p.h_s < G * lever:
            raise DefinitionError(
                f"vehicle parameter h_s must satisfy longitudinal/a_max h_s < g "
                f"{'b' if axle == 'front' else 'a'} (the {axle} axle keeps its load at "
                f"the acceleration limit), not {p.h_s!r}"
            )


def build_vehicle_params(data: Mapping) -> VehicleParams:
    """A validated :class:`VehicleParams` from its plain data (a data file, a recording).

    Every numeric parameter is checked against :data:`VEHICLE_RANGES` and the combined
    conditions once, here, so the models never divide by zero or overflow on a bad value;
    the DefinitionError names the parameter (``vehicle parameter tire/p_dy1 must be > 0,
    not 0.0``). Keys the dataclass does not have are ignored (a data file's ``_source``).
    """
    p: VehicleParams = _build_block(VehicleParams, data, "")
    _check_combined(p)
    return p


def vehicle_id(id_or_name: int | str) -> int:
    """The id for ``1``/``"1"``/``"vehicle1"``/``"BMW 320i"`` (DefinitionError otherwise)."""
    if isinstance(id_or_name, int) and not isinstance(id_or_name, bool):
        if id_or_name in VEHICLES:
            return id_or_name
    elif isinstance(id_or_name, str):
        key = id_or_name.strip().lower()
        for vid, (stem, name) in VEHICLES.items():
            if key in (str(vid), stem, name.lower()):
                return vid
    known = ", ".join(f"{vid} ({name})" for vid, (_, name) in VEHICLES.items())
    raise DefinitionError(f"unknown CommonRoad vehicle {id_or_name!r}; known: {known}")


def vehicle_data(id_or_name: int | str) -> dict:
    """The raw JSON data of a vehicle (a fresh dict)."""
    stem = VEHICLES[vehicle_id(id_or_name)][0]
    with open(_DIR / f"{stem}.json", encoding="utf-8") as fh:
        return json.load(fh)


def load_vehicle(id_or_name: int | str) -> VehicleParams:
    """The parameter set of CommonRoad vehicle 1, 2 or 3."""
    vid = vehicle_id(id_or_name)
    return build_vehicle_params(vehicle_data(vid))


def load_data_file(name: str) -> dict:
    """A JSON data file from ``engine/commonroad/data/`` (powertrain, safety profiles)."""
    with open(_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)
