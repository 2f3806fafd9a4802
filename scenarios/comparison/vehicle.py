"""Our four-wheel definition of CommonRoad vehicle 2 (BMW 320i), built from its parameters.

:func:`build_definition` reads the reference data through
:func:`engine.commonroad.params.load_vehicle` (the same numbers the MB port
runs with) and maps every parameter our model has a place for. Where the two
models describe the car differently, the mapping converts so that the
*physics* agrees, not the names; where our model needs a value the reference
package does not give, the value is an estimate. Every value is listed in
:data:`MAPPING` (mapped: formula and source) or :data:`ESTIMATES` (estimated:
value and reason); ``docs/comparison.md`` prints both tables and ADR 0190
explains them.

Conversions (the reference's names on the right, SI units):

* mass: MB places the sprung mass ``m_s`` at ``a``/``b`` and height ``h_s``
  and the two unsprung masses on the axles at wheel-centre height ``R_w``; our
  definition gives the total mass's CoG and derives the sprung CoG from it, so
  ``cog_to_front_axle_m = (m_s·a + m_ur·L)/m`` and
  ``cog_height_m = (m_s·h_s + (m_uf + m_ur)·R_w)/m`` (our derived sprung CoG is
  then exactly MB's). The reference's own ``h_cg`` (0.575 m) is not what MB
  integrates with and is not used.
* roll inertia: our roll equation turns the sprung mass about the roll axis
  (``I_x φ'' = m_s f_y (h_s - h_ra) + ...``), MB's ``I_Phi_s`` is about the
  sprung CoG; with MB's roll axis at the ground (``h_raf = h_rar = 0``) the
  parallel-axis theorem gives ``I_x = I_Phi_s + m_s·h_s²``.
* vertical and roll stiffness: MB's tire vertical rate ``K_zt`` acts in series
  with the suspension (its unsprung masses roll on the tires); our tires are
  rigid vertically, so each axle's wheel rate is the series rate
  ``K_s·K_zt/(K_s + K_zt)`` and its anti-roll bar makes the axle's roll
  stiffness equal to the series combination of MB's suspension roll stiffness
  ``K_s·T²/2 + |K_ts|`` and tire roll stiffness ``K_zt·T²/2``. That keeps both
  the total roll stiffness and its front/rear split (the lateral load transfer).
* tires: MB's Magic Formula has ``K_y = |p_ky1|·F_z`` (linear in the load)
  and ``D_y = p_dy1·F_z``; ours has ``C_α = K_y1·F_z0·2q/(1+q²)``,
  ``q = F_z/(K_y2·F_z0)``. With ``F_z0`` the static wheel load, ``K_y2`` at 18
  (nearly linear: -0.9 % at twice the static load) and
  ``K_y1 = |p_ky1|·K_y2·(1+q_s²)/2`` the cornering stiffness equals MB's exactly
  at the static load. ``C = p_cy1``, ``E = p_ey1``, ``μ_y = p_dy1``,
  ``μ_x = p_dx1``, longitudinal stiffness per load ``p_kx1``, no load
  sensitivity (MB has none). One shape factor serves both directions in our
  tire: the lateral one (the manoeuvres are lateral).
* steering: MB steers both front wheels by the same angle and has no toe and
  no steering compliance: Ackermann 0, toe 0, compliance 0, jacking 0.
* camber: MB's wheels camber with the body's roll and with their travel
  (``γ = φ ± D·z + E·z²``), and its tire answers camber (:data:`CAMBER_TERMS`). The
  comparison car has no kinematics, so the reference the comparison judges against is MB
  with those terms zeroed (:func:`camber_blind`): the same equations, tires that do not
  see the camber their wheels still have. MB as published is run beside it (ADR 0263).
  Our model can camber (ADR 0265), and :func:`with_mb_camber` gives the car MB's camber
  geometry. MB's own camber force points away from the wheel's lean: its γ is positive
  with the wheel's top leaning left (its roll is positive left side down), while its tire's
  coefficients (Kyγ = p_ky1·p_hy3 + p_vy3 < 0) read positive as leaning right, as a
  TNO/ISO tire's do. Ours with its camber force reversed moves the step's metrics as MB's
  camber does (ADR 0267).
"""

