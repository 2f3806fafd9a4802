"""Parks on slopes: the standstill scenarios.

Cases (grade along world X, the car facing +X, i.e. uphill):

=================  ========  ==================  ================
case               grade     cross grade         held
=================  ========  ==================  ================
flat               0         0                   nothing
service_10/20/30   0.1–0.3   0                   service brake
handbrake_10/20    0.1–0.2   0                   handbrake only (skipped without one)
across_20          0         0.2                 service brake + handbrake
=================  ========  ==================  ================

The car starts at rest, the brakes held from the first host step (no
throttle; Drive is not selected, so an automatic sits in its start gear
with the launch clutch open). After ``settle_s`` (5 s) it must sit below
0.1 mm/s; over the next ``measure_s`` (10 s) the position must drift less
than 1 mm, and the RMS of the speed over the last 5 s stay below 0.1 mm/s
(no sustained oscillation). The *creep* of a case is its drift over the
measurement window divided by its length (m/s); the table shows the worst.
"""

from __future__ import annotations

from math import sqrt

from skidpad.scenarios.validation.common import (
    Run,
    make_inputs,
    rms,
)

HOST_HZ = 100
SETTLE_S = 5.0
MEASURE_S = 10.0
RMS_WINDOW_S = 5.0
REST_MPS = 1e-4
DRIFT_M = 1e-3

#: name -> (grade, cross grade, brake, handbrake)
CASES: dict[str, tuple[float, float, float, float]] = {
    "flat": (0.0, 0.0, 0.0, 0.0),
    "service_10": (0.1, 0.0, 1.0, 0.0),
    "service_20": (0.2, 0.0, 1.0, 0.0),
    "service_30": (0.3, 0.0, 1.0, 0.0),
    "handbrake_10": (0.1, 0.0, 0.0, 1.0),
    "handbrake_20": (0.2, 0.0, 0.0, 1.0),
    "across_20": (0.0, 0.2, 1.0, 1.0),
}


class ParkDriver:
    """Holds the brakes of a park case for settle + measure seconds."""

    drive = "validation:park"
    track = None

    def __init__(self, case: str, host_hz: int = HOST_HZ, duration_s: float = 15.0) -> None:
        grade, cross, brake, handbrake = CASES[case]
        self.host_hz = host_hz
        self.case = case
        self._initial = {"grade": grade, "cross_grade": cross}
        self._inputs = make_inputs({"brake": brake, "handbrake": handbrake})
        self._steps = int(duration_s * host_hz + 0.5)

    def initial(self) -> dict:
        return dict(self._initial)

    def max_steps(self) -> int:
        return self._steps

    def inputs(self, step: int, tel: object) -> tuple:
        return self._inputs

    def finished(self, step: int, tel: object) -> bool:
        return False


def park(
    definition: dict,
    case: str,
    substep_hz: int | None = None,
    host_hz: int = HOST_HZ,
    settle_s: float = SETTLE_S,
    measure_s: float = MEASURE_S,
    rms_window_s: float = RMS_WINDOW_S,
) -> dict:
    """One park case: speed after the settle, drift and velocity RMS over the measurement."""
    drv = ParkDriver(case, host_hz, settle_s + measure_s)
    run = Run(definition, drv, substep_hz=substep_hz)
    n_settle = int(settle_s * host_hz + 0.5)
    n_rms = int(rms_window_s * host_hz + 0.5)
    n_total = drv.max_steps()
    pos0: list = [None]
    settle_speed = [0.0]
    max_speed = [0.0]
    max_drift = [0.0]
    tail: list[float] = []

    def observe(k: int, tel: object) -> None:
        if k + 1 == n_settle:
            pos0[0] = (tel.x, tel.y)
            settle_speed[0] = tel.speed
        elif k + 1 > n_settle:
            dx = tel.x - pos0[0][0]
            dy = tel.y - pos0[0][1]
            dist = sqrt(dx * dx + dy * dy)
            if dist > max_drift[0]:
                max_drift[0] = dist
            if tel.speed > max_speed[0]:
                max_speed[0] = tel.speed
            if k + 1 > n_total - n_rms:
                tail.append(tel.speed)

    tel = run.go(observe)
    dx = tel.x - pos0[0][0]
    dy = tel.y - pos0[0][1]
    net = sqrt(dx * dx + dy * dy)
    return {
        "settle_speed_mps": settle_speed[0],
        "max_speed_mps": max_speed[0],
        "drift_m": max_drift[0],
        "creep_mps": net / measure_s,
        "speed_rms_mps": rms(tail),
        "finite": True,
    }


def case_failures(name: str, r: dict) -> list[str]:
    out = []
    if not r["settle_speed_mps"] < REST_MPS:
        out.append(f"{name}: moving {r['settle_speed_mps']:.2g} m/s after the settle")
    if not r["drift_m"] < DRIFT_M:
        out.append(f"{name}: drifted {r['drift_m'] * 1000.0:.3g} mm")
    if not r["speed_rms_mps"] < REST_MPS:
        out.append(f"{name}: speed RMS {r['speed_rms_mps']:.2g} m/s")
    return out


def run(definition: dict, progress: object = None) -> dict:
    """Every park case the car has (handbrake cases skipped without a handbrake)."""
    has_hb = definition["brakes"]["handbrake_torque_nm"] > 0.0
    cases = {}
    for name, (_g, _c, _b, hb) in CASES.items():
        if hb > 0.0 and not has_hb and name.startswith("handbrake"):
            continue
        if progress:
            progress(f"park {name}")
        cases[name] = park(definition, name)
    worst = 0.0
    for r in cases.values():
        c = r["creep_mps"] if r["creep_mps"] > r["settle_speed_mps"] else r["settle_speed_mps"]
        if c > worst:
            worst = c
    return {"cases": cases, "worst_creep_mps": worst}


def failures(result: dict) -> list[str]:
    out = []
    for name, r in result["cases"].items():
        out.extend(case_failures(name, r))
    return out
