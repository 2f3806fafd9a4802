"""Tire: Magic-Formula force from a contact-patch deflection state, combined slip, trail.

State per wheel (``tire.<W>.ux``, ``tire.<W>.uy``, metres): the deflection of
the contact patch relative to the rim, in the wheel frame (x along the wheel
heading, y to its left). It is a lumped brush/bristle state (Bernard and
Clover, SAE 950311; Pacejka, *Tire and Vehicle Dynamics*, single-contact-point
transient model) that obeys, with ``V_x`` the hub's forward speed in the
wheel frame and ``V_sx = V_x - R·ω``, ``V_sy`` the contact-point slip
velocities,

    du_x/dt = -V_sx - |V_x|·u_x/σ_x          du_y/dt = -V_sy - |V_x|·u_y/σ_y

(σ = relaxation lengths). At speed the deflection relaxes to
``u_x = σ_x·κ``, ``u_y = σ_y·tan α`` with the usual slips
``κ = -V_sx/|V_x|``, ``tan α = -V_sy/|V_x|``, so the steady force is the
Magic Formula of (κ, α); at rest ``du/dt = -V_s`` exactly and the patch is a
spring of stiffness C/σ: a parked car is held without creep. The
deflection update is implicit in the relaxation term (stable at any speed):

    u' = (u - h·V_s) / (1 + h·|V_x|/σ)

Force (combined slip by normalised slip, an elliptic friction envelope):

    D_x = μ_x·λ·s(F_z)·F_z,  D_y = μ_y·λ·s(F_z)·F_z,  s(F_z) = 1 + p·(F_z/F_z0 - 1)
    C_κ = K_x·F_z,  C_α = K_y1·F_z0·sin(2·atan(F_z/(K_y2·F_z0)))   (= 2t/(1+t²), no trig)
    φ_x = C_κ/(C·D_x) · u_x/σ_x,  φ_y = C_α/(C·D_y) · u_y/σ_y,  ρ = sqrt(φ_x² + φ_y²)
    ψ = ρ - E·(ρ - atan ρ)
    F_x = D_x · sin(C·atan ψ)/ρ · φ_x,  F_y = D_y · sin(C·atan ψ)/ρ · φ_y

so that dF_x/dκ = C_κ and dF_y/dα = C_α at zero slip, the force peaks where
``ψ = tan(π/2C)`` and falls beyond it. The curvature factor E (< 0) keeps the
curve straight longer: the cubic term of F(ρ) is ``-C·((1+E)/3 + C²/6)·ρ³``,
so ``E ≈ -1 - C²/2`` makes the tire linear to third order. λ is the surface friction factor
(:data:`SURFACES`): it scales friction, not stiffness, so on ice the peak
sits at a smaller slip. **Saturation**: the patch cannot deflect past the
sliding slip ``ρ_cap`` (``sliding_slip``); beyond it the patch slides, the
deflection is projected back onto ``ρ = ρ_cap`` and the force stays at the
sliding force ``D·sin(C·atan ψ(ρ_cap))``. So a locked, sliding tire keeps its
sliding force, and when the car stops the stored deflection is released (the
spring-back) instead of being held.

Low-speed damping: a damper of ``c = 2ζ·sqrt(k·m_corner)`` (k = C/σ at the
static load) acts on the deflection rate, faded out with speed as
``1/(1 + (V_x/v_fade)²)``, and switched off while the patch slides (the
sliding force is the friction limit). The patch slides when its deflection
passes ``ρ_cap`` *or* when the damped force would leave the friction ellipse
``(F_x/D_x)² + (F_y/D_y)² <= 1`` (physics 10: a wheel spun up from rest, or a
car sliding backwards after a spin, used to get damper forces of several μ·F_z).
Undamped, the force is the spring's, ``D·sin(C·atan ψ)/ρ·φ``, inside the ellipse.
In steady state the rate is zero and the damper does nothing.

The shape function's ``atan`` and ``sin`` are ``engine.smath.trig.atan_fast`` and
``sin_fast``: the same strict operations in every runtime, below 1.5 ulp instead of the
self-test functions' 1 ulp, at about half the cost (ADR 0183). Twelve of them per substep
were a fifth of its time; an ulp of a tire force is far below anything the model resolves.

Camber thrust (where the axle has kinematics, :mod:`engine.fourwheel.kinematics`): a wheel
inclined by ι towards the car's left adds ``φ_γ = C_γ·F_z·ι/(C·D_y)`` to φ_y, so the force
grows by ``C_γ·F_z·ι`` at small slip (C_γ = ``camber_stiffness_per_load``) and saturates
with the slip's inside the ellipse; it has no relaxation of its own and carries the
pneumatic trail below. Relaxation with load (``relaxation_y_load_share`` s): the lateral
relaxation length is ``σ_y·(1 - s + s·C_α(F_z)/C_α(F_z0))`` (:func:`load_terms`). A
suspension's lateral compliance c_y (``suspension.<axle>.lateral_compliance_mm_per_kn``) is a
spring in series with the carcass: the patch's lateral deflection u_y is then the carcass's
and the suspension's, and the relaxation length grows by ``C_α(F_z)·c_y`` (an MF 6.1 file's
σα by ``|Kyα|·c_y``); the steady force is unchanged, it builds up over a longer distance.

Aligning torque: ``M_z = -t·F_y`` with pneumatic trail
``t = t0/(1 + (ρ/ρ_t)²)`` (falls as the tire approaches sliding).

Rolling resistance is a resisting torque ``f_rr·F_z·R`` about the axle, solved
as part of the wheel's bounded constraint (:mod:`engine.fourwheel.wheel`), so it stops
a wheel exactly instead of reversing it.

Signs: F_x > 0 drives the car forward; F_y > 0 pushes it left; M_z > 0 is
counter-clockwise seen from above.

**Magic Formula 6.1 tires.** A definition's tire may instead embed the parameters of a
``.tir`` file (``mf61``; ADR 0261): the same deflection state, with the file's relaxation
lengths at the current load, ``κ = u_x/σκ``, ``tan α = u_y/σα``; the forces, the aligning
moment and the rolling-resistance moment are the file's (:mod:`engine.fourwheel.mf61`);
the sliding slip is of the normalised slip ``sqrt((Bx·κ)² + (By·tan α)²)``; the relaxation
length is divided by :func:`transient_gain`, so near and past the force peak the slip
follows quickly; a file measured on one side is mirrored on the other (:func:`mirrored`).
"""

