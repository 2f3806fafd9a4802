"""The fast kernels as source text, for the code generators that inline them.

``engine.fastpath`` (the four-wheel substep) and ``engine.commonroad.tire_fast`` (the
CommonRoad tire) write straight-line code in which a call of :func:`trig.atan_fast`,
:func:`trig.sin_fast` or :func:`trig.cos_fast` would cost more than its arithmetic. These
functions return the lines that compute the same result operation for operation, in the
same order, with the kernels' coefficients rendered by ``repr`` (which reads back to the
same double): on the common path the inlined text and the function give the same bits, and
every other argument (tiny, beyond the table, not finite) calls the function itself, so the
result is the same in every case. ``tests/test_smath_inline.py`` holds each to its function
bit for bit on random and special arguments.

The generated text expects these names beside its own locals (:func:`namespace`): ``AT``
(the atan table), ``FSC`` (the sine/cosine table of ``sin_fast``) and the three functions.
Its scratch locals start with an underscore; the caller's names must not.
"""

from __future__ import annotations

from math import isfinite

from .trig import FAST_TRIG_MAX, KERNEL, atan_fast, cos_fast, sin_fast


def num(x: float) -> str:
    """A float as source text that reads back to the same double (negatives parenthesised)."""
    v = float(x)
    if not isfinite(v):
        raise ValueError(f"kernel constant {v!r} is not finite")
    text = repr(v)
    return f"({text})" if text.startswith("-") else text


def namespace() -> dict:
    """The names the inlined kernels use besides their own locals."""
    return {
        "AT": KERNEL.atan_table,
        "FSC": KERNEL.fast_sincos_table,
        "atan_fast": atan_fast,
        "sin_fast": sin_fast,
        "cos_fast": cos_fast,
    }


def atan_fast_lines(dst: str, x: str, *, nonneg: bool = False) -> list[str]:
    """``dst = atan_fast(x)`` as lines. With ``nonneg`` the caller guarantees ``x >= 0`` (or
    nan), and the sign tests, which would always take the positive side, are left out."""
    a3, a5, a7 = num(KERNEL.a3), num(KERNEL.a5), num(KERNEL.a7)
    poly = f"_z * ({a3} + _z * ({a5} + _z * {a7}))"
    ax = x if nonneg else "_ax"
    lines = [] if nonneg else [f"_ax = -{x} if {x} < 0.0 else {x}"]
    return lines + [
        f"if {ax} <= 1.0:",
        f"    if {ax} < 7.450580596923828e-09:",
        f"        {dst} = {x}",
        "    else:",
        f"        _c, _ah, _al, _bh, _bl = AT[int({ax} * 256.0 + 0.49999999999999994)]",
        f"        _r = ({ax} - _c) / (1.0 + {ax} * _c)",
        "        _z = _r * _r",
        *_signed(dst, x, f"_ah + (_r + (_al + _r * {poly}))", nonneg, "        "),
        f"elif {ax} < 1.152921504606847e18:",
        f"    _c, _ah, _al, _bh, _bl = AT[int(256.0 / {ax} + 0.49999999999999994)]",
        f"    _r = (1.0 - _c * {ax}) / ({ax} + _c)",
        "    _z = _r * _r",
        *_signed(dst, x, f"_bh - (_r - (_bl - _r * {poly}))", nonneg, "    "),
        "else:",
        f"    {dst} = atan_fast({x})",
    ]


def _signed(dst: str, x: str, magnitude: str, nonneg: bool, indent: str) -> list[str]:
    """``dst = magnitude`` with the sign of ``x`` (the kernels work on ``|x|``)."""
    if nonneg:
        return [f"{indent}{dst} = {magnitude}"]
    return [f"{indent}_s = {magnitude}", f"{indent}{dst} = -_s if {x} < 0.0 else _s"]


def sin_fast_lines(dst: str, x: str, *, nonneg: bool = False) -> list[str]:
    """``dst = sin_fast(x)`` as lines (``nonneg`` as in :func:`atan_fast_lines`)."""
    return _sin_or_cos_lines(dst, x, "sin", nonneg)


def cos_fast_lines(dst: str, x: str) -> list[str]:
    """``dst = cos_fast(x)`` as lines."""
    return _sin_or_cos_lines(dst, x, "cos", False)


def _sin_or_cos_lines(dst: str, x: str, fn: str, nonneg: bool) -> list[str]:
    s3, s5 = num(KERNEL.s3), num(KERNEL.s5)
    c2, c4, c6 = num(KERNEL.c2), num(KERNEL.c4), num(KERNEL.c6)
    tiny = "1.4901161193847656e-08" if fn == "sin" else "7.450580596923828e-09"
    ax = x if nonneg else "_ax"
    lines = [] if nonneg else [f"_ax = -{x} if {x} < 0.0 else {x}"]
    lines += [
        f"if {tiny} <= {ax} < {num(FAST_TRIG_MAX)}:",
        f"    _k = int({ax} * 128.0 + 0.5)",
        "    _sh, _sl, _ch, _cl = FSC[_k]",
        f"    _d = {ax} - _k * 0.0078125",
        "    _z = _d * _d",
    ]
    if fn == "sin":
        magnitude = (
            f"_sh + (_ch * _d + (_sl + _sh * (_z * ({c2} + _z * ({c4} + _z * {c6})))"
            f" + _ch * (_d * _z * ({s3} + _z * {s5}))))"
        )
        lines += _signed(dst, x, magnitude, nonneg, "    ")
    else:
        lines.append(
            f"    {dst} = _ch + (_cl + _ch * (_z * ({c2} + _z * ({c4} + _z * {c6}))) - _sh * "
            f"(_d + _d * _z * ({s3} + _z * {s5})))"
        )
    lines += ["else:", f"    {dst} = {fn}_fast({x})"]
    return lines
