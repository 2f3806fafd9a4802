"""The accuracy instrument itself (parity/oracle.py, parity/sampler.py, parity/accuracy.py)
measures what it claims.

Every expected value below is constructed by hand from the definition of an
ulp, not computed by the code under test.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

mpmath = pytest.importorskip("mpmath")

from skidpad.parity import accuracy as A  # noqa: E402
from skidpad.parity import oracle, sampler  # noqa: E402
from skidpad.parity.oracle import correctly_rounded, round_to_double, ulp_error  # noqa: E402

mpf = mpmath.mpf


def exact(num: int, exp: int):
    """The exact binary value num * 2**exp as an mpf (no rounding)."""
    with mpmath.workprec(max(64, abs(num).bit_length() + 8)):
        return mpmath.ldexp(mpf(num), exp)


DBL_MAX = 1.7976931348623157e308
TRUE_MIN = 5e-324


# ----------------------------------------------------------------- ulp_error

def test_zero_error_when_equal():
    assert ulp_error(1.0, mpf(1)) == 0.0
    assert ulp_error(-3.5, mpf(-3.5)) == 0.0


def test_one_ulp_above_one():
    assert ulp_error(1.0 + 2.0**-52, mpf(1)) == 1.0


def test_ulp_is_taken_in_the_binade_of_the_exact_value():
    # exact just below 1 lives in [1/2, 1), whose ulp is 2**-53
    x = exact((1 << 60) - 1, -60)  # 1 - 2**-60
    assert ulp_error(1.0, x) == pytest.approx(2.0**-60 / 2.0**-53, rel=1e-12)
    # half an ulp below 1: exact = 1 - 2**-54, got = 1 - 2**-53
    assert ulp_error(1.0 - 2.0**-53, exact((1 << 54) - 1, -54)) == 0.5


def test_subnormal_ulp():
    # exact = 0.75 * 2**-1074, got = 2**-1074: error 0.25 subnormal ulps
    assert ulp_error(TRUE_MIN, exact(3, -1076)) == 0.25
    # exact zero: ulp is the smallest subnormal
    assert ulp_error(TRUE_MIN, mpf(0)) == 1.0
    assert ulp_error(-2 * TRUE_MIN, mpf(0)) == 2.0
    # at the bottom of the normal range the spacing is still 2**-1074
    assert ulp_error(2.0**-1022 + TRUE_MIN, exact(1, -1022)) == 1.0


def test_overflow_and_infinities():
    assert ulp_error(math.inf, exact(1, 1024)) == 0.0  # exact overflows: inf is right
    assert ulp_error(math.inf, exact((1 << 54) - 1, 1024 - 54)) == 0.0  # DBL_MAX+half ulp -> inf
    assert ulp_error(math.inf, mpf(DBL_MAX)) == math.inf
    assert ulp_error(-math.inf, exact(1, 1024)) == math.inf  # wrong sign
    assert ulp_error(DBL_MAX, exact(1, 1024)) == 1.0  # top binade spacing 2**971 continues
    assert ulp_error(1.0, mpf("inf")) == math.inf
    assert ulp_error(math.inf, mpf("inf")) == 0.0


def test_nan():
    assert ulp_error(math.nan, mpf("nan")) == 0.0
    assert ulp_error(1.0, mpf("nan")) == math.inf
    assert ulp_error(math.nan, mpf(1)) == math.inf


# ----------------------------------------------------------------- rounding

@pytest.mark.parametrize(
    ("num", "exp", "expected"),
    [
        ((1 << 53) + 1, -53, 1.0),  # 1 + 2**-53: tie, to even (1.0)
        ((1 << 53) + 3, -53, 1.0 + 2.0**-51),  # 1 + 3*2**-53: tie, to even (up)
        ((1 << 54) + 3, -54, 1.0 + 2.0**-52),  # 1 + 3*2**-54: above the tie, up
        (1, -1075, 0.0),  # half the smallest subnormal: tie to even zero
        (3, -1075, 2 * TRUE_MIN),  # 1.5 subnormal ulps: tie to even (2)
        (5, -1077, TRUE_MIN),  # 0.625 subnormal ulps
        ((1 << 54) - 1, 1024 - 54, math.inf),  # DBL_MAX + half ulp: tie, even is 2**1024
        ((1 << 55) - 3, 1024 - 55, DBL_MAX),  # just under that tie
        (1, -5000, 0.0),
        (1, 5000, math.inf),
    ],
)
def test_round_to_double_constructed(num, exp, expected):
    assert round_to_double(exact(num, exp)) == expected
    assert round_to_double(-exact(num, exp)) == -expected


def test_round_to_double_agrees_with_fraction_rounding():
    # float(Fraction) is correctly rounded (ties to even) by CPython, subnormals included
    r = sampler.SplitMix64(12345)
    for _ in range(3000):
        num = r.next() | (r.next() << 64)
        num >>= r.below(120)
        num = num or 1
        exp = r.below(2300) - 1200 - num.bit_length()
        try:
            want = float(Fraction(num) * Fraction(2) ** exp)
        except OverflowError:
            want = math.inf
        assert round_to_double(exact(num, exp)) == want, (num, exp)


def test_correctly_rounded():
    assert correctly_rounded(1.0, exact((1 << 53) + 1, -53))
    assert not correctly_rounded(1.0 + 2.0**-52, exact((1 << 53) + 1, -53))
    assert correctly_rounded(1.0 + 2.0**-52, exact((1 << 54) + 3, -54))
    assert correctly_rounded(math.nan, mpf("nan"))
    assert not correctly_rounded(0.0, mpf("nan"))
    assert correctly_rounded(math.inf, exact(1, 1024))


# ----------------------------------------------------------------- oracle

def test_reference_values():
    assert oracle.reference("cbrt", -8.0) == -2
    assert oracle.reference("pow", -2.0, 3.0) == -8
    assert oracle.reference("pow", -2.0, 2.0) == 4
    assert oracle.reference("pow", 0.0, 0.0) == 1
    assert oracle.reference("sqrt", 2.0) ** 2 == pytest.approx(2, rel=1e-35)
    assert round_to_double(oracle.reference("atan2", 1.0, -1.0)) == 3 * math.pi / 4
    assert mpmath.isnan(oracle.reference("sin", math.nan))
    assert oracle.reference("pow", math.nan, 0.0) == 1


@pytest.mark.parametrize(
    ("name", "args"),
    [("log", (0.0,)), ("log", (-1.0,)), ("asin", (1.5,)), ("acos", (-2.0,)),
     ("log1p", (-1.0,)), ("pow", (-2.0, 0.5)), ("pow", (0.0, -1.0)), ("sqrt", (-1.0,))],
)
def test_reference_domain_errors(name, args):
    with pytest.raises(oracle.DomainError):
        oracle.reference(name, *args)


def test_reference_unknown_function_and_arity():
    with pytest.raises(KeyError, match="log10"):
        oracle.reference("log10", 1.0)
    with pytest.raises(TypeError):
        oracle.reference("atan2", 1.0)


@pytest.mark.parametrize(
    ("name", "x"),
    [
        ("sin", math.pi),  # result ~1.2e-16: heavy cancellation
        ("sin", 6381956970095103 * 2.0**797),  # hardest reduction case for binary64
        ("cos", math.pi / 2),
        ("tan", 1e22),
        ("log", 1.0 + 2.0**-52),
        ("log1p", 1e-300),
        ("expm1", -1e-200),
        ("sinh", 1e-300),
        ("acos", 1.0 - 2.0**-53),
    ],
)
def test_oracle_keeps_its_precision_on_hard_points(name, x):
    lo = oracle.reference(name, x)
    with mpmath.workprec(1200):
        hi = getattr(mpmath, name)(mpf(x))
        assert abs((lo - hi) / hi) < mpf(2) ** -110


# ----------------------------------------------------------------- sampling

def test_sampling_is_deterministic_and_sliceable():
    a = sampler.sample_points("sin", 12000, seed=3)
    assert a == sampler.sample_points("sin", 12000, seed=3)
    assert len(a) == 12000
    assert a[7000:9000] == sampler.sample_points("sin", 9000, seed=3, start=7000)
    assert a != sampler.sample_points("sin", 12000, seed=4)
    assert a[:100] != sampler.sample_points("cos", 100, seed=3)


@pytest.mark.parametrize("name", oracle.FUNCTION_NAMES)
def test_samples_are_in_domain_and_varied(name):
    pts = sampler.sample_points(name, 3000, seed=1)
    assert len(pts) == 3000
    assert all(len(p) == oracle.ARITY[name] for p in pts)
    for p in pts:
        oracle.reference(name, *p)  # inside the domain: no DomainError
        assert all(math.isfinite(v) for v in p)
    xs = [p[0] for p in pts]
    assert any(v != 0.0 and abs(v) < 2.0**-1022 for p in pts for v in p), "no subnormals"
    assert len(set(xs)) > 2000
    mags = {math.frexp(v)[1] for v in xs if v != 0.0}
    assert len(mags) > 20, "points do not spread over many binades"


def test_trig_samples_include_huge_and_near_pi_over_2():
    pts = [p[0] for p in sampler.sample_points("sin", 5000, seed=1)]
    assert any(abs(x) > 1e300 for x in pts)
    assert any(abs(math.remainder(x, math.pi / 2)) < 1e-12 and abs(x) > 1 for x in pts)


# ----------------------------------------------------------------- measuring

def test_evaluate_flags_a_wrong_function():
    err, ok = oracle.evaluate(lambda x: math.nextafter(math.sqrt(x), math.inf), "sqrt", (2.0,))
    assert 0.5 < err < 1.5 and not ok
    err, ok = oracle.evaluate(math.sqrt, "sqrt", (2.0,))
    assert err <= 0.5 and ok


def test_evaluate_overflow_error_is_right_only_when_exact_overflows():
    def boom(*_):
        raise OverflowError("math range error")

    assert oracle.evaluate(boom, "exp", (710.0,)) == (0.0, True)
    assert oracle.evaluate(boom, "exp", (709.0,)) == (math.inf, False)

    def domain(*_):
        raise ValueError("math domain error")

    assert oracle.evaluate(domain, "log", (2.0,)) == (math.inf, False)


def test_cli_exit_codes(monkeypatch, capsys):
    from skidpad.engine import smath

    assert A.main(["--points", "300", "--functions", "sqrt", "--jobs", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = out["functions"][0]
    assert row["function"] == "sqrt" and row["points"] == 300
    assert row["max_ulp"] <= 0.5 and row["pct_correctly_rounded"] == 100.0

    def bad_sqrt(x):
        return math.nextafter(math.sqrt(x), math.inf) if x > 1.0 else math.sqrt(x)

    monkeypatch.setitem(smath.FUNCTIONS, "sqrt", (bad_sqrt, 1))
    assert A.main(["--points", "300", "--functions", "sqrt", "--jobs", "1"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert A.main(["--functions", "log10", "--jobs", "1"]) == 2


def test_parallel_result_equals_serial():
    serial = A.measure_all(["atan", "sqrt"], 600, seed=9, jobs=1, chunk=200)
    parallel = A.measure_all(["atan", "sqrt"], 600, seed=9, jobs=2, chunk=200)
    for s, p in zip(serial, parallel, strict=True):
        s.pop("cpu_s"), p.pop("cpu_s")
        assert s == p


def test_edge_cases_compare_specials_bit_for_bit(monkeypatch):
    from skidpad.engine import smath

    def sloppy_sqrt(x):
        if x == 0.0:
            return 0.0  # loses the sign of -0.0
        if x == 4.0:
            return 2.0000000000000004  # 1 ulp off on a finite edge case
        if x < 0.0:
            return math.nan  # should raise ValueError like math.sqrt
        return math.sqrt(x)

    monkeypatch.setitem(smath.FUNCTIONS, "sqrt", (sloppy_sqrt, 1))
    bad = A.check_edge_cases("sqrt")
    by_arg = {tuple(b["args"]): b for b in bad}
    assert by_arg[("-0x0.0p+0",)]["got"] == "0x0.0p+0"
    assert by_arg[("-0x1.0000000000000p+0",)]["want"] == "raises ValueError"
    assert by_arg[("-0x1.0000000000000p+0",)]["got"] == "nan"
    assert by_arg[("0x1.0000000000000p+2",)]["want"] == "< 1 ulp"
    assert ("inf",) not in by_arg and ("0x0.0p+0",) not in by_arg
    rows = A.measure_all(["sqrt"], 50, jobs=1)
    assert A.failed_functions(rows) == ["sqrt"]
    monkeypatch.setitem(smath.FUNCTIONS, "sqrt", (math.sqrt, 1))
    assert A.check_edge_cases("sqrt") == []


def test_json_output_is_strict_json_even_for_infinite_errors(monkeypatch, capsys):
    from skidpad.engine import smath

    def raises(x):
        raise ValueError("math domain error")

    monkeypatch.setitem(smath.FUNCTIONS, "cbrt", (raises, 1))
    assert A.main(["--points", "10", "--functions", "cbrt", "--jobs", "1", "--json",
                   "--quiet"]) == 1
    text = capsys.readouterr().out
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert doc["functions"][0]["max_ulp"] == "inf" and doc["failed"] == ["cbrt"]


@pytest.mark.parametrize(
    ("x", "y"),
    [(1.0000000000000002, 4503599627370496.0), (3.0, 400.0), (-1.5, 1001.0),
     (0.999, -65.0), (2.0, -1074.0), (1.0000001, 1e9), (-2.0, 3.0), (10.0, 22.0)],
)
def test_pow_oracle_for_large_integer_exponents(x, y):
    got = oracle.reference("pow", x, y)
    with mpmath.workprec(4000):
        want = mpmath.power(mpf(abs(x)), mpf(y))
        if x < 0 and int(y) % 2:
            want = -want
        assert abs((got - want) / want) < mpf(2) ** -120