from __future__ import annotations

from math import sqrt
from typing import NamedTuple

from skidpad.engine.fourwheel import mf61, tir
from skidpad.engine.smath.trig import atan_fast, cos_fast, sin_fast
from skidpad.engine.state import Field

#: Surface friction factor λ (multiplies μ_x and μ_y; stiffness unchanged).
SURFACES: dict[str, float] = {
    "dry": 1.0,
    "wet": 0.7,
    "gravel": 0.55,
    "snow": 0.3,
    "ice": 0.12,
}

WHEELS = ("FL", "FR", "RL", "RR")

FIELDS = tuple(
    f
    for w in WHEELS
    for f in (
        Field(f"tire.{w}.ux", "f", "m", "contact-patch longitudinal deflection (wheel frame)"),
        Field(f"tire.{w}.uy", "f", "m", "contact-patch lateral deflection (wheel frame)"),
    )
)


class TireConstants(NamedTuple):
    """The folded constants of one tire (:func:`constants`)."""

    inv_fz0: float  # 1/F_z0
    mu_x: float
    mu_y: float
    load_sensitivity: float  # p of s(F_z)
    kx: float  # K_x, C_κ per newton of load
    ky1_fz0: float  # K_y1·F_z0
    inv_ky2_fz0: float  # 1/(K_y2·F_z0)
    c: float  # shape factor C
    rho_cap: float  # sliding slip ρ_cap
    sigma_x: float  # relaxation lengths (m)
    sigma_y: float
    damper_x: float  # low-speed damper c = 2ζ·sqrt(k·m_corner) (N·s/m)
    damper_y: float
    inv_vfade2: float  # 1/v_fade²
    trail: float  # pneumatic trail t0 (m)
    inv_rho_t2: float  # 1/ρ_t²
    radius: float  # loaded radius R (m)
    rolling_resistance: float  # f_rr
    inv_c: float  # 1/C
    e: float  # curvature factor E
    mf61: tir.Mf61Params | None = None  # a Magic Formula 6.1 tire's parameters (the force
    # law of :func:`mf61_patch_terms`); None for the tire of this module's docstring
    camber: float | None = None  # C_γ, the camber stiffness per newton of load (1/rad; an MF
    # 6.1 tire's is its file's, 0.0 here); None on an axle without kinematics (upright wheels)
    relax_load: float | None = None  # s, the share of σ_y that follows C_α(F_z)
    # (:func:`load_terms`); None: σ_y is constant (and an MF 6.1 tire's is its file's)
    inv_c_alpha0: float = 0.0  # 1/C_α(F_z0), with relax_load
    lateral_compliance: float | None = None  # c_y, the suspension's lateral compliance at the
    # patch (m/N; with it relax_load is a number, 0.0 where the tire states no share); None: none


