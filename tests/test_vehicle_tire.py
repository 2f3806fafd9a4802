"""Unit checks of the tire law and the bounded constraint (engine/fourwheel/tire.py,
engine/fourwheel/constraint.py)."""

from __future__ import annotations

import math

import pytest
from skidpad.engine.fourwheel import constraint, tire
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.load_transfer import G

T = load_preset("hatchbackFwd")["tires"]["front"]
FZ = 4000.0
K = tire.constants(T, FZ, G)


def forces(ux: float, uy: float, surface: float = 1.0, fz: float = FZ) -> tuple[float, float]:
    dx, dy, kxs, kys, _ = tire.load_terms(K, fz, surface)
    phx, phy = kxs * ux, kys * uy
    rho = (phx * phx + phy * phy) ** 0.5
    shp = tire.shape(T["shape_c"], T["shape_e"], rho)
    return dx * shp * phx, dy * shp * phy


def test_slip_stiffnesses_at_zero_slip() -> None:
    e = 1e-7
    sx, sy = T["relaxation_length_x_m"], T["relaxation_length_y_m"]
    fx, _ = forces(e * sx, 0.0)  # slip ratio e
    _, fy = forces(0.0, e * sy)  # tan(slip angle) e
    assert fx / e == pytest.approx(T["long_stiffness_per_load"] * FZ, rel=1e-6)
    assert fy / e == pytest.approx(tire.cornering_stiffness(T, FZ), rel=1e-6)
    # load sensitivity of the cornering stiffness: 2q/(1+q²) peaks at K_y2·F_z0
    peak = T["cornering_stiffness_peak_load"] * T["nominal_load_n"]
    assert tire.cornering_stiffness(T, peak) > tire.cornering_stiffness(T, 0.9 * peak)
    assert tire.cornering_stiffness(T, peak) > tire.cornering_stiffness(T, 1.1 * peak)


def test_force_peaks_then_falls_to_the_sliding_force() -> None:
    dx, _, kxs, _, _ = tire.load_terms(K, FZ, 1.0)
    curve = [forces(u / kxs, 0.0)[0] for u in [0.1 * i for i in range(1, 21)]]  # ρ 0.1..2.0
    peak = max(curve)
    assert peak == pytest.approx(dx, rel=1e-3)  # the peak is D = μ_x·F_z
    assert curve.index(peak) not in (0, len(curve) - 1)
    slide = curve[-1]  # ρ = sliding_slip = 2
    # the sliding force D·sin(C·atan ψ(ρ_cap)), ψ = ρ - E·(ρ - atan ρ), from libm as reference
    rho, c, e = T["sliding_slip"], T["shape_c"], T["shape_e"]
    psi = rho - e * (rho - math.atan(rho))
    assert slide == pytest.approx(math.sin(c * math.atan(psi)) * dx, rel=1e-12)
    assert 0.6 < slide / peak < 0.95


def test_surface_scales_friction_not_stiffness() -> None:
    e = 1e-7 * T["relaxation_length_x_m"]
    assert forces(e, 0.0, 0.12)[0] == pytest.approx(forces(e, 0.0, 1.0)[0], rel=1e-5)
    big = 10.0 * T["relaxation_length_x_m"]
    assert forces(big, 0.0, 0.12)[0] < 0.13 * forces(big, 0.0, 1.0)[0]


def test_combined_slip_stays_inside_the_friction_ellipse() -> None:
    dx, dy, kxs, kys, _ = tire.load_terms(K, FZ, 1.0)
    for ux, uy in ((1.0, 1.0), (2.0, 0.5), (0.3, 3.0), (-1.5, 1.5)):
        fx, fy = forces(ux / kxs, uy / kys)
        assert (fx / dx) ** 2 + (fy / dy) ** 2 <= 1.0 + 1e-12
        pure_x, _ = forces(ux / kxs, 0.0)
        assert abs(fx) < abs(pure_x)  # lateral slip costs longitudinal force


def test_steady_lateral_trail_and_sign() -> None:
    fy, mz = tire.steady_lateral(K, FZ, 1.0, 0.02)
    assert fy > 0.0 and mz < 0.0  # positive slip angle: force left, aligning torque clockwise
    assert -mz / fy == pytest.approx(T["pneumatic_trail_m"], rel=0.05)
    fy2, mz2 = tire.steady_lateral(K, FZ, 1.0, 0.3)
    assert -mz2 / fy2 < 0.5 * T["pneumatic_trail_m"]  # the trail collapses towards sliding


def test_bounded_solve_holds_exactly_inside_the_bound() -> None:
    a = 1.2 / 0.001  # I/h
    w, tb, held = constraint.bounded_solve(a * 0.003 - 150.0, a + 10.0, 500.0)
    assert held and w == 0.0 and tb == pytest.approx(a * 0.003 - 150.0)
    w, tb, held = constraint.bounded_solve(a * 80.0 + 100.0, a + 10.0, 500.0)
    assert not held and tb == 500.0 and 0.0 < w < 80.0  # slows, does not cross zero
    w, tb, held = constraint.bounded_solve(a * -80.0, a, 500.0)
    assert not held and tb == -500.0 and -80.0 < w < 0.0  # opposes backward spin too