from __future__ import annotations

import copy
import dataclasses

from skidpad.engine.commonroad.params import VehicleParams, load_vehicle

VEHICLE_ID = 2
NAME = "commonroadVehicle2"
#: K_y2 of our tire: high enough that C_α is nearly linear in the load, as MB's is, while
#: K_y1 = |p_ky1|·K_y2/2 stays inside the definition's bound (200).
CORNERING_PEAK_LOAD = 18.0
HALF_PI = 1.5707963267948966

#: Every coefficient through which the reference tire sees the camber γ: μ_x and μ_y
#: fall with γ² (p_dx3, p_dy3); the horizontal and vertical shifts of F_y are
#: sgn(γ)·(p_hy1 + p_hy3·|γ|) and sgn(γ)·F_z·(p_vy1 + p_vy3·|γ|) (the reference multiplies
#: even p_hy1 and p_vy1 by the sign of γ, so a wheel with any camber gets the whole
#: p_vy1·F_z, 3.7 % of its load, towards its lean); the combined-slip shift has r_vy3·γ.
#: Zeroed, the forces are exactly those at γ = 0 (``tests/test_comparison.py``).
CAMBER_TERMS = ("p_dx3", "p_dy3", "p_hy1", "p_hy3", "p_vy1", "p_vy3", "r_vy3")


def camber_blind(p: VehicleParams | None = None) -> VehicleParams:
    """Vehicle ``p`` (the reference's vehicle 2 by default) with its tire's
    :data:`CAMBER_TERMS` zeroed: MB's equations, with tires that do not see camber."""
    if p is None:
        p = load_vehicle(VEHICLE_ID)
    blind = dataclasses.replace(p.tire, **dict.fromkeys(CAMBER_TERMS, 0.0))
    return dataclasses.replace(p, tire=blind)


def mb_camber_stiffness(p: VehicleParams | None = None) -> float:
    """The camber stiffness per newton of load of MB's tire at small slip, in our sign
    (towards the lean): ``-(p_ky1·p_hy3 + p_vy3)``, 1.02 per rad for vehicle 2. MB's own
    force has the other sign (the module docstring)."""
    if p is None:
        p = load_vehicle(VEHICLE_ID)
    return -(p.tire.p_ky1 * p.tire.p_hy3 + p.tire.p_vy3)


#: the travel MB's camber geometry is sampled over (m, bump positive) and its points
MB_CAMBER_TRAVEL_M = 0.1
MB_CAMBER_POINTS = 9


def with_mb_camber(
    definition: dict, camber_stiffness: float, p: VehicleParams | None = None
) -> dict:
    """``definition`` with MB's camber geometry on both axles: each wheel follows the body's
    roll, and its camber gain is ``D·z + E·z²`` (MB's, travel z in bump) sampled over
    ±:data:`MB_CAMBER_TRAVEL_M`; its tires get ``camber_stiffness`` (not validated here:
    a plant may reverse it)."""
    if p is None:
        p = load_vehicle(VEHICLE_ID)
    out = copy.deepcopy(definition)
    n, span = MB_CAMBER_POINTS, MB_CAMBER_TRAVEL_M
    travel = [span * (2.0 * i / (n - 1) - 1.0) for i in range(n)]
    for axle, d, e in (("front", p.D_f, p.E_f), ("rear", p.D_r, p.E_r)):
        gain = [d * z + e * (z * z) for z in travel]
        out["suspension"][axle]["kinematics"] = {
            "static_camber_rad": 0.0,
            "roll_camber_share": 1.0,
            "camber_gain": {"travel_m": travel, "camber_rad": gain},
            "bump_steer": {"travel_m": [-span, span], "toe_rad": [0.0, 0.0]},
            "roll_steer": 0.0,
        }
        out["tires"][axle]["camber_stiffness_per_load"] = camber_stiffness
    return out


