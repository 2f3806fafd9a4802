"""Parity of the CommonRoad port (engine/commonroad) with the reference package.

The oracle is ``commonroad-vehicle-models`` 3.0.2 (test dependency). Every
derivative component of KS/ST/STD must match to 1e-13 relative (1e-13
absolute near zero), MB to 1e-7, on the reference's own unit-test states
and on seeded pseudo-random states (an integer PRNG, splitmix64) covering
the low-speed switch, |v| = 0.1 exactly, zero speed and the STD blend
region. ``python tests/test_commonroad_parity.py`` prints the worst errors
per model and component class.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from skidpad.engine.prng import SplitMix64 as _ProjectSplitMix64

vm_params = pytest.importorskip("vehiclemodels.vehicle_parameters")

from skidpad.engine.commonroad import ks, mb, st, std  # noqa: E402
from skidpad.engine.commonroad.params import load_vehicle, vehicle_data  # noqa: E402
from vehiclemodels.vehicle_dynamics_ks import vehicle_dynamics_ks  # noqa: E402
from vehiclemodels.vehicle_dynamics_mb import vehicle_dynamics_mb  # noqa: E402
from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st  # noqa: E402
from vehiclemodels.vehicle_dynamics_std import vehicle_dynamics_std  # noqa: E402
from vehiclemodels.vehicle_dynamics_std_old import (  # noqa: E402
    vehicle_dynamics_std as vehicle_dynamics_std_old,
)

TOL = {"ks": 1e-13, "st": 1e-13, "std": 1e-13, "mb": 1e-7}
N_RANDOM = 2000
G = 9.81

REF = {"ks": vehicle_dynamics_ks, "st": vehicle_dynamics_st, "std": vehicle_dynamics_std,
       "mb": vehicle_dynamics_mb}
OURS = {"ks": ks.derivatives, "st": st.derivatives, "std": std.derivatives, "mb": mb.derivatives}

#: component class of every derivative slot, per model (for the error report)
_ST_CLASSES = ("pose", "pose", "steering", "longitudinal", "pose", "yaw", "slip")
CLASSES = {
    "ks": ("pose", "pose", "steering", "longitudinal", "yaw"),
    "st": _ST_CLASSES,
    "std": _ST_CLASSES + ("wheel", "wheel"),
    "mb": ("pose", "pose", "steering", "longitudinal", "pose", "yaw")
    + ("sprung",) * 7 + ("unsprung",) * 10 + ("wheel",) * 4 + ("compliance",) * 2,
}

_ref_params = {vid: vm_params.setup_vehicle_parameters(vid) for vid in (1, 2, 3)}
_our_params = {vid: load_vehicle(vid) for vid in (1, 2, 3)}


# --- seeded integer PRNG ----------------------------------------------------------------

class SplitMix64(_ProjectSplitMix64):
    """The project generator (engine.prng) plus this test's own draws."""

    __slots__ = ()

    def choice(self, seq):
        return seq[self.next() % len(seq)]


# --- comparison -------------------------------------------------------------------------

def rel_err(ours: float, ref: float) -> float:
    """|ours - ref| / |ref|, or the absolute error where |ref| < 1 (near zero)."""
    d = abs(ours - ref)
    return d / abs(ref) if abs(ref) >= 1.0 else d


def compare(model: str, x: list, u: list, vid: int) -> list[float]:
    ref = REF[model](list(x), list(u), _ref_params[vid])  # the reference mutates x
    ours = OURS[model](tuple(x), tuple(u), _our_params[vid])
    assert len(ours) == len(ref)
    return [rel_err(a, float(b)) for a, b in zip(ours, ref, strict=True)]


# --- state generators -------------------------------------------------------------------

def _speed(rng: SplitMix64, lo: float, hi: float) -> float:
    k = rng.next() % 10
    if k == 0:
        return rng.choice([0.0, -0.0, 0.1, -0.1, 0.2, 0.05, math.nextafter(0.1, 0.0),
                           math.nextafter(0.1, 1.0), 7.319, 4.755, 7.824])
    if k <= 2:
        return rng.uniform(-0.3, 0.6)  # switch and blend region
    return rng.uniform(lo, hi)


