"""MB: the CommonRoad multi-body model (29 states), reference point the CoG.

A sprung mass (roll, pitch, heave, lateral velocity) on two unsprung axle
masses (roll, lateral velocity, heave each), four wheel spins and two
lateral compliances, with Pacejka tires including camber (``tire``). The
equations are those of the DOT multi-body model as published with
CommonRoad (Althoff & Würsching, "CommonRoad: Vehicle Models", 2020);
``STATE_NAMES`` lists the states in reference order, ``FIELD_UNITS`` their
units. g = 9.81 m/s^2. Inputs: steering rate [rad/s], acceleration [m/s^2],
both constrained.

Low speed: for |vx| < 0.1 m/s the slips and slip angles are zero, the slip
angle at the CoG is zero and the first six derivatives come from the
kinematic model about the CoG (``ks_cog``); the suspension states keep their
full dynamics.

Evaluation: ``derivatives_ext`` is the equations as written, the only text of them; the
daemon, replay and parity run ``mb_fast.derivatives``, the function the specialiser
(``engine.specialise``) derives from ``derivatives_ext`` for one parameter set (constants
folded, tires and kernels inlined; ADR 0185, ADR 0230), bit-equal to it.

Two defined behaviours where the reference raises ``ZeroDivisionError``
(ADR 0062):

* Reverse (vx <= -0.1 m/s): the reference clamps every wheel's ground speed
  at zero and then divides by it. Its tire model has no reverse rolling
  (wheel spins are clamped at >= 0), so here reverse uses the low-speed
  branch: kinematic motion, zero slip, full suspension dynamics. The switch
  is continuous at vx = -0.1.
* Forward with a wheel's ground speed <= 0 (inner wheel at a high yaw rate
  and low speed): that wheel's slip uses ``WHEEL_SPEED_FLOOR`` as its
  ground speed, the limit of the reference's own expression as the speed
  goes to zero (a saturated slip); likewise a slip angle whose
  denominator (vx +- T r' / 2) is exactly zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from skidpad.engine.memo import IdentityMemo
from skidpad.engine.smath.trig import atan_fast, sincos_fast

from . import ks_cog
from .constraints import acceleration_constraints, steering_constraints
from .params import TireParams, VehicleParams
from .tire import combined_forces, weight_series_x, weight_series_y

G = 9.81
LOW_SPEED = 0.1
WHEEL_SPEED_FLOOR = 1e-6  # [m/s], replaces a wheel ground speed of exactly zero

#: (name, unit, meaning) in the reference's state order.
STATES = (
    ("x", "m", "x-position (global)"),
    ("y", "m", "y-position (global)"),
    ("delta", "rad", "steering angle of the front wheels"),
    ("vx", "m/s", "longitudinal velocity (body frame)"),
    ("psi", "rad", "yaw angle"),
    ("yaw_rate", "rad/s", "yaw rate"),
    ("roll", "rad", "sprung-mass roll angle"),
    ("roll_rate", "rad/s", "sprung-mass roll rate"),
    ("pitch", "rad", "sprung-mass pitch angle"),
    ("pitch_rate", "rad/s", "sprung-mass pitch rate"),
    ("vy", "m/s", "sprung-mass lateral velocity"),
    ("z", "m", "sprung-mass heave (0 = static equilibrium)"),
    ("vz", "m/s", "sprung-mass vertical velocity"),
    ("front.roll", "rad", "front unsprung roll angle"),
    ("front.roll_rate", "rad/s", "front unsprung roll rate"),
    ("front.vy", "m/s", "front unsprung lateral velocity"),
    ("front.z", "m", "front unsprung vertical position"),
    ("front.vz", "m/s", "front unsprung vertical velocity"),
    ("rear.roll", "rad", "rear unsprung roll angle"),
    ("rear.roll_rate", "rad/s", "rear unsprung roll rate"),
    ("rear.vy", "m/s", "rear unsprung lateral velocity"),
    ("rear.z", "m", "rear unsprung vertical position"),
    ("rear.vz", "m/s", "rear unsprung vertical velocity"),
    ("wheel.LF.omega", "rad/s", "left front wheel spin"),
    ("wheel.RF.omega", "rad/s", "right front wheel spin"),
    ("wheel.LR.omega", "rad/s", "left rear wheel spin"),
    ("wheel.RR.omega", "rad/s", "right rear wheel spin"),
    ("compliance.front.dy", "m", "front lateral compliance deflection"),
    ("compliance.rear.dy", "m", "rear lateral compliance deflection"),
)
STATE_NAMES = tuple(s[0] for s in STATES)
WHEEL_SLOTS = (23, 24, 25, 26)


def _slip(R_w: float, omega: float, u_w: float) -> float:
    if u_w <= 0.0:
        u_w = WHEEL_SPEED_FLOOR
    return 1.0 - R_w * omega / u_w


def _nonzero(d: float) -> float:
    # a wheel's longitudinal speed of exactly zero: the slip angle's limit from above
    return WHEEL_SPEED_FLOOR if d == 0.0 else d


class MBConstants(NamedTuple):
    """Vehicle constants of the equations, formed once per parameter set, each grouped
    exactly as the equations group it (so every use gives the bits of forming it there)."""

    static_f: float  # m_s g b / (2 (a + b)): static spring force per front wheel [N]
    static_r: float  # m_s g a / (2 (a + b))
    inv_m: float  # 1/m
    inv_yaw: float  # 1/(I_z - I_xz^2/I_Phi)
    xz_phi: float  # I_xz/I_Phi
    inv_roll: float  # 1/(I_Phi - I_xz^2/I_z)
    xz_z: float  # I_xz/I_z
    inv_I_y_s: float
    inv_m_s: float
    inv_I_uf: float
    inv_m_uf: float
    inv_I_ur: float
    inv_m_ur: float
    inv_I_y_w: float
    m_R_w: float  # m R_w: torque [N m] per unit acceleration
    neg_R_w: float  # -R_w
    brake_f: float  # 0.5 T_sb: each front wheel's share of the brake torque
    drive_f: float  # 0.5 T_se
    brake_r: float  # 0.5 (1 - T_sb)
    drive_r: float  # 0.5 (1 - T_se)


def constants(p: VehicleParams) -> MBConstants:
    """The :class:`MBConstants` of ``p``."""
    pa, pb = p.a, p.b
    I_z, I_xz, I_Phi = p.I_z, p.I_xz_s, p.I_Phi_s
    return MBConstants(
        static_f=p.m_s * G * pb / (2.0 * (pa + pb)),
        static_r=p.m_s * G * pa / (2.0 * (pa + pb)),
        inv_m=1.0 / p.m,
        inv_yaw=1.0 / (I_z - (I_xz * I_xz) / I_Phi),
        xz_phi=I_xz / I_Phi,
        inv_roll=1.0 / (I_Phi - (I_xz * I_xz) / I_z),
        xz_z=I_xz / I_z,
        inv_I_y_s=1.0 / p.I_y_s,
        inv_m_s=1.0 / p.m_s,
        inv_I_uf=1.0 / p.I_uf,
        inv_m_uf=1.0 / p.m_uf,
        inv_I_ur=1.0 / p.I_ur,
        inv_m_ur=1.0 / p.m_ur,
        inv_I_y_w=1.0 / p.I_y_w,
        m_R_w=p.m * p.R_w,
        neg_R_w=-p.R_w,
        brake_f=0.5 * p.T_sb,
        drive_f=0.5 * p.T_se,
        brake_r=0.5 * (1.0 - p.T_sb),
        drive_r=0.5 * (1.0 - p.T_se),
    )


#: ``constants(p)``, formed once per ``VehicleParams`` object
constants_for: IdentityMemo[VehicleParams, MBConstants] = IdentityMemo(constants)


def tire_series(tp: TireParams) -> tuple:
    """The combined-slip weights' series of tire ``tp`` (``tire.weight_series``)."""
    return weight_series_x(tp), weight_series_y(tp)


