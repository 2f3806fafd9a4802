"""Magic Formula 6.1 against properties the equations and the file state, not against
numbers it computed (ADR 0260): every expected value below comes from the file's
coefficients by the closed form the MF-Tyre documentation gives for that property."""

from __future__ import annotations

from math import atan, pi, sin
from pathlib import Path

import pytest
from skidpad.engine.fourwheel import mf61
from skidpad.engine.fourwheel.tir import Mf61Params, read_tir

ROOT = Path(__file__).resolve().parents[1]
P = read_tir(ROOT / "engine" / "fourwheel" / "tires" / "chrono_185_80R14_mf61.tir")
FZ0 = P.FNOMIN
V = 20.0  # m/s forward


def f(
    p: Mf61Params = P,
    fz: float = FZ0,
    kappa: float = 0.0,
    alpha: float = 0.0,
    gamma: float = 0.0,
    vx: float = V,
) -> mf61.Mf61Forces:
    return mf61.forces(p, fz, kappa, alpha, gamma, vx)


def grid(lo: float, hi: float, n: int) -> list[float]:
    return [lo + (hi - lo) * i / n for i in range(n + 1)]


def symmetric(p: Mf61Params = P) -> Mf61Params:
    """The file with every lateral asymmetry (shifts, E's sign term, ply-steer) at 0."""
    return p._replace(
        PHY1=0.0,
        PHY2=0.0,
        PVY1=0.0,
        PVY2=0.0,
        PEY3=0.0,
        RHY1=0.0,
        RHY2=0.0,
        RVY1=0.0,
        RVY2=0.0,
        RVY3=0.0,
        QHZ1=0.0,
        QHZ2=0.0,
        RBY3=0.0,
    )


def test_fx_at_the_files_horizontal_shift_is_its_vertical_shift() -> None:
    # Fx0(κ = -SHx) = SVx exactly: SHx = PHX1 at Fz0, SVx = Fz0·PVX1·λμx'
    svx = FZ0 * P.PVX1 * 1.0  # λμx' = 10·1/(1 + 9·1) = 1
    assert abs(f(kappa=-P.PHX1).fx - svx) < 1e-6
    # and at κ = 0 the tire pulls by the slip stiffness times that shift
    assert f(kappa=0.0).fx == pytest.approx(FZ0 * P.PKX1 * P.PHX1 + svx, rel=0.01)


def test_slip_and_cornering_stiffness_at_the_nominal_load() -> None:
    h = 1e-5
    dfx = (f(kappa=-P.PHX1 + h).fx - f(kappa=-P.PHX1 - h).fx) / (2 * h)
    assert dfx == pytest.approx(FZ0 * P.PKX1, rel=1e-3)  # Kxκ = Fz0·PKX1 at dfz = 0
    s = symmetric()
    dfy = (f(s, alpha=h).fy - f(s, alpha=-h).fy) / (2 * h)
    # |Kyα| = |PKY1|·Fz0·sin(PKY4·atan(1/PKY2)); engine α > 0 pushes left (F_y > 0)
    assert dfy == pytest.approx(abs(P.PKY1) * FZ0 * sin(P.PKY4 * atan(1 / P.PKY2)), rel=1e-3)


def test_peak_fx_is_mu_x_times_load() -> None:
    peak = max(f(kappa=k).fx for k in grid(0.0, 0.6, 600))
    trough = min(f(kappa=k).fx for k in grid(-0.6, 0.0, 600))
    d = P.PDX1 * FZ0  # D = μx·Fz at dfz = 0
    assert peak == pytest.approx(d, rel=2e-3)
    assert -trough == pytest.approx(d, rel=2e-3)


