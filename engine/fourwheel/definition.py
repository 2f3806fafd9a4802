"""Vehicle definitions: the schema, validation, the presets and the definition hash.

A vehicle definition is plain JSON data (``engine/fourwheel/presets/<name>.json``):
nested objects of named numeric parameters in SI units (the unit is part of
the parameter name: ``_kg``, ``_m``, ``_nm`` = N·m, ``_n_per_m``,
``_nm_per_rad``, ``_deg``, ``_mps``, ``_w``, ``_hz``; bare names are
dimensionless). :data:`SCHEMA` lists every parameter with its bounds;
:func:`validate_definition` checks a definition against it and returns a
normalised copy (every number a float, ``substep_hz`` an int), raising
:class:`~engine.errors.DefinitionError` with the parameter path on the first
problem (``tires.front.mu_x: must be > 0``). Unknown parameters are errors
too: a misspelt parameter must not silently fall back to anything.

A tire is the engine's own (the parameters of :mod:`engine.fourwheel.tire`) or embeds a
Magic Formula 6.1 parameter set (``mf61``, checked like a ``.tir`` file; a preset may name
its file with ``"tir"``, embedded on loading; :func:`with_tir` puts a file's tire on both
axles of a definition).

Geometry conventions (ISO 8855): x forward, y left, z up. The centre of
gravity (CoG) lies ``mass.cog_to_front_axle_m`` behind the front axle, on
the centre line. Toe-in is positive. Brake bias is the front share of the
service brake torque. ``drivetrain`` (power unit, clutch, gearbox, layout)
is validated by :func:`engine.fourwheel.drive.validate` and the optional ``assists``
block (all off when absent) by :func:`engine.fourwheel.assists.validate`.

:func:`definition_hash` is the 16-hex-digit SHA-256 of the canonical JSON
(``sort_keys``, separators ``(",", ":")``, ``ensure_ascii=False``, UTF-8) of
the normalised definition, so ``1250`` and ``1250.0`` hash alike.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import compliance
from skidpad.engine.state import hash_bytes

PRESET_NAMES: tuple[str, ...] = (
    "hatchbackFwd",
    "sportsRwd",
    "kart",
    "pickup4x4",
    "crossoverEv",
    "openWheeler",
    "hatchbackMf61",
)

_PRESET_DIR = Path(__file__).resolve().parent / "presets"

#: The substep rates a definition (and a run of it) may use, inclusive, in Hz.
SUBSTEP_HZ_MIN = 100
SUBSTEP_HZ_MAX = 20000

# (lower bound, lower inclusive, upper bound, upper inclusive); None = unbounded.
_FRACTION = (0.0, True, 1.0, True)


def _rng(lo: float | None, hi: float | None, lo_inc: bool = True, hi_inc: bool = True) -> tuple:
    return (lo, lo_inc, hi, hi_inc)


# Upper bounds where a larger value overflows the arithmetic of the first substep (the
# state turns NaN): generous physical limits, far past any road or race vehicle.
_MASS_KG = _rng(0.0, 1.0e5, False, True)
_WHEELBASE_M = _rng(0.0, 20.0, False, True)
_TRACK_M = _rng(0.0, 10.0, False, True)


def _upto(hi: float, lo_inc: bool = False) -> tuple:
    """Positive (or, with ``lo_inc``, non-negative) and at most ``hi``.

    Every parameter has an upper bound, so an untrusted definition cannot hand the
    first substep a value that only a typo or an attack produces; the bounds are
    generous physical limits (a 100 t vehicle, a mining truck's tyre), not tuning advice.
    """
    return _rng(0.0, hi, lo_inc, True)


_INERTIA_KGM2 = _upto(1.0e7)


_TIRE_SCHEMA = {
    "radius_m": _upto(2.5),
    "wheel_inertia_kgm2": _upto(1.0e4),
    "nominal_load_n": _upto(1.0e6),
    "mu_x": _upto(5.0),
    "mu_y": _upto(5.0),
    "load_sensitivity": _rng(-0.5, 0.0),
    "long_stiffness_per_load": _upto(200.0),
    "cornering_stiffness_coef": _upto(200.0),
    "cornering_stiffness_peak_load": _upto(20.0),
    "shape_c": _rng(1.0, 1.9, False, True),
    "shape_e": _rng(-5.0, 1.0),
    "sliding_slip": _upto(100.0),
    "relaxation_length_x_m": _upto(10.0),
    "relaxation_length_y_m": _upto(10.0),
    "low_speed_damping_ratio": _rng(0.0, 2.0),
    "damping_fade_speed_mps": _upto(50.0),
    "pneumatic_trail_m": _upto(0.5, lo_inc=True),
    "trail_decay_slip": _upto(100.0),
    "rolling_resistance": _rng(0.0, 0.1),
}

#: A Magic Formula 6.1 tire (``engine.fourwheel.tire.mf61_patch_terms``): its parameters
#: embedded under ``mf61`` (a ``.tir`` file's keys, :mod:`engine.fourwheel.tir`; a preset may
#: name its file instead, ``"tir": "<file in engine/fourwheel/tires/>"``), and what the wheel
#: and the contact-patch model need besides: the loaded radius, the wheel's inertia, the
#: sliding slip (of the normalised slip ``sqrt((Bx·κ)² + (By·tan α)²)``) and the low-speed
#: damper. Everything else of the force law is the file's.
_MF61_TIRE_SCHEMA = {
    key: _TIRE_SCHEMA[key]
    for key in (
        "radius_m",
        "wheel_inertia_kgm2",
        "sliding_slip",
        "low_speed_damping_ratio",
        "damping_fade_speed_mps",
    )
}

#: The engine's tire's camber stiffness per newton of load, C_γ (1/rad: F_yγ = C_γ·F_z·ι at
#: small slip, :mod:`engine.fourwheel.tire`); optional, and needed where the axle has
#: kinematics (:func:`_check_consistency`). Radial car tires: about 0.6-1.2 (Pacejka, *Tire
#: and Vehicle Dynamics*, §1.3; the shipped MF 6.1 file's PKY6 is 0.83).
CAMBER_STIFFNESS = _rng(0.0, 5.0)

_AXLE_SUSPENSION_SCHEMA = {
    "wheel_rate_n_per_m": _upto(1.0e7),
    "damper_rate_ns_per_m": _upto(1.0e6, lo_inc=True),
    "anti_roll_bar_nm_per_rad": _upto(1.0e7, lo_inc=True),
    "roll_centre_height_m": _upto(5.0, lo_inc=True),
}

#: ``steering.system`` is optional (:func:`engine.fourwheel.steering.validate_system`).
_STEERING_SCHEMA = {
    "max_angle_deg": _rng(0.0, 60.0, False, True),
    "ackermann": _FRACTION,
    "toe_front_deg": _rng(-2.0, 2.0),
    "toe_rear_deg": _rng(-2.0, 2.0),
    "compliance_deg_per_knm": _rng(0.0, 5.0),
    "compliance_time_s": _upto(10.0),
    "jacking_n_per_rad": _upto(1.0e6, lo_inc=True),
}

#: A suspension's lateral compliance at the contact patch (mm/kN, as a K&C rig reports it;
#: optional): in series with the carcass it lengthens the lateral relaxation length by
#: ``C_α(F_z)·c_y`` (:func:`engine.fourwheel.tire.load_terms`). Passenger cars: about 0.5-2.
LATERAL_COMPLIANCE = _rng(0.0, 20.0)


def _steering_system(value: object, path: str) -> dict:
    from skidpad.engine.fourwheel import steering

    return steering.validate_system(value, path)


def _kinematics(value: object, path: str) -> dict:
    from skidpad.engine.fourwheel import kinematics

    return kinematics.validate(value, path)



#: Every parameter of a definition: nested dicts end in bound tuples.
SCHEMA: dict = {
    "mass": {
        "total_kg": _MASS_KG,
        "unsprung_front_kg": _upto(5.0e4, lo_inc=True),
        "unsprung_rear_kg": _upto(5.0e4, lo_inc=True),
        "cog_height_m": _upto(5.0),
        "cog_to_front_axle_m": _upto(20.0),
        "yaw_inertia_kgm2": _INERTIA_KGM2,
        "roll_inertia_kgm2": _INERTIA_KGM2,
        "pitch_inertia_kgm2": _INERTIA_KGM2,
    },
    "geometry": {
        "wheelbase_m": _WHEELBASE_M,
        "track_front_m": _TRACK_M,
        "track_rear_m": _TRACK_M,
    },
    "suspension": {
        "front": _AXLE_SUSPENSION_SCHEMA,
        "rear": _AXLE_SUSPENSION_SCHEMA,
        "anti_brake": _FRACTION,
        "anti_drive": _FRACTION,
    },
    "steering": _STEERING_SCHEMA,
    "tires": {"front": _TIRE_SCHEMA, "rear": _TIRE_SCHEMA},
    "brakes": {
        "max_torque_nm": _upto(1.0e6),
        "front_bias": _FRACTION,
        "handbrake_torque_nm": _upto(1.0e6, lo_inc=True),
    },
    "aero": {
        "air_density_kg_per_m3": _upto(5.0),
        "drag_area_m2": _upto(100.0, lo_inc=True),
        "downforce_area_m2": _rng(-100.0, 100.0),
        "downforce_front_share": _FRACTION,
    },
}


_AXLE_OPTIONAL = {"kinematics": _kinematics, "lateral_compliance_mm_per_kn": LATERAL_COMPLIANCE}
_TIRE_OPTIONAL = {
    "camber_stiffness_per_load": CAMBER_STIFFNESS,
    "relaxation_y_load_share": _FRACTION,
}

#: The optional entries of each section, by its path: a mechanism that is off when absent,
#: so definitions without it keep their hash. Bounds, or a validator ``(value, path)``.
OPTIONAL: dict = {
    "suspension.front": _AXLE_OPTIONAL | {"compliance_steer": compliance.refuse_front},
    "suspension.rear": _AXLE_OPTIONAL | {"compliance_steer": compliance.validate},
    "steering": {"system": _steering_system},
    "tires.front": _TIRE_OPTIONAL,
    "tires.rear": _TIRE_OPTIONAL,
}


#: Sections with their own validators (structured data: lists, types, optional blocks):
#: ``drivetrain`` (:func:`engine.fourwheel.drive.validate`) and ``assists``
#: (:func:`engine.fourwheel.assists.validate`).
_STRUCTURED = ("drivetrain", "assists")


def _check_structured(key: str, value: object) -> dict:
    from skidpad.engine.fourwheel import assists, drive

    return drive.validate(value, key) if key == "drivetrain" else assists.validate(value, key)


_TOP_LEVEL_EXTRA = ("name", "description", "substep_hz", "sources")


def _fail(path: str, message: str) -> None:
    raise DefinitionError(f"{path}: {message}")


def _check_number(path: str, value: object, bounds: tuple) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, f"must be a number, not {type(value).__name__}")
    if isinstance(value, int) and value.bit_length() > 1023:
        _fail(path, f"must be finite, not an integer of {value.bit_length()} bits")
    v = float(value)
    if not math.isfinite(v):
        _fail(path, "must be finite")
    lo, lo_inc, hi, hi_inc = bounds
    if lo is not None and (v < lo or (v == lo and not lo_inc)):
        _fail(path, f"must be {'>=' if lo_inc else '>'} {lo:g}, got {v!r}")
    if hi is not None and (v > hi or (v == hi and not hi_inc)):
        _fail(path, f"must be {'<=' if hi_inc else '<'} {hi:g}, got {v!r}")
    return v


def _check_section(path: str, data: object, schema: dict, optional: dict | None = None) -> dict:
    """Section ``data`` at ``path`` against its ``schema`` and its optional entries (``None``:
    :data:`OPTIONAL`'s for the path)."""
    if schema is _TIRE_SCHEMA and isinstance(data, dict) and "mf61" in data:
        return _check_mf61_tire(path, data)
    if not isinstance(data, dict):
        _fail(path, f"must be an object, not {type(data).__name__}")
    out = {}
    for key, sub in schema.items():
        sub_path = f"{path}.{key}"
        if key not in data:
            _fail(sub_path, "is missing")
        if isinstance(sub, dict):
            out[key] = _check_section(sub_path, data[key], sub)
        else:
            out[key] = _check_number(sub_path, data[key], sub)
    if optional is None:
        optional = OPTIONAL.get(path, {})
    for key in data:
        if key in optional:  # absent, the mechanism is off (and the definition's hash unchanged)
            check = optional[key]
            sub_path = f"{path}.{key}"
            if callable(check):
                out[key] = check(data[key], sub_path)
            else:
                out[key] = _check_number(sub_path, data[key], check)
        elif key not in schema:
            _fail(f"{path}.{key}", "unknown parameter")
    return out


def _check_mf61_tire(path: str, data: dict) -> dict:
    """An MF 6.1 tire: :data:`_MF61_TIRE_SCHEMA` and its embedded parameters, checked as a
    ``.tir`` file is (``engine.fourwheel.tir.from_mapping``) and normalised."""
    from skidpad.engine.fourwheel import tir

    # (no optional entries: its camber stiffness and relaxation lengths are its file's)
    own = {k: v for k, v in data.items() if k != "mf61"}
    out = _check_section(path, own, _MF61_TIRE_SCHEMA, optional={})
    try:
        params = tir.from_mapping(data["mf61"], f"{path}.mf61")
    except tir.TirError as exc:
        raise DefinitionError(str(exc)) from None
    out["mf61"] = tir.to_mapping(params)
    return out


def _shape_of(t: dict) -> tuple[float, float]:
    """A tire's lateral shape factor C and curvature E at its nominal load."""
    mf = t.get("mf61")
    if mf is None:
        return t["shape_c"], t["shape_e"]
    c = mf.get("PCY1", 0.0) * mf.get("LCY", 1.0)
    return c, min(mf.get("PEY1", 0.0) * mf.get("LEY", 1.0), 1.0)


def with_tir(d: dict, mapping: dict) -> dict:
    """Definition ``d`` with both axles' tires given the MF 6.1 parameters ``mapping``
    (:func:`engine.fourwheel.tir.to_mapping` of a ``.tir`` file), each keeping its radius,
    inertia, sliding slip and low-speed damper; validated."""
    out = copy.deepcopy(d)
    for axle in ("front", "rear"):
        t = out["tires"][axle]
        out["tires"][axle] = {k: t[k] for k in _MF61_TIRE_SCHEMA} | {"mf61": dict(mapping)}
    if "sources" in out:  # the ranges stated for the tires it had no longer apply
        stated = out["sources"]
        out["sources"] = {path: v for path, v in stated.items() if not path.startswith("tires.")}
    return validate_definition(out)


def _check_consistency(d: dict) -> None:
    """Cross-parameter rules the per-parameter bounds cannot express."""
    m = d["mass"]
    g = d["geometry"]
    if m["cog_to_front_axle_m"] >= g["wheelbase_m"]:
        _fail("mass.cog_to_front_axle_m", "must be < geometry.wheelbase_m")
    if m["unsprung_front_kg"] + m["unsprung_rear_kg"] >= 0.5 * m["total_kg"]:
        _fail(
            "mass.unsprung_front_kg + mass.unsprung_rear_kg",
            "unsprung mass must be < half of mass.total_kg",
        )
    for axle in ("front", "rear"):
        t = d["tires"][axle]
        c, e = _shape_of(t)
        if not 1.0 < c < 2.0:  # (a brush tire's bounds say so; a .tir may give any C)
            _fail(f"tires.{axle}.mf61.PCY1", f"the lateral shape factor must be in (1, 2): {c!r}")
        peak = _peak_slip(c, e)
        if t["sliding_slip"] <= peak:
            _fail(f"tires.{axle}.sliding_slip", f"must lie past the force peak (> {peak:.4g})")
        if t["radius_m"] >= m["cog_height_m"] * 4.0 + 1.0:
            _fail(f"tires.{axle}.radius_m", "implausibly large against mass.cog_height_m")
    sf = d["suspension"]
    for axle in ("front", "rear"):
        if sf[axle]["roll_centre_height_m"] >= m["cog_height_m"]:
            _fail(f"suspension.{axle}.roll_centre_height_m", "must be below mass.cog_height_m")
        t = d["tires"][axle]
        if "kinematics" in sf[axle] and "mf61" not in t and "camber_stiffness_per_load" not in t:
            _fail(
                f"tires.{axle}.camber_stiffness_per_load",
                f"is missing (suspension.{axle}.kinematics cambers the wheel)",
            )
    _check_rear_compliance(d)


def _check_rear_compliance(d: dict) -> None:
    """The rear compliance steer's loop gain within its valid range
    (:func:`engine.fourwheel.compliance.check_loop_gain`)."""
    if "compliance_steer" not in d["suspension"]["rear"]:
        return
    from skidpad.engine.fourwheel import load_transfer, tire

    _front, rear = load_transfer.static_loads(load_transfer.constants(d), load_transfer.G)
    compliance.check_loop_gain(d, tire.cornering_stiffness(d["tires"]["rear"], 2.0 * rear))


def _peak_slip(c: float, e: float) -> float:
    """The normalised slip ρ of the Magic-Formula force peak: ψ(ρ) = tan(π/2C), by bisection."""
    # Outside the hot path and not part of any state: evaluated with smath.
    from skidpad.engine import smath

    target = smath.tan(1.5707963267948966 / c)
    lo, hi = 0.0, 1.0
    while hi - e * (hi - smath.atan(hi)) < target:
        hi *= 2.0
        if hi > 1e6:
            return hi
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if mid - e * (mid - smath.atan(mid)) < target:
            lo = mid
        else:
            hi = mid
    return hi


def validate_definition(d: dict) -> dict:
    """A normalised, validated copy of ``d``; DefinitionError names the first bad parameter."""
    if not isinstance(d, dict):
        raise DefinitionError(f"definition: must be an object, not {type(d).__name__}")
    name = d.get("name")
    if not isinstance(name, str) or not name:
        _fail("name", "must be a non-empty string")
    desc = d.get("description", "")
    if not isinstance(desc, str):
        _fail("description", "must be a string")
    hz = d.get("substep_hz", 1000)
    if (
        isinstance(hz, bool)
        or not isinstance(hz, int)
        and not (isinstance(hz, float) and math.isfinite(hz) and hz == int(hz))
    ):
        _fail("substep_hz", "must be an integer")
    hz = int(hz)
    if not SUBSTEP_HZ_MIN <= hz <= SUBSTEP_HZ_MAX:
        _fail("substep_hz", f"must be between {SUBSTEP_HZ_MIN} and {SUBSTEP_HZ_MAX}, got {hz}")
    for key in d:
        if key not in SCHEMA and key not in _TOP_LEVEL_EXTRA and key not in _STRUCTURED:
            _fail(key, "unknown parameter")
    out: dict = {"name": name, "description": desc, "substep_hz": hz}
    for key, sub in SCHEMA.items():
        if key not in d:
            _fail(key, "is missing")
        out[key] = _check_section(key, d[key], sub)
    for key in _STRUCTURED:
        if key not in d and key == "drivetrain":
            _fail(key, "is missing")
        out[key] = _check_structured(key, d.get(key))
    _check_consistency(out)
    if "sources" in d:  # the ranges and sources it states (checked against the values)
        from skidpad.engine.fourwheel import sources

        out["sources"] = sources.validate(d["sources"], out)
    return out


def load_preset(name: str) -> dict:
    """The validated definition of preset ``name`` (DefinitionError for an unknown name)."""
    if name not in PRESET_NAMES:
        raise DefinitionError(f"unknown preset {name!r}; known presets: {', '.join(PRESET_NAMES)}")
    path = _PRESET_DIR / f"{name}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DefinitionError(f"preset {name}: cannot read {path.name}: {exc}") from None
    for t in raw["tires"].values():
        if "tir" in t:  # the preset names its .tir: the definition embeds the parameters
            t["mf61"] = _shipped_tir(t.pop("tir"))
    return validate_definition(raw)


#: The folder of the ``.tir`` files the presets name.
TIRES_DIR = Path(__file__).resolve().parent / "tires"


def _shipped_tir(file_name: str) -> dict:
    """The parameters of a shipped ``.tir`` file, as a definition embeds them."""
    from skidpad.engine.fourwheel import tir

    return tir.to_mapping(tir.read_tir(TIRES_DIR / file_name))


def canonical_json(d: dict) -> str:
    """The canonical JSON text of a definition (what the hash is taken over)."""
    return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def definition_hash(d: dict) -> str:
    """16 hex digits of SHA-256 over the canonical JSON of the normalised definition."""
    return hash_bytes(canonical_json(validate_definition(copy.deepcopy(d))).encode("utf-8"))
