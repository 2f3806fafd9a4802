"""Strict exp/log family (engine/smath/explog.py) against mpmath and Python's math.

* accuracy: every sampled point of every function is below 1 ulp of the exact
  value computed by mpmath at ``REF_PREC`` bits (docs/architecture.md §3). Points come from
  a seeded splitmix64 integer generator (random bit patterns over the whole
  domain, ordinary ranges, subnormals, thresholds, hard pow cases); the ulp is
  that of the exact value's binade (subnormal spacing below 2**-1022).
* special values: exceptions (type), NaN, infinities, zeros and their signs
  are identical to Python's ``math`` on a grid of special arguments.
* exact cases are exact (perfect powers, cubes, hypot triples).
* ``ci/gen_smath_explog.py`` regenerated in memory equals the committed tables.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import pathlib
from fractions import Fraction

import pytest
from skidpad.engine.floatbits import bits_float, float_bits
from skidpad.engine.prng import SplitMix64 as _ProjectSplitMix64

mpmath = pytest.importorskip("mpmath")

from skidpad.engine.smath import explog as E  # noqa: E402

mpf = mpmath.mpf
REF_PREC = 160
ROOT = pathlib.Path(__file__).resolve().parent.parent
INF = float("inf")
NAN = float("nan")
DBL_MAX = 1.7976931348623157e308
#: exact values at or above this round to +inf (halfway between DBL_MAX and 2**1024)
OVF_EDGE = mpf(2) ** 1024 - mpf(2) ** 970
N_RANDOM = 1200  # per source; each function draws from several sources



class SplitMix64(_ProjectSplitMix64):
    """The project generator (engine.prng) plus this test's own draws."""

    __slots__ = ()

    def log_uniform(self, elo: int, ehi: int) -> float:
        """+-m * 2**e with e uniform in [elo, ehi) and m uniform in [1, 2)."""
        e = elo + self.next() % (ehi - elo)
        m = 1.0 + self.unit()
        v = m * 2.0 ** e if e >= -1022 else m * 2.0**-1022 * 2.0 ** (e + 1022)
        return -v if self.next() & 1 else v


def nudge(x: float, k: int) -> float:
    """The double k steps away from x (same sign, x finite non-zero)."""
    return bits_float(float_bits(x) + k)


# --------------------------------------------------------------------------- oracle

def _is_int(y: float) -> bool:
    return math.isfinite(y) and y == math.floor(y)


def exact_value(name: str, args: tuple[float, ...]):
    """The exact result as an mpf at REF_PREC bits (arguments inside the domain)."""
    with mpmath.workprec(REF_PREC):
        a = [mpf(v) for v in args]
        if name == "pow":
            x, y = a
            if x < 0:
                mag = mpmath.power(-x, y)
                return -mag if int(args[1]) % 2 else mag
            return mpmath.power(x, y)
        if name == "hypot":
            return mpmath.sqrt(a[0] * a[0] + a[1] * a[1])
        if name == "cbrt":
            return mpmath.cbrt(a[0]) if a[0] >= 0 else -mpmath.cbrt(-a[0])
        return getattr(mpmath, name)(a[0])


def ulp_of(exact) -> mpf:
    if exact == 0:
        return mpf(2) ** -1074
    e = int(mpmath.floor(mpmath.log(abs(exact), 2)))
    # mpmath's log2 can be off by one at exact powers of two: fix the binade
    if mpf(2) ** e > abs(exact):
        e -= 1
    elif mpf(2) ** (e + 1) <= abs(exact):
        e += 1
    return mpf(2) ** (max(e, -1022) - 52)


def ulp_error(got: float, exact) -> float:
    with mpmath.workprec(REF_PREC):
        return float(abs(mpf(got) - exact) / ulp_of(exact))


def check_points(name: str, points) -> tuple[float, int, int, tuple]:
    """(max ulp error, number correctly rounded, number compared, worst args).

    A point whose exact value rounds to +-inf must raise OverflowError (as
    math does), except hypot, which returns inf like math.hypot.
    """
    fn = getattr(E, name)
    worst = 0.0
    worst_args: tuple = ()
    cr = 0
    n = 0
    for args in points:
        exact = exact_value(name, args)
        if abs(exact) >= OVF_EDGE:
            if name == "hypot":
                assert fn(*args) == INF, args
                continue
            with pytest.raises(OverflowError):
                fn(*args)
            continue
        got = fn(*args)
        assert isinstance(got, float), (name, args, got)
        err = ulp_error(got, exact)
        n += 1
        if err <= 0.5:
            cr += 1
        if err > worst:
            worst, worst_args = err, args
    return worst, cr, n, worst_args