@pytest.mark.parametrize("fz", [2000.0, 3800.0, 6000.0])
def test_load_sensitivity_lowers_friction_with_load(fz: float) -> None:
    dfz = (fz - FZ0) / FZ0
    s = symmetric()
    peak_y = max(f(s, fz=fz, alpha=a).fy for a in grid(0.0, 0.5, 500))
    assert peak_y / fz == pytest.approx(P.PDY1 + P.PDY2 * dfz, rel=3e-3)
    peak_x = max(f(fz=fz, kappa=k).fx for k in grid(0.0, 0.6, 600))
    assert peak_x / fz == pytest.approx(P.PDX1 + P.PDX2 * dfz, rel=3e-3)


def test_mu_falls_with_load_for_this_file() -> None:
    mus = [
        max(f(fz=fz, alpha=a).fy for a in grid(0.0, 0.5, 250)) / fz
        for fz in (1500.0, 3800.0, 7000.0)
    ]
    assert mus[0] > mus[1] > mus[2]


def test_lateral_force_is_odd_in_alpha_for_a_symmetric_tire() -> None:
    s = symmetric()
    for a in (0.001, 0.02, 0.08, 0.2, 0.6):
        right, left = f(s, alpha=a).fy, f(s, alpha=-a).fy
        assert right > 0.0 and right + left == pytest.approx(0.0, abs=1e-9 * right)
    # the file's own shifts make it asymmetric: the test above can tell
    assert abs(f(alpha=0.02).fy + f(alpha=-0.02).fy) > 10.0


def test_combined_slip_reduces_the_lateral_force_as_kappa_grows() -> None:
    for alpha in (0.03, 0.08):
        for sign in (1.0, -1.0):
            fys = [f(alpha=alpha, kappa=sign * k).fy for k in grid(0.0, 0.5, 25)]
            assert all(b < a for a, b in zip(fys, fys[1:], strict=False)), (alpha, sign)
            assert fys[-1] < 0.5 * fys[0]


def test_combined_slip_reduces_fx_as_alpha_grows() -> None:
    fxs = [f(kappa=0.08, alpha=a).fx for a in grid(0.0, 0.3, 15)]
    assert all(b < a for a, b in zip(fxs, fxs[1:], strict=False))


def test_combined_forces_stay_inside_a_friction_ellipse() -> None:
    dx, dy = P.PDX1 * FZ0, P.PDY1 * FZ0
    worst = 0.0
    for k in grid(-0.4, 0.4, 16):
        for a in grid(-0.3, 0.3, 12):
            r = f(kappa=k, alpha=a)
            worst = max(worst, (r.fx / dx) ** 2 + (r.fy / dy) ** 2)
    assert worst < 1.1**2  # ellipse-like (the MF envelope is not an exact ellipse)


def test_camber_thrust_pushes_towards_the_lean() -> None:
    # γ > 0 leans the top to the right: the thrust is to the right (F_y < 0), of size
    # Kyγ0·γ* = Fz0·PKY6·sin γ at α = 0
    g = 0.03
    thrust = f(gamma=g).fy - f().fy
    assert thrust < 0.0 and f(gamma=-g).fy - f().fy > 0.0
    # size on the symmetric tire (the file's PHY1 shift times the camber change of Kyα
    # through PKY3 would add 3 N)
    s = symmetric()
    assert f(s, gamma=g).fy == pytest.approx(FZ0 * P.PKY6 * sin(g), rel=0.01)


def test_relaxation_length_grows_with_load_to_its_peak_at_pty2() -> None:
    r0 = P.UNLOADED_RADIUS
    peak_load = P.PTY2 * FZ0
    loads = grid(P.FZMIN, peak_load, 40)
    sig = [f(fz=fz).sigma_alpha for fz in loads]
    assert all(b > a for a, b in zip(sig, sig[1:], strict=False))
    assert sig[-1] == pytest.approx(P.PTY1 * r0, rel=1e-12)  # sin(2·atan 1) = 1
    assert f(fz=peak_load * 1.1).sigma_alpha < sig[-1]
    assert f().sigma_kappa == pytest.approx(P.PTX1 * r0, rel=1e-12)  # Fz0·PTX1·R0/Fz0


