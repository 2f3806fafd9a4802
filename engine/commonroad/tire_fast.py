"""The CommonRoad tire specialised to one vehicle, as code: ``combined_forces`` made fast.

:func:`source` writes one function, ``forces(kappa, alpha, gamma, F_z) -> (F_x, F_y)``,
that performs the operations of :func:`engine.commonroad.tire.combined_forces` (the
readable chain, which stays the source of truth) for one ``TireParams``, in the same order,
so both give the same bits; what differs is only the layout:

* every coefficient is folded into the text as the ``repr`` of its float (which reads back
  to the same double), the combined-slip weights' Taylor coefficients likewise
  (``tire.weight_series``), and the weights at the shift are the Horner polynomial written
  out (or the direct formula where the vehicle's shift is too large for the series);
* the kernels are inlined: ``atan_fast`` whole, ``sin_fast`` and ``cos_fast`` on their
  table's range and for tiny arguments, copied operation for operation from
  ``engine.smath.trig`` (the table index by ``floor``, which is ``int()`` on the non-negative
  arguments it gets; the negative side on tables of negated rows, see ``_Side``); every other
  argument (beyond the table, not finite) calls the function itself, so the result is the
  same in every case (ADR 0178, ADR 0185).

The text is built only from fixed templates and numbers rendered by :func:`num`, never from a
definition's strings. ``tests/test_commonroad_tire.py`` holds ``forces`` bit-equal to the
readable chain for every vehicle on random and edge inputs and lints the generated text with
the strict-float lint; STD calls ``forces_for(p.tire)``. :func:`body` and the ``inline_*``
kernels are also the parts ``mb_fast`` builds the whole MB derivative from.
"""

from __future__ import annotations

from collections.abc import Callable
from math import sqrt

from skidpad.engine.memo import IdentityMemo
from skidpad.engine.smath import inline
from skidpad.engine.smath.inline import inline_atan, inline_sin_or_cos

from .params import TireParams
from .tire import WeightSeries, weight_series_x, weight_series_y

#: the compiled ``forces`` of recently used tires, compared by identity (most recent first)
CACHE_SIZE = 8


def num(x: float) -> str:
    """A tire or vehicle constant as source text: ``engine.smath.inline.num`` of it as a float
    (a parameter read as an integer folds as the double the readable equations use)."""
    return inline.num(float(x))


def _magic(dst: str, b: str, E: float, C: float, trig: str, shift: str = "") -> list[str]:
    """``dst = trig(C atan(b - E (b - atan b)) + shift)`` with ``b`` a name."""
    inner = f"{num(C)} * _m2" + (f" + {shift}" if shift else "")
    return [
        *inline_atan("_m1", b),
        f"_mw = {b} - {num(E)} * ({b} - _m1)",
        *inline_atan("_m2", "_mw"),
        f"_mv = {inner}",
        *inline_sin_or_cos(dst, "_mv", trig),
    ]


def _weight(dst: str, s: str, C: float, E: float, series: WeightSeries) -> list[str]:
    """``dst = tire.shift_weight(s, C, E, series)`` written out."""
    if series is None:
        return _magic(dst, s, E, C, "cos")
    horner = num(series[-1])
    for c in reversed(series[:-1]):
        horner = f"{num(c)} + _wz * ({horner})"
    return [f"_wz = {s} * {s}", f"{dst} = {horner}"]