def _fmt(args) -> str:
    return ", ".join(float.hex(a) for a in args)


# --------------------------------------------------------------------------- point sets

def _pts_exp(r: SplitMix64, name: str):
    lo = {"exp": -746.0, "expm1": -60.0, "sinh": -711.0, "cosh": -711.0, "tanh": -25.0}[name]
    hi = {"exp": 709.79, "expm1": 709.79, "sinh": 711.0, "cosh": 711.0, "tanh": 25.0}[name]
    pts = []
    for _ in range(N_RANDOM):
        pts.append(r.uniform(lo, hi))
        pts.append(r.uniform(-10.0, 10.0))
        pts.append(r.log_uniform(-1074, 4))  # tiny to ~16, both signs
    for _ in range(N_RANDOM // 4):
        x = r.bits_double()
        if math.isfinite(x) and abs(x) < 1e4:
            pts.append(x)
    # thresholds
    edges = [E._EXP_OVF, -745.1332191019411, -708.3964185322641, -707.0, 709.0, 22.0, -22.0,
             E._R0, -E._R0, E._TANH_SMALL, -E._TANH_SMALL, 2.0**-26, 2.0**-28, 2.0**-54,
             -38.0, 19.0, 0.5, 1.0, E._SINH_OVF]
    for x in edges:
        for k in range(-3, 4):
            v = nudge(x, k)
            if lo <= v <= hi or name != "exp":
                pts.append(v)
                pts.append(-v)
    if name == "exp":
        pts = [p for p in pts if p <= E._EXP_OVF + 1.0]
    return [(p,) for p in pts]


def _pts_log(r: SplitMix64, name: str):
    pts = []
    for _ in range(N_RANDOM):
        x = abs(r.bits_double())
        if math.isfinite(x) and x > 0.0:
            pts.append(x)
        pts.append(r.uniform(1e-3, 100.0))
        pts.append(1.0 + r.log_uniform(-60, -4))  # near 1, both sides
        pts.append(abs(r.log_uniform(-1074, -1022)))  # subnormals
    for k in range(1, 200):
        pts.append(nudge(1.0, k))
        pts.append(nudge(1.0, -k))
    pts += [DBL_MAX, 5e-324, 2.0**-1022, 0.5, 2.0, 1.0, math.e, 10.0, 1e300, 1e-300]
    if name == "log1p":
        pts = [p - 1.0 for p in pts] + [r.log_uniform(-1074, 1) for _ in range(N_RANDOM)]
        pts += [nudge(-1.0, -k) for k in range(1, 50)]  # just above -1
        pts = [p for p in pts if p > -1.0]
    return [(p,) for p in pts]


def _pts_pow(r: SplitMix64):
    pts = []
    for _ in range(N_RANDOM):
        # random x over the whole positive range, y so that |y log x| is in range
        x = abs(r.bits_double())
        if math.isfinite(x) and x > 0.0 and x != 1.0:
            t = r.uniform(-745.0, 709.0)
            pts.append((x, t / math.log(x)))
        # ordinary
        pts.append((r.uniform(1e-3, 10.0), r.uniform(-5.0, 5.0)))
        # x near 1, huge y (the hard case: y*log x needs the double-double log)
        d = r.log_uniform(-53, -10)
        x = 1.0 + d
        if x != 1.0:
            t = r.uniform(-700.0, 700.0)
            pts.append((x, t / math.log(x)))
        # integer y, negative x
        pts.append((-r.uniform(0.1, 10.0), float(int(r.uniform(-60.0, 60.0)))))
    for _ in range(N_RANDOM // 4):
        # subnormal results and the underflow edge
        x = r.uniform(0.01, 0.99)
        y = r.uniform(-1074.0, -1022.0) * math.log(2.0) / math.log(x)
        pts.append((x, y))
        # near overflow
        x = r.uniform(1.01, 100.0)
        y = r.uniform(700.0, 709.8) / math.log(x)
        pts.append((x, y))
        # subnormal x
        x = abs(r.log_uniform(-1074, -1022))
        pts.append((x, r.uniform(-0.99, 0.0)))
        pts.append((x, r.uniform(0.0, 1.0)))
    pts += [(2.0, 1023.0), (2.0, -1074.0), (2.0, -1075.0), (0.5, 1074.0), (10.0, 308.0),
            (10.0, -323.0), (1.0 - 2.0**-53, 2.0**62), (1.0 + 2.0**-52, 2.0**61),
            (1.0 + 2.0**-52, -(2.0**61)), (DBL_MAX, 0.5), (5e-324, 0.5), (5e-324, -0.5)]
    return pts


def _pts_hypot(r: SplitMix64):
    pts = []
    for _ in range(N_RANDOM):
        pts.append((r.bits_double(), r.bits_double()))
        pts.append((r.uniform(-100.0, 100.0), r.uniform(-100.0, 100.0)))
        a = r.log_uniform(-1074, 1024)
        pts.append((a, a * r.uniform(-2.0, 2.0)))  # comparable magnitudes, any range
        pts.append((r.log_uniform(-1074, -1000), r.log_uniform(-1074, -1000)))  # subnormal
        pts.append((r.log_uniform(1000, 1024), r.log_uniform(1000, 1024)))  # near overflow
    pts = [p for p in pts if math.isfinite(p[0]) and math.isfinite(p[1])]
    pts += [(3.0, 4.0), (DBL_MAX, DBL_MAX), (DBL_MAX, 1.0), (5e-324, 5e-324), (1.0, 2.0**-27)]
    return pts


def _pts_cbrt(r: SplitMix64):
    pts = []
    for _ in range(N_RANDOM):
        x = r.bits_double()
        if math.isfinite(x):
            pts.append(x)
        pts.append(r.uniform(-1000.0, 1000.0))
        pts.append(r.log_uniform(-1074, -1022))
    pts += [DBL_MAX, -DBL_MAX, 5e-324, -5e-324, 2.0**-1022]
    return [(p,) for p in pts]


def points(name: str):
    r = SplitMix64(0x5EED0000 + sum(ord(c) << (8 * i) for i, c in enumerate(name)))
    if name in ("exp", "expm1", "sinh", "cosh", "tanh"):
        return _pts_exp(r, name)
    if name in ("log", "log1p"):
        return _pts_log(r, name)
    if name == "pow":
        return _pts_pow(r)
    if name == "hypot":
        return _pts_hypot(r)
    return _pts_cbrt(r)


NAMES = ("exp", "expm1", "log", "log1p", "pow", "sinh", "cosh", "tanh", "hypot", "cbrt")


@pytest.mark.parametrize("name", NAMES)
def test_below_one_ulp(name):
    pts = points(name)
    worst, cr, n, worst_args = check_points(name, pts)
    print(f"{name}: {n} points, max {worst:.4f} ulp at ({_fmt(worst_args)}), "
          f"{100.0 * cr / n:.3f}% correctly rounded")
    assert n > 1000
    assert worst < 1.0, (name, _fmt(worst_args), worst)
    # the implementation is designed to round correctly almost always
    assert cr >= 0.99 * n, (name, cr, n)


# --------------------------------------------------------------------------- special values vs math

SPECIAL = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, -1.5,
           5e-324, -5e-324, 2.0**-1022, DBL_MAX, -DBL_MAX, 709.782712893384,
           709.7827128933841, -745.1332191019411, -745.1332191019412, -746.0, 710.4758600739439,
           710.475860073944, -710.475860073944, 22.0, -22.0, 30.0, -30.0, -38.0, 1e-300,
           1e300, -1e300, 1e16, -1e16, 2.0**53, 2.0**53 + 2.0, -(2.0**53) - 2.0, 2.0**64,
           -(2.0**64), 1.0 - 2.0**-53, 1.0 + 2.0**-52, 1e-20, -1e-20, 0.1, -1.0 + 2.0**-53,
           -1.0 - 2.0**-52, 1023.0, 1024.0, -1074.0, -1075.0, 27.0, -8.0]


def outcome(fn, *args):
    """What a call does: ('raise', type) or ('nan',) or ('value', bits, sign)."""
    try:
        v = fn(*args)
    except (ValueError, OverflowError, ZeroDivisionError) as e:
        return ("raise", type(e))
    if v != v:
        return ("nan",)
    return ("value", v)


def _same(name, args, ours, theirs):
    if theirs[0] != "value" or ours[0] != "value":
        return ours == theirs
    a, b = ours[1], theirs[1]
    if not math.isfinite(b) or b == 0.0 or not math.isfinite(a) or a == 0.0:
        # infinities and zeros (with their signs) must be identical bits
        return float_bits(a) == float_bits(b)
    if math.copysign(1.0, a) != math.copysign(1.0, b):
        return False
    # ordinary values: libm is not correctly rounded, so judge ours against the
    # oracle; an exactly representable result must be returned exactly
    if not all(math.isfinite(v) for v in args):
        # finite results of infinite arguments are exact (+-1)
        return float_bits(a) == float_bits(b)
    exact = exact_value(name, args)
    err = ulp_error(a, exact)
    with mpmath.workprec(REF_PREC):
        representable = mpf(float(exact)) == exact
    return err == 0.0 if representable else err < 1.0


@pytest.mark.parametrize("name", ["exp", "expm1", "log", "log1p", "sinh", "cosh", "tanh", "cbrt"])
def test_special_values_unary(name):
    ours_fn, math_fn = getattr(E, name), getattr(math, name)
    bad = []
    for x in SPECIAL:
        o, t = outcome(ours_fn, x), outcome(math_fn, x)
        if not _same(name, (x,), o, t):
            bad.append((x, o, t))
    assert not bad, bad


@pytest.mark.parametrize("name", ["pow", "hypot"])
def test_special_values_binary(name):
    ours_fn, math_fn = getattr(E, name), getattr(math, name)
    bad = []
    for x, y in itertools.product(SPECIAL, SPECIAL):
        o, t = outcome(ours_fn, x, y), outcome(math_fn, x, y)
        if not _same(name, (x, y), o, t):
            bad.append((x, y, o, t))
    assert not bad, bad[:20]


def test_signed_zeros_kept():
    for name in ("expm1", "log1p", "sinh", "tanh", "cbrt"):
        f = getattr(E, name)
        assert float_bits(f(-0.0)) == float_bits(-0.0), name
        assert float_bits(f(0.0)) == float_bits(0.0), name
    assert float_bits(E.pow(-0.0, 3.0)) == float_bits(-0.0)
    assert float_bits(E.pow(-0.0, 2.0)) == float_bits(0.0)
    assert float_bits(E.pow(-INF, -3.0)) == float_bits(-0.0)
    assert float_bits(E.pow(-2.0, -1e6)) == float_bits(0.0)
    # odd integer: the underflow keeps the sign
    assert float_bits(E.pow(-2.0, -1075.0)) == float_bits(-0.0)


def test_domain_and_range_errors():
    for f, args in [(E.log, (0.0,)), (E.log, (-0.0,)), (E.log, (-1.0,)), (E.log, (-INF,)),
                    (E.log1p, (-1.0,)), (E.log1p, (-2.0,)), (E.pow, (0.0, -1.0)),
                    (E.pow, (-0.0, -0.5)), (E.pow, (-8.0, 1.0 / 3.0)), (E.pow, (-1.5, 0.5))]:
        with pytest.raises(ValueError, match="math domain error"):
            f(*args)
    for f, args in [(E.exp, (709.7827128933841,)), (E.exp, (1000.0,)), (E.expm1, (710.0,)),
                    (E.sinh, (711.0,)), (E.sinh, (-711.0,)), (E.cosh, (-711.0,)),
                    (E.pow, (10.0, 309.0)), (E.pow, (-10.0, 309.0)), (E.pow, (2.0, 1024.0)),
                    (E.pow, (1.0 + 2.0**-52, 2.0**62)), (E.pow, (5e-324, -1.0)),
                    (E.pow, (DBL_MAX, 2.0))]:
        with pytest.raises(OverflowError, match="math range error"):
            f(*args)
    assert E.exp(-1000.0) == 0.0 and E.exp(-INF) == 0.0
    assert E.pow(0.5, 2000.0) == 0.0 and E.pow(10.0, -400.0) == 0.0


def test_pow_c99_annex_f():
    assert E.pow(NAN, 0.0) == 1.0 and E.pow(NAN, -0.0) == 1.0
    assert E.pow(1.0, NAN) == 1.0 and E.pow(1.0, INF) == 1.0 and E.pow(1.0, -1e300) == 1.0
    assert E.pow(-1.0, INF) == 1.0 and E.pow(-1.0, -INF) == 1.0
    assert E.pow(-1.0, 1e300) == 1.0 and E.pow(-1.0, 3.0) == -1.0
    assert E.pow(0.5, INF) == 0.0 and E.pow(0.5, -INF) == INF
    assert E.pow(2.0, INF) == INF and E.pow(2.0, -INF) == 0.0
    assert E.pow(-INF, 3.0) == -INF and E.pow(-INF, 2.0) == INF and E.pow(INF, -1.0) == 0.0
    assert E.pow(-2.0, 3.0) == -8.0 and E.pow(-2.0, -3.0) == -0.125
    assert math.isnan(E.pow(NAN, 1.0)) and math.isnan(E.pow(2.0, NAN))


def test_exact_cases_are_exact():
    assert E.pow(2.0, 10.0) == 1024.0
    assert E.pow(2.0, -1074.0) == 5e-324
    assert E.pow(2.0, 1023.0) == 2.0**1023
    assert E.pow(10.0, 22.0) == 1e22
    assert E.pow(3.0, 33.0) == 5559060566555523.0
    assert E.pow(16.0, 0.5) == 4.0 and E.pow(2.25, 0.5) == 1.5 and E.pow(4.0, 1.5) == 8.0
    assert E.pow(0.25, -1.5) == 8.0 and E.pow(7.0, 1.0) == 7.0 and E.pow(7.0, -1.0) == 1.0 / 7.0
    assert E.pow(1e-160, 2.0) == 1e-160 * 1e-160
    for k in range(-60, 61):
        assert E.pow(2.0, float(k)) == 2.0**k
        assert E.cbrt(float(k) ** 3) == float(k)
    assert E.cbrt(27.0) == 3.0 and E.cbrt(-8.0) == -2.0 and E.cbrt(5e-324) == 2.0**-358
    assert E.cbrt(0.125) == 0.5 and E.cbrt(-0.001953125) == -0.125
    assert E.hypot(3.0, 4.0) == 5.0 and E.hypot(-5.0, 12.0) == 13.0
    assert E.hypot(3e300, 4e300) == 5e300 and E.hypot(3e-310, 4e-310) == 5e-310
    assert E.exp(0.0) == 1.0 and E.log(1.0) == 0.0 and E.cosh(0.0) == 1.0
    assert E.tanh(30.0) == 1.0 and E.tanh(-30.0) == -1.0 and E.tanh(INF) == 1.0


def test_hypot_matches_math_calling_conventions():
    assert E.hypot() == 0.0 and E.hypot(-3.0) == 3.0
    assert isinstance(E.hypot(3, 0), float) and isinstance(E.hypot(-3), float)
    assert E.hypot(INF, NAN) == INF and E.hypot(NAN, -INF) == INF
    assert math.isnan(E.hypot(NAN, 1.0))
    assert E.hypot(1.0, 2.0, 2.0) == 3.0 and E.hypot(2.0, 3.0, 6.0) == 7.0
    assert E.hypot(INF, NAN, 1.0) == INF and math.isnan(E.hypot(NAN, 1.0, 2.0))


def test_log_with_base():
    assert E.log(8.0, 2.0) == 3.0 and E.log(100.0, 10.0) == 2.0
    assert E.log(1e-300, 10.0) == -300.0
    with pytest.raises(ZeroDivisionError):
        E.log(2.0, 1.0)
    with pytest.raises(ValueError):
        E.log(2.0, -1.0)
    r = SplitMix64(99)
    for _ in range(300):
        x, b = r.uniform(1e-3, 1e3), r.uniform(1.5, 20.0)
        with mpmath.workprec(REF_PREC):
            exact = mpmath.log(mpf(x)) / mpmath.log(mpf(b))
        assert ulp_error(E.log(x, b), exact) < 1.0


def test_integer_arguments_give_floats():
    for name in NAMES:
        fn = getattr(E, name)
        args = (2, 3) if name in ("pow", "hypot") else (0,) if name != "log" else (10,)
        v = fn(*args)
        assert isinstance(v, float), name
        assert v == getattr(math, name)(*args) or ulp_error(v, exact_value(name, args)) < 1.0


def test_kernel_ranges_inside_fitted_intervals():
    from skidpad.engine.smath import _tables_explog as T

    assert E._LOG1P_DIRECT <= T.LOG_RMAX  # log1p's direct polynomial
    assert E._R0 <= math.log(2.0) / (2 * T.EXP_N)  # expm1's direct polynomial (k = 0)


def test_generator_output_matches_committed_tables():
    path = ROOT / "ci" / "gen_smath_explog.py"
    spec = importlib.util.spec_from_file_location("gen_smath_explog", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = (ROOT / "engine" / "smath" / "_tables_explog.py").read_text(encoding="utf-8")
    assert gen.render() == committed


# --------------------------------------------------------------------------- inlined copies
# exp/log kernels are inlined in expm1, tanh, log, log1p and pow (a call costs as much as a
# tenth of the function). Each copy must give, bit for bit, what the readable kernel gives:
# the kernel's double-double, combined exactly (fractions) and rounded once. The points are
# the accuracy test's, which include the edges each copy specialises (-38, R0, 22,
# TANH_SMALL, the overflow and subnormal-result edges of pow, x near 1).


def _exact(*parts: float) -> Fraction:
    return sum((Fraction(p) for p in parts), Fraction(0))


def _bits_outcome(fn, *args):
    got = outcome(fn, *args)
    return ("value", float_bits(got[1])) if got[0] == "value" else got


def test_inlined_exp_kernel_in_expm1_matches_exp_dd() -> None:
    checked = 0
    for (x,) in points("expm1"):
        if not (-38.0 < x < 709.0) or -E._R0 < x < E._R0:
            continue
        e, s, lo = E._exp_dd(x, 0.0)
        want = float(Fraction(2) ** e * _exact(s, lo) - 1)
        assert float_bits(E.expm1(x)) == float_bits(want), x
        checked += 1
    assert checked > 2000


def test_inlined_exp_kernel_in_tanh_matches_exp_dd() -> None:
    checked = 0
    for (x,) in points("tanh"):
        a = abs(x)
        if not (E._TANH_SMALL <= a < 22.0):
            continue
        e, s, lo = E._exp_dd(a + a, 0.0)
        big = Fraction(2) ** e * _exact(s, lo) - 1  # expm1(2a)
        want = float(big / (big + 2))
        assert float_bits(E.tanh(x)) == float_bits(want if x > 0.0 else -want), x
        checked += 1
    assert checked > 1000


def test_inlined_log_kernel_in_log_and_log1p_matches_log_parts() -> None:
    checked = 0
    for (x,) in points("log"):
        if 2.0**-1022 <= x < INF:
            s, lo = E._log_parts(x, 0)
            assert float_bits(E.log(x)) == float_bits(float(_exact(s, lo))), x
            checked += 1
    for (x,) in points("log1p"):
        if -E._LOG1P_DIRECT < x < E._LOG1P_DIRECT or not x < INF:
            continue
        u = 1.0 + x
        ul = (1.0 - u) + x if -1.0 <= x <= 1.0 else (x - u) + 1.0  # 1 + x = u + ul exactly
        s, lo = E._log_parts(u, 0)
        assert float_bits(E.log1p(x)) == float_bits(float(_exact(s, lo, ul / u))), x
        checked += 1
    assert checked > 5000


def test_inlined_log_and_exp_kernels_in_pow_match_pow_pos() -> None:
    """pow's fast path (both kernels inlined) against _pow_pos, which calls them."""
    checked = 0
    for x, y in points("pow"):
        if not (2.0**-1022 <= x < INF and abs(y) < 2.0**64) or y in (2.0, 0.5):
            continue
        ours = _bits_outcome(E.pow, x, y)
        ref = _bits_outcome(E._pow_pos, x, float_bits(x) >> 44, 0, y, False)
        assert ours == ref, (x, y)
        checked += 1
    assert checked > 2000
