"""The fast kernels as source text, for the four-wheel fast path's templates.

``engine.fastpath`` (the four-wheel substep) writes straight-line code in which
a call of :func:`trig.atan_fast`, :func:`trig.sin_fast`, :func:`trig.cos_fast` or
:func:`trig.sincos_fast` would cost more than its arithmetic. The functions here return the
lines that compute the same result operation for operation, with the kernels' coefficients
rendered by ``repr`` (which reads back to the same double): on the table's range and for tiny
arguments the inlined text and the function give the same bits, and every other argument
(beyond the table, not finite) calls the function itself, so the result is the same in every
case (ADR 0178, ADR 0183, ADR 0185). The CommonRoad fast paths no longer use this text: the
specialiser inlines the kernels' sign split (``engine.smath.kernels``, ADR 0230), which is
what this module becomes when the four-wheel substep is specialised too.

Two layout choices make them cheaper than a literal copy, bit for bit:

* the negative side works on ``x`` itself with tables of negated rows (``_Side``), so an odd
  function needs no ``|x|`` and no final negation; a caller that knows ``x >= 0`` (or nan)
  asks for ``nonneg`` and gets the positive side alone, without the sign test;
* the table index is ``IDX(t)`` for a non-negative ``t``: ``math.floor`` where that is the
  cheaper call (CPython before 3.13, about half the cost of ``int``), ``int`` elsewhere
  (Pyodide's CPython 3.14, where ``floor`` costs a third more). Both return the same integer
  for every non-negative finite float, so the choice changes no bit and the text is the same
  in every runtime.

The text expects :func:`namespace`'s names beside its own locals; its scratch locals start
with an underscore. ``tests/test_smath_inline.py`` holds each kernel, both sides and the
``nonneg`` form, to its function bit for bit on every grid point and around it, special
values included, and lints the text.
"""

from __future__ import annotations

from collections.abc import Callable
from math import isfinite
from typing import NamedTuple

from . import kernels
from .trig import FAST_TRIG_MAX, KERNEL, atan_fast, cos_fast, sin_fast


class Unfoldable(ValueError):
    """A constant is not finite: it has no literal to fold into generated text."""


def num(v: float | int) -> str:
    """A number as source text that reads back to the same value (negatives parenthesised)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"only numbers are folded into generated code, not {type(v)!r}")
    if isinstance(v, float) and not isfinite(v):
        raise Unfoldable(f"cannot fold the non-finite constant {v!r}")
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


def _by_sign(x: str, kernel: Callable[[_Side], list[str]], nonneg: bool) -> list[str]:
    """``kernel`` written for ``x < 0`` and for everything else (+-0, positive, nan): one
    sign test per call, no ``|x|``, no negated result (see ``_Side``). With ``nonneg`` the
    caller guarantees that ``x < 0`` is false, and only the second side is written."""
    if nonneg:
        return kernel(POSITIVE)
    return [
        f"if {x} < 0.0:",
        *indent(kernel(NEGATIVE)),
        "else:",
        *indent(kernel(POSITIVE)),
    ]


def inline_atan(dst: str, x: str, *, nonneg: bool = False) -> list[str]:
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
            f"        _c, _ah, _al = ATL{t}[IDX({side.scaled(x, '256.0', half)})]",
            f"        _r = ({x} - _c) / (1.0 + {x} * _c)",
            "        _z = _r * _r",
            f"        {dst} = _ah + (_r + (_al + {poly}))",
            f"elif {x} {side.cmp_lt} {m}1.152921504606847e18:",
            f"    _c, _bh, _bl = ATH{t}[IDX({side.over(x, '256.0', half)})]",
            f"    _r = (1.0 - _c * {x}) / ({x} + _c)",
            "    _z = _r * _r",
            f"    {dst} = _bh - (_r - (_bl - {poly}))",
            "else:",
            f"    {dst} = atan_fast({x})",
        ]

    return _by_sign(x, kernel, nonneg)


def _grid(x: str, side: _Side) -> list[str]:
    """The table row of ``sin_fast``/``cos_fast`` for ``x`` and the offset ``_d`` from its grid
    point (``FSCA`` rows: (k/128, sin hi, lo, cos hi, lo), ``k/128`` being the product the
    kernels form, ``k * 0.0078125``, exact; ``FSCAN``: (-k/128, -sin hi, -lo, cos hi, lo))."""
    return [
        f"_a, _sh, _sl, _ch, _cl = FSCA{side.tail}[IDX({side.scaled(x, '128.0', '0.5')})]",
        f"_d = {x} - _a",
        "_z = _d * _d",
    ]


def inline_sin_or_cos(dst: str, x: str, fn: str, *, nonneg: bool = False) -> list[str]:
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

    return _by_sign(x, kernel, nonneg)


def inline_sincos(s: str, c: str, x: str, *, nonneg: bool = False) -> list[str]:
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

    return _by_sign(x, kernel, nonneg)


def _kernel_tables() -> dict:
    return {
        "ATL": kernels.ATL,
        "ATH": kernels.ATH,
        "ATLN": kernels.ATLN,
        "ATHN": kernels.ATHN,
        "FSCA": kernels.FSCA,
        "FSCAN": kernels.FSCAN,
    }


#: The kernels' tables as the inlined kernels index them: the same numbers regrouped, and
#: negated for the negative side (``_Side``).
KERNEL_TABLES = _kernel_tables()


def kernel_tables() -> dict:
    """``KERNEL_TABLES`` (a copy: each generated namespace gets its own dict)."""
    return dict(KERNEL_TABLES)


def namespace() -> dict:
    """The names the inlined kernels use besides their own locals."""
    return {
        **kernel_tables(),
        "atan_fast": atan_fast,
        "sin_fast": sin_fast,
        "cos_fast": cos_fast,
        "IDX": kernels.IDX,
    }