#: Values the reference package does not give: (our parameter path, value, reason).
ESTIMATES: tuple[tuple[str, float | str, str], ...] = (
    (
        "tires.*.relaxation_length_x_m / _y_m",
        0.1,
        "MB has no tire relaxation (slip follows the wheel's motion at once); 0.1 m is a lag "
        "of σ/V = 4.5 ms at 80 km/h, 1/30 of a yaw response time, while the deflection state "
        "stays well conditioned",
    ),
    (
        "tires.*.sliding_slip",
        "B_y·π/2",
        "the largest normalised slip MB's formula reaches (|α| ≤ 90°); ours saturates there",
    ),
    (
        "tires.*.pneumatic_trail_m",
        0.0,
        "MB has no aligning torque; a trail would add a yaw moment MB does not have",
    ),
    ("tires.*.trail_decay_slip", 1.5, "it shapes the pneumatic trail, which is zero here"),
    (
        "tires.*.low_speed_damping_ratio / damping_fade_speed_mps",
        "0.7 / 2.0",
        "standstill damping of the deflection state, faded out long before 80 km/h",
    ),
    (
        "tires.*.rolling_resistance, aero.drag_area_m2, aero.air_density_kg_per_m3",
        "0.012, 0.62 m², 1.225",
        "MB has no road loads; the daemon adds them to its acceleration command from the "
        "project's CommonRoad powertrain data (ADR 0064), and ours uses the same numbers",
    ),
    ("aero.downforce_area_m2", 0.0, "MB has no aerodynamic downforce"),
    (
        "drivetrain (motor, single ratio 9.0, η 0.95, open rear differential)",
        "351 N·m, 150 kW",
        "MB takes an acceleration, not a powertrain; the daemon's EV data for vehicle 2 "
        "(3000 N·m and 150 kW at the wheels, rear drive as T_se = 0) sized ours; MB splits "
        "its torque equally between the rear wheels, which is an open differential",
    ),
    (
        "brakes.max_torque_nm / handbrake_torque_nm",
        "4500 / 0",
        "enough to lock the wheels; the manoeuvres do not brake except to hold speed",
    ),
    (
        "steering.max_angle_deg",
        60.0,
        "MB's limit is 61.1° (1.066 rad), past our definition's bound; the manoeuvres stay "
        "below 6°",
    ),
    (
        "suspension.anti_brake / anti_drive, roll_centre_height_m",
        "0 / 0, 0 m",
        "MB neglects squat and lift and puts its roll axis at the ground (h_raf = h_rar = 0)",
    ),
    ("assists", "none", "MB has no ABS, traction or stability control"),
    (
        "camber (D_f, D_r, p_dy3, p_hy3, p_vy1, p_vy3), lateral compliances (K_ras, K_lt)",
        "not represented",
        "our model has no lateral compliance, and MB's camber force points away from the "
        "wheel's lean (ADR 0267): the car has no kinematics, and the judged MB is blind to "
        "camber",
    ),
)


def _series(k1: float, k2: float) -> float:
    return k1 * k2 / (k1 + k2)


def _tire(p: VehicleParams, static_load: float) -> dict:
    t = p.tire
    ky = -t.p_ky1  # MB's cornering stiffness per newton of load [1/rad]
    q = 1.0 / CORNERING_PEAK_LOAD  # static load / (K_y2 F_z0) with F_z0 = static load
    b_y = ky / (t.p_cy1 * t.p_dy1)  # MB's stiffness factor B per unit load
    return {
        "radius_m": p.R_w,
        "wheel_inertia_kgm2": p.I_y_w,
        "nominal_load_n": static_load,
        "mu_x": t.p_dx1,
        "mu_y": t.p_dy1,
        "load_sensitivity": 0.0,
        "long_stiffness_per_load": t.p_kx1,
        "cornering_stiffness_coef": ky * CORNERING_PEAK_LOAD * (1.0 + q * q) / 2.0,
        "cornering_stiffness_peak_load": CORNERING_PEAK_LOAD,
        "shape_c": t.p_cy1,
        "shape_e": t.p_ey1,
        "sliding_slip": b_y * HALF_PI,
        "relaxation_length_x_m": 0.1,
        "relaxation_length_y_m": 0.1,
        "low_speed_damping_ratio": 0.7,
        "damping_fade_speed_mps": 2.0,
        "pneumatic_trail_m": 0.0,
        "trail_decay_slip": 1.5,
        "rolling_resistance": 0.012,
    }


