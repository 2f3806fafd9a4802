"""Drive our car and CommonRoad's MB through one manoeuvre; the time series both produce.

:func:`drive_ours` steps :class:`engine.fourwheel.simulation.Simulation` with the
definition of :mod:`scenarios.comparison.vehicle`; :func:`drive_mb` steps the
MB model inside :class:`engine.commonroad.daemon.CommonRoadDaemon` (our port,
held to the reference package by ``tests/test_commonroad_parity.py``) with the
daemon's safety system out of the way (its thresholds raised past reach: MB
as published has none, and neither has our car's definition). Both run at 1 kHz
host and substep rates with the inputs of :mod:`scenarios.comparison.manoeuvres`.

A :class:`Series` holds, after every host step, the time and the channels
both models have: road-wheel angle ``delta`` (rad; ours: the front wheels'
mean, MB: its steering state), ``speed`` (m/s), body-frame ``vx``, ``vy``
(m/s), ``yaw_rate`` (rad/s), ``lat_accel`` (m/s²: the lateral tire forces in
the body frame over the total mass, what an accelerometer at the CoG reads;
ours is the engine's ``accel_y``, MB's is summed from its axle forces) and
sprung-mass ``roll`` (rad, positive right side down: the body leans out of a
left turn; MB's own roll state has the other sign). A run ends early when the
car loses control (side slip past :data:`LOSS_OF_CONTROL_BETA` or a wheel's
slip past :data:`LOSS_OF_CONTROL_SLIP`; ``lost_at``): past the limit of the
ramp both cars spin, and the metrics need nothing after that.
Derived in :func:`derived`: side slip ``β = atan(v_y/v_x)``, the same formula
on both, at the same point: the whole car's CoG. Ours is the engine's ``vy`` (its body
equation is the whole car's); MB's state ``vy`` is its sprung mass's, which moves with
the body's roll, so MB's ``vy`` here is the mass-weighted mean of its sprung and two
unsprung masses' lateral velocities (:func:`_mb_cog_vy`). In a steady corner the two
points differ by 0.007°; at 1 Hz the sprung mass's made MB's side-slip amplitude 11 %
smaller than the whole car's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from skidpad.engine import smath
from skidpad.engine.commonroad.daemon import CommonRoadDaemon, DaemonParameters
from skidpad.engine.commonroad.params import VehicleParams
from skidpad.engine.commonroad.powertrain import load_powertrain
from skidpad.engine.commonroad.safety import load_safety
from skidpad.engine.fourwheel.inputs import inputs_from_mapping
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.smath.trig import sincos
from skidpad.scenarios.comparison.manoeuvres import (
    HOST_HZ,
    SPEED_MPS,
    Manoeuvre,
    SpeedPI,
)
from skidpad.scenarios.comparison.vehicle import VEHICLE_ID

#: a run ends when the car has lost control: past this side slip (rad, 5 deg) it is spinning,
#: and past it MB's state leaves its valid range (in its first run it turned NaN after a spin)
LOSS_OF_CONTROL_BETA = 0.08726646259971647
#: ... or when a wheel spins or slides past this longitudinal slip: the corner is no longer a
#: steady state (at the ramp's limit both cars' unloaded inner rear wheel spins under the speed
#: controller's throttle, and MB's unloaded, undriven front wheel runs away to twice the road
#: speed, its combined-slip lateral force climbing to 1.5 times its load)
LOSS_OF_CONTROL_SLIP = 0.1
CHANNELS = ("delta", "speed", "vx", "vy", "yaw_rate", "lat_accel", "roll")
#: MB's daemon: its safety system never engages (MB as published has none)
NO_SAFETY = {"engage_severity": 1.0e9, "emergency_severity": 2.0e9}

Note = Callable[[str], None] | None


class Series(NamedTuple):
    """One model's run: host-step times (s) and each channel of :data:`CHANNELS`."""

    model: str
    manoeuvre: str
    t: list
    channels: dict  # name -> list of floats, one per host step (step 0 = initial state)
    lost_at: int | None = None  # the host step where the car lost control (the run ends)


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
    lost = None
    for k in range(m.steps):
        throttle, brake = pi.pedals(tel.speed)
        steer = m.delta(k) / max_angle
        tel = sim.step(inputs_from_mapping({"steer": steer, "throttle": throttle, "brake": brake}))
        _record_ours(ch, tel)
        if _spinning(tel.vx, tel.vy, tel.slip_ratio):
            lost = k + 1
            break
    return Series("ours", m.name, _times(len(ch["delta"]) - 1), ch, lost)


