"""The selectable CommonRoad models as data: state fields, equations, timing.

Each :class:`ModelSpec` names its states (with units), points at its
derivative function, declares its largest stable RK4 substep
(``max_dt_us``), whether it is drift-capable, and how to build its state
from the common core ``(x, y, delta, v, psi, yaw_rate, beta)`` (the
reference's ``init_*`` functions). ``observe`` turns a model state into the
quantities the controllers, safety system and telemetry need, in one
vocabulary for every model.

Max stable substeps (RK4, ADR 0063): KS has no stiff mode (10 ms). ST's yaw
and slip modes have eigenvalues of about -215/v s^-1 (vehicle 2), which at
the 0.1 m/s switch needs h < 1.3 ms, so 1 ms. STD and MB add wheel spin,
whose mode is about -9000/u s^-1 at wheel ground speed u: the 1 ms minimum
substep is the best the scheduler allows; below about 3 m/s wheel speed the
spin mode oscillates within the tire's saturation instead of decaying
(bounded, deterministic, documented in ADR 0063).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from skidpad.engine import smath

from . import ks, mb, mb_fast, st, std
from .params import VehicleParams

G = 9.81


@dataclass(frozen=True)
class ModelSpec:
    """A selectable model."""

    name: str
    title: str
    states: tuple[tuple[str, str, str], ...]  # (name, unit, meaning)
    derivatives: Callable[[Sequence[float], Sequence[float], VehicleParams], list]
    max_dt_us: int
    drift_capable: bool
    layout_version: int

    @property
    def n(self) -> int:
        return len(self.states)


_CORE = (
    ("x", "m", "x-position (global)"),
    ("y", "m", "y-position (global)"),
    ("delta", "rad", "steering angle of the front wheels"),
    ("v", "m/s", "speed"),
    ("psi", "rad", "yaw angle"),
    ("yaw_rate", "rad/s", "yaw rate"),
    ("beta", "rad", "slip angle at the centre of gravity"),
)

KS = ModelSpec("ks", "kinematic single-track", _CORE[:5], ks.derivatives, 10_000, False, 801)
ST = ModelSpec("st", "single-track", _CORE, st.derivatives, 1_000, False, 802)
STD = ModelSpec(
    "std",
    "single-track drift",
    _CORE + (("omega_f", "rad/s", "front wheel spin"), ("omega_r", "rad/s", "rear wheel spin")),
    std.derivatives,
    1_000,
    True,
    803,
)
MB = ModelSpec("mb", "multi-body", mb.STATES, mb_fast.derivatives, 1_000, False, 804)

MODELS: dict[str, ModelSpec] = {"ks": KS, "st": ST, "std": STD, "mb": MB}


def init_state(spec: ModelSpec, core: Sequence[float], p: VehicleParams) -> list:
    """A model state from the core (x, y, delta, v, psi, yaw_rate, beta), as ``init_*``.

    The core is referenced at the CoG (position, speed), as ST/STD/MB are; KS,
    referenced at the rear axle, is shifted back by ``b`` and given the
    rear-axle speed ``v cos(beta_kin)`` of the same kinematic motion.
    """
    x0, y0, delta0, v0, psi0, r0, beta0 = (float(c) for c in core)
    if spec.name == "ks":
        # KS is referenced at the rear axle and its v is the rear-axle speed
        l_wb = p.a + p.b
        cb = smath.cos(smath.atan(smath.tan(delta0) * p.b / l_wb))
        return [x0 - p.b * smath.cos(psi0), y0 - p.b * smath.sin(psi0), delta0, v0 * cb, psi0]
    if spec.name == "st":
        return [x0, y0, delta0, v0, psi0, r0, beta0]
    if spec.name == "std":
        cb = smath.cos(beta0)
        return [
            x0,
            y0,
            delta0,
            v0,
            psi0,
            r0,
            beta0,
            v0 * cb * smath.cos(delta0) / p.R_w,
            v0 * cb / p.R_w,
        ]
    # MB (init_mb): static equilibrium of the suspension
    F0_z_f = p.m_s * G * p.b / (p.a + p.b) + p.m_uf * G
    F0_z_r = p.m_s * G * p.a / (p.a + p.b) + p.m_ur * G
    vx = smath.cos(beta0) * v0
    vy = smath.sin(beta0) * v0
    w = vx / p.R_w
    return [
        x0,
        y0,
        delta0,
        vx,
        psi0,
        r0,
        0.0,
        0.0,
        0.0,
        0.0,
        vy,
        0.0,
        0.0,
        0.0,
        0.0,
        vy + p.a * r0,
        F0_z_f / (2.0 * p.K_zt),
        0.0,
        0.0,
        0.0,
        vy - p.b * r0,
        F0_z_r / (2.0 * p.K_zt),
        0.0,
        w,
        w,
        w,
        w,
        0.0,
        0.0,
    ]


def core_of(spec: ModelSpec, x: Sequence[float], p: VehicleParams) -> tuple:
    """The core (x, y, delta, v, psi, yaw_rate, beta) of a model state (for model swaps)."""
    if spec.name == "ks":
        l_wb = p.a + p.b
        t = smath.tan(x[2])
        beta = smath.atan(t * p.b / l_wb)
        return (
            x[0] + p.b * smath.cos(x[4]),
            x[1] + p.b * smath.sin(x[4]),
            x[2],
            x[3] / smath.cos(beta),
            x[4],
            x[3] / l_wb * t,
            beta,
        )
    if spec.name in ("st", "std"):
        return tuple(x[:7])
    vx, vy = x[3], x[10]
    speed = smath.sqrt(vx * vx + vy * vy)
    beta = smath.atan2(vy, vx) if speed > 0.0 else 0.0
    if vx < 0.0:
        speed = -speed
        beta = smath.atan2(-vy, -vx)
    return (x[0], x[1], x[2], speed, x[4], x[5], beta)


def speed(spec: ModelSpec, x: Sequence[float], p: VehicleParams) -> float:
    """Speed of the CoG [m/s] (KS: from its rear-axle speed; MB: from vx and vy)."""
    if spec.name == "ks":
        t = smath.tan(x[2])
        return abs(x[3]) / smath.cos(smath.atan(t * p.b / (p.a + p.b)))
    if spec.name == "mb":
        return smath.sqrt(x[3] * x[3] + x[10] * x[10])
    return abs(x[3])


def project(spec: ModelSpec, x: list) -> None:
    """Keep the state admissible after a substep: wheel spins are never negative."""
    if spec.name == "std":
        for i in (7, 8):
            if x[i] < 0.0:
                x[i] = 0.0
    elif spec.name == "mb":
        for i in mb.WHEEL_SLOTS:
            if x[i] < 0.0:
                x[i] = 0.0


@dataclass(frozen=True)
class Observation:
    """Model-independent quantities of one state (SI units, body frame)."""

    x: float
    y: float
    psi: float
    delta: float
    vx: float
    vy: float
    speed: float
    yaw_rate: float
    beta: float
    alpha_f: float
    alpha_r: float
    wheel_slip: tuple[float, ...]  # longitudinal slip per wheel (empty without wheel states)
    fx: tuple[float, float]  # tire force per axle, longitudinal [N]
    fy: tuple[float, float]  # tire force per axle, lateral [N]
    fz: tuple[float, float]  # vertical load per axle [N]
    tire_forces: bool  # fx/fy/fz come from the tire model (else quasi-static estimates)


def _quasi_static(p: VehicleParams, speed: float, yaw_rate: float, accel: float):
    l_wb = p.a + p.b
    m = p.m
    ay = speed * yaw_rate
    fz_f = m * (G * p.b - accel * p.h_s) / l_wb
    fz_r = m * (G * p.a + accel * p.h_s) / l_wb
    fy_f = m * ay * p.b / l_wb
    fy_r = m * ay * p.a / l_wb
    return (fy_f, fy_r), (fz_f, fz_r)


def _slip_angles(v: float, beta: float, r: float, delta: float, p: VehicleParams):
    if v <= 0.1:
        return 0.0, 0.0
    vxb = v * smath.cos(beta)
    vyb = v * smath.sin(beta)
    return smath.atan((vyb + r * p.a) / vxb) - delta, smath.atan((vyb - r * p.b) / vxb)


def _wheel_slips(spec: ModelSpec, x: Sequence[float], p: VehicleParams) -> tuple:
    """Longitudinal slip per wheel from the state alone (as the tire model computes it)."""
    if spec.name == "std":
        v, beta, r, delta = x[3], x[6], x[5], x[2]
        u_wf = max(
            0.0,
            v * smath.cos(beta) * smath.cos(delta)
            + (v * smath.sin(beta) + p.a * r) * smath.sin(delta),
        )
        u_wr = max(0.0, v * smath.cos(beta))
        return (
            1.0 - p.R_w * x[7] / max(u_wf, std.V_MIN),
            1.0 - p.R_w * x[8] / max(u_wr, std.V_MIN),
        )
    vx, vy, r, delta = x[3], x[10], x[5], x[2]
    if vx < mb.LOW_SPEED:
        return (0.0, 0.0, 0.0, 0.0)
    cd = smath.cos(delta)
    sd = smath.sin(delta)
    speeds = (
        (vx + 0.5 * p.T_f * r) * cd + (vy + p.a * r) * sd,
        (vx - 0.5 * p.T_f * r) * cd + (vy + p.a * r) * sd,
        vx + 0.5 * p.T_r * r,
        vx - 0.5 * p.T_r * r,
    )
    pairs = zip(mb.WHEEL_SLOTS, speeds, strict=True)
    return tuple(mb._slip(p.R_w, x[i], max(0.0, s)) for i, s in pairs)


def observe(
    spec: ModelSpec,
    x: Sequence[float],
    u: Sequence[float],
    p: VehicleParams,
    fx_axle: tuple[float, float],
    forces: bool = False,
) -> Observation:
    """Observation of state ``x`` under inputs ``u``.

    ``fx_axle`` is the commanded longitudinal force per axle (used where the
    model has no tire forces). With ``forces`` the STD/MB tire model is
    evaluated for the axle forces (telemetry); otherwise they are quasi-static
    estimates and only the slips come from the state (the safety detector).
    """
    name = spec.name
    if name == "mb" and forces:
        _, (slips, alphas, fxs, fys, fzs) = mb.derivatives_ext(x, u, p)
        vx, vy = x[3], x[10]
        speed = smath.sqrt(vx * vx + vy * vy)
        beta = smath.atan2(vy, vx) if vx > 0.1 else 0.0
        return Observation(
            x[0],
            x[1],
            x[4],
            x[2],
            vx,
            vy,
            speed,
            x[5],
            beta,
            (alphas[0] + alphas[1]) / 2.0,
            (alphas[2] + alphas[3]) / 2.0,
            tuple(slips),
            (fxs[0] + fxs[1], fxs[2] + fxs[3]),
            (fys[0] + fys[1], fys[2] + fys[3]),
            (fzs[0] + fzs[1], fzs[2] + fzs[3]),
            True,
        )
    if name == "std" and forces:
        _, (s_f, s_r, a_f, a_r, F_xf, F_xr, F_yf, F_yr, F_zf, F_zr) = std.derivatives_ext(x, u, p)
        v, beta = x[3], x[6]
        return Observation(
            x[0],
            x[1],
            x[4],
            x[2],
            v * smath.cos(beta),
            v * smath.sin(beta),
            abs(v),
            x[5],
            beta,
            a_f,
            a_r,
            (s_f, s_r),
            (F_xf, F_xr),
            (F_yf, F_yr),
            (F_zf, F_zr),
            True,
        )
    slips: tuple = ()
    if name == "mb":
        vx, vy, r = x[3], x[10], x[5]
        speed = smath.sqrt(vx * vx + vy * vy)
        beta = smath.atan2(vy, vx) if vx > 0.1 else 0.0
        a_f, a_r = _slip_angles(speed, beta, r, x[2], p)
        slips = _wheel_slips(spec, x, p)
        fy, fz = _quasi_static(p, speed, r, u[1])
        return Observation(
            x[0], x[1], x[4], x[2], vx, vy, speed, r, beta, a_f, a_r, slips, fx_axle, fy, fz, False
        )
    if name in ("st", "std"):
        v, beta, r = x[3], x[6], x[5]
        a_f, a_r = _slip_angles(v, beta, r, x[2], p)
        if name == "std":
            slips = _wheel_slips(spec, x, p)
    else:
        # KS: rear-axle reference point and speed; report the CoG's
        v = x[3]
        l_wb = p.a + p.b
        t = smath.tan(x[2])
        r = v / l_wb * t
        tb = t * p.b / l_wb
        beta = smath.atan(tb)
        sp = abs(v) / smath.cos(beta)
        fy, fz = _quasi_static(p, sp, r, u[1])
        return Observation(
            x[0] + p.b * smath.cos(x[4]),
            x[1] + p.b * smath.sin(x[4]),
            x[4],
            x[2],
            v,
            v * tb,
            sp,
            r,
            beta,
            0.0,
            0.0,
            slips,
            fx_axle,
            fy,
            fz,
            False,
        )
    fy, fz = _quasi_static(p, abs(v), r, u[1])
    return Observation(
        x[0],
        x[1],
        x[4],
        x[2],
        v * smath.cos(beta),
        v * smath.sin(beta),
        abs(v),
        r,
        beta,
        a_f,
        a_r,
        slips,
        fx_axle,
        fy,
        fz,
        False,
    )
