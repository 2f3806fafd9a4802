"""CommonRoad vehicle parameter sets (vehicles 1-3) as plain, immutable data.

The values live in ``engine/commonroad/data/vehicle<N>.json``; they are the
reference package's own data (commonroad-vehicle-models 3.0.2, BSD-3-Clause),
copied exactly and checked against it by ``tests/test_commonroad_parity.py``
(ADR 0060). All units are SI: m, kg, s, rad, N; stiffnesses N/m, dampings
N s/m, inertias kg m^2. Names follow the reference (``I_z``, ``K_sf``, ``R_w``,
``p_dy1`` ...) so the model modules read like the published equations.

``load_vehicle(id_or_name)`` returns a :class:`VehicleParams` whose
``steering``, ``longitudinal`` and ``tire`` members are namespaces of the
matching blocks.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from pathlib import Path

from engine.errors import DefinitionError

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


def _build(cls, data: dict, where: str):
    kwargs = {}
    for f in fields(cls):
        if f.name not in data:
            raise DefinitionError(f"{where}.{f.name}: missing")
        v = data[f.name]
        if f.name == "steering":
            v = _build(SteeringParams, v, f"{where}.steering")
        elif f.name == "longitudinal":
            v = _build(LongitudinalParams, v, f"{where}.longitudinal")
        elif f.name == "tire":
            v = _build(TireParams, v, f"{where}.tire")
        elif f.name == "vehicle_id":
            v = int(v)
        elif f.name == "name":
            v = str(v)
        else:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise DefinitionError(f"{where}.{f.name}: must be a number")
            v = float(v)
            if not math.isfinite(v):
                raise DefinitionError(f"{where}.{f.name}: must be finite")
        kwargs[f.name] = v
    return cls(**kwargs)


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
    return _build(VehicleParams, vehicle_data(vid), VEHICLES[vid][0])


def load_data_file(name: str) -> dict:
    """A JSON data file from ``engine/commonroad/data/`` (powertrain, safety profiles)."""
    with open(_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)