def _inputs(rng: SplitMix64) -> list:
    k = rng.next() % 8
    v_delta = rng.choice([0.0, 0.4, -0.4]) if k == 0 else rng.uniform(-0.8, 0.8)
    acc = rng.choice([0.0, 11.5, -11.5]) if k == 1 else rng.uniform(-14.0, 14.0)
    return [v_delta, acc]


def gen_ks(rng):
    x = [rng.uniform(-200, 200), rng.uniform(-200, 200), rng.uniform(-1.1, 1.1),
         _speed(rng, -14.0, 52.0), rng.uniform(-7.0, 7.0)]
    return x, _inputs(rng)


def gen_st(rng):
    x, u = gen_ks(rng)
    x += [rng.uniform(-1.5, 1.5), rng.uniform(-0.4, 0.4)]
    return x, u


def gen_std(rng):
    x, u = gen_st(rng)
    x[3] = _speed(rng, -1.0, 45.0)
    R_w = 0.344
    for _ in range(2):
        k = rng.next() % 10
        if k == 0:
            w = rng.choice([0.0, -0.0, -1.0, rng.uniform(-5.0, 0.0)])
        else:
            w = max(x[3], 0.0) / R_w * (1.0 + rng.uniform(-0.3, 0.3)) + rng.uniform(-0.5, 0.5)
        x.append(w)
    return x, u


def gen_mb(rng, vid):
    p = _our_params[vid]
    while True:
        vx = _speed(rng, -0.0999, 40.0)
        r = rng.uniform(-1.0, 1.0) * min(1.0, 0.3 + abs(vx) / 10.0)
        vy = rng.uniform(-0.1, 0.1) * max(abs(vx), 1.0)
        delta = rng.uniform(-0.6, 0.6)
        # keep every wheel's ground speed positive (the reference divides by it)
        c, s = math.cos(delta), math.sin(delta)
        speeds = ((vx + 0.5 * p.T_f * r) * c + (vy + p.a * r) * s,
                  (vx - 0.5 * p.T_f * r) * c + (vy + p.a * r) * s,
                  vx + 0.5 * p.T_r * r, vx - 0.5 * p.T_r * r)
        if abs(vx) < 0.1 or min(speeds) > 0.01:
            break
    F0_z_f = p.m_s * G * p.b / (p.a + p.b) + p.m_uf * G
    F0_z_r = p.m_s * G * p.a / (p.a + p.b) + p.m_ur * G
    x = [rng.uniform(-200, 200), rng.uniform(-200, 200), delta, vx,
         rng.uniform(-7, 7), r,
         rng.uniform(-0.1, 0.1), rng.uniform(-0.5, 0.5), rng.uniform(-0.05, 0.05),
         rng.uniform(-0.3, 0.3), vy, rng.uniform(-0.05, 0.05), rng.uniform(-0.3, 0.3),
         rng.uniform(-0.05, 0.05), rng.uniform(-0.5, 0.5), vy + p.a * r + rng.uniform(-0.05, 0.05),
         F0_z_f / (2 * p.K_zt) + rng.uniform(-0.005, 0.005), rng.uniform(-0.2, 0.2),
         rng.uniform(-0.05, 0.05), rng.uniform(-0.5, 0.5), vy - p.b * r + rng.uniform(-0.05, 0.05),
         F0_z_r / (2 * p.K_zt) + rng.uniform(-0.005, 0.005), rng.uniform(-0.2, 0.2)]
    for _ in range(4):
        if rng.next() % 12 == 0:
            x.append(rng.choice([0.0, -0.5]))
        else:
            x.append(max(vx, 0.0) / p.R_w * (1.0 + rng.uniform(-0.2, 0.2)))
    x += [rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01)]
    return x, _inputs(rng)


def random_cases(model: str, n: int = N_RANDOM):
    rng = SplitMix64({"ks": 1, "st": 2, "std": 3, "mb": 4}[model])
    for i in range(n):
        vid = 1 + i % 3
        if model == "mb":
            x, u = gen_mb(rng, vid)
        else:
            x, u = {"ks": gen_ks, "st": gen_st, "std": gen_std}[model](rng)
        yield vid, x, u