def test_rolling_resistance_moment_opposes_rolling() -> None:
    my = P.QSY1 * FZ0 * P.UNLOADED_RADIUS  # QSY7 = 1: proportional to the load
    assert f().my == pytest.approx(-my, rel=1e-12)
    assert f(vx=-5.0).my == pytest.approx(my, rel=1e-12)
    assert f(fz=2 * FZ0).my == pytest.approx(-2 * my, rel=1e-12)


def test_pneumatic_trail_at_small_slip_is_the_files_peak_trail() -> None:
    # odd part of Mz over odd part of Fy: -t with t = Dt = R0·QDZ1 at Fz0 (Bt·αt ≈ 0)
    s = symmetric()
    a = 0.002
    dmz = f(s, alpha=a).mz - f(s, alpha=-a).mz
    dfy = f(s, alpha=a).fy - f(s, alpha=-a).fy
    assert -dmz / dfy == pytest.approx(P.UNLOADED_RADIUS * P.QDZ1, rel=0.03)
    assert f(alpha=0.03).mz < 0.0  # aligning: it turns the wheel towards its motion


def test_the_force_opposes_lateral_sliding_in_either_direction_of_travel() -> None:
    for a in (0.02, 0.2):
        assert f(alpha=a, vx=V).fy > 0.0 and f(alpha=a, vx=-V).fy > 0.0
        assert f(alpha=-a, vx=-V).fy < 0.0


def test_scaling_factors_are_honoured() -> None:
    s = symmetric()
    half = s._replace(LMUY=0.5)
    peak = max(f(half, alpha=a).fy for a in grid(0.0, 0.5, 500))
    assert peak == pytest.approx(0.5 * P.PDY1 * FZ0, rel=5e-3)
    stiff = s._replace(LKX=2.0)
    h = 1e-5
    k0 = -P.PHX1
    dfx = (f(stiff, kappa=k0 + h).fx - f(stiff, kappa=k0 - h).fx) / (2 * h)
    assert dfx == pytest.approx(2.0 * FZ0 * P.PKX1, rel=1e-3)
    corner = s._replace(LKY=2.0)
    dfy = (f(corner, alpha=h).fy - f(corner, alpha=-h).fy) / (2 * h)
    assert dfy == pytest.approx(2.0 * abs(P.PKY1) * FZ0 * sin(P.PKY4 * atan(1 / P.PKY2)), rel=1e-3)
    slow = s._replace(LSGAL=0.5)
    assert f(slow).sigma_alpha == pytest.approx(0.5 * f(s).sigma_alpha, rel=1e-12)


def test_no_load_no_force() -> None:
    assert f(fz=0.0, kappa=0.1, alpha=0.1) == mf61.Mf61Forces(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert f(fz=-10.0).fx == 0.0


def test_structural_relaxation_when_the_file_has_no_pt_coefficients() -> None:
    p = P._replace(PTX1=0.0, PTY1=0.0, LONGITUDINAL_STIFFNESS=4.0e5, LATERAL_STIFFNESS=1.5e5)
    r = f(p)
    assert r.sigma_kappa == pytest.approx(FZ0 * P.PKX1 / 4.0e5, rel=1e-9)
    kya = abs(P.PKY1) * FZ0 * sin(P.PKY4 * atan(1 / P.PKY2))
    assert r.sigma_alpha == pytest.approx(kya / 1.5e5, rel=1e-9)


def test_results_are_finite_over_the_files_ranges() -> None:
    for fz in (P.FZMIN, FZ0, P.FZMAX):
        for k in (P.KPUMIN, -0.1, 0.0, 0.1, P.KPUMAX):
            for a in (-1.5, -0.2, 0.0, 0.2, 1.5):
                for g in (P.CAMMIN, 0.0, P.CAMMAX):
                    r = f(fz=fz, kappa=k, alpha=a, gamma=g)
                    assert all(abs(x) < 1e6 for x in r), (fz, k, a, g, r)


def test_two_over_pi_is_pi_based() -> None:
    assert mf61._TWO_OVER_PI == 2.0 / pi