def _record_ours(ch: dict, tel: object) -> None:
    ch["delta"].append(0.5 * (tel.wheel_angle[0] + tel.wheel_angle[1]))
    ch["speed"].append(tel.speed)
    ch["vx"].append(tel.vx)
    ch["vy"].append(tel.vy)
    ch["yaw_rate"].append(tel.yaw_rate)
    ch["lat_accel"].append(tel.accel_y)
    ch["roll"].append(tel.roll)


def _mb_lateral_accel(tel: object, mass: float) -> float:
    """MB's lateral tire forces in the body frame over the mass: an accelerometer at the CoG."""
    sd, cd = sincos(tel.steering.actual)
    f, r = tel.front, tel.rear
    return (f.fy * cd + f.fx * sd + r.fy) / mass


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
    mass = daemon.params.m
    steer_max = daemon.params.steering.max
    dt_us = 1000000 // HOST_HZ
    pi = SpeedPI(SPEED_MPS)
    ch = _empty()
    tel = daemon.telemetry()
    _record_mb(ch, tel, daemon, mass)
    lost = None
    for k in range(m.steps):
        throttle, brake = pi.pedals(tel.velocity.speed)
        steer = m.delta(k) / steer_max
        tel = daemon.step_us({"steer": steer, "throttle": throttle, "brake": brake}, dt_us)
        _record_mb(ch, tel, daemon, mass)
        if _spinning(tel.velocity.vx, tel.velocity.vy, tel.slip.wheel):
            lost = k + 1
            break
    return Series("mb", m.name, _times(len(ch["delta"]) - 1), ch, lost)


def _mb_cog_vy(daemon: object) -> float:
    """The lateral velocity of MB's whole-car CoG (m/s, body frame): its sprung and two
    unsprung masses' lateral velocities weighted by their masses (the total momentum over
    the total mass)."""
    i, x, p = daemon.layout.index, daemon.state, daemon.params
    momentum = (
        p.m_s * x[i["model.vy"]]
        + p.m_uf * x[i["model.front.vy"]]
        + p.m_ur * x[i["model.rear.vy"]]
    )
    return momentum / (p.m_s + p.m_uf + p.m_ur)


def _record_mb(ch: dict, tel: object, daemon: object, mass: float) -> None:
    v = tel.velocity
    roll = daemon.state[daemon.layout.index["model.roll"]]
    ch["delta"].append(tel.steering.actual)
    ch["speed"].append(v.speed)
    ch["vx"].append(v.vx)
    ch["vy"].append(_mb_cog_vy(daemon))
    ch["yaw_rate"].append(v.yaw_rate)
    ch["lat_accel"].append(_mb_lateral_accel(tel, mass))
    ch["roll"].append(-roll)  # MB's roll is positive left side down


def _spinning(vx: float, vy: float, slips: tuple) -> bool:
    if vx <= 0.0 or abs(vy) > LOSS_OF_CONTROL_BETA * vx:  # |β| past 5° (tan β ≈ β)
        return True
    for s in slips:
        if abs(s) > LOSS_OF_CONTROL_SLIP:
            return True
    return False


def _times(steps: int) -> list:
    return [k / HOST_HZ for k in range(steps + 1)]


def derived(s: Series) -> dict:
    """Side slip ``side_slip`` (rad) per host step: ``atan(v_y/v_x)``."""
    vx, vy = s.channels["vx"], s.channels["vy"]
    return {"side_slip": [smath.atan(vy[k] / vx[k]) for k in range(len(vx))]}