class WheelConstants(NamedTuple):
    """One wheel's constants: contact-patch position, tire, inertia and the substep's folds
    (built by ``engine.fourwheel.wheel.constants``; defined here, beside the tire they carry,
    so that the wheel depends on the tire and never the reverse)."""

    x: float  # patch position in the body frame (m)
    y: float
    tire: TireConstants
    radius: float  # R
    inertia: float  # I (kg·m²)
    a: float  # I/h
    h_over_sigma_x: float  # h/σ_x
    h_over_sigma_y: float  # h/σ_y
    inv_sigma_x: float  # 1/σ_x
    rolling_arm: float  # f_rr·R: rolling-resistance torque per newton of load


def constants(
    t: dict,
    static_load: float,
    g: float,
    cambered: bool = False,
    lateral_compliance: float | None = None,
) -> TireConstants:
    """The folded constants of one tire, given its definition and static load (N);
    ``cambered``: its axle has kinematics (:mod:`engine.fourwheel.kinematics`);
    ``lateral_compliance``: its suspension's at the patch (m/N), None for a stiff one."""
    if "mf61" in t:
        k = _mf61_constants(t, static_load, g, lateral_compliance)
        return k._replace(camber=0.0) if cambered else k
    fz0 = t["nominal_load_n"]
    kx = t["long_stiffness_per_load"]
    c_kappa = kx * static_load
    c_alpha = cornering_stiffness(t, static_load)
    m_corner = static_load / g
    zeta = t["low_speed_damping_ratio"]
    k_x = c_kappa / t["relaxation_length_x_m"]
    c_y = 0.0 if lateral_compliance is None else lateral_compliance
    k_y = c_alpha / (t["relaxation_length_y_m"] + c_alpha * c_y)  # (in series with the suspension)
    share = t.get("relaxation_y_load_share")
    if share is None and lateral_compliance is not None:
        share = 0.0  # σ_y then follows the load through the compliance alone (load_terms)
    vf = t["damping_fade_speed_mps"]
    rho_t = t["trail_decay_slip"]
    return TireConstants(
        inv_fz0=1.0 / fz0,
        mu_x=t["mu_x"],
        mu_y=t["mu_y"],
        load_sensitivity=t["load_sensitivity"],
        kx=kx,
        ky1_fz0=t["cornering_stiffness_coef"] * fz0,
        inv_ky2_fz0=1.0 / (t["cornering_stiffness_peak_load"] * fz0),
        c=t["shape_c"],
        rho_cap=t["sliding_slip"],
        sigma_x=t["relaxation_length_x_m"],
        sigma_y=t["relaxation_length_y_m"],
        damper_x=2.0 * zeta * sqrt(k_x * m_corner),
        damper_y=2.0 * zeta * sqrt(k_y * m_corner),
        inv_vfade2=1.0 / (vf * vf),
        trail=t["pneumatic_trail_m"],
        inv_rho_t2=1.0 / (rho_t * rho_t),
        radius=t["radius_m"],
        rolling_resistance=t["rolling_resistance"],
        inv_c=1.0 / t["shape_c"],
        e=t["shape_e"],
        camber=t["camber_stiffness_per_load"] if cambered else None,
        relax_load=share,
        inv_c_alpha0=1.0 / cornering_stiffness(t, fz0),
        lateral_compliance=lateral_compliance,
    )


def _mf61_constants(
    t: dict, static_load: float, g: float, lateral_compliance: float | None
) -> TireConstants:
    """An MF 6.1 tire's constants: its parameters, and the terms this module's tire folds
    evaluated from them at the static load (the dampers, and the values the linear models
    and :func:`steady_lateral` read: μ, relaxation lengths, C_α, the trail)."""
    p = mf61_params(t)
    at = mf61.at_load(p, static_load, 0.0, 1.0)
    m_corner = static_load / g
    zeta = t["low_speed_damping_ratio"]
    vf = t["damping_fade_speed_mps"]
    fz0 = p.FNOMIN * p.LFZO
    c, e = p.PCY1 * p.LCY, p.PEY1 * p.LEY
    return TireConstants(
        inv_fz0=1.0 / fz0,
        mu_x=at.dx / static_load,
        mu_y=at.dy / static_load,
        load_sensitivity=0.0,  # (in the parameters: PDX2, PDY2)
        kx=at.kxk / static_load,
        ky1_fz0=0.0,  # (PKY1..PKY5)
        inv_ky2_fz0=0.0,
        c=c,
        rho_cap=t["sliding_slip"],
        sigma_x=at.sigma_kappa,
        sigma_y=at.sigma_alpha,
        damper_x=2.0 * zeta * sqrt(at.kxk / at.sigma_kappa * m_corner),
        damper_y=2.0 * zeta * sqrt(at.kya / lateral_relaxation(at, lateral_compliance) * m_corner),
        inv_vfade2=1.0 / (vf * vf),
        trail=_mf61_trail(p, static_load),
        inv_rho_t2=0.0,
        radius=t["radius_m"],
        rolling_resistance=p.QSY1,
        inv_c=1.0 / c,
        e=e,
        mf61=p,
        lateral_compliance=lateral_compliance,
    )


