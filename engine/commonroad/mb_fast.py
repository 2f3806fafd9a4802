"""The MB derivative specialised to one parameter set, as code: ``mb.derivatives`` made fast.

:func:`source` writes one function, ``derivatives(x, u)``, that performs the operations of
:func:`engine.commonroad.mb.derivatives_ext` (the readable equations, which stay the source of
truth) for one ``VehicleParams``, in the same order, so both give the same bits; what differs
is only the layout:

* every parameter, and every ``MBConstants`` value, is folded into the text as the ``repr`` of
  its float (which reads back to the same double); so are the few subexpressions the readable
  form computes from parameters alone (``0.5 T_f``, ``h_s - R_w``, ``a_max v_switch``...),
  formed here by the same operations on the same operands;
* the input constraints, the slips, ``sincos_fast`` and ``atan_fast`` are inlined operation
  for operation (rare arguments call the kernel functions themselves), and the four tires
  are ``tire_fast.body`` written out per wheel: no Python call on the common path;
* products and sums the equations use twice are formed once, each grouped as both uses group
  it, so each use gets the same bits;
* below ``LOW_SPEED`` (the kinematic branch, and reverse) the tires run at zero slip and the
  first six rates come from ``ks_cog``, called as the readable form calls it.

The text is built only from fixed templates and numbers rendered by ``tire_fast.num``, never
from a definition's strings (verify runs strangers' files). ``tests/test_commonroad_mb_fast.py``
holds it bit-equal to the readable form for vehicles 1-3 on random and special states, lints
the generated text with the strict-float lint and catches a one-ulp change planted in it;
``parity/fastpath_check.py`` repeats the comparison in every runtime of the parity matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import sqrt

from skidpad.engine.memo import IdentityMemo
from skidpad.engine.smath import inline
from skidpad.engine.smath.inline import Unfoldable, indent, inline_atan, inline_sincos

from . import ks_cog
from .mb import LOW_SPEED, WHEEL_SPEED_FLOOR, G, constants, derivatives_ext
from .params import VehicleParams
from .tire_fast import body, num

Derivatives = Callable[[Sequence[float], Sequence[float]], list]
CACHE_SIZE = 8
WHEELS = ("LF", "RF", "LR", "RR")


def _constraints(p: VehicleParams) -> list[str]:
    """``u0, u1`` = the steering and acceleration constraints (``constraints.py``) inlined."""
    n = num
    st, lo = p.steering, p.longitudinal
    return [
        "v_delta = u[0]",
        f"if (x2 <= {n(st.min)} and v_delta <= 0.0) or (x2 >= {n(st.max)} and v_delta >= 0.0):",
        "    u0 = 0.0",
        f"elif v_delta <= {n(st.v_min)}:",
        f"    u0 = {n(st.v_min)}",
        f"elif v_delta >= {n(st.v_max)}:",
        f"    u0 = {n(st.v_max)}",
        "else:",
        "    u0 = v_delta",
        "a = u[1]",
        f"if vx > {n(lo.v_switch)}:",
        f"    pos_limit = {n(lo.a_max * lo.v_switch)} / vx",
        "else:",
        f"    pos_limit = {n(lo.a_max)}",
        f"if (vx <= {n(lo.v_min)} and a <= 0.0) or (vx >= {n(lo.v_max)} and a >= 0.0):",
        "    u1 = 0.0",
        f"elif a <= {n(-lo.a_max)}:",
        f"    u1 = {n(-lo.a_max)}",
        "elif a >= pos_limit:",
        "    u1 = pos_limit",
        "else:",
        "    u1 = a",
    ]


def _slip(dst: str, omega: str, u_w: str, R_w: str) -> list[str]:
    # mb._slip: a ground speed <= 0 is replaced by the floor (nan stays)
    least = num(WHEEL_SPEED_FLOOR)
    return [f"{dst} = 1.0 - {R_w} * {omega} / ({least} if {u_w} <= 0.0 else {u_w})"]


def _alpha(dst: str, num_: str, den: str, minus: str = "") -> list[str]:
    # atan(num / mb._nonzero(den)) [- delta]
    least = num(WHEEL_SPEED_FLOOR)
    lines = [f"_q = {num_} / ({least} if {den} == 0.0 else {den})", *inline_atan("_at", "_q")]
    return lines + [f"{dst} = _at - {minus}" if minus else f"{dst} = _at"]


def source(p: VehicleParams) -> str:  # noqa: PLR0915 - one template, in the readable's order
    """The text of ``derivatives(x, u)`` for the parameter set ``p``."""
    n = num
    k = constants(p)
    R_w, T_f, T_r, pa, pb, h_s = n(p.R_w), n(p.T_f), n(p.T_r), n(p.a), n(p.b), n(p.h_s)
    tf2, tr2 = n(0.5 * p.T_f), n(0.5 * p.T_r)
    h_af, h_ar = n(p.h_raf - p.R_w), n(p.h_rar - p.R_w)
    low = n(LOW_SPEED)
    b = [
        "vx = x[3]",
        "x2 = x[2]",
        *_constraints(p),
        "vy = x[10]",
        "r = x[5]",
        "delta = x2",
        "x6 = x[6]",
        "x13 = x[13]",
        "x18 = x[18]",
        *inline_sincos("s13", "c13", "x13"),
        *inline_sincos("s18", "c18", "x18"),
        *inline_sincos("sd", "cd", "delta"),
        *inline_sincos("s6", "c6", "x6"),
        f"tf2_r = {tf2} * r",
        f"tr2_r = {tr2} * r",
        f"vy_f = vy + {pa} * r",
        f"vy_r = vy - {pb} * r",
        "x16 = x[16]",
        "x21 = x[21]",
        f"cam_f = x16 + {R_w} * (c13 - 1.0)",
        f"cam_r = x21 + {R_w} * (c18 - 1.0)",
        f"tf2_s = {tf2} * s13",
        f"tr2_s = {tr2} * s18",
        f"F_z_LF = (cam_f - tf2_s) * {n(p.K_zt)}",
        f"F_z_RF = (cam_f + tf2_s) * {n(p.K_zt)}",
        f"F_z_LR = (cam_r - tr2_s) * {n(p.K_zt)}",
        f"F_z_RR = (cam_r + tr2_s) * {n(p.K_zt)}",
        "x14 = x[14]",
        "x19 = x[19]",
        f"lever_f = {R_w} - x16",
        f"lever_r = {R_w} - x21",
        f"if vx < {low}:  # the kinematic branch (and reverse): no slip",
        "    s_lf = s_rf = s_lr = s_rr = 0.0",
        "    alpha_LF = alpha_RF = alpha_LR = alpha_RR = 0.0",
        "else:",
        *indent(
            [
                "vx_lf = vx + tf2_r",
                "vx_rf = vx - tf2_r",
                "u_w_lr = vx + tr2_r",
                "u_w_rr = vx - tr2_r",
                "vy_f_sd = vy_f * sd",
                "u_w_lf = vx_lf * cd + vy_f_sd",
                "u_w_rf = vx_rf * cd + vy_f_sd",
                "vx_lr = u_w_lr",
                "vx_rr = u_w_rr",
                "if u_w_lf < 0.0:",
                "    u_w_lf = 0.0",
                "if u_w_rf < 0.0:",
                "    u_w_rf = 0.0",
                "if u_w_lr < 0.0:",
                "    u_w_lr = 0.0",
                "if u_w_rr < 0.0:",
                "    u_w_rr = 0.0",
                *_slip("s_lf", "x[23]", "u_w_lf", R_w),
                *_slip("s_rf", "x[24]", "u_w_rf", R_w),
                *_slip("s_lr", "x[25]", "u_w_lr", R_w),
                *_slip("s_rr", "x[26]", "u_w_rr", R_w),
                "num_f = vy_f - x14 * lever_f",
                "num_r = vy_r - x19 * lever_r",
                *_alpha("alpha_LF", "num_f", "vx_lf", "delta"),
                *_alpha("alpha_RF", "num_f", "vx_rf", "delta"),
                *_alpha("alpha_LR", "num_r", "vx_lr"),
                *_alpha("alpha_RR", "num_r", "vx_rr"),
            ]
        ),
        "x11 = x[11]",
        "x8 = x[8]",
        f"delta_z_f = {n(p.h_s - p.R_w)} + x16 - x11",
        f"delta_z_r = {n(p.h_s - p.R_w)} + x21 - x11",
        "delta_phi_f = x6 - x13",
        "delta_phi_r = x6 - x18",
        f"zf = delta_z_f / c6 - {h_s} + {R_w} + {pa} * x8",
        f"zr = delta_z_r / c6 - {h_s} + {R_w} - {pb} * x8",
        f"roll_f = 0.5 * delta_phi_f * {T_f}",
        f"roll_r = 0.5 * delta_phi_r * {T_r}",
        "z_SLF = zf + roll_f",
        "z_SRF = zf - roll_f",
        "z_SLR = zr + roll_r",
        "z_SRR = zr - roll_r",
        "x7 = x[7]",
        "x9 = x[9]",
        "x12 = x[12]",
        "x17 = x[17]",
        "x22 = x[22]",
        "dot_delta_z_f = x17 - x12",
        "dot_delta_z_r = x22 - x12",
        f"dzf = dot_delta_z_f + {pa} * x9",
        f"dzr = dot_delta_z_r - {pb} * x9",
        "dot_delta_phi_f = x7 - x14",
        "dot_delta_phi_r = x7 - x19",
        f"droll_f = 0.5 * dot_delta_phi_f * {T_f}",
        f"droll_r = 0.5 * dot_delta_phi_r * {T_r}",
        "dz_SLF = dzf + droll_f",
        "dz_SRF = dzf - droll_f",
        "dz_SLR = dzr + droll_r",
        "dz_SRR = dzr - droll_r",
        f"gamma_LF = x6 + {n(p.D_f)} * z_SLF + {n(p.E_f)} * (z_SLF * z_SLF)",
        f"gamma_RF = x6 - {n(p.D_f)} * z_SRF - {n(p.E_f)} * (z_SRF * z_SRF)",
        f"gamma_LR = x6 + {n(p.D_r)} * z_SLR + {n(p.E_r)} * (z_SLR * z_SLR)",
        f"gamma_RR = x6 - {n(p.D_r)} * z_SRR - {n(p.E_r)} * (z_SRR * z_SRR)",
    ]
    slips = {"LF": "s_lf", "RF": "s_rf", "LR": "s_lr", "RR": "s_rr"}
    for w in WHEELS:
        b += [f"# tire {w}"] + body(
            p.tire, slips[w], f"alpha_{w}", f"gamma_{w}", f"F_z_{w}", f"F_x_{w}", f"F_y_{w}"
        )
    b += [
        "dot_delta_y_f = vy_f - x[15]",
        "dot_delta_y_r = vy_r - x[20]",
        *inline_sincos("s_phi_f", "c_phi_f", "delta_phi_f"),
        *inline_sincos("s_phi_r", "c_phi_r", "delta_phi_r"),
        "x27 = x[27]",
        "x28 = x[28]",
        f"delta_f = delta_z_f * s6 - x27 * c6 - {h_af} * s_phi_f",
        f"delta_r = delta_z_r * s6 - x28 * c6 - {h_ar} * s_phi_r",
        "dot_delta_f = ((delta_z_f * c6 + x27 * s6) * x7 + dot_delta_z_f * s6"
        f" - dot_delta_y_f * c6 - {h_af} * c_phi_f * dot_delta_phi_f)",
        "dot_delta_r = ((delta_z_r * c6 + x28 * s6) * x7 + dot_delta_z_r * s6"
        f" - dot_delta_y_r * c6 - {h_ar} * c_phi_r * dot_delta_phi_r)",
        f"F_RAF = delta_f * {n(p.K_ras)} + dot_delta_f * {n(p.K_rad)}",
        f"F_RAR = delta_r * {n(p.K_ras)} + dot_delta_r * {n(p.K_rad)}",
        f"tors_f = delta_phi_f * {n(p.K_tsf)} / {T_f}",
        f"tors_r = delta_phi_r * {n(p.K_tsr)} / {T_r}",
        f"F_SLF = {n(k.static_f)} - z_SLF * {n(p.K_sf)} - dz_SLF * {n(p.K_sdf)} + tors_f",
        f"F_SRF = {n(k.static_f)} - z_SRF * {n(p.K_sf)} - dz_SRF * {n(p.K_sdf)} - tors_f",
        f"F_SLR = {n(k.static_r)} - z_SLR * {n(p.K_sr)} - dz_SLR * {n(p.K_sdr)} + tors_r",
        f"F_SRR = {n(k.static_r)} - z_SRR * {n(p.K_sr)} - dz_SRR * {n(p.K_sdr)} - tors_r",
        "# products and sums the equations below use twice, each grouped as both uses group it",
        f"L_LF = 0.5 * F_SLF * {T_f}",
        f"L_RF = 0.5 * F_SRF * {T_f}",
        f"L_LR = 0.5 * F_SLR * {T_r}",
        f"L_RR = 0.5 * F_SRR * {T_r}",
        f"h_x11 = {h_s} - x11",
        f"h_x11_R = h_x11 - {R_w}",
        "F_S_f = F_SLF + F_SRF",
        "F_S_r = F_SLR + F_SRR",
        "F_S_sum = F_SLF + F_SLR + F_SRF + F_SRR",
        "F_RA_sum = F_RAF + F_RAR",
        "Fy_r = F_y_LR + F_y_RR",
        "r_vx = r * vx",
        "Fx_f = F_x_LF + F_x_RF",
        "Fy_f = F_y_LF + F_y_RF",
        "Fx_f_cd = Fx_f * cd",
        "Fy_f_sd = Fy_f * sd",
        "Fy_Fx_f = Fy_f * cd + Fx_f * sd",
        "sumX = F_x_LR + F_x_RR + Fx_f_cd - Fy_f_sd",
        f"sumN = (Fy_f * {pa} * cd + Fx_f * {pa} * sd + (F_y_RF - F_y_LF) * 0.5 * {T_f} * sd"
        f" + (F_x_LF - F_x_RF) * 0.5 * {T_f} * cd + (F_x_LR - F_x_RR) * 0.5 * {T_r}"
        f" - Fy_r * {pb})",
        "sumY_s = F_RA_sum * c6 + F_S_sum * s6",
        "sumL = (L_LF + L_LR - L_RF - L_RR"
        f" - F_RAF / c6 * (h_x11_R + x16 - {h_af} * c13)"
        f" - F_RAR / c6 * (h_x11_R + x21 - {h_ar} * c18))",
        "sumZ_s = F_S_sum * c6 - F_RA_sum * s6",
        f"sumM_s = {pa} * F_S_f - {pb} * F_S_r + (Fx_f_cd - Fy_f_sd + F_x_LR + F_x_RR) * h_x11",
        f"tf2_c = {tf2} * c13",
        f"tr2_c = {tr2} * c18",
        f"sumL_uf = (L_RF - L_LF - F_RAF * {h_af}"
        f" + F_z_LF * ({R_w} * s13 + tf2_c - {n(p.K_lt)} * F_y_LF)"
        f" - F_z_RF * ({n(-p.R_w)} * s13 + tf2_c + {n(p.K_lt)} * F_y_RF)"
        " - Fy_Fx_f * lever_f)",
        f"sumL_ur = (L_RR - L_LR - F_RAR * {h_ar}"
        f" + F_z_LR * ({R_w} * s18 + tr2_c - {n(p.K_lt)} * F_y_LR)"
        f" - F_z_RR * ({n(-p.R_w)} * s18 + tr2_c + {n(p.K_lt)} * F_y_RR)"
        " - Fy_r * lever_r)",
        "sumZ_uf = F_z_LF + F_z_RF + F_RAF * s6 - F_S_f * c6",
        "sumZ_ur = F_z_LR + F_z_RR + F_RAR * s6 - F_S_r * c6",
        "sumY_uf = Fy_Fx_f - F_RAF * c6 - F_S_f * s6",
        "sumY_ur = Fy_r - F_RAR * c6 - F_S_r * s6",
        "if u1 > 0.0:",
        "    T_B = 0.0",
        f"    T_E = {n(k.m_R_w)} * u1",
        "else:",
        f"    T_B = {n(k.m_R_w)} * u1",
        "    T_E = 0.0",
        f"tb_f = {n(k.brake_f)} * T_B",
        f"te_f = {n(k.drive_f)} * T_E",
        f"tb_r = {n(k.brake_r)} * T_B",
        f"te_r = {n(k.drive_r)} * T_E",
    ]
    tail = [
        "    x7,",
        f"    {n(k.inv_roll)} * ({n(k.xz_z)} * sumN + sumL),",
        "    x9,",
        f"    {n(k.inv_I_y_s)} * sumM_s,",
        f"    {n(k.inv_m_s)} * sumY_s - r_vx,",
        "    x12,",
        f"    {n(G)} - {n(k.inv_m_s)} * sumZ_s,",
        "    x14,",
        f"    {n(k.inv_I_uf)} * sumL_uf,",
        f"    {n(k.inv_m_uf)} * sumY_uf - r_vx,",
        "    x17,",
        f"    {n(G)} - {n(k.inv_m_uf)} * sumZ_uf,",
        "    x19,",
        f"    {n(k.inv_I_ur)} * sumL_ur,",
        f"    {n(k.inv_m_ur)} * sumY_ur - r_vx,",
        "    x22,",
        f"    {n(G)} - {n(k.inv_m_ur)} * sumZ_ur,",
    ]
    for w, slot, share in (("LF", 23, "f"), ("RF", 24, "f"), ("LR", 25, "r"), ("RR", 26, "r")):
        tail.append(
            f"    {n(k.inv_I_y_w)} * ({n(k.neg_R_w)} * F_x_{w} + tb_{share} + te_{share})"
            f" if x[{slot}] >= 0.0 else 0.0,"
        )
    tail += ["    dot_delta_y_f,", "    dot_delta_y_r,", "]"]
    b += [
        f"if vx < {low}:",
        "    f = KS_COG(x, (u0, u1), P)",
        "    f.append(LOW_RATES(delta, vx, x6, u0, u1, P)[0])",
        "    return f + [",
        *indent(tail),
        "x4 = x[4]",
        *inline_sincos("s_psi", "c_psi", "x4"),
        "return [",
        "    vx * c_psi - vy * s_psi,",
        "    vx * s_psi + vy * c_psi,",
        "    u0,",
        f"    {n(k.inv_m)} * sumX + r * vy,",
        "    r,",
        f"    {n(k.inv_yaw)} * (sumN + {n(k.xz_phi)} * sumL),",
        *tail,
    ]
    head = [
        '"""Generated by engine.commonroad.mb_fast: mb.derivatives_ext for one vehicle."""',
        "",
        "",
        "def derivatives(x, u):",
    ]
    return "\n".join(head + ["    " + line for line in b]) + "\n"


def namespace(p: VehicleParams) -> dict:
    """The names the generated text uses besides its own locals."""
    return {
        **inline.namespace(),
        "sqrt": sqrt,
        "KS_COG": ks_cog.derivatives_constrained,
        "LOW_RATES": ks_cog.low_speed_rates,
        "P": p,
    }


def build(p: VehicleParams, text: str | None = None) -> Derivatives:
    """Compile ``derivatives`` for ``p`` from :func:`source` (or from ``text``, a variant of
    it: the planted-difference test perturbs one line)."""
    if text is None:
        text = source(p)
    names = namespace(p)
    # The generated text is linted by the strict-float lint in tests/test_commonroad_mb_fast.py.
    code = compile(text, "<commonroad mb>", "exec")  # strict: allow dynamic-code -- generated
    exec(code, names)  # strict: allow dynamic-code -- the generated MB body, linted
    return names["derivatives"]


def _readable(p: VehicleParams) -> Derivatives:
    def derivatives(x: Sequence[float], u: Sequence[float]) -> list:
        return derivatives_ext(x, u, p)[0]

    return derivatives


def build_or_readable(p: VehicleParams) -> Derivatives:
    """:func:`build`, or the readable equations where a constant has no literal."""
    try:
        return build(p)
    except Unfoldable:  # a non-finite constant (parameters built past validation)
        return _readable(p)


#: The compiled ``derivatives`` of parameter set ``p``, built once per ``VehicleParams`` object
#: (compared by identity). ``build`` is looked up at each miss, so a test may replace it.
derivatives_for: IdentityMemo[VehicleParams, Derivatives] = IdentityMemo(
    lambda p: build_or_readable(p), CACHE_SIZE
)


#: (params, compiled derivatives) of the last parameter set seen: one tuple, so a reader never
#: pairs one set's params with another's function
_LAST: tuple = (None, None)


def derivatives(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Right-hand side of the MB equations: ``mb.derivatives``'s bits, computed by the code
    generated from it for ``p`` (what the daemon, replay and parity run)."""
    last = _LAST
    if last[0] is p:
        return last[1](x, u)
    return _remember(p)(x, u)


def _remember(p: VehicleParams) -> Derivatives:
    global _LAST
    fn = derivatives_for(p)
    _LAST = (p, fn)
    return fn
