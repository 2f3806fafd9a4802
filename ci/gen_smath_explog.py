"""Generate ``engine/smath/_tables_explog.py``: tables and coefficients of strict exp/log.

Everything ``engine/smath/explog.py`` needs that is not an exact small
rational is computed here with mpmath at ``PREC`` bits and written as
``repr`` float literals (exact round-trip) and Python integers:

* exp reduction ``x = k*ln2/N + r`` with ``N = EXP_N = 128``:
  ``EXP_INVL`` = N/ln2 rounded; ``EXP_L1`` = ln2/N truncated to 34 bits (so
  ``kd*EXP_L1`` is exact for ``|k| < 2**19``) and ``EXP_L2`` the next 53
  bits; ``EXP_T[j] = (hi, lo, hi1, hi2)`` with ``hi + lo`` = 2**(j/N) in
  double-double and ``hi = hi1 + hi2`` its Veltkamp split (26 + 26 bits),
  pre-split so the kernels' Dekker product needs one split instead of two.
* ``EXP_C``: c2..c5 with ``exp(r) - 1 ~ r + r^2*(c2 + c3 r + c4 r^2 + c5 r^3)``
  on ``|r| <= ln2/(2N)`` (Chebyshev fit of ``(exp(r)-1-r)/r^2``);
  ``EXPM1_C``: c2..c6, the same one degree higher, accurate enough for the
  double-double kernels (pow, expm1, sinh, cosh, tanh).
* log reduction: the leading ``LOG_BITS = 8`` fraction bits of
  ``x = 2**e * m`` pick a cell ``i`` of ``[1, 2)`` starting at
  ``c0 = 1 + i/256``; cells ``i >= LOG_HALVE`` are treated as ``m/2`` in
  ``[0.70, 1)`` so that x near 1 from below never cancels against ``ln2``.
  ``LOG_T[i] = (c0, invc, d, logc_hi, logc_lo, ea)``: ``invc = 1/c = J * 2**-b``
  with ``J`` of at most 9 significant bits, chosen so that ``r = m*invc - 1``
  is an integer below 2**53 times ``2**-(52+b)`` for every m of the cell,
  i.e. exactly representable. ``m - c0`` is exact with at most 44 bits, so
  ``(m - c0)*invc`` is exact, ``d = c0*invc - 1`` is exact, and
  ``r = (m - c0)*invc + d`` is computed EXACTLY in binary64; ``logc_hi`` is
  log(c) (log(c/2) for halved cells) rounded to a multiple of 2**-42 (so
  ``k*LN2_HI + logc_hi`` is exact) and ``logc_lo`` the rest;
  ``ea = eadj - 1023`` folds the exponent bias. The cells containing 1 have
  c = 1 (and c = 2 for the halved last cell), so ``r = x - 1`` exactly there.
* ``LOG_Q`` (degree 4, for log/log1p) and ``POW_Q`` (degree 5, for pow) with
  ``log1p(r) ~ r - r^2/2 + r^3*Q(r)`` on ``|r| <= LOG_RMAX``.
* ``TANH_P``: ``tanh(x) ~ x + x^3 * P(x^2)`` for ``|x| <= TANH_SMALL``.
* ``CBRT_P``: a rough cbrt on [1, 2] (Newton and a double-double correction
  finish the job); ``CBRT2[i]`` = 2**(i/3) rounded.
* overflow thresholds: ``EXP_OVF`` is the largest double whose exp is finite,
  ``SINH_OVF`` the largest double whose sinh (and cosh) is finite.

Deterministic: no clock, no randomness; output depends only on this file.
Usage: ``python ci/gen_smath_explog.py`` writes the module; ``--check``
exits 1 if the committed file differs from what would be generated.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import mpmath
from mpmath import mpf

PREC = 320
EXP_N = 128
LOG_BITS = 8
LOG_N = 2**LOG_BITS
LOG_HALVE = 106  # cells i >= 106 (m >= 1.4140625) use m/2 and exponent + 1
LOG_Q_DEG = 4
POW_Q_DEG = 5
TANH_SMALL = 0.25
TANH_DEG = 9  # terms of P in x^2
CBRT_DEG = 5

OUT = pathlib.Path(__file__).resolve().parent.parent / "engine" / "smath" / "_tables_explog.py"

def _f(x) -> float:
    """Round an mpf to the nearest double (mpmath rounds to nearest-even)."""
    return float(mpf(x))


def _dd(x) -> tuple[float, float]:
    hi = _f(x)
    return hi, _f(x - mpf(hi))


def _truncate(x, bits: int) -> float:
    """x truncated toward zero to ``bits`` significant bits (an exact double)."""
    m, e = mpmath.frexp(x)
    scaled = int(mpmath.floor(abs(m) * 2**bits))
    v = mpf(scaled) * mpf(2) ** (e - bits)
    return _f(v if x >= 0 else -v)


def _veltkamp(a: float) -> tuple[float, float]:
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


def _fit(func, a, b, deg: int) -> list[float]:
    """Chebyshev-fit func on [a, b] with a degree-``deg`` polynomial; lowest coefficient first."""
    coeffs = mpmath.chebyfit(func, [mpf(a), mpf(b)], deg + 1)
    return [_f(c) for c in reversed(coeffs)]


def _horner(coeffs, t):
    acc = mpf(0)
    for c in reversed(coeffs):
        acc = acc * t + mpf(c)
    return acc


def _max_err(exact, approx, a, b, n=2000):
    worst = mpf(0)
    for i in range(n + 1):
        t = mpf(a) + (mpf(b) - mpf(a)) * i / n
        worst = max(worst, abs(exact(t) - approx(t)))
    return worst


def _log2(x) -> float:
    return float(mpmath.log(x, 2)) if x else float("-inf")


def gen_exp() -> dict:
    from skidpad.engine.floatbits import bits_float, float_bits

    ln2 = mpmath.log(2)
    step = ln2 / EXP_N
    l1 = _truncate(step, 34)
    l2 = _f(step - mpf(l1))
    table = []
    for j in range(EXP_N):
        hi, lo = _dd(mpf(2) ** (mpf(j) / EXP_N))
        h1, h2 = _veltkamp(hi)
        assert h1 + h2 == hi
        table.append((hi, lo, h1, h2))
    rmax = step / 2 * (1 + mpf(2) ** -30)

    def g(r):
        if r == 0:
            return mpf(1) / 2
        return (mpmath.expm1(r) - r) / (r * r)

    c_fast = _fit(g, -rmax, rmax, 3)
    c_dd = _fit(g, -rmax, rmax, 4)
    err_fast = _max_err(mpmath.exp, lambda r: 1 + r + r * r * _horner(c_fast, r), -rmax, rmax)
    err_dd = _max_err(
        lambda r: mpmath.expm1(r) / r if r else mpf(1),
        lambda r: 1 + r * _horner(c_dd, r) if r else mpf(1),
        -rmax, rmax,
    )
    assert err_fast < mpf(2) ** -62, _log2(err_fast)
    assert err_dd < mpf(2) ** -66, _log2(err_dd)
    dmax = (mpf(2) - mpf(2) ** -52) * mpf(2) ** 1023
    # largest double whose exp rounds below 2**1024 (i.e. to a finite double)
    limit = mpmath.log(dmax + mpf(2) ** 970)  # midpoint between DBL_MAX and 2**1024
    ovf = _f(limit)
    while mpf(ovf) >= limit:
        ovf = bits_float(float_bits(ovf) - 1)
    sinh_limit = limit + ln2
    sovf = _f(sinh_limit)
    while mpf(sovf) >= sinh_limit:
        sovf = bits_float(float_bits(sovf) - 1)
    return {
        "EXP_INVL": _f(EXP_N / ln2),
        "EXP_L1": l1,
        "EXP_L2": l2,
        "EXP_T": table,
        "EXP_C": c_fast,
        "EXPM1_C": c_dd,
        "EXP_OVF": ovf,
        "SINH_OVF": sovf,
        "_err": {"exp_fast": _log2(err_fast), "expm1_dd_rel": _log2(err_dd)},
    }


def gen_log() -> dict:
    ln2 = mpmath.log(2)
    ln2_hi = _truncate(ln2, 42)
    ln2_lo = _f(ln2 - mpf(ln2_hi))
    table = []
    rmax = mpf(0)
    width = 2 ** (52 - LOG_BITS)  # cell width in units of the 52-bit fraction
    for i in range(LOG_N):
        f0 = i * width
        f1 = (i + 1) * width - 1
        halve = i >= LOG_HALVE
        if i == 0:
            cands = [(1, 0)]  # c = 1
        elif i == LOG_N - 1:
            cands = [(1, 1)]  # c = 2 (m/2 = c/2 = 1)
        else:
            centre = 1 + (mpf(i) + mpf(1) / 2) / LOG_N
            cands = []
            for b in range(6, 14):
                j0 = int(mpmath.nint(mpf(2) ** b / centre))
                for jj in (j0 - 1, j0, j0 + 1):
                    cands.append((jj, b))
        best = None
        for jj, b in cands:
            sig = jj.bit_length() - ((jj & -jj).bit_length() - 1)
            if sig > LOG_BITS + 1:  # (m - c0) has <= 52 - LOG_BITS bits: product exact
                continue
            k = 2**52 * jj - 2 ** (52 + b)
            n0 = f0 * jj + k
            n1 = f1 * jj + k
            nmax = max(abs(n0), abs(n1))
            if nmax >= 2**53:  # r = m*invc - 1 must be representable
                continue
            rm = mpf(nmax) / mpf(2) ** (52 + b)
            key = (rm, b)
            if best is None or key < best[0]:
                best = (key, jj, b, k)
        assert best is not None, i
        (rm, _), jj, b, k = best
        rmax = max(rmax, rm)
        c = mpf(2) ** b / jj  # 1/c = J * 2**-b  (m in [1, 2))
        logc = mpmath.log(c / 2) if halve else mpmath.log(c)
        logc_hi = _f(mpmath.nint(logc * mpf(2) ** 42) / mpf(2) ** 42)
        logc_lo = _f(logc - mpf(logc_hi))
        invc = _f(mpf(jj) * mpf(2) ** -b)
        c0 = _f(1 + mpf(i) / LOG_N)
        d = _f(mpf(c0) * mpf(invc) - 1)
        assert mpf(invc) == mpf(jj) * mpf(2) ** -b
        assert mpf(d) == mpf(c0) * mpf(invc) - 1
        table.append((c0, invc, d, logc_hi, logc_lo, (1 if halve else 0) - 1023))
    rmax = rmax * (1 + mpf(2) ** -40)

    def q(r):
        if r == 0:
            return mpf(1) / 3
        return (mpmath.log1p(r) - r + r * r / 2) / (r * r * r)

    q_log = _fit(q, -rmax, rmax, LOG_Q_DEG)
    q_pow = _fit(q, -rmax, rmax, POW_Q_DEG)

    def relerr(coeffs):
        return _max_err(
            lambda r: mpmath.log1p(r) / r if r else mpf(1),
            lambda r: 1 - r / 2 + r * r * _horner(coeffs, r) if r else mpf(1),
            -rmax, rmax,
        )

    e_log = relerr(q_log)
    e_pow = relerr(q_pow)
    assert e_log < mpf(2) ** -62.5, _log2(e_log)
    assert e_pow < mpf(2) ** -69, _log2(e_pow)
    return {
        "LN2_HI": ln2_hi,
        "LN2_LO": ln2_lo,
        "LOG_T": table,
        "LOG_RMAX": _f(rmax),
        "LOG_Q": q_log,
        "POW_Q": q_pow,
        "_err": {"log_rel": _log2(e_log), "pow_rel": _log2(e_pow), "log_rmax": _log2(rmax)},
    }


def gen_tanh() -> dict:
    a = mpf(TANH_SMALL)

    def p(t):  # t = x^2
        if t == 0:
            return -mpf(1) / 3
        x = mpmath.sqrt(t)
        return (mpmath.tanh(x) - x) / (x * t)

    coeffs = _fit(p, 0, a * a, TANH_DEG - 1)
    err = _max_err(
        lambda x: mpmath.tanh(x) / x if x else mpf(1),
        lambda x: 1 + x * x * _horner(coeffs, x * x) if x else mpf(1),
        0, a,
    )
    # the rounding of the leading coefficient -1/3 alone is ~2**-55 * x^2 / 3
    assert err < mpf(2) ** -59, _log2(err)
    return {"TANH_P": coeffs, "_err": {"tanh_small_rel": _log2(err)}}


def gen_cbrt() -> dict:
    coeffs = _fit(mpmath.cbrt, 1, 2, CBRT_DEG)
    err = _max_err(mpmath.cbrt, lambda m: _horner(coeffs, m), 1, 2)
    assert err < mpf(2) ** -16, _log2(err)
    return {
        "CBRT_P": coeffs,
        "CBRT2": [_f(mpf(2) ** (mpf(i) / 3)) for i in range(3)],
        "_err": {"cbrt_seed": _log2(err)},
    }


def _lit(v) -> str:
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_lit(e) for e in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    raise TypeError(type(v))


def render() -> str:
    parts = {}
    errs = {}
    with mpmath.workprec(PREC):
        for gen in (gen_exp, gen_log, gen_tanh, gen_cbrt):
            d = gen()
            errs.update(d.pop("_err"))
            parts.update(d)
    lines = [
        '"""GENERATED by ci/gen_smath_explog.py -- do not edit by hand.',
        "",
        "Tables and coefficients of the strict exp/log family (engine/smath/explog.py).",
        "Fit errors (log2 of the max error of the rounded polynomial, sampled):",
    ]
    for k in sorted(errs):
        lines.append(f"    {k}: {errs[k]:.2f}")
    lines += ['"""', "", f"EXP_N = {EXP_N}", f"LOG_BITS = {LOG_BITS}", f"LOG_HALVE = {LOG_HALVE}",
              f"TANH_SMALL = {TANH_SMALL!r}"]
    for name in sorted(parts):
        v = parts[name]
        if isinstance(v, list) and v and isinstance(v[0], tuple):
            lines.append(f"{name} = (")
            for row in v:
                lines.append(f"    {_lit(row)},")
            lines.append(")")
        else:
            lines.append(f"{name} = {_lit(v)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} differs from the generator output")
        return 0 if same else 1
    from skidpad.replay import output

    output.write_text(OUT, text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(OUT.parents[2]))  # the checkout: engine.floatbits, replay.output
    sys.exit(main())