#: ``tire_series(tp)``, formed once per ``TireParams`` object
tire_series_for: IdentityMemo[TireParams, tuple] = IdentityMemo(tire_series)


def derivatives(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Right-hand side of the MB equations, as written below (the source of truth; what runs
    is ``mb_fast.derivatives``, the same bits)."""
    return derivatives_ext(x, u, p)[0]


def derivatives_ext(x: Sequence[float], u: Sequence[float], p: VehicleParams):
    """(derivatives, (slips LF RF LR RR, slip angles LF RF LR RR, F_x x4, F_y x4, F_z x4)).

    The one text of the MB equations: ``mb_fast`` specialises it to a parameter set (constants
    folded, the tires and kernels inlined) and runs that, bit-equal to it. Products and sums
    the equations use twice are formed once, each grouped as both uses group it (left to
    right, as the reference), so every value keeps its bits.
    """
    atan = atan_fast
    g = G
    tp = p.tire
    wx, wy = tire_series_for(tp)
    k = constants_for(p)
    R_w = p.R_w
    T_f = p.T_f
    T_r = p.T_r
    pa = p.a
    pb = p.b
    h_s = p.h_s

    u0 = steering_constraints(x[2], u[0], p.steering)
    u1 = acceleration_constraints(x[3], u[1], p.longitudinal)

    vx = x[3]
    low = vx < LOW_SPEED  # |vx| < 0.1 as in the reference, plus reverse (see module doc)
    vy = x[10]
    r = x[5]
    delta = x[2]

    s13, c13 = sincos_fast(x[13])
    s18, c18 = sincos_fast(x[18])
    sd, cd = sincos_fast(delta)
    s6, c6 = sincos_fast(x[6])

    tf2 = 0.5 * T_f
    tr2 = 0.5 * T_r
    tf2_r = tf2 * r
    tr2_r = tr2 * r
    vy_f = vy + pa * r
    vy_r = vy - pb * r

    # vertical tire forces
    K_zt = p.K_zt
    cam_f = x[16] + R_w * (c13 - 1.0)
    cam_r = x[21] + R_w * (c18 - 1.0)
    tf2_s = tf2 * s13
    tr2_s = tr2 * s18
    F_z_LF = (cam_f - tf2_s) * K_zt
    F_z_RF = (cam_f + tf2_s) * K_zt
    F_z_LR = (cam_r - tr2_s) * K_zt
    F_z_RR = (cam_r + tr2_s) * K_zt
    lever_f = R_w - x[16]
    lever_r = R_w - x[21]

    if low:
        s_lf = s_rf = s_lr = s_rr = 0.0
        alpha_LF = alpha_RF = alpha_LR = alpha_RR = 0.0
    else:
        # wheel ground speeds; negative ones are clamped at zero
        vx_lf = vx + tf2_r
        vx_rf = vx - tf2_r
        u_w_lr = vx + tr2_r
        u_w_rr = vx - tr2_r
        vy_f_sd = vy_f * sd
        u_w_lf = vx_lf * cd + vy_f_sd
        u_w_rf = vx_rf * cd + vy_f_sd
        vx_lr = u_w_lr
        vx_rr = u_w_rr
        if u_w_lf < 0.0:
            u_w_lf = 0.0
        if u_w_rf < 0.0:
            u_w_rf = 0.0
        if u_w_lr < 0.0:
            u_w_lr = 0.0
        if u_w_rr < 0.0:
            u_w_rr = 0.0
        s_lf = _slip(R_w, x[23], u_w_lf)
        s_rf = _slip(R_w, x[24], u_w_rf)
        s_lr = _slip(R_w, x[25], u_w_lr)
        s_rr = _slip(R_w, x[26], u_w_rr)
        num_f = vy_f - x[14] * lever_f
        num_r = vy_r - x[19] * lever_r
        alpha_LF = atan(num_f / _nonzero(vx_lf)) - delta
        alpha_RF = atan(num_f / _nonzero(vx_rf)) - delta
        alpha_LR = atan(num_r / _nonzero(vx_lr))
        alpha_RR = atan(num_r / _nonzero(vx_rr))

    # auxiliary suspension movement
    h_sr = h_s - R_w
    delta_z_f = h_sr + x[16] - x[11]
    delta_z_r = h_sr + x[21] - x[11]
    delta_phi_f = x[6] - x[13]
    delta_phi_r = x[6] - x[18]
    zf = delta_z_f / c6 - h_s + R_w + pa * x[8]
    zr = delta_z_r / c6 - h_s + R_w - pb * x[8]
    roll_f = 0.5 * delta_phi_f * T_f
    roll_r = 0.5 * delta_phi_r * T_r
    z_SLF = zf + roll_f
    z_SRF = zf - roll_f
    z_SLR = zr + roll_r
    z_SRR = zr - roll_r

    dot_delta_z_f = x[17] - x[12]
    dot_delta_z_r = x[22] - x[12]
    dzf = dot_delta_z_f + pa * x[9]
    dzr = dot_delta_z_r - pb * x[9]
    dot_delta_phi_f = x[7] - x[14]
    dot_delta_phi_r = x[7] - x[19]
    droll_f = 0.5 * dot_delta_phi_f * T_f
    droll_r = 0.5 * dot_delta_phi_r * T_r
    dz_SLF = dzf + droll_f
    dz_SRF = dzf - droll_f
    dz_SLR = dzr + droll_r
    dz_SRR = dzr - droll_r

    # camber angles
    gamma_LF = x[6] + p.D_f * z_SLF + p.E_f * (z_SLF * z_SLF)
    gamma_RF = x[6] - p.D_f * z_SRF - p.E_f * (z_SRF * z_SRF)
    gamma_LR = x[6] + p.D_r * z_SLR + p.E_r * (z_SLR * z_SLR)
    gamma_RR = x[6] - p.D_r * z_SRR - p.E_r * (z_SRR * z_SRR)

    # tire forces: pure slip, then combined slip (tire.combined_forces)
    F_x_LF, F_y_LF = combined_forces(s_lf, alpha_LF, gamma_LF, F_z_LF, tp, wx, wy)
    F_x_RF, F_y_RF = combined_forces(s_rf, alpha_RF, gamma_RF, F_z_RF, tp, wx, wy)
    F_x_LR, F_y_LR = combined_forces(s_lr, alpha_LR, gamma_LR, F_z_LR, tp, wx, wy)
    F_x_RR, F_y_RR = combined_forces(s_rr, alpha_RR, gamma_RR, F_z_RR, tp, wx, wy)

    # compliant joint equations
    dot_delta_y_f = vy_f - x[15]
    dot_delta_y_r = vy_r - x[20]

    s_phi_f, c_phi_f = sincos_fast(delta_phi_f)
    s_phi_r, c_phi_r = sincos_fast(delta_phi_r)
    h_af = p.h_raf - R_w
    h_ar = p.h_rar - R_w
    delta_f = delta_z_f * s6 - x[27] * c6 - h_af * s_phi_f
    delta_r = delta_z_r * s6 - x[28] * c6 - h_ar * s_phi_r
    dot_delta_f = (
        (delta_z_f * c6 + x[27] * s6) * x[7]
        + dot_delta_z_f * s6
        - dot_delta_y_f * c6
        - h_af * c_phi_f * dot_delta_phi_f
    )
    dot_delta_r = (
        (delta_z_r * c6 + x[28] * s6) * x[7]
        + dot_delta_z_r * s6
        - dot_delta_y_r * c6
        - h_ar * c_phi_r * dot_delta_phi_r
    )

    F_RAF = delta_f * p.K_ras + dot_delta_f * p.K_rad
    F_RAR = delta_r * p.K_ras + dot_delta_r * p.K_rad

    # suspension forces (bump stops and squat/lift neglected)
    static_f = k.static_f
    static_r = k.static_r
    tors_f = delta_phi_f * p.K_tsf / T_f
    tors_r = delta_phi_r * p.K_tsr / T_r
    F_SLF = static_f - z_SLF * p.K_sf - dz_SLF * p.K_sdf + tors_f
    F_SRF = static_f - z_SRF * p.K_sf - dz_SRF * p.K_sdf - tors_f
    F_SLR = static_r - z_SLR * p.K_sr - dz_SLR * p.K_sdr + tors_r
    F_SRR = static_r - z_SRR * p.K_sr - dz_SRR * p.K_sdr - tors_r

    L_LF = 0.5 * F_SLF * T_f
    L_RF = 0.5 * F_SRF * T_f
    L_LR = 0.5 * F_SLR * T_r
    L_RR = 0.5 * F_SRR * T_r
    h_x11 = h_s - x[11]
    h_x11_R = h_x11 - R_w
    F_S_f = F_SLF + F_SRF
    F_S_r = F_SLR + F_SRR
    F_S_sum = F_SLF + F_SLR + F_SRF + F_SRR
    F_RA_sum = F_RAF + F_RAR
    Fy_r = F_y_LR + F_y_RR
    r_vx = r * vx

    # sprung mass
    Fx_f = F_x_LF + F_x_RF
    Fy_f = F_y_LF + F_y_RF
    Fx_f_cd = Fx_f * cd
    Fy_f_sd = Fy_f * sd
    Fy_Fx_f = Fy_f * cd + Fx_f * sd
    sumX = F_x_LR + F_x_RR + Fx_f_cd - Fy_f_sd
    sumN = (
        Fy_f * pa * cd
        + Fx_f * pa * sd
        + (F_y_RF - F_y_LF) * 0.5 * T_f * sd
        + (F_x_LF - F_x_RF) * 0.5 * T_f * cd
        + (F_x_LR - F_x_RR) * 0.5 * T_r
        - Fy_r * pb
    )
    sumY_s = F_RA_sum * c6 + F_S_sum * s6
    sumL = (
        L_LF
        + L_LR
        - L_RF
        - L_RR
        - F_RAF / c6 * (h_x11_R + x[16] - h_af * c13)
        - F_RAR / c6 * (h_x11_R + x[21] - h_ar * c18)
    )
    sumZ_s = F_S_sum * c6 - F_RA_sum * s6
    sumM_s = pa * F_S_f - pb * F_S_r + (Fx_f_cd - Fy_f_sd + F_x_LR + F_x_RR) * h_x11

    # unsprung masses
    tf2_c = tf2 * c13
    tr2_c = tr2 * c18
    sumL_uf = (
        L_RF
        - L_LF
        - F_RAF * h_af
        + F_z_LF * (R_w * s13 + tf2_c - p.K_lt * F_y_LF)
        - F_z_RF * (-R_w * s13 + tf2_c + p.K_lt * F_y_RF)
        - Fy_Fx_f * lever_f
    )
    sumL_ur = (
        L_RR
        - L_LR
        - F_RAR * h_ar
        + F_z_LR * (R_w * s18 + tr2_c - p.K_lt * F_y_LR)
        - F_z_RR * (-R_w * s18 + tr2_c + p.K_lt * F_y_RR)
        - Fy_r * lever_r
    )
    sumZ_uf = F_z_LF + F_z_RF + F_RAF * s6 - F_S_f * c6
    sumZ_ur = F_z_LR + F_z_RR + F_RAR * s6 - F_S_r * c6
    sumY_uf = Fy_Fx_f - F_RAF * c6 - F_S_f * s6
    sumY_ur = Fy_r - F_RAR * c6 - F_S_r * s6

    if u1 > 0.0:
        T_B = 0.0
        T_E = k.m_R_w * u1
    else:
        T_B = k.m_R_w * u1
        T_E = 0.0
    # operation order as in the reference (bit parity)
    inv_I_y_w = k.inv_I_y_w
    neg_R_w = k.neg_R_w
    tb_f = k.brake_f * T_B
    te_f = k.drive_f * T_E
    tb_r = k.brake_r * T_B
    te_r = k.drive_r * T_E

    if low:
        head = ks_cog.derivatives_constrained(x, (u0, u1), p)
        dd_psi, _ = ks_cog.low_speed_rates(delta, vx, x[6], u0, u1, p)
        head.append(dd_psi)
    else:
        # vel cos(beta + psi) with beta = atan(vy/vx), vx > 0: vx cos psi - vy sin psi
        s_psi, c_psi = sincos_fast(x[4])
        head = [
            vx * c_psi - vy * s_psi,
            vx * s_psi + vy * c_psi,
            u0,
            k.inv_m * sumX + r * vy,
            r,
            k.inv_yaw * (sumN + k.xz_phi * sumL),
        ]

    f = head + [
        # sprung mass: roll, pitch, lateral, heave
        x[7],
        k.inv_roll * (k.xz_z * sumN + sumL),
        x[9],
        k.inv_I_y_s * sumM_s,
        k.inv_m_s * sumY_s - r_vx,
        x[12],
        g - k.inv_m_s * sumZ_s,
        # front unsprung mass: roll, lateral, heave
        x[14],
        k.inv_I_uf * sumL_uf,
        k.inv_m_uf * sumY_uf - r_vx,
        x[17],
        g - k.inv_m_uf * sumZ_uf,
        # rear unsprung mass
        x[19],
        k.inv_I_ur * sumL_ur,
        k.inv_m_ur * sumY_ur - r_vx,
        x[22],
        g - k.inv_m_ur * sumZ_ur,
        # wheel spins, then the compliant joints
        inv_I_y_w * (neg_R_w * F_x_LF + tb_f + te_f) if x[23] >= 0.0 else 0.0,
        inv_I_y_w * (neg_R_w * F_x_RF + tb_f + te_f) if x[24] >= 0.0 else 0.0,
        inv_I_y_w * (neg_R_w * F_x_LR + tb_r + te_r) if x[25] >= 0.0 else 0.0,
        inv_I_y_w * (neg_R_w * F_x_RR + tb_r + te_r) if x[26] >= 0.0 else 0.0,
        dot_delta_y_f,
        dot_delta_y_r,
    ]
    extra = (
        (s_lf, s_rf, s_lr, s_rr),
        (alpha_LF, alpha_RF, alpha_LR, alpha_RR),
        (F_x_LF, F_x_RF, F_x_LR, F_x_RR),
        (F_y_LF, F_y_RF, F_y_LR, F_y_RR),
        (F_z_LF, F_z_RF, F_z_LR, F_z_RR),
    )
    return f, extra
