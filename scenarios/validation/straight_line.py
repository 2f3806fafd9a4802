"""Straight line: 0–100 km/h at full throttle, and 100–0 km/h at full brake, locked and with ABS.

* **0–100 km/h**: from rest on flat dry ground, full throttle (Drive selected
  when the engine has a gear request channel), no steer; the time is the
  first host step at which the speed reaches 100 km/h (27.78 m/s). The run
  gives up at :data:`ACCEL_MAX_S`.
* **100–0 km/h**: the car starts rolling at 100 km/h (wheels at rolling speed,
  no throttle) and the full service brake is applied from the first host
  step. The *stop* is the first host step at which the speed is below
  :data:`STOP_MPS`; the braking distance is the distance travelled to it,
  the mean deceleration ``v0 / t_stop`` (the time average). The brake stays
  held :data:`HOLD_S` after the stop (the locked-wheel checks in
  :mod:`scenarios.validation.locked_wheels` use that hold). Run without the
  ABS ("locked": brakes stronger than grip lock the wheels) and with it.

A car that swaps ends during the stop (heading change beyond 90°) is
flagged ``spins``; the distance is then the straight-line distance to where
it came to rest.
"""

from __future__ import annotations

from math import sqrt

from skidpad.scenarios.validation.common import (
    V100,
    LockProbe,
    Run,
    assist_setup,
    drive_start_inputs,
    make_inputs,
)

HOST_HZ = 100
ACCEL_MAX_S = 40.0
STOP_MAX_S = 60.0
STOP_MPS = 0.01
HOLD_S = 2.0
SPIN_RAD = 1.5707963267948966  # a heading change past 90° = the car swapped ends


class AccelDriver:
    """Full throttle from rest until 100 km/h."""

    drive = "validation:accel"
    track = None

    def __init__(self, host_hz: int = HOST_HZ) -> None:
        self.host_hz = host_hz
        base = drive_start_inputs()
        base["throttle"] = 1.0
        self._inputs = make_inputs(base)

    def initial(self) -> dict:
        return {}

    def max_steps(self) -> int:
        return int(ACCEL_MAX_S * self.host_hz)

    def inputs(self, step: int, tel: object) -> tuple:
        return self._inputs

    def finished(self, step: int, tel: object) -> bool:
        return tel.speed >= V100


class StopDriver:
    """Full service brake from ``v0`` until rest, then held for ``hold_s``."""

    drive = "validation:stop"
    track = None

    def __init__(
        self,
        v0: float = V100,
        host_hz: int = HOST_HZ,
        extra: dict | None = None,
        surface: str = "dry",
        hold_s: float = HOLD_S,
        yaw_rate: float = 0.0,
    ) -> None:
        self.host_hz = host_hz
        self.yaw_rate = yaw_rate
        self.v0 = v0
        self.surface = surface
        values = drive_start_inputs()
        values.update(extra or {})
        values["brake"] = 1.0
        self._inputs = make_inputs(values)
        self.hold_steps = int(hold_s * host_hz + 0.5)
        self.stop_step: int | None = None

    def initial(self) -> dict:
        ini = {"speed_mps": self.v0}
        if self.surface != "dry":
            ini["surface"] = self.surface
        if self.yaw_rate != 0.0:
            ini["yaw_rate_radps"] = self.yaw_rate
        return ini

    def max_steps(self) -> int:
        return int(STOP_MAX_S * self.host_hz)

    def inputs(self, step: int, tel: object) -> tuple:
        return self._inputs

    def finished(self, step: int, tel: object) -> bool:
        if self.stop_step is None:
            if tel.speed < STOP_MPS:
                self.stop_step = step
            return False
        return step >= self.stop_step + self.hold_steps


def accel_0_100(definition: dict) -> float | None:
    """0–100 km/h time (s), None if not reached within :data:`ACCEL_MAX_S`."""
    drv = AccelDriver()
    run = Run(definition, drv)
    tel = run.go()
    if tel.speed < V100:
        return None
    return run.steps / drv.host_hz


def stop(
    definition: dict,
    abs_on: bool,
    surface: str = "dry",
    substep_hz: int | None = None,
    host_hz: int = HOST_HZ,
    hold_s: float = HOLD_S,
    probe_locks: bool = True,
    yaw_rate: float = 0.0,
) -> dict | None:
    """One 100–0 km/h stop; None when the engine has no ABS to switch on.

    Returns distance_m, time_s, mean_decel_mps2, spins, the host-rate decel
    series over the stop (for the ripple), the lock probe's counts and the
    speed at the end of the hold.
    """
    setup = assist_setup(definition, abs_on)
    if setup is None:
        return None
    d, extra = setup
    drv = StopDriver(V100, host_hz, extra, surface, hold_s, yaw_rate)
    probe = LockProbe() if probe_locks else None
    run = Run(d, drv, substep_hz=substep_hz, probe=probe)
    if probe is not None:
        probe.sim = run.sim
    decel: list[float] = []
    speeds: list[float] = []
    yaw0 = 0.0
    spun = [False]
    stop_pos: list = [None]

    def observe(k: int, tel: object) -> None:
        if drv.stop_step is None:
            decel.append(-tel.ax)
            speeds.append(tel.speed)
        elif stop_pos[0] is None:
            stop_pos[0] = (tel.x, tel.y, k + 1)
        dyaw = tel.yaw - yaw0
        if dyaw > SPIN_RAD or dyaw < -SPIN_RAD:
            spun[0] = True

    tel = run.go(observe)
    if stop_pos[0] is None:  # stopped on the very last step, or never
        stop_pos[0] = (tel.x, tel.y, run.steps)
    x, y, k_stop = stop_pos[0]
    if drv.stop_step is not None:
        k_stop = drv.stop_step
    t_stop = k_stop / host_hz
    dist = sqrt(x * x + y * y)
    out = {
        "distance_m": dist,
        "time_s": t_stop,
        "mean_decel_mps2": V100 / t_stop if drv.stop_step is not None else None,
        "stopped": drv.stop_step is not None,
        "spins": spun[0],
        "heading_change_deg": (tel.yaw - yaw0) * 57.29577951308232,
        "end_speed_mps": tel.speed,
        "decel_series": decel,
        "speed_series": speeds,
        "host_hz": host_hz,
    }
    if probe is not None:
        sub = run.sim.substep_hz
        out["lock_time_s"] = [None if t is None else t / sub for t in probe.first_lock_tick]
        out["releases_moving"] = list(probe.releases_moving)
        out["lock_changes"] = list(probe.changes)
    return out


def run(definition: dict, progress: object = None) -> dict:
    """0–100, and the 100–0 stop locked and with ABS (figures and the raw stops)."""
    if progress:
        progress("0-100 km/h")
    t100 = accel_0_100(definition)
    if progress:
        progress("100-0 km/h locked")
    locked = stop(definition, abs_on=False)
    if progress:
        progress("100-0 km/h ABS")
    with_abs = stop(definition, abs_on=True)
    return {"accel_0_100_s": t100, "locked": locked, "abs": with_abs}
