"""The CommonRoad fast paths equal their readable forms bit for bit.

``tire.combined_forces`` is the four ``formula_*`` functions written out in one body, and
STD skips its kinematic rates where the blend weight makes them vanish; both are speed
rewrites that must not move one bit (the recordings' hashes depend on it).
"""

from __future__ import annotations

import math
import random
import struct

import pytest

from engine.commonroad import std, tire
from engine.commonroad.params import load_vehicle


def bits(values) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


def readable_chain(kappa: float, alpha: float, gamma: float, F_z: float, p) -> tuple:
    F0_x = tire.formula_longitudinal(kappa, gamma, F_z, p)
    F0_y, mu_y = tire.formula_lateral(alpha, gamma, F_z, p)
    F_x = tire.formula_longitudinal_comb(kappa, alpha, F0_x, p)
    F_y = tire.formula_lateral_comb(kappa, alpha, gamma, mu_y, F_z, F0_y, p)
    return F_x, F_y


def tire_cases(rng: random.Random, n: int):
    for _ in range(n):
        kappa = rng.choice([0.0, -0.0, 1.0, -1.0, rng.uniform(-0.05, 0.05), rng.uniform(-1, 1)])
        alpha = rng.choice([0.0, -0.0, rng.uniform(-0.1, 0.1), rng.uniform(-1.5, 1.5)])
        gamma = rng.choice([0.0, -0.0, rng.uniform(-0.05, 0.05), rng.uniform(-0.3, 0.3)])
        F_z = rng.choice([rng.uniform(0.0, 8000.0), rng.uniform(-100.0, 100.0), 1e-300])
        yield kappa, alpha, gamma, F_z


@pytest.mark.parametrize("vid", [1, 2, 3])
def test_combined_forces_is_the_four_formulas(vid: int) -> None:
    p = load_vehicle(vid).tire
    for kappa, alpha, gamma, F_z in tire_cases(random.Random(vid), 4000):
        assert bits(tire.combined_forces(kappa, alpha, gamma, F_z, p)) == bits(
            readable_chain(kappa, alpha, gamma, F_z, p)
        ), (kappa, alpha, gamma, F_z)


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