def axle_constants(d: dict, axle: str, static_load: float, g: float) -> TireConstants:
    """:func:`constants` of a validated definition's tire on ``axle`` ("front", "rear"), with
    what its suspension adds: camber where it has kinematics, its lateral compliance
    (mm/kN in the definition)."""
    sus = d["suspension"][axle]
    mm_per_kn = sus.get("lateral_compliance_mm_per_kn")
    c_y = None if mm_per_kn is None else mm_per_kn * 1.0e-6
    return constants(d["tires"][axle], static_load, g, "kinematics" in sus, c_y)


def relaxation_y(k: TireConstants, fz: float) -> float:
    """Tire ``k``'s lateral relaxation length (m) at load ``fz`` and small slip, as the patch
    has it (:func:`load_terms`; an MF 6.1 file's at that load), for the linear models."""
    if k.mf61 is not None:
        return lateral_relaxation(mf61.at_load(k.mf61, fz, 0.0, 1.0), k.lateral_compliance)
    return load_terms(k, fz, 1.0)[4]


def lateral_relaxation(at: mf61.Mf61Load, lateral_compliance: float | None) -> float:
    """An MF 6.1 patch's lateral relaxation length at a load (m): the file's ``σα`` and, with
    a suspension's lateral compliance c_y in series, ``σα + |Kyα|·c_y``."""
    if lateral_compliance is None:
        return at.sigma_alpha
    return at.sigma_alpha + at.kya * lateral_compliance


def mf61_params(t: dict) -> tir.Mf61Params:
    """The MF 6.1 parameters a tire's definition embeds (``t["mf61"]``)."""
    return tir.from_mapping(t["mf61"], "mf61")


def _mf61_trail(p: tir.Mf61Params, fz: float) -> float:
    """An MF 6.1 tire's pneumatic trail at small slip (m): -ΔM_z/ΔF_y over α* = ±0.001."""
    left = mf61.forces_at(p, fz, 0.0, 0.001, 0.0, 1.0, 1.0)
    right = mf61.forces_at(p, fz, 0.0, -0.001, 0.0, 1.0, 1.0)
    return -(left.mz - right.mz) / (left.fy - right.fy)


def cornering_stiffness(t: dict, fz: float) -> float:
    """C_α (N/rad) of tire ``t`` at load ``fz``: K_y1·F_z0·2q/(1+q²), q = F_z/(K_y2·F_z0)
    (an MF 6.1 tire's |Kyα|)."""
    if "mf61" in t:
        return mf61.at_load(mf61_params(t), fz, 0.0, 1.0).kya
    fz0 = t["nominal_load_n"]
    q = fz / (t["cornering_stiffness_peak_load"] * fz0)
    return t["cornering_stiffness_coef"] * fz0 * 2.0 * q / (1.0 + q * q)


def peak_friction(t: dict) -> tuple[float, float]:
    """(μ_x, μ_y) of tire ``t`` (a definition's) at its nominal load: what a driver plans with."""
    if "mf61" in t:
        p = mf61_params(t)
        return abs(p.PDX1) * p.LMUX, abs(p.PDY1) * p.LMUY
    return t["mu_x"], t["mu_y"]


def load_terms(
    k: TireConstants, fz: float, surface: float
) -> tuple[float, float, float, float, float]:
    """(D_x, D_y, φ_x per metre of u_x, φ_y per metre of u_y, σ_y) at load ``fz`` (> 0).

    σ_y is the tire's relaxation length, or, with a load share s (``relax_load``), the
    length that follows the cornering stiffness, ``σ_y·(1 - s + s·C_α(F_z)/C_α(F_z0))``: the
    relaxation length is the cornering stiffness over the carcass's lateral stiffness
    (Pacejka, *Tire and Vehicle Dynamics*, §7.2), so s = 1 is a carcass whose stiffness does
    not change with load, and s = 0 one that stiffens as the cornering stiffness grows. A
    suspension's lateral compliance c_y (``lateral_compliance``) in series with the carcass adds
    ``C_α(F_z)·c_y`` (Pacejka, §7.2: the springs add; the steady force is unchanged)."""
    scale = surface * (1.0 + k.load_sensitivity * (fz * k.inv_fz0 - 1.0)) * fz
    dx = k.mu_x * scale
    dy = k.mu_y * scale
    q = fz * k.inv_ky2_fz0
    c_alpha = k.ky1_fz0 * 2.0 * q / (1.0 + q * q)
    inv_c = k.inv_c
    sigma_y = k.sigma_y
    if k.relax_load is not None:
        share = k.relax_load
        sigma_y = sigma_y * (1.0 - share + share * (c_alpha * k.inv_c_alpha0))
        if k.lateral_compliance is not None:  # the suspension's, in series with the carcass
            sigma_y = sigma_y + c_alpha * k.lateral_compliance
    return (
        dx,
        dy,
        k.kx * fz * inv_c / (dx * k.sigma_x),
        c_alpha * inv_c / (dy * sigma_y),
        sigma_y,
    )