def _axle(k_s: float, k_ts: float, c_s: float, k_zt: float, track: float) -> dict:
    half_t2 = 0.5 * track * track
    wheel_rate = _series(k_s, k_zt)
    roll = _series(k_s * half_t2 + abs(k_ts), k_zt * half_t2)
    return {
        "wheel_rate_n_per_m": wheel_rate,
        "damper_rate_ns_per_m": c_s,
        "anti_roll_bar_nm_per_rad": roll - wheel_rate * half_t2,
        "roll_centre_height_m": 0.0,
    }


def build_definition(p: VehicleParams | None = None) -> dict:
    """Our four-wheel definition of CommonRoad vehicle 2 (or of ``p``), not yet validated."""
    if p is None:
        p = load_vehicle(VEHICLE_ID)
    wb = p.a + p.b
    unsprung = p.m_uf + p.m_ur
    g = 9.81  # MB's gravity, for the static loads its tires start from
    fz_front = 0.5 * (p.m_s * g * p.b / wb + p.m_uf * g)
    fz_rear = 0.5 * (p.m_s * g * p.a / wb + p.m_ur * g)
    return {
        "name": NAME,
        "description": f"CommonRoad vehicle {p.vehicle_id} ({p.name}) mapped onto the "
        "four-wheel model for the comparison with MB (scenarios.comparison.vehicle)",
        "substep_hz": 1000,
        "mass": {
            "total_kg": p.m,
            "unsprung_front_kg": p.m_uf,
            "unsprung_rear_kg": p.m_ur,
            "cog_height_m": (p.m_s * p.h_s + unsprung * p.R_w) / p.m,
            "cog_to_front_axle_m": (p.m_s * p.a + p.m_ur * wb) / p.m,
            "yaw_inertia_kgm2": p.I_z,
            "roll_inertia_kgm2": p.I_Phi_s + p.m_s * p.h_s * p.h_s,
            "pitch_inertia_kgm2": p.I_y_s,
        },
        "geometry": {"wheelbase_m": wb, "track_front_m": p.T_f, "track_rear_m": p.T_r},
        "suspension": {
            "front": _axle(p.K_sf, p.K_tsf, p.K_sdf, p.K_zt, p.T_f),
            "rear": _axle(p.K_sr, p.K_tsr, p.K_sdr, p.K_zt, p.T_r),
            "anti_brake": 0.0,
            "anti_drive": 0.0,
        },
        "steering": {
            "max_angle_deg": 60.0,
            "ackermann": 0.0,
            "toe_front_deg": 0.0,
            "toe_rear_deg": 0.0,
            "compliance_deg_per_knm": 0.0,
            "compliance_time_s": 0.05,
            "jacking_n_per_rad": 0.0,
        },
        "tires": {"front": _tire(p, fz_front), "rear": _tire(p, fz_rear)},
        "brakes": {
            "max_torque_nm": 4500.0,
            "front_bias": p.T_sb,
            "handbrake_torque_nm": 0.0,
        },
        "aero": {
            "air_density_kg_per_m3": 1.225,
            "drag_area_m2": 0.62,
            "downforce_area_m2": 0.0,
            "downforce_front_share": 0.5,
        },
        "drivetrain": {
            "power_unit": {
                "type": "motor",
                "max_torque_nm": 3000.0 / (9.0 * 0.95),
                "max_power_w": 150000.0,
                "max_rpm": 14000.0,
                "inertia_kgm2": 0.05,
                "regen_torque_fraction": 1600.0 / 3000.0,
                "regen_max_power_w": 60000.0,
                "regen_fade_rpm": 300.0,
                "response_time_s": 0.02,
            },
            "clutch": None,
            "gearbox": {
                "type": "single",
                "ratios": [1.0],
                "reverse_ratio": 1.0,
                "final_drive": 9.0,
                "efficiency": 0.95,
                "shift_time_s": 0.05,
            },
            "layout": {
                "front_share": p.T_se,
                "front_diff": {"type": "open"},
                "rear_diff": {"type": "open"},
            },
        },
    }


