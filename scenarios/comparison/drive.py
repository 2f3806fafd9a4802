"""Drive our car and CommonRoad's MB through one manoeuvre; the time series both produce.

:func:`drive_ours` steps :class:`engine.simulation.Simulation` with the
definition of :mod:`scenarios.comparison.vehicle`; :func:`drive_mb` steps the
MB model inside :class:`engine.commonroad.daemon.CommonRoadDaemon` (our port,
held to the reference package by ``tests/test_commonroad_parity.py``) with the
daemon's safety system out of the way (its thresholds raised past reach: MB
as published has none, and neither has our car's definition). Both run at 1 kHz
host and substep rates with the inputs of :mod:`scenarios.comparison.manoeuvres`.

A :class:`Series` holds, after every host step, the time and the channels
both models have: road-wheel angle ``delta`` (rad; ours: the front wheels'
mean, MB: its steering state), ``speed`` (m/s), body-frame ``vx``, ``vy``
(m/s), ``yaw_rate`` (rad/s) and sprung-mass ``roll`` (rad, positive right
side down: the body leans out of a left turn). Derived in :func:`derived`:
side slip ``β = atan(v_y/v_x)`` and lateral acceleration
``a_y = dv_y/dt + r·v_x`` (central difference over the host steps), the same
formula on both, so neither model's own accelerometer definition enters.
MB's ``v_y`` is its sprung mass's, ours the car's CoG's: equal in a steady
corner (no roll rate), a few mm/s apart while the body rolls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from engine import smath
from engine.commonroad.daemon import CommonRoadDaemon, DaemonParameters
from engine.commonroad.params import VehicleParams
from engine.commonroad.powertrain import load_powertrain
from engine.commonroad.safety import load_safety
from engine.inputs import inputs_from_mapping
from engine.simulation import Simulation
from scenarios.comparison.manoeuvres import (  # strict: allow layering -- own package
    HOST_HZ,
    SPEED_MPS,
    Manoeuvre,
    SpeedPI,
)
from scenarios.comparison.vehicle import VEHICLE_ID  # strict: allow layering -- own package

CHANNELS = ("delta", "speed", "vx", "vy", "yaw_rate", "roll")
#: MB's daemon: its safety system never engages (MB as published has none)
NO_SAFETY = {"engage_severity": 1.0e9, "emergency_severity": 2.0e9}

Note = Callable[[str], None] | None


class Series(NamedTuple):
    """One model's run: host-step times (s) and each channel of :data:`CHANNELS`."""

    model: str
    manoeuvre: str
    t: list
    channels: dict  # name -> list of floats, one per host step (step 0 = initial state)


def _empty() -> dict:
    return {c: [] for c in CHANNELS}


def drive_ours(definition: dict, m: Manoeuvre) -> Series:
    """Our four-wheel car through ``m``: states after every host step (step 0 the initial)."""
    sim = Simulation(definition, host_hz=HOST_HZ, initial={"speed_mps": SPEED_MPS})
    max_angle = definition["steering"]["max_angle_deg"] * 0.017453292519943295
    pi = SpeedPI(SPEED_MPS)
    ch = _empty()
    tel = sim.telemetry()
    _record_ours(ch, tel)
    for k in range(m.steps):
        throttle, brake = pi.pedals(tel.speed)
        steer = m.delta(k) / max_angle
        tel = sim.step(inputs_from_mapping({"steer": steer, "throttle": throttle, "brake": brake}))
        _record_ours(ch, tel)
    return Series("ours", m.name, _times(m.steps), ch)


def _record_ours(ch: dict, tel: object) -> None:
    ch["delta"].append(0.5 * (tel.wheel_angle[0] + tel.wheel_angle[1]))
    ch["speed"].append(tel.speed)
    ch["vx"].append(tel.vx)
    ch["vy"].append(tel.vy)
    ch["yaw_rate"].append(tel.yaw_rate)
    ch["roll"].append(tel.roll)


def drive_mb(m: Manoeuvre, params: VehicleParams | None = None) -> Series:
    """CommonRoad MB (vehicle 2, or ``params``) through ``m`` in the daemon, safety off."""
    given = None
    if params is not None:
        given = DaemonParameters(params, load_powertrain(VEHICLE_ID), load_safety("mb", NO_SAFETY))
    daemon = CommonRoadDaemon(
        model="mb",
        vehicle=VEHICLE_ID,
        initial={"speed": SPEED_MPS},
        safety_overrides=None if given else NO_SAFETY,
        steer_gain=float(HOST_HZ),
        parameters=given,
    )
    i = daemon.layout.index
    steer_max = daemon.params.steering.max
    dt_us = 1000000 // HOST_HZ
    pi = SpeedPI(SPEED_MPS)
    ch = _empty()
    tel = daemon.telemetry()
    _record_mb(ch, tel, daemon.state[i["model.roll"]])
    for k in range(m.steps):
        throttle, brake = pi.pedals(tel.velocity.speed)
        steer = m.delta(k) / steer_max
        tel = daemon.step_us({"steer": steer, "throttle": throttle, "brake": brake}, dt_us)
        _record_mb(ch, tel, daemon.state[i["model.roll"]])
    return Series("mb", m.name, _times(m.steps), ch)


def _record_mb(ch: dict, tel: object, roll: float) -> None:
    v = tel.velocity
    ch["delta"].append(tel.steering.actual)
    ch["speed"].append(v.speed)
    ch["vx"].append(v.vx)
    ch["vy"].append(v.vy)
    ch["yaw_rate"].append(v.yaw_rate)
    ch["roll"].append(roll)


def _times(steps: int) -> list:
    return [k / HOST_HZ for k in range(steps + 1)]


def derived(s: Series) -> dict:
    """Side slip ``beta`` (rad) and lateral acceleration ``lat_accel`` (m/s²) per host step."""
    vx, vy, r = s.channels["vx"], s.channels["vy"], s.channels["yaw_rate"]
    n = len(vx)
    beta = [smath.atan(vy[k] / vx[k]) for k in range(n)]
    ay = []
    for k in range(n):
        lo = k - 1 if k > 0 else 0
        hi = k + 1 if k + 1 < n else n - 1
        dvy = (vy[hi] - vy[lo]) * HOST_HZ / (hi - lo)
        ay.append(dvy + r[k] * vx[k])
    return {"side_slip": beta, "lat_accel": ay}
