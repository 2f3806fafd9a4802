"""100–0 km/h at full brake with no assists, on dry asphalt and on ice (issue 3, Done when).

* Wheels that lock lock once and stay locked: a probe counts, at substep
  resolution, every change of each braked wheel's brake constraint from held
  (locked) to slipping while the car still moves (> 1 mm/s): there must be none.
* The car comes to rest: with the brake held 2 s after the stop (the sliding
  tires release their stored deflection, the spring-back), it is then below
  0.1 mm/s for the last 0.5 s.
* The stopping distance is within 10 % of the sliding-friction theory
  ``v²/(2·μ·g)``, generalised (exactly reducing to it for a car braked on all
  four wheels with aero off) for what the presets have: μ is the tire's sliding
  μ at each braked wheel's load (load sensitivity, steady longitudinal
  transfer at the deceleration), only braked axles count (the kart brakes
  its rear axle only), and drag and downforce grow with v² (the wings).
"""

from __future__ import annotations

import functools
import json
import math

import pytest
from skidpad.engine.fourwheel import mf61, tir, tire
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.load_transfer import G
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_VX, I_VY

V0 = 100.0 / 3.6
# full brake with every assist switched off (issue 3 measures the stop without assists)
NO_ASSISTS_BRAKE = (0.0, 1.0, 0.0, 0.0, 0, -1, -1, -1, -1)


class LockProbe:
    """Counts held->slipping transitions of braked wheels while the car moves."""

    def __init__(self, braked: tuple[bool, ...]) -> None:
        self.braked = braked
        self.prev = [False] * 4
        self.held = [False] * 4
        self.locks = [0] * 4
        self.releases_moving = 0

    def stage(self, name: str, values: tuple) -> None:
        if name == "wheel_solve":
            self.held = [values[12 + i] == 1.0 for i in range(4)]

    def substep(self, tick: int, state: list) -> None:
        moving = math.hypot(state[I_VX], state[I_VY]) > 1e-3
        for i in range(4):
            if not self.braked[i]:
                continue
            if self.held[i] and not self.prev[i]:
                self.locks[i] += 1
            if self.prev[i] and not self.held[i] and moving:
                self.releases_moving += 1
            self.prev[i] = self.held[i]


@functools.cache
def _params(mapping_json: str) -> tir.Mf61Params:
    """An embedded MF 6.1 tire's parameters, read once (the distance integral asks often)."""
    return tir.from_mapping(json.loads(mapping_json), "mf61")


def sliding_mu(t: dict, fz: float, surface: float = 1.0) -> tuple[float, float]:
    """(μ_x, μ_y) of a fully sliding tire of definition ``t`` at load ``fz`` on ``surface``:
    the load-sensitive peak μ times the Magic-Formula shape at the sliding slip,
    sin(C·atan ψ(ρ_cap)) with ψ = ρ - E·(ρ - atan ρ) (libm: the test's own reference).
    An MF 6.1 tire slides at the normalised slip ρ_cap = Bx·κ: its file's force there."""
    if "mf61" in t:
        return _mf61_sliding_mu(t, fz, surface)
    s = surface * (1.0 + t["load_sensitivity"] * (fz / t["nominal_load_n"] - 1.0))
    rho = t["sliding_slip"]
    psi = rho - t["shape_e"] * (rho - math.atan(rho))
    r = math.sin(t["shape_c"] * math.atan(psi))
    return (t["mu_x"] * s * r, t["mu_y"] * s * r)


def _mf61_sliding_mu(t: dict, fz: float, surface: float) -> tuple[float, float]:
    p = _params(json.dumps(t["mf61"], sort_keys=True))
    at = mf61.at_load(p, fz, 0.0, surface)
    kappa = t["sliding_slip"] / at.bx
    tan_alpha = t["sliding_slip"] / at.by
    fx = mf61.forces_at(p, fz, -kappa, 0.0, 0.0, 10.0, surface).fx
    left = mf61.forces_at(p, fz, 0.0, tan_alpha, 0.0, 10.0, surface).fy
    right = mf61.forces_at(p, fz, 0.0, -tan_alpha, 0.0, 10.0, surface).fy
    return abs(fx) / fz, 0.5 * (abs(left) + abs(right)) / fz