@pytest.mark.parametrize(
    ("t_req", "capacity", "result"),
    [
        (3.0, 5.0, (3.0, True)),
        (-5.0, 5.0, (-5.0, True)),  # the bound itself still holds
        (7.0, 5.0, (5.0, False)),
        (-7.0, 5.0, (-5.0, False)),
        (1.0, 0.0, (0.0, False)),  # no capacity: slips with none
    ],
)
def test_bound_clamps_to_the_capacity(t_req: float, capacity: float, result: tuple) -> None:
    assert constraint.bound(t_req, capacity) == result


def _shape_points() -> list[float]:
    """Slips from just past the shape's small-slip branch to far beyond any sliding cap."""
    rhos = [1e-9, 1.0000000000000002e-9, 7.450580596923828e-09, 1.0, 6.25, 1e6, 1e18, 1e300]
    rhos += [k / 64.0 for k in range(1, 2000)]
    rhos += [math.exp(k / 50.0) for k in range(-1000, 1500)]
    return [x for r in rhos for x in (r, math.nextafter(r, 0.0), math.nextafter(r, math.inf))]


SHAPE_E = (1.0, 0.97, 0.5, 0.0, -0.5, -2.2, -1000.0, -1e9)


def _shape_locals(c: float, e: float, rho: float) -> dict:
    """tire.shape's locals at ``rho``, by its own formulas (the readable text's operations)."""
    psi = rho - e * (rho - tire.atan_fast(rho))
    return {"rho": rho, "psi": psi, "angle": c * tire.atan_fast(psi)}


@pytest.mark.parametrize("e", SHAPE_E)
def test_the_declared_non_negative_kernel_arguments_of_the_shape_are(e: float) -> None:
    """tire.shape_nonneg's claim (the fast path inlines only the kernels' positive side for
    these names) holds on a dense sample of slips, for shape factors C of every sign."""
    for c in (0.0, 1.3, 1.6, 2.0, -1.0):
        names = tire.shape_nonneg(c, e)
        assert "rho" in names and ("psi" in names) == (e <= 1.0)
        for rho in _shape_points():
            found = _shape_locals(c, e, rho)
            bad = [n for n in names if found[n] < 0.0]
            assert not bad, f"c={c} e={e} rho={rho!r}: {bad} below zero"


def test_the_claim_is_not_made_where_it_would_fail() -> None:
    """Past E = 1, psi turns negative at large slips: the declaration leaves it out (the check
    above could fail, had it claimed it)."""
    assert "psi" not in tire.shape_nonneg(1.6, 1.5)
    assert any(_shape_locals(1.6, 1.5, rho)["psi"] < 0.0 for rho in _shape_points())
    assert "angle" not in tire.shape_nonneg(-1.0, 0.5)


def _shape_of(c: float, e: float, rho: float) -> float:
    shp = tire.shape(c, e, rho)
    return shp


@pytest.mark.parametrize("e", SHAPE_E)
def test_the_specialised_shape_gives_the_readable_shapes_bits(e: float) -> None:
    """The shape as the fast path inlines it (specialised from tire.shape, the kernels by the
    sign split tire.shape_nonneg declares) against tire.shape itself, bit for bit, with nan
    and zero slips."""
    from skidpad.engine.floatbits import float_bits
    from skidpad.engine.specialise import Plan, compile_specialised, specialise

    for c in (1.3, 1.6, -1.0):
        nonneg = frozenset((tire.shape, name) for name in tire.shape_nonneg(c, e))
        plan = Plan(inline=frozenset({tire.shape}), fold=frozenset(), nonneg=nonneg)
        fast = compile_specialised(specialise(_shape_of, {"c": c, "e": e}, plan))
        for rho in [0.0, 5e-10, math.nan, *_shape_points()]:
            want, got = tire.shape(c, e, rho), fast(rho)
            same = (want != want and got != got) or float_bits(want) == float_bits(got)
            assert same, f"c={c} e={e} rho={rho!r}: {got!r} != {want!r}"


def test_the_fast_paths_tire_stage_cache_stays_bounded() -> None:
    """A verifier builds strangers' definitions: one specialised tire stage per set of
    wheels, at most TIRES_CACHE of them kept."""
    from types import SimpleNamespace

    from skidpad.engine.fourwheel import fastpath
    from skidpad.engine.fourwheel.definition import load_preset
    from skidpad.engine.fourwheel.simulation import Simulation

    sim = Simulation(load_preset("kart"))
    for k in range(fastpath.TIRES_CACHE + 3):
        wheels = tuple(w._replace(tire=w.tire._replace(c=1.0 + k / 1024.0)) for w in sim.wheels)
        fastpath._tires(
            SimpleNamespace(
                wheels=wheels, ground=None, flat_ground=sim.flat_ground, h=sim.h,
                kinematics_k=None,
            )
        )
    assert len(fastpath._TIRES) == fastpath.TIRES_CACHE
