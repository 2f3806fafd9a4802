"""Shared pieces of the validation scenarios: inputs, assists, the drive loop, statistics.

Every scenario here is a *driver* in the sense of ADR-0052 (``host_hz``,
``initial()``, ``max_steps()``, ``inputs(step, telemetry)``,
``finished(step, telemetry)``), so any of them can be recorded with
``replay.recorder.record_drive`` and replayed bit for bit. Drivers compute
their inputs with ``+ - * /``, comparisons and :mod:`engine.smath` only.

Units: SI throughout (m, s, m/s, rad); figures reported in the table use
the seed-000 units (deg/g, km/h, %, deg) and say so in their key names.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from math import sqrt

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import inputs as engine_inputs
from skidpad.engine.fourwheel.definition import validate_definition
from skidpad.engine.fourwheel.simulation import Simulation

G = 9.80665
KMH = 1.0 / 3.6
V100 = 100.0 * KMH  # 27.78 m/s

Progress = Callable[[str], None] | None


def clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def make_inputs(values: Mapping) -> tuple:
    """A validated input tuple from a name -> value map; channels not named take defaults.

    Channels that do not exist in this engine version are dropped, so the
    scenarios keep working when the channel set grows (or before it does).
    """
    known = engine_inputs.CHANNEL_INDEX
    return engine_inputs.inputs_from_mapping({k: v for k, v in values.items() if k in known})


def has_channel(name: str) -> bool:
    return name in engine_inputs.CHANNEL_INDEX


def _with_assists(definition: dict, switches: Mapping) -> dict | None:
    """The definition with its ``assists`` block switched as asked, or None if unsupported."""
    d = copy.deepcopy(definition)
    block = dict(d.get("assists") or {})
    block.update(switches)
    d["assists"] = block
    try:
        return validate_definition(d)
    except DefinitionError:
        return None


def assist_setup(definition: dict, abs_on: bool) -> tuple[dict, dict] | None:
    """(definition, extra inputs) that run with the ABS on or off; None when the engine has no ABS.

    The ABS is switched in the definition's ``assists`` block when the schema has
    one, else through an ``abs`` input channel (-1 off, 0 preset, 1 on). Stability
    and traction control are left as the preset has them: a straight stop does not
    call on them.
    """
    d = _with_assists(definition, {"abs": 1 if abs_on else 0})
    if d is not None:
        return d, {}
    if has_channel("abs"):
        return definition, {"abs": 1 if abs_on else -1}
    if abs_on:
        return None
    return definition, {}


def drive_start_inputs() -> dict:
    """Inputs every drive starts with: select Drive when the engine has a gear request channel."""
    return {"gear_request": 5} if has_channel("gear_request") else {}


class Run:
    """Step a simulation with a driver, keeping a few telemetry series at host rate."""

    def __init__(
        self,
        definition: dict,
        driver: object,
        substep_hz: int | None = None,
        probe: object = None,
    ) -> None:
        self.sim = Simulation(
            definition,
            substep_hz=substep_hz,
            host_hz=driver.host_hz,
            initial=driver.initial() or None,
        )
        self.driver = driver
        self.probe = probe
        self.tel = None
        self.steps = 0

    def go(self, observe: Callable | None = None) -> object:
        drv = self.driver
        sim = self.sim
        tel = self.tel
        for k in range(self.steps, drv.max_steps()):
            tel = sim.step(drv.inputs(k, tel), self.probe)
            self.steps = k + 1
            if observe is not None:
                observe(k, tel)
            if drv.finished(k + 1, tel):
                break
        self.tel = tel
        return tel


class LockProbe:
    """Counts lock/release changes of every wheel at substep resolution (probe protocol).

    After each substep it reads the simulation's telemetry (public, read-only):
    ``locked`` per wheel and the forward speed. ``releases_moving[i]`` counts the
    locked -> rolling changes of wheel i while the car moved faster than
    ``moving_mps``; ``first_lock_tick[i]`` is the first substep the wheel was held
    while moving.
    """

    def __init__(self, moving_mps: float = 0.1) -> None:
        self.sim = None
        self.moving = moving_mps
        self.prev = [False, False, False, False]
        self.changes = [0, 0, 0, 0]
        self.releases_moving = [0, 0, 0, 0]
        self.first_lock_tick: list = [None, None, None, None]

    def stage(self, name: str, values: tuple) -> None:
        pass

    def substep(self, tick: int, state: list) -> None:
        tel = self.sim.telemetry()
        moving = tel.speed > self.moving
        for i in range(4):
            now = tel.locked[i]
            if now != self.prev[i]:
                self.changes[i] += 1
                if not now and moving:
                    self.releases_moving[i] += 1
            if now and moving and self.first_lock_tick[i] is None:
                self.first_lock_tick[i] = tick
            self.prev[i] = now


def mean(xs: Sequence[float]) -> float:
    acc = 0.0
    for x in xs:
        acc += x
    return acc / len(xs) if xs else 0.0


def rms(xs: Sequence[float]) -> float:
    acc = 0.0
    for x in xs:
        acc += x * x
    return sqrt(acc / len(xs)) if xs else 0.0


def moving_average(xs: Sequence[float], half: int) -> list[float]:
    """Centred moving average over 2·half+1 samples (shrinking at the ends)."""
    n = len(xs)
    prefix = [0.0] * (n + 1)
    for i, x in enumerate(xs):
        prefix[i + 1] = prefix[i] + x
    out = []
    for i in range(n):
        lo = max(0, i - half)
        hi = min(n, i + half + 1)
        out.append((prefix[hi] - prefix[lo]) / (hi - lo))
    return out
