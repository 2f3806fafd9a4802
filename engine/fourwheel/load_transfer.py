"""Wheel loads: static share, longitudinal and lateral load transfer, jacking, downforce.

Inputs per substep: the accelerometer's specific force (f_x, f_y) of the
previous substep (state ``body.ax``, ``body.ay``: the tire and aero forces
over the total mass, gravity excluded, so a car parked on a grade reads
``f_x = g·sin θ``), the roll and pitch states of :mod:`engine.fourwheel.suspension`,
the reference steer angle and the aero downforce.

Static loads, with a = CoG to front axle, b = L - a, g_n the gravity normal
to the road: ``S_f = m·g_n·b/(2L)``, ``S_r = m·g_n·a/(2L)`` per wheel.

Longitudinal transfer onto the front axle (Milliken & Milliken ch. 18),
sprung mass m_s at height h_s, unsprung masses at their wheel radii:

    ΔF_long = [-m_s·f_x·h_s·anti - (m_uf·R_f + m_ur·R_r)·f_x + K_θ·θ + C_θ·θ']/L

``anti`` = ``suspension.anti_brake`` when f_x < 0 else ``anti_drive``: the
share the linkages carry at once; the rest goes through the springs (pitch
θ, positive nose down). In steady state it adds up to ``-m·f_x·h/L``.

Lateral transfer per axle (onto the right wheel, positive for f_y > 0,
i.e. in a left turn), roll-centre (geometric) share plus the elastic share
through springs and anti-roll bars (roll φ, positive right side down) plus
the unsprung share:

    ΔF_lat,f = [m_s·(b_s/L)·f_y·h_rc,f + m_uf·f_y·R_f + K_φf·φ + C_φf·φ'] / t_f

and likewise at the rear with a_s/L. In steady state the elastic roll moment
splits by the axles' roll stiffness ``K_φ = k_wheel·t²/2 + K_bar``.

Loads never go negative (a lifted wheel carries 0). Every transfer is
a ± pair, so the four loads always sum to ``m·g_n`` plus the downforce.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.fourwheel import aero
from skidpad.engine.fourwheel.suspension import SuspensionState
from skidpad.engine.state import Field  # noqa: F401  (no state of its own)

G = 9.80665  # m/s², standard gravity


def constants(d: dict) -> dict:
    """Folded mass, geometry and stiffness constants shared by load transfer and suspension."""
    m = d["mass"]
    geo = d["geometry"]
    sus = d["suspension"]
    tires = d["tires"]
    mt = m["total_kg"]
    muf, mur = m["unsprung_front_kg"], m["unsprung_rear_kg"]
    ms = mt - muf - mur
    wb = geo["wheelbase_m"]
    a = m["cog_to_front_axle_m"]
    b = wb - a
    rf, rr = tires["front"]["radius_m"], tires["rear"]["radius_m"]
    h = m["cog_height_m"]
    hs = (mt * h - muf * rf - mur * rr) / ms
    a_s = (mt * a - mur * wb) / ms
    b_s = wb - a_s
    tf, tr = geo["track_front_m"], geo["track_rear_m"]
    fr, rr_ = sus["front"], sus["rear"]
    k_roll_f = 0.5 * fr["wheel_rate_n_per_m"] * tf * tf + fr["anti_roll_bar_nm_per_rad"]
    k_roll_r = 0.5 * rr_["wheel_rate_n_per_m"] * tr * tr + rr_["anti_roll_bar_nm_per_rad"]
    c_roll_f = 0.5 * fr["damper_rate_ns_per_m"] * tf * tf
    c_roll_r = 0.5 * rr_["damper_rate_ns_per_m"] * tr * tr
    k_pitch = 2.0 * (fr["wheel_rate_n_per_m"] * a_s * a_s + rr_["wheel_rate_n_per_m"] * b_s * b_s)
    c_pitch = 2.0 * (
        fr["damper_rate_ns_per_m"] * a_s * a_s + rr_["damper_rate_ns_per_m"] * b_s * b_s
    )
    hrc_f, hrc_r = fr["roll_centre_height_m"], rr_["roll_centre_height_m"]
    h_ra = hrc_f + (hrc_r - hrc_f) * a_s / wb
    return {
        "m": mt,
        "ms": ms,
        "muf": muf,
        "mur": mur,
        "a": a,
        "b": b,
        "L": wb,
        "h": h,
        "hs": hs,
        "a_s": a_s,
        "b_s": b_s,
        "tf": tf,
        "tr": tr,
        "rf": rf,
        "rr": rr,
        "k_roll_f": k_roll_f,
        "k_roll_r": k_roll_r,
        "c_roll_f": c_roll_f,
        "c_roll_r": c_roll_r,
        "k_pitch": k_pitch,
        "c_pitch": c_pitch,
        "hrc_f": hrc_f,
        "hrc_r": hrc_r,
        "h_ra": h_ra,
        "anti_brake": sus["anti_brake"],
        "anti_drive": sus["anti_drive"],
        "ix": m["roll_inertia_kgm2"],
        "iy": m["pitch_inertia_kgm2"],
        "iz": m["yaw_inertia_kgm2"],
    }


def static_loads(c: dict, g_normal: float) -> tuple[float, float]:
    """Static load (N) of one front and one rear wheel under normal gravity ``g_normal``."""
    w = c["m"] * g_normal / c["L"]
    return (0.5 * w * c["b"], 0.5 * w * c["a"])


class LoadTransferConstants(NamedTuple):
    """The coefficients :func:`wheel_loads` reads (of f_x, f_y, θ, φ per transfer)."""

    long_braking: float  # geometric longitudinal coefficient when f_x < 0
    long_driving: float
    long_unsprung: float
    pitch_stiffness: float
    pitch_damping: float
    lat_front: float  # roll-centre + unsprung lateral coefficient, front
    roll_stiffness_front: float
    roll_damping_front: float
    lat_rear: float
    roll_stiffness_rear: float
    roll_damping_rear: float


class Loads(NamedTuple):
    """The ``load_transfer`` stage: wheel loads (N, FL, FR, RL, RR) and the aero drag (N)."""

    fz: tuple
    drag: float


def folded(c: dict) -> LoadTransferConstants:
    """The coefficients :func:`wheel_loads` reads (of f_x, f_y, θ, φ per transfer)."""
    inv_l = 1.0 / c["L"]
    unsprung_long = (c["muf"] * c["rf"] + c["mur"] * c["rr"]) * inv_l
    return LoadTransferConstants(
        long_braking=c["ms"] * c["hs"] * c["anti_brake"] * inv_l,
        long_driving=c["ms"] * c["hs"] * c["anti_drive"] * inv_l,
        long_unsprung=unsprung_long,
        pitch_stiffness=c["k_pitch"] * inv_l,
        pitch_damping=c["c_pitch"] * inv_l,
        lat_front=(c["ms"] * c["b_s"] * inv_l * c["hrc_f"] + c["muf"] * c["rf"]) / c["tf"],
        roll_stiffness_front=c["k_roll_f"] / c["tf"],
        roll_damping_front=c["c_roll_f"] / c["tf"],
        lat_rear=(c["ms"] * c["a_s"] * inv_l * c["hrc_r"] + c["mur"] * c["rr"]) / c["tr"],
        roll_stiffness_rear=c["k_roll_r"] / c["tr"],
        roll_damping_rear=c["c_roll_r"] / c["tr"],
    )


def wheel_loads(
    k: LoadTransferConstants,
    s_f: float,
    s_r: float,
    fx: float,
    fy: float,
    sus: SuspensionState,
    jack: float,
    down_f: float,
    down_r: float,
) -> tuple[float, float, float, float]:
    """F_z (N) of FL, FR, RL, RR; ``sus`` the roll and pitch at the substep's start,
    ``jack`` = J·δ_ref (N), downforce per axle (N)."""
    roll, roll_rate, pitch, pitch_rate = sus.roll, sus.roll_rate, sus.pitch, sus.pitch_rate
    geo = k.long_braking if fx < 0.0 else k.long_driving
    d_long = 0.5 * (
        -(geo + k.long_unsprung) * fx + k.pitch_stiffness * pitch + k.pitch_damping * pitch_rate
    )
    d_f = k.lat_front * fy + k.roll_stiffness_front * roll + k.roll_damping_front * roll_rate
    d_r = k.lat_rear * fy + k.roll_stiffness_rear * roll + k.roll_damping_rear * roll_rate
    base_f = s_f + d_long + 0.5 * down_f
    base_r = s_r - d_long + 0.5 * down_r
    return (
        max(base_f - d_f + jack, 0.0),
        max(base_f + d_f - jack, 0.0),
        max(base_r - d_r - jack, 0.0),
        max(base_r + d_r + jack, 0.0),
    )


def loads(
    k: LoadTransferConstants,
    aero_k: aero.AeroConstants,
    s_f: float,
    s_r: float,
    vx: float,
    fx: float,
    fy: float,
    sus: SuspensionState,
    jack: float,
) -> Loads:
    """The ``load_transfer`` stage: the aero forces at ``vx``, then :func:`wheel_loads`."""
    drag, down_f, down_r = aero.forces(aero_k, vx)
    fz = wheel_loads(k, s_f, s_r, fx, fy, sus, jack, down_f, down_r)
    return Loads(fz, drag)
