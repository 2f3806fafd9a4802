"""Steering: road-wheel angles with Ackermann geometry, static toe, compliance steer, jacking.

Input ``steer`` ∈ [-1, 1] sets the reference (bicycle) road-wheel angle
``δ = steer·δ_max``; positive steers left (ISO 8855). With wheelbase L, track
t and Ackermann fraction A (1 = full Ackermann, 0 = parallel steer):

    tan δ_inner = L·tan δ / (L - A·(t/2)·tan δ)
    tan δ_outer = L·tan δ / (L + A·(t/2)·tan δ)

(inner = left wheel for δ > 0). Static toe (toe-in positive) turns each
wheel towards the centre line: ``δ_FL -= toe_f``, ``δ_FR += toe_f``, and
likewise at the rear. These host-step angles are computed once per host step
(the input only changes there), with ``cos(atan u) = 1/sqrt(1+u²)``.

Compliance steer (front wheels): the steering's elasticity turns a wheel by
``δ_c = c·M_z`` under its aligning torque M_z (c = ``compliance_deg_per_knm``;
M_z < 0 in a left turn, so compliance adds understeer), following with a
first-order lag τ (``compliance_time_s``), implicit:
``δ_c' = δ_c + (c·M_z - δ_c)·h/(τ + h)``. State ``steer.FL.compliance``,
``steer.FR.compliance`` (rad); the rear wheels' (``steer.RL.compliance``,
``steer.RR.compliance``) is their suspension's compliance steer under their forces
(:mod:`engine.fourwheel.compliance`), 0 without one.
Each substep the host-step angle is rotated by δ_c with the series of
cos/sin to 5th order (|δ_c| stays below a degree: the truncation is < 1e-11), and, where an
axle has kinematics, by the kinematic steer of its wheels (bump and roll steer,
:mod:`engine.fourwheel.kinematics`).

The steering system (``steering.system``; ADR 0268): the driver's ``steer`` input is the
hand-wheel's position as a fraction of its lock ``θ_lock = i·δ_max`` (i = ``ratio``, the
hand-wheel angle per road-wheel angle), so the reference angle is ``θ/i`` as above. The
front wheels' moments about their steering axes, positive turning the wheel left,

    M_k = M_z - t_m·F_y - side·r_s·F_x            (side +1 left, -1 right)

(M_z the tire's aligning torque, t_m the mechanical trail of the caster, r_s the scrub
radius, F_x and F_y the wheel-frame forces), act on the rack. With the hand-wheel held, the
torsion bar (stiffness K_c at the hand-wheel, N·m/rad) and a power assist that adds A times
its torque hold the rack, so the axle's two moments turn both wheels by
``(M_k,L + M_k,R)/K_r`` with ``K_r = i²·(1 + A)·K_c``, the rack's stiffness at the road
wheels. Each wheel's compliance steer then follows

    δ_c,i → c·M_k,i + (M_k,L + M_k,R)/K_r

with the lag τ above. The rack is massless: with the hand-wheel held, its mode
(K_r against the wheels' inertia about their axes) lies at tens of hertz, above anything
the handling manoeuvres excite; τ stands for its damping.

Steering jacking: the caster of the steering axis lifts the body on one
side as the wheels steer, a diagonal load transfer ``ΔF_z = J·δ`` onto FL and
RR, off FR and RL for δ > 0 (J = ``jacking_n_per_rad``; a kart's large caster
unloads its inner rear wheel this way). Applied in :mod:`engine.fourwheel.load_transfer`.
"""

from __future__ import annotations

from math import sqrt
from typing import NamedTuple

from skidpad.engine import smath
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_keys, require_object
from skidpad.engine.state import Field

DEG = 0.017453292519943295  # rad per degree

FIELDS = (
    Field("steer.FL.compliance", "f", "rad", "compliance steer angle of the front-left wheel"),
    Field("steer.FR.compliance", "f", "rad", "compliance steer angle of the front-right wheel"),
    Field("steer.RL.compliance", "f", "rad", "compliance steer angle of the rear-left wheel"),
    Field("steer.RR.compliance", "f", "rad", "compliance steer angle of the rear-right wheel"),
)


class SystemConstants(NamedTuple):
    """The steering system's folded constants (:func:`system_constants`)."""

    ratio: float  # i, hand-wheel angle per road-wheel angle
    rack_compliance: float  # 1/K_r = 1/(i²·(1 + A)·K_c), rad per N·m of the axle's moments
    mechanical_trail: float  # t_m (m)
    scrub_radius: float  # r_s (m)