# --- the reference's own unit-test states -----------------------------------------------

U_UNIT = [0.15, 0.63 * G]
X_KS = [3.9579422297936526, 0.0391650102771405, 0.0378491427211811, 16.3546957860883566,
        0.0294717351052816]
X_ST = [2.0233348142065677, 0.0041907137716636, 0.0197545248559617, 15.7216236334290116,
        0.0025857914776859, 0.0529001056654038, 0.0033012170610298]
X_STD = X_ST + [53.6551710641082451, 56.7917911784219598]
X_MB = [10.8808433066274794, 0.5371850187869442, 0.0980442671005920, 18.0711398687457745,
        0.1649995631003776, 0.6158755000936103, -0.1198403612262477, -0.2762672756169581,
        0.0131909920269115, -0.0718483683742141, -0.3428324595054725, 0.0103233373083297,
        -0.0399590564140291, -0.0246468320579360, -0.0551575051990853, 0.5798277643297529,
        0.0172059354801703, 0.0067890113155477, -0.0184269459410162, -0.0408207136116175,
        -1.0064484829203018, 0.0166808347900582, -0.0049188492004049, 53.6551710641082451,
        50.7045242506744316, 56.7917911784219598, 200.7079633169796296, -0.0939969123691911,
        -0.0881514621614376]
# the STD ground truth the reference ships (it matches vehicle_dynamics_std_old)
STD_SHIPPED_GT = [15.72135120308624, 0.09255279797193551, 0.15, 11.359186518121511,
                  0.0529001056654038, 0.5870894694428362, -0.007910389538735838,
                  -1403.4833546513996, 72.25313872307531]
UNIT_STATES = {"ks": X_KS, "st": X_ST, "std": X_STD, "mb": X_MB}


# --- tests ------------------------------------------------------------------------------

@pytest.mark.parametrize("vid", [1, 2, 3])
def test_parameter_files_equal_reference_data(vid):
    ref = dataclasses.asdict(_ref_params[vid])
    ref.pop("trailer")
    ours = vehicle_data(vid)
    for key, value in ref.items():
        if isinstance(value, dict):
            assert set(ours[key]) == set(value), key
            for k2, v2 in value.items():
                assert ours[key][k2] == float(v2), f"{key}.{k2}"
        else:
            assert ours[key] == float(value), key


@pytest.mark.parametrize("model", ["ks", "st", "std", "mb"])
def test_reference_unit_test_states(model):
    for vid in (1, 2, 3):
        errs = compare(model, UNIT_STATES[model], U_UNIT, vid)
        assert max(errs) <= TOL[model], (model, vid, errs)


def test_std_shipped_ground_truth_is_the_old_function():
    """Documents the reference defect (ADR 0061): its STD test data is for _old."""
    p = _ref_params[2]
    old = vehicle_dynamics_std_old(list(X_STD), U_UNIT, p)
    new = vehicle_dynamics_std(list(X_STD), U_UNIT, p)
    assert max(abs(a - b) for a, b in zip(old, STD_SHIPPED_GT, strict=True)) < 1e-12
    assert max(abs(a - b) for a, b in zip(new, STD_SHIPPED_GT, strict=True)) > 1.0
    ours = std.derivatives(X_STD, U_UNIT, _our_params[2])
    assert max(rel_err(a, b) for a, b in zip(ours, new, strict=True)) <= TOL["std"]


@pytest.mark.parametrize("model", ["ks", "st", "std", "mb"])
def test_random_states(model):
    worst = 0.0
    where = None
    n = 0
    for vid, x, u in random_cases(model):
        errs = compare(model, x, u, vid)
        e = max(errs)
        n += 1
        if e > worst:
            worst, where = e, (vid, x, u, errs.index(e))
    assert n >= N_RANDOM
    assert worst <= TOL[model], (model, worst, where)