def theory_distance(d: dict, surface: float) -> float:
    """Sliding-friction stopping distance (m) from V0, see the module docstring."""
    m = d["mass"]["total_kg"]
    wb = d["geometry"]["wheelbase_m"]
    a = d["mass"]["cog_to_front_axle_m"]
    h = d["mass"]["cog_height_m"]
    bias = d["brakes"]["front_bias"]
    braked = (bias > 0.0, bias < 1.0)
    ae = d["aero"]
    q = 0.5 * ae["air_density_kg_per_m3"]
    kd, kl = q * ae["drag_area_m2"], q * ae["downforce_area_m2"]
    share = ae["downforce_front_share"]

    def decel(v: float) -> float:
        dec = 5.0
        for _ in range(100):
            down = kl * v * v
            xfer = m * dec * h / wb
            loads = (
                0.5 * (m * G * (wb - a) / wb + xfer + share * down),
                0.5 * (m * G * a / wb - xfer + (1.0 - share) * down),
            )
            force = kd * v * v
            for axle, fz, key in ((0, loads[0], "front"), (1, loads[1], "rear")):
                if braked[axle]:
                    force += 2.0 * sliding_mu(d["tires"][key], fz, surface)[0] * fz
            # the load transfer's fixed point: converged well inside the 10 % the tests allow
            # (an MF tire's μ costs three Magic Formula calls, so stop once it has)
            settled = abs(force / m - dec) <= 1e-12 * dec
            dec = force / m
            if settled:
                break
        return dec

    # distance = ∫ v dv / decel(v), trapezoid on a fine grid
    n = 400
    dist = 0.0
    prev = 0.0
    for k in range(1, n + 1):
        v = V0 * k / n
        cur = v / decel(v)
        dist += 0.5 * (prev + cur) * (V0 / n)
        prev = cur
    return dist


def run_stop(name: str, surface: str, host_hz: int = 100) -> dict:
    d = load_preset(name)
    caps = (d["brakes"]["front_bias"] > 0.0,) * 2 + (d["brakes"]["front_bias"] < 1.0,) * 2
    sim = Simulation(d, host_hz=host_hz, initial={"speed_mps": V0, "surface": surface})
    probe = LockProbe(caps)
    x0 = sim.state[0]
    stop_step = None
    limit = int(60 * host_hz)
    for k in range(limit):
        tel = sim.step(NO_ASSISTS_BRAKE, probe)
        if stop_step is None and tel.vx <= 0.0:
            stop_step = k
            stop_x = tel.x
            break
    assert stop_step is not None, "did not stop"
    hold_speeds = []
    for k in range(int(2.0 * host_hz)):
        tel = sim.step(NO_ASSISTS_BRAKE, probe)
        if k >= int(1.5 * host_hz):
            hold_speeds.append(tel.speed)
    return {
        "distance": stop_x - x0,
        "probe": probe,
        "rest_speed": max(hold_speeds),
        "spun": abs(tel.yaw) > 0.5,
        "definition": d,
    }


@pytest.fixture(scope="module", params=PRESET_NAMES)
def dry_stop(request: pytest.FixtureRequest) -> dict:
    return run_stop(request.param, "dry")


@pytest.fixture(scope="module", params=PRESET_NAMES)
def ice_stop(request: pytest.FixtureRequest) -> dict:
    return run_stop(request.param, "ice")


def _check(run: dict, surface: float) -> None:
    probe = run["probe"]
    assert probe.releases_moving == 0, (
        f"lock chatter: {probe.releases_moving} releases while moving"
    )
    for i, braked in enumerate(probe.braked):
        if braked:
            assert probe.locks[i] >= 1, f"braked wheel {i} never locked"
    assert run["rest_speed"] < 1e-4, f"not at rest after the stop: {run['rest_speed']:.3e} m/s"
    theory = theory_distance(run["definition"], surface)
    assert abs(run["distance"] - theory) <= 0.10 * theory, (run["distance"], theory)


def test_full_brake_stop_dry(dry_stop: dict) -> None:
    _check(dry_stop, tire.SURFACES["dry"])


def test_full_brake_stop_ice(ice_stop: dict) -> None:
    assert not ice_stop["spun"]
    _check(ice_stop, tire.SURFACES["ice"])


def test_theory_reduces_to_v2_over_2mug() -> None:
    # The test's own reference: all wheels braked, aero off, no load sensitivity.
    d = load_preset("hatchbackFwd")
    d["aero"]["drag_area_m2"] = 0.0
    d["aero"]["downforce_area_m2"] = 0.0
    for axle in ("front", "rear"):
        d["tires"][axle]["load_sensitivity"] = 0.0
    mu = sliding_mu(d["tires"]["front"], 4000.0)[0]
    assert theory_distance(d, 1.0) == pytest.approx(V0 * V0 / (2.0 * mu * G), rel=1e-4)