class SteeringConstants(NamedTuple):
    """Folded steering constants (see :func:`host_angles`)."""

    max_angle: float  # rad
    ackermann: float
    wheelbase: float
    half_track: float  # front
    toe_front: float  # rad
    compliance: float  # rad per N·m
    compliance_time: float  # s
    jacking: float  # N/rad
    toe_rear: float  # rad
    toe_front_cs: tuple  # (cos, sin) of the front toe
    toe_rear_cs: tuple
    system: SystemConstants | None = None  # the steering system; None: the moments are the
    # tires' aligning torques, each on its own wheel


class WheelAngle(NamedTuple):
    """One wheel's steer angle at a host step (toe included, compliance not) and its cosine
    and sine."""

    angle: float  # rad
    cos: float
    sin: float


class WheelFrames(NamedTuple):
    """The ``steering`` stage: each road wheel's angle and its (cos, sin), FL, FR, RL, RR."""

    angle: tuple
    cos: tuple
    sin: tuple


def constants(
    s: dict, wheelbase: float, track_front: float, toe_rear_rad: float
) -> SteeringConstants:
    """Folded steering constants (see :func:`host_angles`)."""
    toe_f = s["toe_front_deg"] * DEG
    return SteeringConstants(
        s["max_angle_deg"] * DEG,
        s["ackermann"],
        wheelbase,
        0.5 * track_front,
        toe_f,
        s["compliance_deg_per_knm"] * DEG / 1000.0,
        s["compliance_time_s"],
        s["jacking_n_per_rad"],
        toe_rear_rad,
        (smath.cos(toe_f), smath.sin(toe_f)),
        (smath.cos(toe_rear_rad), smath.sin(toe_rear_rad)),
        system_constants(s["system"]) if "system" in s else None,
    )


def system_constants(system: dict) -> SystemConstants:
    """The folded constants of a validated ``steering.system`` block (:func:`validate_system`)."""
    ratio = system["ratio"]
    k_c = system["column_stiffness_nm_per_deg"] / DEG
    return SystemConstants(
        ratio,
        1.0 / (ratio * ratio * (1.0 + system["assist_gain"]) * k_c),
        system["mechanical_trail_m"],
        system["scrub_radius_m"],
    )


#: The entries of ``steering.system``: name, lower bound (exclusive where strict), upper.
SYSTEM_ENTRIES = (
    ("ratio", 1.0, False, 50.0),
    ("column_stiffness_nm_per_deg", 0.0, True, 1.0e4),
    ("assist_gain", 0.0, False, 100.0),
    ("mechanical_trail_m", -0.1, False, 0.2),
    ("scrub_radius_m", -0.1, False, 0.1),
)


def validate_system(value: object, path: str) -> dict:
    """A ``steering.system`` block, checked and normalised (every number a float);
    DefinitionError names the first bad entry.

    ``ratio`` (i, hand-wheel angle per road-wheel angle, 1 to 50), ``column_stiffness_nm_per_deg``
    (K_c, the torsion bar and column at the hand-wheel, N·m/deg, > 0), ``assist_gain`` (A, the
    assist's torque per torsion-bar torque, 0 to 100), ``mechanical_trail_m`` (t_m, the contact
    patch behind the steering axis, m, -0.1 to 0.2) and ``scrub_radius_m`` (r_s, the patch
    outboard of the axis, m, -0.1 to 0.1)."""
    known = tuple(name for name, *_ in SYSTEM_ENTRIES)
    value = require_object(value, path)
    refuse_unknown(value, path, known)
    require_keys(value, path, known)
    return {
        name: number(f"{path}.{name}", value[name], lo, strict, hi)
        for name, lo, strict, hi in SYSTEM_ENTRIES
    }


def _rotate(c: float, s: float, cd: float, sd: float) -> tuple[float, float]:
    return (c * cd - s * sd, s * cd + c * sd)


