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
from math import floor, isfinite, sqrt
from typing import NamedTuple

from engine.smath.trig import FAST_TRIG_MAX, KERNEL, atan_fast, cos_fast, sin_fast

from .params import TireParams
from .tire import WeightSeries, weight_series_x, weight_series_y

#: the compiled ``forces`` of recently used tires, compared by identity (most recent first)
CACHE_SIZE = 8


class Unfoldable(ValueError):
    """A constant is not finite: it has no literal to fold into the generated text."""


def num(x: float) -> str:
    """A float as source text that reads back to the same double (negatives parenthesised)."""
    v = float(x)
    if not isfinite(v):
        raise Unfoldable(f"constant {v!r} is not finite")
    text = repr(v)
    return f"({text})" if text.startswith("-") else text


def indent(lines: list[str]) -> list[str]:
    """``lines`` one block deeper."""
    return ["    " + line for line in lines]


class _Side(NamedTuple):
    """How a kernel reads ``x`` on one side of zero. On the negative side it works on ``x``
    itself with a table of negated rows (``(-c, -atan c)``, ``(-a, -sin a, cos a)``): every
    operation then gives the exact negation of the positive side's on ``|x|`` (rounding to
    nearest is symmetric; the divisors are at least 1 and the results of the inlined paths
    are never zero), so odd functions need no final negation and ``|x|`` is never formed."""

    tail: str  # the table suffix ("" or "N")
    cmp_lt: str  # "x < t" written for |x|: "<" or ">"
    cmp_le: str  # "x <= t": "<=" or ">="
    cmp_ge: str  # "x >= t": ">=" or "<="
    neg: str  # the sign a threshold takes: "" or "-"
    scaled: Callable[[str, str, str], str]  # the table index's floor argument |x| * s + h
    over: Callable[[str, str, str], str]  # ... and s / |x| + h


def _times(x: str, s: str, h: str) -> str:
    return f"{x} * {s} + {h}"


def _times_neg(x: str, s: str, h: str) -> str:
    return f"{h} - {x} * {s}"


def _over(x: str, s: str, h: str) -> str:
    return f"{s} / {x} + {h}"


def _over_neg(x: str, s: str, h: str) -> str:
    return f"{h} - {s} / {x}"


POSITIVE = _Side("", "<", "<=", ">=", "", _times, _over)
NEGATIVE = _Side("N", ">", ">=", "<=", "-", _times_neg, _over_neg)


def _by_sign(x: str, kernel: Callable[[_Side], list[str]]) -> list[str]:
    """``kernel`` written for ``x < 0`` and for everything else (+-0, positive, nan): one
    sign test per call, no ``|x|``, no negated result (see ``_Side``)."""
    return [
        f"if {x} < 0.0:",
        *indent(kernel(NEGATIVE)),
        "else:",
        *indent(kernel(POSITIVE)),
    ]


def inline_atan(dst: str, x: str) -> list[str]:
    """``dst = atan_fast(x)`` inlined (``engine.smath.trig.atan_fast``), operation for
    operation; ``ATL``/``ATH`` are its table's rows (c, atan c) and (c, pi/2 - atan c),
    ``ATLN``/``ATHN`` the same negated."""
    a3, a5, a7 = num(KERNEL.a3), num(KERNEL.a5), num(KERNEL.a7)
    poly = f"_r * _z * ({a3} + _z * ({a5} + _z * {a7}))"
    half = "0.49999999999999994"

    def kernel(side: _Side) -> list[str]:
        t, m = side.tail, side.neg
        return [
            f"if {x} {side.cmp_le} {m}1.0:",
            f"    if {x} {side.cmp_lt} {m}7.450580596923828e-09:",
            f"        {dst} = {x}",
            "    else:",
            f"        _c, _ah, _al = ATL{t}[floor({side.scaled(x, '256.0', half)})]",
            f"        _r = ({x} - _c) / (1.0 + {x} * _c)",
            "        _z = _r * _r",
            f"        {dst} = _ah + (_r + (_al + {poly}))",
            f"elif {x} {side.cmp_lt} {m}1.152921504606847e18:",
            f"    _c, _bh, _bl = ATH{t}[floor({side.over(x, '256.0', half)})]",
            f"    _r = (1.0 - _c * {x}) / ({x} + _c)",
            "    _z = _r * _r",
            f"    {dst} = _bh - (_r - (_bl - {poly}))",
            "else:",
            f"    {dst} = atan_fast({x})",
        ]

    return _by_sign(x, kernel)


def _grid(x: str, side: _Side) -> list[str]:
    """The table row of ``sin_fast``/``cos_fast`` for ``x`` and the offset ``_d`` from its grid
    point (``FSCA`` rows: (k/128, sin hi, lo, cos hi, lo), ``k/128`` being the product the
    kernels form, ``k * 0.0078125``, exact; ``FSCAN``: (-k/128, -sin hi, -lo, cos hi, lo))."""
    return [
        f"_a, _sh, _sl, _ch, _cl = FSCA{side.tail}[floor({side.scaled(x, '128.0', '0.5')})]",
        f"_d = {x} - _a",
        "_z = _d * _d",
    ]


