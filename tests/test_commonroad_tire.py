"""The CommonRoad fast paths equal their readable forms bit for bit.

``tire.combined_forces`` is the four ``formula_*`` functions written out in one body,
``tire_fast`` generates it specialised to one tire (constants folded, kernels inlined), and
STD skips its kinematic rates where the blend weight makes them vanish; all are speed
rewrites that must not move one bit (the recordings' hashes depend on it).
"""

from __future__ import annotations

import math
import random
import struct
from pathlib import Path

import mpmath
import pytest
from helpers import strict_float_lint
from skidpad.engine.commonroad import std, tire, tire_fast
from skidpad.engine.commonroad.params import load_vehicle

ROOT = Path(__file__).resolve().parents[1]
lint = strict_float_lint()


def bits(values) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


def readable_chain(kappa: float, alpha: float, gamma: float, F_z: float, p, wx, wy) -> tuple:
    F0_x = tire.formula_longitudinal(kappa, gamma, F_z, p)
    F0_y, mu_y = tire.formula_lateral(alpha, gamma, F_z, p)
    F_x = tire.formula_longitudinal_comb(kappa, alpha, F0_x, p, wx)
    F_y = tire.formula_lateral_comb(kappa, alpha, gamma, mu_y, F_z, F0_y, p, wy)
    return F_x, F_y


def tire_cases(rng: random.Random, n: int):
    for _ in range(n):
        kappa = rng.choice(
            [
                0.0,
                -0.0,
                1.0,
                -1.0,
                rng.uniform(-0.05, 0.05),
                rng.uniform(-1, 1),
                rng.uniform(-1e9, 1e9),
            ]
        )
        alpha = rng.choice([0.0, -0.0, rng.uniform(-0.1, 0.1), rng.uniform(-1.5, 1.5)])
        gamma = rng.choice([0.0, -0.0, rng.uniform(-0.05, 0.05), rng.uniform(-0.3, 0.3)])
        F_z = rng.choice([rng.uniform(0.0, 8000.0), rng.uniform(-100.0, 100.0), 1e-300])
        yield kappa, alpha, gamma, F_z


def series(p) -> tuple:
    return tire.weight_series_x(p), tire.weight_series_y(p)


@pytest.mark.parametrize("vid", [1, 2, 3])
def test_combined_forces_is_the_four_formulas(vid: int) -> None:
    p = load_vehicle(vid).tire
    wx, wy = series(p)
    for kappa, alpha, gamma, F_z in tire_cases(random.Random(vid), 4000):
        assert bits(tire.combined_forces(kappa, alpha, gamma, F_z, p, wx, wy)) == bits(
            readable_chain(kappa, alpha, gamma, F_z, p, wx, wy)
        ), (kappa, alpha, gamma, F_z)


def wide_tire(vid: int):
    """Vehicle ``vid``'s tire with shifts too large for the weight series (direct formula)."""
    from dataclasses import replace

    p = load_vehicle(vid).tire
    return replace(p, r_hx1=0.05, r_hy1=-0.08)


@pytest.mark.parametrize("vid", [1, 2, 3, "wide"])
def test_generated_tire_is_combined_forces(vid) -> None:
    """``tire_fast.forces_for`` gives the readable chain's bits, with the weight series and
    (a tire whose shifts are too large for it) with the direct formula."""
    p = wide_tire(2) if vid == "wide" else load_vehicle(vid).tire
    wx, wy = series(p)
    assert (wx is None) == (vid == "wide") and (wy is None) == (vid == "wide")
    forces = tire_fast.forces_for(p)
    assert tire_fast.forces_for(p) is forces  # built once per tire
    rng = random.Random(f"generated-{vid}")
    for kappa, alpha, gamma, F_z in tire_cases(rng, 6000):
        assert bits(forces(kappa, alpha, gamma, F_z)) == bits(
            tire.combined_forces(kappa, alpha, gamma, F_z, p, wx, wy)
        ), (kappa, alpha, gamma, F_z)
    for special in (math.inf, -math.inf, math.nan, 1e300, 7.0, -6.25):
        got = forces(special, special, 0.01, 3000.0)
        want = tire.combined_forces(special, special, 0.01, 3000.0, p, wx, wy)
        assert [str(v) if math.isnan(v) else v for v in got] == [
            str(v) if math.isnan(v) else v for v in want
        ]


@pytest.mark.parametrize("vid", [2, "wide"])
def test_generated_tire_passes_the_strict_lint(vid) -> None:
    p = wide_tire(2) if vid == "wide" else load_vehicle(vid).tire
    assert lint.lint_source(tire_fast.source(p), f"<tire of {vid}>") == []