def shape(c: float, e: float, rho: float) -> float:
    """sin(C·atan ψ)/ρ with ψ = ρ - E·(ρ - atan ρ): the Magic-Formula shape per unit slip."""
    if rho < 1e-9:
        return c
    psi = rho - e * (rho - atan_fast(rho))
    angle = c * atan_fast(psi)
    return sin_fast(angle) / rho


def shape_nonneg(c: float, e: float) -> frozenset[str]:
    """The locals of :func:`shape` that are not below zero (or nan) wherever a kernel reads
    them, for tire constants ``c``, ``e``: the specialiser then inlines only the kernel's
    positive side (``engine.specialise.Plan.nonneg``; tests/test_vehicle_tire.py samples it).

    ``rho`` passed ``rho < 1e-9``. ``psi = rho - E·d`` with ``d = rho - atan rho <= rho``: for
    ``0 <= E <= 1``, ``E·d <= rho``; for ``E < 0``, ``d < 0`` only by an ulp or two where
    ``atan rho`` rounds up to ``rho``, so ``|E·d| < rho`` while ``|E| < 2**30``. Rounding is
    monotone, so ``psi >= 0`` in both cases, and then ``angle = C·atan psi >= 0`` for ``C >= 0``.
    """
    psi = -1073741824.0 < e <= 1.0
    names = {"rho"} | ({"psi"} if psi else set()) | ({"angle"} if psi and c >= 0.0 else set())
    return frozenset(names)


def steady_lateral(
    k: TireConstants, fz: float, surface: float, tan_alpha: float
) -> tuple[float, float]:
    """Steady pure-lateral (F_y, M_z) at slip tan α (free rolling, no longitudinal slip)."""
    if k.mf61 is not None:  # an axle's two tires, one of them mirrored (:func:`mirrored`)
        f = mf61.forces_at(k.mf61, fz, 0.0, -tan_alpha, 0.0, 1.0, surface)
        m = mf61.forces_at(k.mf61, fz, 0.0, tan_alpha, 0.0, 1.0, surface)
        return 0.5 * (f.fy - m.fy), 0.5 * (f.mz - m.mz)
    dx, dy, kxs, kys, sigma_y = load_terms(k, fz, surface)
    phi = kys * sigma_y * tan_alpha
    rho = abs(phi)
    if rho > k.rho_cap:
        phi = k.rho_cap if phi > 0.0 else -k.rho_cap
        rho = k.rho_cap
    fy = dy * shape(k.c, k.e, rho) * phi
    trail = k.trail / (1.0 + rho * rho * k.inv_rho_t2)
    return fy, -trail * fy


class PatchTerms(NamedTuple):
    """One loaded wheel's tire terms at the start of a substep, from its deflection."""

    kxs: float  # φ_x per metre of u_x
    kys: float  # φ_y per metre of u_y
    relax_x: float  # 1/(1 + h·|V_x|/σ_x), the implicit relaxation of u_x
    uy_next: float  # the new lateral deflection before saturation (it does not depend on ω')
    damper_x: float  # the low-speed dampers at this speed (0 while the patch slides)
    damper_y: float
    p: float  # F_x' = P + Q·ω': the longitudinal force's dependence on the new spin
    q: float
    ux: float  # the deflection at the start of the substep
    uy: float
    trail_k: float  # M_z = trail_k·F_y (minus the pneumatic trail)
    fx0: float  # the patch spring's force at the start of the substep
    fy0: float
    dx: float  # the friction limits D_x, D_y at this load and surface (N)
    dy: float
    mz0: float  # an MF 6.1 patch's aligning moment at the start of the substep (0 otherwise)
    step_x: float  # an MF 6.1 patch's h·g_x (:func:`transient_gain`; 0 otherwise: h)
    rolling: float  # an MF 6.1 tire's rolling-resistance torque bound |M_y| (N·m; 0 otherwise)