def body(
    p: TireParams, kappa: str, alpha: str, gamma: str, F_z: str, F_x: str, F_y: str
) -> list[str]:
    """The statements of ``F_x, F_y = combined_forces(kappa, alpha, gamma, F_z)`` for tire ``p``,
    unindented, reading the four inputs from the names given (never assigned) and leaving the
    forces in the names ``F_x`` and ``F_y``. Every other name it assigns starts with ``_``, so
    the lines can be inlined into a larger generated body (``mb_fast``)."""
    n = num
    return [
        f"_gg = {gamma} * {gamma}",
        "# pure longitudinal",
        f"_D_x = {n(p.p_dx1)} * (1.0 - {n(p.p_dx3)} * _gg) * {F_z}",
        f"_bk = ({F_z} * {n(p.p_kx1)}) / ({n(p.p_cx1)} * _D_x) * ({n(p.p_hx1)} - {kappa})",
        *_magic("_s_x", "_bk", p.p_ex1, p.p_cx1, "sin", f"{F_z} * {n(p.p_vx1)}"),
        "_F0_x = _D_x * _s_x",
        "# pure lateral; |gamma| formed in the sign's branches (abs() where gamma is 0 or nan)",
        f"if {gamma} > 0.0:",
        "    _sg = 1.0",
        f"    _ag = {gamma}",
        f"elif {gamma} < 0.0:",
        "    _sg = -1.0",
        f"    _ag = -{gamma}",
        "else:",
        "    _sg = 0.0",
        f"    _ag = abs({gamma})",
        f"_mu_y = {n(p.p_dy1)} * (1.0 - {n(p.p_dy3)} * _gg)",
        f"_D_y = _mu_y * {F_z}",
        f"_ba = ({F_z} * {n(p.p_ky1)}) / ({n(p.p_cy1)} * _D_y) * ({alpha} + _sg * ({n(p.p_hy1)} + "
        f"{n(p.p_hy3)} * _ag))",
        *_magic("_s_y", "_ba", p.p_ey1, p.p_cy1, "sin"),
        f"_F0_y = _D_y * _s_y + _sg * {F_z} * ({n(p.p_vy1)} + {n(p.p_vy3)} * _ag)",
        "# combined longitudinal",
        f"_u = {n(p.r_bx2)} * {kappa}",
        f"_B = {n(p.r_bx1)} / sqrt(1.0 + _u * _u)",
        f"_ba = _B * ({alpha} + {n(p.r_hx1)})",
        f"_bs = _B * {n(p.r_hx1)}",
        *_weight("_w_x", "_bs", p.r_cx1, p.r_ex1, weight_series_x(p)),
        *_magic("_k_x", "_ba", p.r_ex1, p.r_cx1, "cos"),
        f"{F_x} = _F0_x / _w_x * _k_x",
        "# combined lateral",
        f"_u = {n(p.r_by2)} * ({alpha} - {n(p.r_by3)})",
        f"_B = {n(p.r_by1)} / sqrt(1.0 + _u * _u)",
        f"_bs = _B * {n(p.r_hy1)}",
        *_weight("_w_y", "_bs", p.r_cy1, p.r_ey1, weight_series_y(p)),
        "_D = _F0_y / _w_y",
        f"_u = {n(p.r_vy4)} * {alpha}",
        f"_D_v = _D_y * ({n(p.r_vy1)} + {n(p.r_vy3)} * {gamma}) / sqrt(1.0 + _u * _u)",
        f"_vk = {n(p.r_vy6)} * {kappa}",
        *inline_atan("_v1", "_vk"),
        f"_v2 = {n(p.r_vy5)} * _v1",
        *inline_sin_or_cos("_s_v", "_v2", "sin"),
        "_S_v = _D_v * _s_v",
        f"_bk = _B * ({kappa} + {n(p.r_hy1)})",
        *_magic("_k_y", "_bk", p.r_ey1, p.r_cy1, "cos"),
        f"{F_y} = _D * _k_y + _S_v",
    ]


def source(p: TireParams) -> str:
    """The text of ``forces(kappa, alpha, gamma, F_z)`` for tire ``p``."""
    head = [
        '"""Generated by engine.commonroad.tire_fast: tire.combined_forces for one tire."""',
        "",
        "",
        "def forces(kappa, alpha, gamma, F_z):",
    ]
    lines = body(p, "kappa", "alpha", "gamma", "F_z", "F_x", "F_y") + ["return F_x, F_y"]
    return "\n".join(head + ["    " + line for line in lines]) + "\n"


def namespace() -> dict:
    """The names the generated text uses besides its own locals."""
    return {**inline.namespace(), "sqrt": sqrt}


def build(p: TireParams, text: str | None = None) -> Callable[[float, float, float, float], tuple]:
    """Compile ``forces`` for ``p`` from :func:`source` (or from ``text``, a variant of it:
    the planted-difference test perturbs one line)."""
    if text is None:
        text = source(p)
    names = namespace()
    # The generated text is linted by the strict-float lint in tests/test_commonroad_tire.py.
    code = compile(text, "<commonroad tire>", "exec")  # strict: allow dynamic-code -- generated
    exec(code, names)  # strict: allow dynamic-code -- the generated tire, linted
    return names["forces"]


#: The compiled ``forces`` of tire ``p``, built once per ``TireParams`` object (compared by
#: identity: a lookup hashes none of its 32 floats).
forces_for: IdentityMemo[TireParams, Callable[[float, float, float, float], tuple]] = (
    IdentityMemo(build, CACHE_SIZE)
)