def host_angles(k: SteeringConstants, steer: float) -> tuple:
    """Per-host-step wheel angles: (δ_ref, tan δ_ref (0.0 when δ_ref is 0.0), the
    :class:`WheelAngle` of FL, FR, RL, RR)."""
    delta = steer * k.max_angle
    tan_d = 0.0
    ack, wb, half_t, toe_f, toe_r = k.ackermann, k.wheelbase, k.half_track, k.toe_front, k.toe_rear
    ct_f, st_f = k.toe_front_cs
    ct_r, st_r = k.toe_rear_cs
    if delta == 0.0:
        fl = WheelAngle(-toe_f, ct_f, -st_f)
        fr = WheelAngle(toe_f, ct_f, st_f)
    else:
        tan_d = smath.tan(delta)
        u_left = wb * tan_d / (wb - ack * half_t * tan_d)
        u_right = wb * tan_d / (wb + ack * half_t * tan_d)
        angles = []
        for u, toe_sign in ((u_left, -1.0), (u_right, 1.0)):
            inv = 1.0 / sqrt(1.0 + u * u)
            c, s = _rotate(inv, u * inv, ct_f, toe_sign * st_f)
            angles.append(WheelAngle(smath.atan(u) + toe_sign * toe_f, c, s))
        fl, fr = angles
    rl = WheelAngle(-toe_r, ct_r, -st_r)
    rr = WheelAngle(toe_r, ct_r, st_r)
    return delta, tan_d, (fl, fr, rl, rr)


def wheel_frames(host: tuple[WheelAngle, ...], dc_fl: float, dc_fr: float) -> WheelFrames:
    """The ``steering`` stage: the host-step angles of :func:`host_angles` (``host``) with the
    front wheels rotated by their compliance angles (series, no trigonometric call)."""
    fl, fr, rl, rr = host
    fl = turned(fl, dc_fl)
    fr = turned(fr, dc_fr)
    return WheelFrames(
        (fl.angle, fr.angle, rl.angle, rr.angle),
        (fl.cos, fr.cos, rl.cos, rr.cos),
        (fl.sin, fr.sin, rl.sin, rr.sin),
    )


def turned_frames(host: tuple[WheelAngle, ...], dc: tuple, turn: tuple) -> WheelFrames:
    """:func:`wheel_frames` of a car whose rear wheels turn too (kinematics, or a rear
    compliance steer): every wheel turned by its compliance steer ``dc`` and its kinematic
    steer ``turn`` (rad, FL, FR, RL, RR; :mod:`engine.fourwheel.kinematics`,
    :mod:`engine.fourwheel.compliance`)."""
    fl, fr, rl, rr = host
    four = (fl, fr, turned(rl, dc[2] + turn[2]), turned(rr, dc[3] + turn[3]))
    return wheel_frames(four, dc[0] + turn[0], dc[1] + turn[1])


def turned(a: WheelAngle, d: float) -> WheelAngle:
    """Wheel angle ``a`` turned by a small angle ``d`` (rad, positive left)."""
    cd, sd = small_rotation(d)
    return WheelAngle(a.angle + d, a.cos * cd - a.sin * sd, a.sin * cd + a.cos * sd)


def small_rotation(d: float) -> tuple[float, float]:
    """(cos d, sin d) by their series to 5th order, for compliance angles |d| << 1."""
    d2 = d * d
    return (1.0 - d2 * (0.5 - d2 * (1.0 / 24.0)), d * (1.0 - d2 * (1.0 / 6.0 - d2 * (1.0 / 120.0))))


def update_compliance(k: SteeringConstants, dc: float, mz: float, h: float) -> float:
    """Compliance angle after one substep under aligning torque ``mz`` (N·m)."""
    return dc + (k.compliance * mz - dc) * h / (k.compliance_time + h)


def kingpin_moment(sy: SystemConstants, side: float, mz: float, fy: float, fx: float) -> float:
    """A front wheel's moment about its steering axis (N·m, positive turning it left):
    ``M_z - t_m·F_y - side·r_s·F_x`` (side +1 left, -1 right; wheel-frame forces)."""
    return mz - sy.mechanical_trail * fy - side * sy.scrub_radius * fx


def update_rack_compliance(
    k: SteeringConstants, dc: float, own: float, axle: float, h: float
) -> float:
    """A front wheel's compliance angle after one substep, with a steering system: its own
    kingpin moment ``own`` on its linkage (c) and the axle's, ``axle`` = M_k,L + M_k,R, on
    the rack (1/K_r), with the lag τ."""
    target = k.compliance * own + k.system.rack_compliance * axle
    return dc + (target - dc) * h / (k.compliance_time + h)


def linear_compliance(steering: dict) -> tuple[float, float]:
    """(c_eff, t_m) of a validated ``steering`` section for the linear models: each front
    wheel's steer per N·m of its own moment when both wheels carry the same
    (``c + 2/K_r``; c without a steering system), and the mechanical trail (0 without)."""
    c = steering["compliance_deg_per_knm"] * DEG / 1000.0
    if "system" not in steering:
        return c, 0.0
    sy = system_constants(steering["system"])
    return c + 2.0 * sy.rack_compliance, sy.mechanical_trail
