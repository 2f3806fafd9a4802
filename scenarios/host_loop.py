"""The external-host loop, predicted from the preset's data and measured by simulation.

The backward-Euler host (:mod:`engine.fourwheel.hosts`) owns the driven wheels; the
engine holds ω[k−1] over host step k and returns the mean tire torque. For
one wheel of tire (R, I, σ_x, C_s = K_x·F_z at the static load) the
linearised loop is the wheel/tire torsional mode (ADR 0203):

    ω_n = R·sqrt(C_s/(I·σ_x))                        independent of speed
    ζ   = V/(2·σ_x·ω_n) + R²·c(V)/(2·I·ω_n) − ω_n·T/2

The first term is the relaxation's damping, the second the tire's low-speed
damper (c(V) = c_0/(1 + (V/v_fade)²), which the textbook prediction lacks)
and the third the one step of delay at host period T. The exact poles of the
same linear loop in discrete time (:meth:`Prediction.discrete`: the implicit
relaxation factor 1/(1 + h·V/σ) lowers ω_n at speed) are the sharper
prediction. With the relaxation off (an analysis switch of the tire) the
loop is first order, pole ``1 − T·R²·C_s/(I·V)``, which leaves the unit
circle below ``V* = T·R²·C_s/(2·I)``.

Measured: a small axle-torque step, the wheel-speed increments after it
fitted by a second-order autoregression (its discrete poles give ω_n and ζ);
the divergence speed by bisection on runs with the relaxation off; the
host-rate × speed stability map; the rest jitter of a car parked on a 20 %
grade with a bench host owning all four wheels (torque mode at standstill).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from skidpad.engine.errors import SkidpadError
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import drive, hosts
from skidpad.engine.fourwheel.inputs import CHANNELS
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_OMEGA, I_VX, I_X

#: the position of the brake pedal in a host step's inputs
BRAKE = tuple(c.name for c in CHANNELS).index("brake")
SPEEDS = (2.0, 3.0, 5.0, 10.0, 20.0)
HOST_RATES = (30, 60, 120, 240, 500, 1000)
MAP_SPEEDS = (2.0, 5.0, 10.0, 20.0, 40.0)
#: the axle torque step: the torque that gives this slip (a small signal)
STEP_SLIP = 0.002
SETTLE_S = 0.3  # the run holds the speed this long before the step
FIT_S = 0.12  # the increments after the step that are fitted
#: a fitted ζ above this is not "ringing" (the response is too damped for a sharp ω_n)
RINGS_BELOW_ZETA = 0.5


class Prediction(NamedTuple):
    """The loop figures of one wheel, from the definition alone."""

    wheel: str
    radius: float
    inertia: float
    sigma: float
    cs: float  # C_s (N per unit slip)
    omega_n: float  # rad/s
    damper: float  # c_0 (N·s/m)
    inv_vfade2: float
    period: float  # host period T (s)

    def zeta_relaxation(self, v: float) -> float:
        return v / (2.0 * self.sigma * self.omega_n)

    def zeta_damper(self, v: float) -> float:
        c = self.damper / (1.0 + v * v * self.inv_vfade2)
        return self.radius * self.radius * c / (2.0 * self.inertia * self.omega_n)

    @property
    def delay_cost(self) -> float:
        return self.omega_n * self.period / 2.0

    def zeta(self, v: float, period: float | None = None) -> float:
        """ζ − Δζ at speed ``v`` and host period ``period`` (default: this prediction's)."""
        t = self.period if period is None else period
        return self.zeta_relaxation(v) + self.zeta_damper(v) - self.omega_n * t / 2.0

    def pole_off(self, v: float) -> float:
        return 1.0 - self.period * self.radius * self.radius * self.cs / (self.inertia * v)

    @property
    def divergence_speed(self) -> float:
        return self.period * self.radius * self.radius * self.cs / (2.0 * self.inertia)

    def discrete(self, v: float, host_hz: int = 1000, substep_hz: int = 1000) -> tuple:
        """(ω_n, ζ) of the exact poles of the linearised discrete loop at speed ``v``: the
        engine's implicit relaxation and damper over the substeps of one host step with ω
        held, then the host's update. Real poles give (nan, ±inf): +inf stable, −inf not."""
        h = 1.0 / substep_hz
        n = substep_hz // host_hz
        relax = 1.0 / (1.0 + h * v / self.sigma)
        c = self.damper / (1.0 + v * v * self.inv_vfade2)
        k_eff = self.cs / self.sigma - c * relax * v / self.sigma
        uu, uw = 1.0, 0.0  # the deflection after j substeps: uu·u0 + uw·ω
        fu, fw = 0.0, 0.0  # the impulse of F_x over them: fu·u0 + fw·ω
        for _ in range(n):
            fu += h * k_eff * uu
            fw += h * (k_eff * uw + c * relax * self.radius)
            uu, uw = relax * uu, relax * uw + relax * h * self.radius
        g = self.radius / self.inertia
        a11, a12, a21, a22 = uu, uw, -g * fu, 1.0 - g * fw
        tr = a11 + a22
        det = a11 * a22 - a12 * a21
        disc = tr * tr - 4.0 * det
        if disc >= 0.0:
            root = math.sqrt(disc)
            big = max(abs(tr + root), abs(tr - root)) / 2.0
            return math.nan, (-math.inf if big > 1.0 else math.inf)
        return s_plane(tr / 2.0, math.sqrt(-disc) / 2.0, 1.0 / (n * h))


def host_wheels(definition: dict) -> str:
    """The wheel set the analysis gives the host: the driven wheels (all four for a car that
    drives both axles)."""
    share = definition["drivetrain"]["layout"]["front_share"]
    if share >= 1.0:
        return "front"
    if share <= 0.0:
        return "rear"
    return "all"


def _wheel_index(wheels: str) -> int:
    return 2 if wheels == "rear" else 0


def predict(definition: dict, host_hz: int = 1000) -> Prediction:
    """The loop figures of the analysed wheel (the first driven one) from the definition."""
    i = _wheel_index(host_wheels(definition))
    sim = Simulation(definition, substep_hz=1000, host_hz=host_hz)
    w = sim.wheels[i]
    cs = w.tire.kx * sim.static_loads[i]
    return Prediction(
        ("FL", "FR", "RL", "RR")[i],
        w.radius,
        w.inertia,
        w.tire.sigma_x,
        cs,
        w.radius * math.sqrt(cs / (w.inertia * w.tire.sigma_x)),
        w.tire.damper_x,
        w.tire.inv_vfade2,
        1.0 / host_hz,
    )


def step_response(
    definition: dict,
    speed: float,
    host_hz: int = 1000,
    relaxation: bool = True,
    duration_s: float = SETTLE_S + FIT_S,
    extra_delay: int = 0,
) -> tuple[list, list, int]:
    """(times s, ω of the analysed wheel per host step, the step's index) for a torque step.

    ``extra_delay`` plants that many further host steps of delay between the host and
    the engine (what the contract forbids; the delay test plants it). A run whose host
    speeds become absurd ends early: its trace stops there.
    """
    wheels = host_wheels(definition)
    sim = Simulation(
        definition,
        substep_hz=1000,
        host_hz=host_hz,
        initial={"speed_mps": speed},
        host_wheels=wheels,
        tire_relaxation=relaxation,
    )
    pred = predict(definition)
    t0 = round(SETTLE_S * host_hz)
    torque = pred.radius * pred.cs * STEP_SLIP
    # the owned wheels' rolling resistance is balanced, so the speed holds until the step
    hold = tuple(sim.wheels[i].rolling_arm * sim.static_loads[i] for i in sim.host_link.owned)

    def script(k: int) -> tuple:
        return tuple(x + (torque if k >= t0 else 0.0) for x in hold)

    host = hosts.BackwardEulerHost(sim, hosts.ScriptedTorque(script))
    i = _wheel_index(wheels)
    times, omega = [], []
    queue: list = []
    for _k in range(round(duration_s * host_hz)):
        try:
            sim.step(sim.inputs)
            queue.append(host.step(sim.host_link.exchange, sim.inputs))
            if len(queue) > extra_delay:
                sim.set_host_omega(queue.pop(0))
        except (SkidpadError, ArithmeticError):
            break
        times.append(sim.step_count / host_hz)
        omega.append(sim.state[I_OMEGA[i]])
    return times, omega, t0


def s_plane(re: float, im: float, rate: float) -> tuple[float, float]:
    """(ω_n, ζ) of the discrete pole z = re + i·im at ``rate`` samples per second:
    s = ln(z)·rate. Analysis figures, reported and never hashed (libm is fine here)."""
    sigma = 0.5 * math.log(re * re + im * im) * rate  # strict: allow banned-math -- reported only
    omega = math.atan2(im, re) * rate  # strict: allow banned-math -- reported only
    wn = math.sqrt(sigma * sigma + omega * omega)
    return wn, -sigma / wn


class Fit(NamedTuple):
    omega_n: float  # rad/s (nan when the response does not ring)
    zeta: float
    rings: bool


def fit_ringing(omega: list, t0: int, host_hz: int, window_s: float = FIT_S) -> Fit:
    """ω_n and ζ of the wheel-speed increments after the step: a least-squares AR(2) fit
    d[k] = a1·d[k−1] + a2·d[k−2] + c, its complex poles mapped by s = ln(z)·host_hz."""
    start = t0 - 1
    d = [omega[k + 1] - omega[k] for k in range(start, len(omega) - 1)]
    d = d[: max(8, round(window_s * host_hz))]
    if len(d) < 8:
        return Fit(math.nan, math.nan, False)
    a1, a2, _c = least_squares([d[1:-1], d[:-2], [1.0] * (len(d) - 2)], d[2:])
    disc = a1 * a1 + 4.0 * a2
    if disc >= 0.0:
        return Fit(math.nan, math.nan, False)
    wn, zeta = s_plane(a1 / 2.0, math.sqrt(-disc) / 2.0, host_hz)
    return Fit(wn, zeta, zeta < RINGS_BELOW_ZETA)


def _dot(a: list, b: list) -> float:
    total = 0.0
    for x, y in zip(a, b, strict=True):
        total += x * y
    return total


def least_squares(columns: list, y: list) -> list:
    """The coefficients ``x`` minimising ``|A x - y|`` for the full-rank matrix ``A`` given by
    its ``columns``: a QR factorisation by modified Gram-Schmidt, then back substitution
    (a few columns: no need for a linear-algebra package). Reported figures, never hashed."""
    q: list = []
    r = [[0.0] * len(columns) for _ in columns]
    for j, column in enumerate(columns):
        v = list(column)
        for i, qi in enumerate(q):
            r[i][j] = _dot(qi, v)
            v = [vk - r[i][j] * qk for vk, qk in zip(v, qi, strict=True)]
        r[j][j] = math.sqrt(_dot(v, v))
        if not r[j][j] > 1e-12 * math.sqrt(_dot(column, column)):  # nothing new: rank lost
            raise ValueError("least squares: the columns are linearly dependent")
        q.append([vk / r[j][j] for vk in v])
    qty = [_dot(qi, y) for qi in q]
    x = [0.0] * len(columns)
    for i in reversed(range(len(columns))):
        acc = qty[i]
        for k in range(i + 1, len(columns)):
            acc -= r[i][k] * x[k]
        x[i] = acc / r[i][i]
    return x


def diverges(omega: list, t0: int, expected: int) -> bool:
    """A run is unstable: it ended early (absurd host speeds), or the wheel-speed increments
    at its end are at least half the first ones after the step (a stable loop's ringing
    has decayed by orders of magnitude by then; an unstable one grows or sits at the
    tire's sliding limit)."""
    if len(omega) < expected:
        return True
    d = [abs(omega[k + 1] - omega[k]) for k in range(t0 - 1, len(omega) - 1)]
    if len(d) < 12:
        return False
    return max(d[-(len(d) // 5) :]) >= 0.5 * max(d[:4])


def divergence_speed(definition: dict, lo: float = 0.2, hi: float | None = None) -> float:
    """The speed below which the relaxation-off loop diverges, by bisection (m/s)."""
    hi = hi if hi is not None else 4.0 * predict(definition).divergence_speed
    dur = SETTLE_S + 0.1

    def unstable(v: float) -> bool:
        _t, om, t0 = step_response(definition, v, relaxation=False, duration_s=dur)
        return diverges(om, t0, round(dur * 1000))

    for _ in range(12):
        mid = 0.5 * (lo + hi)
        if unstable(mid):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def loop_table(
    definition: dict,
    speeds: tuple = SPEEDS,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Predicted vs measured ω_n and ζ per speed, and the divergence speed."""
    pred = predict(definition)
    rows = []
    for v in speeds:
        if progress:
            progress(f"torque step at {v:g} m/s")
        _t, om, t0 = step_response(definition, v)
        fit = fit_ringing(om, t0, 1000)
        wn_d, z_d = pred.discrete(v)
        rows.append(
            {
                "speed_mps": v,
                "zeta_relaxation": pred.zeta_relaxation(v),
                "zeta_damper": pred.zeta_damper(v),
                "zeta_predicted": pred.zeta(v),
                "omega_n_discrete": None if not math.isfinite(wn_d) else wn_d,
                "zeta_discrete": z_d if math.isfinite(z_d) else None,
                "rings": fit.rings,
                "omega_n_measured": None if not math.isfinite(fit.omega_n) else fit.omega_n,
                "zeta_measured": None if not math.isfinite(fit.zeta) else fit.zeta,
            }
        )
    if progress:
        progress("divergence speed with the relaxation off")
    return {
        "wheel": pred.wheel,
        "host_wheels": host_wheels(definition),
        "radius_m": pred.radius,
        "inertia_kgm2": pred.inertia,
        "sigma_m": pred.sigma,
        "cs_n": pred.cs,
        "omega_n_predicted": pred.omega_n,
        "delay_cost": pred.delay_cost,
        "rows": rows,
        "divergence_speed_predicted": pred.divergence_speed,
        "divergence_speed_measured": divergence_speed(definition),
    }


def stability_map(
    definition: dict,
    rates: tuple = HOST_RATES,
    speeds: tuple = MAP_SPEEDS,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Host rate × speed: stable predicted (ζ − ω_n·T/2 > 0) and stable measured."""
    pred = predict(definition)
    top = drive.top_start_speed(definition)
    speeds = tuple(v for v in speeds if v <= top)
    cells = []
    dur = SETTLE_S + 0.6
    for hz in rates:
        if progress:
            progress(f"host at {hz} Hz")
        for v in speeds:
            _t, om, t0 = step_response(definition, v, host_hz=hz, duration_s=dur)
            _wn, z_d = pred.discrete(v, hz)
            cells.append(
                {
                    "host_hz": hz,
                    "speed_mps": v,
                    "zeta_predicted": pred.zeta(v, 1.0 / hz),
                    "stable_predicted": pred.zeta(v, 1.0 / hz) > 0.0,
                    "stable_discrete": z_d > 0.0,
                    "stable_measured": not diverges(om, t0, round(dur * hz)),
                }
            )
    return {"rates": list(rates), "speeds": list(speeds), "cells": cells}


def map_agreement(smap: dict, predicted: str = "stable_discrete") -> dict:
    """How the measured map agrees with a prediction "within one step of the sweep": a
    measured cell agrees when the prediction at its own host rate or at a neighbouring
    rate of the sweep (same speed) says the same. Returns the count and the cells that
    disagree."""
    rates = smap["rates"]
    cell = {(c["host_hz"], c["speed_mps"]): c for c in smap["cells"]}
    exact = 0
    off = []
    for c in smap["cells"]:
        i = rates.index(c["host_hz"])
        near = [
            cell.get((rates[j], c["speed_mps"])) for j in (i - 1, i, i + 1) if 0 <= j < len(rates)
        ]
        says = [n[predicted] for n in near if n is not None]
        if c[predicted] == c["stable_measured"]:
            exact += 1
        elif c["stable_measured"] not in says:
            off.append({"host_hz": c["host_hz"], "speed_mps": c["speed_mps"]})
    return {"cells": len(smap["cells"]), "exact": exact, "beyond_one_step": off}


def rest_jitter(
    definition: dict, grade: float = 0.2, seconds: float = 10.0, standstill_mps: float = 0.3
) -> dict:
    """A car parked on ``grade`` with a bench host owning all four wheels and the brake on
    (torque mode at standstill), host = substep = 1 kHz: its speed and drift over
    ``seconds`` after one second of settling."""
    sim = Simulation(
        definition, substep_hz=1000, host_hz=1000, initial={"grade": grade}, host_wheels="all"
    )
    zero = (0.0,) * 4
    bench = hosts.BenchHost(
        sim, hosts.ScriptedTorque(lambda k: zero), standstill_mps=standstill_mps
    )
    inputs = list(sim.inputs)
    inputs[BRAKE] = 0.6  # the brake pedal
    settle = 1000
    x0 = 0.0
    peak = 0.0
    torque_mode = True
    for k in range(settle + round(seconds * 1000)):
        try:
            hosts.run_step(sim, bench, inputs)
        except SkidpadError:  # the host's speeds became absurd: the car did not stay parked
            return {
                "grade": grade,
                "seconds": seconds,
                "final_speed_mps": math.inf,
                "peak_speed_after_1s_mps": math.inf,
                "drift_m": math.inf,
                "torque_mode_throughout": False,
                "alarms": bench.alarms,
            }
        if k == settle - 1:
            x0 = sim.state[I_X]
        if k >= settle:
            torque_mode = torque_mode and all(bench.torque_mode)
            v = abs(sim.state[I_VX])
            if k >= settle + 1000 and v > peak:
                peak = v
    return {
        "grade": grade,
        "seconds": seconds,
        "final_speed_mps": abs(sim.state[I_VX]),
        "peak_speed_after_1s_mps": peak,
        "drift_m": abs(sim.state[I_X] - x0),
        "torque_mode_throughout": torque_mode,
        "alarms": bench.alarms,
    }


def analyse(preset: str, progress: Callable[[str], None] | None = None) -> dict:
    """Everything ``skidpad host-loop`` reports for ``preset``."""
    definition = engine_definition.load_preset(preset)
    if progress:
        progress(f"{preset}: loop figures")
    loop = loop_table(definition, progress=progress)
    smap = stability_map(definition, progress=progress)
    if progress:
        progress(f"{preset}: rest jitter on a 20 % grade")
    return {
        "preset": preset,
        "loop": loop,
        "map": smap,
        "agreement": map_agreement(smap, "stable_discrete"),
        "agreement_rule": map_agreement(smap, "stable_predicted"),
        "rest": rest_jitter(definition),
    }


#: Tolerances of the checks (ADR 0203).
TOL_OMEGA_N = 0.10
TOL_ZETA = 0.20
TOL_DIVERGENCE = 0.10
#: The continuous (textbook) loop applies where the implicit relaxation's h·V/σ_x is this
#: small; beyond it the discrete prediction is the one to meet.
TEXTBOOK_RANGE = 0.2
REST_SPEED = 1e-4  # m/s
REST_DRIFT = 1e-3  # m


class Check(NamedTuple):
    name: str
    ok: bool
    detail: str


def _rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def checks(result: dict) -> list[Check]:
    """The done-when checks of one preset's :func:`analyse` result."""
    loop = result["loop"]
    out: list[Check] = []
    wn = loop["omega_n_predicted"]
    sigma = loop["sigma_m"]
    ringing = [r for r in loop["rows"] if r["rings"]]
    textbook = [r for r in ringing if r["speed_mps"] / 1000.0 / sigma <= TEXTBOOK_RANGE + 1e-9]
    out.append(Check("rings", bool(ringing), f"{len(ringing)} speeds ring (fitted zeta < 0.5)"))
    for r in ringing:
        v, m = r["speed_mps"], r["omega_n_measured"]
        d = r["omega_n_discrete"]
        ok = d is not None and _rel(m, d) <= TOL_OMEGA_N
        shown = "none" if d is None else f"{d:.1f}"
        out.append(Check(f"omega_n discrete {v:g} m/s", ok, f"measured {m:.1f}, loop {shown}"))
        z, zd = r["zeta_measured"], r["zeta_discrete"]
        ok = zd is not None and _rel(z, zd) <= TOL_ZETA
        shown = "none" if zd is None else f"{zd:.3f}"
        out.append(Check(f"zeta discrete {v:g} m/s", ok, f"measured {z:.3f}, loop {shown}"))
    for r in textbook:
        v, m, z = r["speed_mps"], r["omega_n_measured"], r["zeta_measured"]
        ok = _rel(m, wn) <= TOL_OMEGA_N
        out.append(Check(f"omega_n formula {v:g} m/s", ok, f"measured {m:.1f}, formula {wn:.1f}"))
        zp = r["zeta_predicted"]
        ok = _rel(z, zp) <= TOL_ZETA
        out.append(Check(f"zeta formula {v:g} m/s", ok, f"measured {z:.3f}, formula {zp:.3f}"))
    if len(textbook) > 1:
        ms = [r["omega_n_measured"] for r in textbook]
        spread = (max(ms) - min(ms)) / min(ms)
        out.append(
            Check("omega_n speed-independent", spread <= TOL_OMEGA_N, f"spread {spread:.1%}")
        )
    vp, vm = loop["divergence_speed_predicted"], loop["divergence_speed_measured"]
    out.append(
        Check(
            "divergence speed",
            _rel(vm, vp) <= TOL_DIVERGENCE,
            f"measured {vm:.2f} m/s, predicted {vp:.2f} m/s",
        )
    )
    agree = result["agreement"]
    out.append(
        Check(
            "stability map within one sweep step",
            not agree["beyond_one_step"],
            f"{agree['exact']}/{agree['cells']} cells exact, beyond one step: "
            f"{agree['beyond_one_step']}",
        )
    )
    rest = result["rest"]
    ok = rest["final_speed_mps"] < REST_SPEED and rest["drift_m"] < REST_DRIFT
    out.append(
        Check(
            "rest jitter",
            ok,
            f"speed {rest['final_speed_mps']:.2e} m/s, drift {rest['drift_m']:.2e} m",
        )
    )
    return out