def mapping(p: VehicleParams | None = None) -> list[tuple[str, float, str]]:
    """(our parameter, value, how it comes from the reference data) for the generated doc."""
    if p is None:
        p = load_vehicle(VEHICLE_ID)
    d = build_definition(p)
    m, s, t = d["mass"], d["suspension"], d["tires"]
    return [
        ("mass.total_kg", m["total_kg"], "m"),
        ("mass.unsprung_front_kg / rear", m["unsprung_front_kg"], "m_uf = m_ur"),
        ("mass.cog_to_front_axle_m", m["cog_to_front_axle_m"], "(m_s a + m_ur L)/m"),
        ("mass.cog_height_m", m["cog_height_m"], "(m_s h_s + (m_uf + m_ur) R_w)/m"),
        ("mass.yaw_inertia_kgm2", m["yaw_inertia_kgm2"], "I_z"),
        ("mass.roll_inertia_kgm2", m["roll_inertia_kgm2"], "I_Phi_s + m_s h_s² (roll axis)"),
        ("mass.pitch_inertia_kgm2", m["pitch_inertia_kgm2"], "I_y_s"),
        ("geometry.wheelbase_m", d["geometry"]["wheelbase_m"], "a + b"),
        ("geometry.track_front_m", d["geometry"]["track_front_m"], "T_f"),
        ("geometry.track_rear_m", d["geometry"]["track_rear_m"], "T_r"),
        (
            "suspension.front.wheel_rate_n_per_m",
            s["front"]["wheel_rate_n_per_m"],
            "K_sf in series with K_zt",
        ),
        (
            "suspension.rear.wheel_rate_n_per_m",
            s["rear"]["wheel_rate_n_per_m"],
            "K_sr in series with K_zt",
        ),
        (
            "suspension.front.anti_roll_bar_nm_per_rad",
            s["front"]["anti_roll_bar_nm_per_rad"],
            "series(K_sf T_f²/2 + |K_tsf|, K_zt T_f²/2) - wheel rate T_f²/2",
        ),
        (
            "suspension.rear.anti_roll_bar_nm_per_rad",
            s["rear"]["anti_roll_bar_nm_per_rad"],
            "series(K_sr T_r²/2 + |K_tsr|, K_zt T_r²/2) - wheel rate T_r²/2",
        ),
        ("suspension.front.damper_rate_ns_per_m", s["front"]["damper_rate_ns_per_m"], "K_sdf"),
        ("suspension.rear.damper_rate_ns_per_m", s["rear"]["damper_rate_ns_per_m"], "K_sdr"),
        ("tires.*.radius_m", t["front"]["radius_m"], "R_w"),
        ("tires.*.wheel_inertia_kgm2", t["front"]["wheel_inertia_kgm2"], "I_y_w"),
        ("tires.front.nominal_load_n", t["front"]["nominal_load_n"], "static wheel load (MB)"),
        ("tires.rear.nominal_load_n", t["rear"]["nominal_load_n"], "static wheel load (MB)"),
        ("tires.*.mu_y", t["front"]["mu_y"], "p_dy1"),
        ("tires.*.mu_x", t["front"]["mu_x"], "p_dx1"),
        ("tires.*.long_stiffness_per_load", t["front"]["long_stiffness_per_load"], "p_kx1"),
        (
            "tires.*.cornering_stiffness_coef",
            t["front"]["cornering_stiffness_coef"],
            "|p_ky1| K_y2 (1 + 1/K_y2²)/2 (C_α = |p_ky1| F_z at the static load)",
        ),
        ("tires.*.cornering_stiffness_peak_load", CORNERING_PEAK_LOAD, "K_y2, see ADR 0190"),
        ("tires.*.shape_c", t["front"]["shape_c"], "p_cy1"),
        ("tires.*.shape_e", t["front"]["shape_e"], "p_ey1"),
        ("brakes.front_bias", d["brakes"]["front_bias"], "T_sb"),
        ("drivetrain.layout.front_share", p.T_se, "T_se"),
    ]