class TireForces(NamedTuple):
    """The ``tire_forces`` stage: per wheel (FL, FR, RL, RR) the terms the wheel solve uses."""

    terms: tuple  # PatchTerms per wheel, None for a wheel off the ground
    v_x: tuple  # hub forward speed in the wheel frame (m/s)
    v_sy: tuple  # hub lateral speed in the wheel frame (m/s)
    rhs: list  # b_i = I/h·ω - R·P: the wheel equation's right-hand side
    diag: list  # d_i = I/h + R·Q
    capacity: list  # brake + rolling-resistance bound of each wheel (N·m)
    spring: tuple  # (F_x0, F_y0) per wheel, flattened: the probe's values


class PatchUpdate(NamedTuple):
    """A patch after the wheel solve: new deflection and the forces over the substep."""

    ux: float
    uy: float
    fx: float
    fy: float
    mz: float
    slid: bool  # the patch slides: its deflection passed the sliding cap (and was projected
    # back onto it), or its damped force passed the friction ellipse


def patch_terms(
    w: WheelConstants,
    fz: float,
    v_x: float,
    v_sy: float,
    ux: float,
    uy: float,
    surface: float,
    h: float,
    lean: float,
) -> PatchTerms:
    """The spring force of the deflected patch and the terms of its implicit update.

    The longitudinal deflection's update is implicit in the relaxation and the
    damper acts on its rate, so F_x at the end of the substep is linear in the
    wheel's new spin, ``F_x' = P + Q·ω'``. ``lean`` is the wheel's inclination towards the
    car's left (rad, :mod:`engine.fourwheel.kinematics`), read where its axle has kinematics.
    """
    k = w.tire
    if k.mf61 is not None:
        return mf61_patch_terms(w, fz, v_x, v_sy, ux, uy, surface, h, lean)
    dx, dy, kxs, kys, sigma_y = load_terms(k, fz, surface)
    phx = kxs * ux
    phy = kys * uy
    if k.camber is not None:  # camber thrust: the slip of C_γ·F_z·ι at small slip
        phy = phy + camber_slip(k, fz, dy, lean)
    rho = sqrt(phx * phx + phy * phy)
    shp = shape(k.c, k.e, rho)
    fx0 = dx * shp * phx
    fy0 = dy * shp * phy
    abs_v = v_x if v_x >= 0.0 else -v_x
    cxd, cyd = dampers(k, rho, v_x)
    relax_x = 1.0 / (1.0 + abs_v * w.h_over_sigma_x)
    if k.relax_load is None:
        relax_y = 1.0 / (1.0 + abs_v * w.h_over_sigma_y)
    else:  # the relaxation length at this load
        relax_y = 1.0 / (1.0 + abs_v * (h / sigma_y))
    rate_x = -v_x - abs_v * ux * w.inv_sigma_x
    q = cxd * relax_x * w.radius
    p = fx0 + cxd * relax_x * rate_x
    mzk = -k.trail / (1.0 + rho * rho * k.inv_rho_t2)
    return PatchTerms(
        kxs, kys, relax_x, relax_y * (uy - h * v_sy), cxd, cyd, p, q, ux, uy, mzk, fx0, fy0,
        dx, dy, 0.0, 0.0, 0.0,
    )


def camber_slip(k: TireConstants, fz: float, dy: float, lean: float) -> float:
    """The normalised lateral slip φ_γ that camber adds, ``C_γ·F_z·ι/(C·D_y)``: at small slip
    the force grows by ``D_y·C·φ_γ = C_γ·F_z·ι`` (the camber thrust), and at large slip the
    shape saturates it with the slip's force, inside the friction ellipse (a horizontal
    shift of the curve, as the Magic Formula's S_Hγ)."""
    return k.camber * fz * lean * k.inv_c / dy


def dampers(k: TireConstants, rho: float, v_x: float) -> tuple[float, float]:
    """The low-speed dampers (N·s/m) of a patch at normalised slip ``rho`` and hub speed
    ``v_x``: faded with speed, none while the patch slides (``rho`` at the sliding cap)."""
    if rho >= k.rho_cap * (1.0 - 1e-12):
        return 0.0, 0.0
    fade = 1.0 / (1.0 + v_x * v_x * k.inv_vfade2)
    return k.damper_x * fade, k.damper_y * fade