def test_generated_tire_planted_difference_is_caught() -> None:
    """One coefficient of the generated text moved by one ulp: the comparison above sees it."""
    p = load_vehicle(2).tire
    text = tire_fast.source(p)
    old = f"_x_1 = {p.r_vy5!r} * _atan_fast"
    new = f"_x_1 = {math.nextafter(p.r_vy5, math.inf)!r} * _atan_fast"
    assert text.count(old) == 1
    planted = tire_fast.build(p, text.replace(old, new))
    wx, wy = series(p)
    differ = sum(
        bits(planted(k, a, g, F)) != bits(tire.combined_forces(k, a, g, F, p, wx, wy))
        for k, a, g, F in tire_cases(random.Random(3), 300)
    )
    assert differ > 0


def test_generated_text_holds_only_numbers_and_templates() -> None:
    """Nothing but repr'd numbers varies between two tires' texts."""
    import re

    a = tire_fast.source(load_vehicle(2).tire)
    b = tire_fast.source(wide_tire(3))
    number = r"\(?-?[0-9][0-9.e+-]*\)?"
    strip_a = re.sub(number, "N", a)
    assert re.sub(r"[A-Za-z_]", "", strip_a) != ""
    assert "name" not in a and "BMW" not in a and "Ford" not in a
    assert len(b) > len(a)  # the direct weights instead of the series


@pytest.mark.parametrize("vid", [1, 2, 3])
def test_weight_series_matches_the_weight(vid: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The combined-slip weight at the shift by its series stays below half an ulp of the
    true value (mpmath, 120 bits) over the whole range of the shift."""
    p = load_vehicle(vid).tire
    monkeypatch.setattr(mpmath.mp, "prec", 120)  # restored after the test: others share mp
    for C, E, B1, S, w in (
        (p.r_cx1, p.r_ex1, p.r_bx1, p.r_hx1, tire.weight_series_x(p)),
        (p.r_cy1, p.r_ey1, p.r_by1, p.r_hy1, tire.weight_series_y(p)),
    ):
        assert w is not None
        s_max = abs(B1 * S)
        worst = 0.0
        for i in range(-300, 301):
            s = s_max * i / 300.0
            exact = mpmath.cos(C * mpmath.atan(s - E * (s - mpmath.atan(s))))
            got = tire.shift_weight(s, C, E, w)
            worst = max(
                worst, float(abs(mpmath.mpf(got) - exact) / mpmath.mpf(math.ulp(float(exact))))
            )
        assert worst < 0.5, (vid, C, E, worst)


def std_cases(rng: random.Random, n: int):
    for _ in range(n):
        v = rng.choice([rng.uniform(1.0, 45.0), rng.uniform(0.0, 2.0), 1.2, 30.0])
        r = rng.choice([0.0, -0.0, rng.uniform(-1.5, 1.5)])
        beta = rng.choice([0.0, -0.0, rng.uniform(-0.4, 0.4)])
        delta = rng.choice([0.0, -0.0, rng.uniform(-1.0, 1.0)])
        w = [v / 0.344 * (1.0 + rng.uniform(-0.3, 0.3)) for _ in range(2)]
        x = [rng.uniform(-50, 50), rng.uniform(-50, 50), delta, v, rng.uniform(-3, 3), r, beta]
        u = [rng.choice([0.0, -0.0, rng.uniform(-0.4, 0.4)]), rng.uniform(-12.0, 12.0)]
        yield x + w, u


def test_std_kinematic_shortcut_changes_no_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the shortcut disabled (every speed 'not finite'), STD evaluates the kinematic
    rates and blends them in with weight 0; the results must be the same bits."""
    p = load_vehicle(2)
    cases = list(std_cases(random.Random(7), 3000))
    fast = [std.derivatives_ext(x, u, p) for x, u in cases]
    monkeypatch.setattr(std, "isfinite", lambda v: False)
    shortcut_taken = 0
    for (x, u), (f, extra) in zip(cases, fast, strict=True):
        f_full, extra_full = std.derivatives_ext(x, u, p)
        assert bits(f) == bits(f_full), (x, u)
        assert bits(extra) == bits(extra_full)
        shortcut_taken += 0.5 * (math.tanh((x[3] - std.V_S) / std.V_B) + 1.0) == 1.0
    assert shortcut_taken > 1000  # the comparison covered the shortcut, not only the blend