def inline_sin_or_cos(dst: str, x: str, fn: str) -> list[str]:
    """``dst = sin_fast(x)`` or ``cos_fast(x)`` inlined (``engine.smath.trig``) on the table's
    range and for tiny arguments (where the functions return ``x`` and ``1.0``); every other
    argument calls the function itself."""
    s3, s5 = num(KERNEL.s3), num(KERNEL.s5)
    c2, c4, c6 = num(KERNEL.c2), num(KERNEL.c4), num(KERNEL.c6)
    tiny = "1.4901161193847656e-08" if fn == "sin" else "7.450580596923828e-09"
    if fn == "sin":
        value = (
            f"{dst} = _sh + (_ch * _d + (_sl + _sh * (_z * ({c2} + _z * ({c4} + _z *"
            f" {c6}))) + _ch * (_d * _z * ({s3} + _z * {s5}))))"
        )
        small = x
    else:
        value = (
            f"{dst} = _ch + (_cl + _ch * (_z * ({c2} + _z * ({c4} + _z * {c6}))) - _sh * "
            f"(_d + _d * _z * ({s3} + _z * {s5})))"
        )
        small = "1.0"

    def kernel(side: _Side) -> list[str]:
        m = side.neg
        return [
            f"if {x} {side.cmp_lt} {m}{num(FAST_TRIG_MAX)}:",
            f"    if {x} {side.cmp_ge} {m}{tiny}:",
            *indent(indent([*_grid(x, side), value])),
            "    else:",
            f"        {dst} = {small}",
            "else:",
            f"    {dst} = {fn}_fast({x})",
        ]

    return _by_sign(x, kernel)


def inline_sincos(s: str, c: str, x: str) -> list[str]:
    """``s, c = sincos_fast(x)`` inlined (``engine.smath.trig.sincos_fast``), and for tiny
    ``x`` what its fallback ``sin_fast``, ``cos_fast`` return there (``x``; ``1.0`` below the
    cosine's own threshold)."""
    s3, s5 = num(KERNEL.s3), num(KERNEL.s5)
    c2, c4, c6 = num(KERNEL.c2), num(KERNEL.c4), num(KERNEL.c6)

    def kernel(side: _Side) -> list[str]:
        m = side.neg
        return [
            f"if {x} {side.cmp_lt} {m}{num(FAST_TRIG_MAX)}:",
            f"    if {x} {side.cmp_ge} {m}1.4901161193847656e-08:",
            *indent(indent(_grid(x, side))),
            f"        _cm = _z * ({c2} + _z * ({c4} + _z * {c6}))",
            f"        _sp = _d * _z * ({s3} + _z * {s5})",
            f"        {s} = _sh + (_ch * _d + (_sl + _sh * _cm + _ch * _sp))",
            f"        {c} = _ch + (_cl + _ch * _cm - _sh * (_d + _sp))",
            f"    elif {x} {side.cmp_lt} {m}7.450580596923828e-09:",
            f"        {s} = {x}",
            f"        {c} = 1.0",
            "    else:",
            f"        {s} = {x}",
            f"        {c} = cos_fast({x})",
            "else:",
            f"    {s} = sin_fast({x})",
            f"    {c} = cos_fast({x})",
        ]

    return _by_sign(x, kernel)


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


def _kernel_tables() -> dict:
    at = KERNEL.atan_table
    fsca = tuple((k * 0.0078125, *row) for k, row in enumerate(KERNEL.fast_sincos_table))
    return {
        "ATL": tuple((c, ah, al) for c, ah, al, _bh, _bl in at),
        "ATH": tuple((c, bh, bl) for c, _ah, _al, bh, bl in at),
        "ATLN": tuple((-c, -ah, -al) for c, ah, al, _bh, _bl in at),
        "ATHN": tuple((-c, -bh, -bl) for c, _ah, _al, bh, bl in at),
        "FSCA": fsca,
        "FSCAN": tuple((-a, -sh, -sl, ch, cl) for a, sh, sl, ch, cl in fsca),
    }


#: The kernels' tables as the inlined kernels index them: the same numbers regrouped, and
#: negated for the negative side (``_Side``).
KERNEL_TABLES = _kernel_tables()


def kernel_tables() -> dict:
    """``KERNEL_TABLES`` (a copy: each generated namespace gets its own dict)."""
    return dict(KERNEL_TABLES)


def namespace() -> dict:
    """The names the generated text uses besides its own locals."""
    return {
        **kernel_tables(),
        "atan_fast": atan_fast,
        "sin_fast": sin_fast,
        "cos_fast": cos_fast,
        "sqrt": sqrt,
        # the table index of a non-negative argument: floor is int() there, at a third of its
        # cost in CPython 3.11 (no type call)
        "floor": floor,
    }


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


class _Entry(NamedTuple):
    params: TireParams
    forces: Callable[[float, float, float, float], tuple]


_RECENT: list[_Entry] = []


def forces_for(p: TireParams) -> Callable[[float, float, float, float], tuple]:
    """The compiled ``forces`` of tire ``p``, built once per ``TireParams`` object.

    A memo of a pure function (compared by identity, so a lookup costs no hashing of 32
    floats): which entries it holds never changes a result.
    """
    for entry in _RECENT:
        if entry.params is p:
            return entry.forces
    fn = build(p)
    _RECENT.insert(0, _Entry(p, fn))
    del _RECENT[CACHE_SIZE:]
    return fn