def mf61_patch_terms(
    w: WheelConstants,
    fz: float,
    v_x: float,
    v_sy: float,
    ux: float,
    uy: float,
    surface: float,
    h: float,
    lean: float,
) -> PatchTerms:
    """:func:`patch_terms` of an MF 6.1 tire: the deflection's slips at this load,
    ``κ = u_x/σκ`` and ``α* = -tan α = -u_y/σα`` with the file's relaxation lengths σ at the
    current load, give the forces and the moment (:func:`engine.fourwheel.mf61.forces_at`,
    at the file's inclination γ = -ι, positive leaning right, where the axle has kinematics,
    else 0); the slip is normalised by the file's B (``ρ = sqrt((Bx·κ)² + (By·tan α)²)``,
    the Magic Formula's own argument) against the sliding slip, and the dampers are sized
    at the static load. The rest is the deflection model of this module's docstring."""
    k = w.tire
    p = k.mf61
    gamma = 0.0
    if k.camber is not None:  # the file's γ leans right; mirrored, F_y(α, γ) = -F_y'(-α, -γ)
        gamma = lean if mirrored(p, w.y) else -lean
    lo = mf61.loaded(p, fz, gamma, surface)
    at = mf61.at_load_of(p, lo, surface)
    inv_sk = 1.0 / at.sigma_kappa
    inv_sa = 1.0 / lateral_relaxation(at, k.lateral_compliance)
    if mirrored(p, w.y):  # the file's tire mounted on the other side: F_y(α) = -F_y'(-α)
        f = mf61.forces_loaded(p, lo, ux * inv_sk, uy * inv_sa, gamma, v_x, surface)
        fy0 = -f.fy
        mz0 = -f.mz
    else:
        f = mf61.forces_loaded(p, lo, ux * inv_sk, -uy * inv_sa, gamma, v_x, surface)
        fy0 = f.fy
        mz0 = f.mz
    kxs = at.bx * inv_sk
    kys = at.by * inv_sa
    phx = kxs * ux
    phy = kys * uy
    rho = sqrt(phx * phx + phy * phy)
    gx = transient_gain(at.cx, at.ex, rho)
    gy = transient_gain(at.cy, at.ey, rho)
    abs_v = v_x if v_x >= 0.0 else -v_x
    cxd, cyd = dampers(k, rho, v_x)
    step_x = h * gx
    relax_x = 1.0 / (1.0 + abs_v * step_x * inv_sk)
    relax_y = 1.0 / (1.0 + abs_v * h * gy * inv_sa)
    rate_x = -v_x - abs_v * ux * inv_sk  # the carcass's rate: the damper's (g left out)
    q = cxd * relax_x * w.radius
    fx0 = f.fx
    p_x = fx0 + cxd * relax_x * rate_x
    rolling = f.my if f.my >= 0.0 else -f.my
    return PatchTerms(
        kxs, kys, relax_x, relax_y * (uy - h * gy * v_sy), cxd, cyd / gy, p_x, q, ux, uy, 0.0,
        fx0, fy0, at.dx, at.dy, mz0, step_x, rolling,
    )  # fmt: skip


#: The least slope of the shape, relative to its slope at zero slip, that
#: :func:`transient_gain` divides by: near and past the force peak (where the slope is 0,
#: then negative) the relaxation length stays at 1/50 of the file's.
GAIN_FLOOR = 0.02


def transient_gain(c: float, e: float, rho: float) -> float:
    """g = (slope at zero slip)/(slope at ρ) of the Magic Formula shape sin(C·atan ψ),
    ψ = ρ - E·(ρ - atan ρ): ``(1 + ψ²)/(cos(C·atan ψ)·(1 - E·ρ²/(1 + ρ²)))``, the slope
    ratio floored at :data:`GAIN_FLOOR` (so g <= 50).

    An MF 6.1 patch's relaxation length is the file's σ divided by g, the nonlinear
    single-contact-point model (Pacejka, *Tire and Vehicle Dynamics*, §7.2: σ = C_F(slip)/C_c,
    the local slip stiffness over the carcass stiffness): the carcass deflects in proportion
    to the force, not to the slip, so near and past the force peak the slip follows quickly
    and a locked wheel that stops stores the carcass's deflection D/C_c, not σ times the
    sliding slip (the car would roll back by that much once stopped)."""
    r2 = rho * rho
    psi = rho - e * (rho - atan_fast(rho))
    slope = cos_fast(c * atan_fast(psi)) * (1.0 - e * r2 / (1.0 + r2)) / (1.0 + psi * psi)
    return 1.0 / (slope if slope > GAIN_FLOOR else GAIN_FLOOR)


def mirrored(p: tir.Mf61Params, y: float) -> bool:
    """Whether an MF 6.1 tire at lateral position ``y`` (m, > 0 left) is the file's tire
    mirrored: a file measured on one side (``TYRESIDE``, LEFT when absent) mounted on the
    other side, so that its offsets (ply steer, conicity) cancel across an axle as a car's
    do. A SYMMETRIC file is used as it is on both sides."""
    side = "LEFT" if y > 0.0 else "RIGHT"
    return p.TYRESIDE != "SYMMETRIC" and p.TYRESIDE != side