@pytest.mark.parametrize("model", ["ks", "st", "std", "mb"])
@pytest.mark.parametrize("v", [0.0, -0.0, 0.1, -0.1, math.nextafter(0.1, 0.0), 0.2, 0.15, 0.25])
def test_switch_speeds(model, v):
    x = list(UNIT_STATES[model])
    x[3] = v
    if model == "mb":
        for i in mb.WHEEL_SLOTS:
            x[i] = max(v, 0.0) / _our_params[2].R_w
        x[5] = 0.05  # keep the wheel ground speeds positive at 0.1 m/s
    for u in (U_UNIT, [0.0, 0.0], [-0.2, -5.0]):
        for vid in (1, 2, 3):
            if model == "mb" and v == -0.1:  # the reference divides by zero (ADR 0062)
                with pytest.raises(ZeroDivisionError):
                    REF[model](list(x), list(u), _ref_params[vid])
                assert all(math.isfinite(f) for f in OURS[model](x, u, _our_params[vid]))
                continue
            errs = compare(model, x, u, vid)
            assert max(errs) <= TOL[model], (model, v, u, vid, errs)


# --- MB reverse: the reference crashes, ours has a defined behaviour (ADR 0062) ---------

def _mb_state(vx: float) -> list:
    x = list(X_MB)
    x[3] = vx
    return x


def test_mb_reverse_reference_divides_by_zero():
    with pytest.raises(ZeroDivisionError):
        vehicle_dynamics_mb(_mb_state(-0.1), U_UNIT, _ref_params[2])
    with pytest.raises(ZeroDivisionError):
        vehicle_dynamics_mb(_mb_state(-3.0), U_UNIT, _ref_params[2])


@pytest.mark.parametrize("vx", [-0.1, -0.5, -3.0, -13.0])
def test_mb_reverse_is_finite_and_kinematic(vx):
    p = _our_params[2]
    f = mb.derivatives(_mb_state(vx), [0.1, -2.0], p)
    assert all(math.isfinite(v) for v in f)
    # the first six derivatives are the kinematic model's, as below 0.1 m/s
    delta = X_MB[2]
    l_wb = p.a + p.b
    beta = math.atan(math.tan(delta) * p.b / l_wb)
    assert f[0] == pytest.approx(vx * math.cos(beta + X_MB[4]), rel=1e-12)
    assert f[1] == pytest.approx(vx * math.sin(beta + X_MB[4]), rel=1e-12)
    assert f[4] == pytest.approx(vx * math.cos(beta) * math.tan(delta) / l_wb, rel=1e-12)


def test_mb_reverse_is_continuous_at_the_switch():
    ref = vehicle_dynamics_mb(_mb_state(math.nextafter(-0.1, 0.0)), U_UNIT, _ref_params[2])
    ours = mb.derivatives(_mb_state(-0.1), U_UNIT, _our_params[2])
    assert max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(ours, ref, strict=True)) < 1e-9


def test_mb_zero_wheel_ground_speed_forward():
    p = _our_params[2]
    x = _mb_state(0.0)
    x[5] = 1.0
    x[3] = 0.5 * p.T_r * x[5]  # the right rear wheel's ground speed is exactly zero
    x[10] = 0.0
    with pytest.raises(ZeroDivisionError):
        vehicle_dynamics_mb(list(x), U_UNIT, _ref_params[2])
    ours = mb.derivatives(x, U_UNIT, p)
    assert all(math.isfinite(v) for v in ours)
    # the reference just beside the singular point saturates the same way
    x2 = list(x)
    x2[3] = x[3] + 1e-9
    ref = vehicle_dynamics_mb(list(x2), U_UNIT, _ref_params[2])
    assert max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(ours, ref, strict=True)) < 1e-3


def test_ours_never_mutates_the_state():
    x = tuple(_mb_state(20.0)[:23]) + (-1.0, 5.0, -2.0, 5.0) + (0.0, 0.0)
    y = list(x)
    mb.derivatives(y, U_UNIT, _our_params[2])
    assert tuple(y) == x
    xs = list(X_STD)
    xs[7] = -3.0
    before = list(xs)
    std.derivatives(xs, U_UNIT, _our_params[2])
    assert xs == before


# --- report -----------------------------------------------------------------------------

def worst_by_class() -> dict:
    """{model: {class: worst error}} over the unit-test and random states."""
    out = {}
    for model in ("ks", "st", "std", "mb"):
        worst: dict[str, float] = {}
        cases = [(vid, UNIT_STATES[model], U_UNIT) for vid in (1, 2, 3)]
        for vid, x, u in cases + list(random_cases(model)):
            for cls, e in zip(CLASSES[model], compare(model, x, u, vid), strict=True):
                worst[cls] = max(worst.get(cls, 0.0), e)
        out[model] = worst
    return out




# --- the reference's zero-initial-velocity scenario, asserted (ADR 0061, defect 2) ------

_ROLL_MB_GT = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0000000003174207, 0.0000000848065981,
               -0.0013834133396573, -0.0020336367252011, -0.0000000247286655, 0.0176248518072475,
               0.0071655470428753, 0.0000000006677358, -0.0000001709775865, 0.0000001839820148,
               0.0186763737562366, 0.0003752526345970, 0.0000000006728055, -0.0000001734436431,
               0.0000001850020879, 0.0154621865353889, 0.0000251622262094, -0.0000174466440656,
               -0.0000174466440656, -0.0000014178345014, -0.0000014178345014,
               0.0000000008088692, 0.0000000008250785]
_DEC_ST_GT = [-3.4335000000000013, 0.0, 0.0, -6.8670000000000018, 0.0, 0.0, 0.0]
_ACC_ST_GT = [3.0731976046859715, 0.2869835398304389, 0.15, 6.1802999999999999,
              0.1097747074946325, 0.3248268063223301, 0.0697547542798040]
_ACC_KS_GT = [3.0845676868494927, 0.1484249221523042, 0.15, 6.1803000000000017,
              0.1203664469224163]


def _integrate(f, x0, u, p, seconds=1.0, h=1e-3):
    from skidpad.engine.commonroad.integrator import rk4_step

    x = list(x0)
    for _ in range(round(seconds / h)):
        x = rk4_step(f, x, u, p, h)
    return x


def test_zero_initial_velocity_scenario():
    """The reference's test_zeroInitialVelocity, integrated with our RK4 and asserted."""
    from skidpad.engine.commonroad.models import MODELS, init_state

    p = _our_params[2]
    core = [0.0] * 7
    x_ks = [0.0] * 5  # init_ks: the state itself (our init_state shifts KS to the rear axle)
    x_st = init_state(MODELS["st"], core, p)
    x_mb = init_state(MODELS["mb"], core, p)
    # rolling from rest without input: KS and ST stay exactly where they are
    assert _integrate(ks.derivatives, x_ks, [0.0, 0.0], p) == x_ks
    assert _integrate(st.derivatives, x_st, [0.0, 0.0], p) == x_st
    roll = _integrate(mb.derivatives, x_mb, [0.0, 0.0], p)
    assert max(abs(a - b) for a, b in zip(roll, _ROLL_MB_GT, strict=True)) < 1e-2
    # braking from rest: the reference's ground truth reverses at -0.7 g
    dec = _integrate(st.derivatives, x_st, [0.0, -0.7 * G], p)
    assert max(abs(a - b) for a, b in zip(dec, _DEC_ST_GT, strict=True)) < 1e-2
    # accelerating and steering from rest
    acc = _integrate(st.derivatives, x_st, U_UNIT, p)
    assert max(abs(a - b) for a, b in zip(acc, _ACC_ST_GT, strict=True)) < 1e-2
    acc = _integrate(ks.derivatives, x_ks, U_UNIT, p)
    assert max(abs(a - b) for a, b in zip(acc, _ACC_KS_GT, strict=True)) < 1e-2


if __name__ == "__main__":
    for model, worst in worst_by_class().items():
        cells = ", ".join(f"{k} {v:.2e}" for k, v in worst.items())
        print(f"{model:4s} (tol {TOL[model]:.0e}): {cells}")