def sliding(t: PatchTerms) -> PatchTerms:
    """The terms of a patch that slides: no damper (a sliding patch does not deflect further)."""
    return t._replace(damper_x=0.0, damper_y=0.0, p=t.fx0, q=0.0)


def forces(
    wheels: tuple,
    cos_w: tuple,
    sin_w: tuple,
    vx: float,
    vy: float,
    r: float,
    omega: tuple,
    ux: tuple,
    uy: tuple,
    fz: tuple,
    friction: tuple,
    rolling: tuple,
    caps: tuple,
    h: float,
    lean: tuple,
) -> TireForces:
    """The ``tire_forces`` stage: hub velocities in each wheel frame and each patch's terms.
    ``friction`` is each wheel's λ (the road's times its surface's), ``rolling`` the
    rolling-resistance coefficient its surface adds to the tire's own
    (:mod:`engine.fourwheel.ground`), ``lean`` each wheel's inclination towards the car's
    left (:mod:`engine.fourwheel.kinematics`)."""
    terms = [None, None, None, None]
    v_xs = [0.0, 0.0, 0.0, 0.0]
    v_sys = [0.0, 0.0, 0.0, 0.0]
    rhs = [0.0, 0.0, 0.0, 0.0]
    diag = [0.0, 0.0, 0.0, 0.0]
    cap = [0.0, 0.0, 0.0, 0.0]
    spring = [0.0] * 8
    for i in range(4):
        w = wheels[i]
        c = cos_w[i]
        s = sin_w[i]
        hvx = vx - r * w.y
        hvy = vy + r * w.x
        v_x = hvx * c + hvy * s
        v_sy = hvy * c - hvx * s
        v_xs[i] = v_x
        v_sys[i] = v_sy
        f_z = fz[i]
        if f_z > 0.0:
            t = patch_terms(w, f_z, v_x, v_sy, ux[i], uy[i], friction[i], h, lean[i])
            rhs[i] = w.a * omega[i] - w.radius * t.p
            diag[i] = w.a + w.radius * t.q
            if w.tire.mf61 is None:
                cap[i] = caps[i] + (w.rolling_arm + w.radius * rolling[i]) * f_z
            else:  # the file's rolling-resistance moment, and what the surface adds
                cap[i] = caps[i] + t.rolling + w.radius * rolling[i] * f_z
            spring[2 * i] = t.fx0
            spring[2 * i + 1] = t.fy0
        else:  # wheel off the ground: no force, the patch relaxes, the wheel spins freely
            t = None
            rhs[i] = w.a * omega[i]
            diag[i] = w.a
            cap[i] = caps[i]
        terms[i] = t
    return TireForces(tuple(terms), tuple(v_xs), tuple(v_sys), rhs, diag, cap, tuple(spring))


def deflect(
    w: WheelConstants, t: PatchTerms, omega_n: float, v_x: float, h: float, inv_h: float
) -> PatchUpdate:
    """The deflection after the substep with the wheel's new spin, saturated at the sliding slip.

    ``u_x' = (u_x - h·V_sx)/(1 + h·|V_x|/σ_x)`` with ``V_sx = V_x - R·ω'``; past
    ``ρ_cap`` the deflection is projected back onto it (the patch slides).
    """
    if w.tire.mf61 is None:
        ux_n = t.relax_x * (t.ux + h * (w.radius * omega_n - v_x))
    else:  # the slip follows faster near the force peak (transient_gain)
        ux_n = t.relax_x * (t.ux + t.step_x * (w.radius * omega_n - v_x))
    uy_n = t.uy_next
    px = t.kxs * ux_n
    py = t.kys * uy_n
    r2 = px * px + py * py
    rho_cap = w.tire.rho_cap
    slid = r2 > rho_cap * rho_cap
    if slid:
        scale = rho_cap / sqrt(r2)
        ux_n *= scale
        uy_n *= scale
    fx = t.p + t.q * omega_n
    fy = t.fy0 + t.damper_y * (uy_n - t.uy) * inv_h
    # (F_x/D_x)² + (F_y/D_y)² > 1 without a division: the damper pushed the force past
    # what friction allows, so the patch slides (engine.fourwheel.wheel solves it again undamped)
    dxy = t.dx * t.dy
    beyond = fx * fx * (t.dy * t.dy) + fy * fy * (t.dx * t.dx) > dxy * dxy
    if w.tire.mf61 is None:
        mz = t.trail_k * fy
    else:  # MF 6.1: the deflected patch's own moment (trail, residual torque, s·F_x)
        mz = t.mz0
    return PatchUpdate(ux_n, uy_n, fx, fy, mz, slid or beyond)
