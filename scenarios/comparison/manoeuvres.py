"""The comparison's manoeuvres: one road-wheel angle against time, and two speed controllers.

Every manoeuvre starts straight at 80 km/h and runs at :data:`HOST_HZ` host
steps a second (1 kHz, one substep per host step on both models), with the
road-wheel angle a function of the integer host step ``k`` alone; the value
applied during step ``k`` is the angle at its end, ``δ((k + 1)/H)``:

* ``ramp`` — slowly increasing steer (ISO 4138's constant-speed method):
  straight for :data:`SETTLE_S`, then ``δ`` grows at :data:`RAMP_RATE_DEG_S`
  for :data:`RAMP_S`, through the linear range to the tires' limit;
* ``step`` — ISO 7401 step steer: ``δ`` ramps in :data:`STEP_RISE_S` to the
  neutral-steer angle for :data:`STEP_AY` (``L·a_y/V²``) and holds it for
  :data:`STEP_HOLD_S`; time zero is the middle of the rise (50 % of the steer);
* ``sine`` — ISO 7401 continuous sine: :data:`SINE_PERIODS` periods at
  :data:`SINE_HZ` of the step's amplitude.

The speed controller is the same PI on both cars (``u = k_p·e + k_i·∫e``,
throttle ``max(u, 0)``, brake ``max(-u, 0)``, both clamped to 1): our car's
pedals drive its motor and brakes, the MB daemon's pedals its longitudinal
stack, which turns them into MB's acceleration input. MB's steering-rate
input comes from the daemon's proportional steering controller with gain
``1/h`` (``h`` = 1 ms): each substep it commands the rate that reaches the
demanded angle at the substep's end, within MB's rate limit (0.4 rad/s; the
fastest manoeuvre here needs 0.21 rad/s). Everything here is strict
arithmetic (``engine.smath``): a drive is reproducible to the bit.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine import smath

HOST_HZ = 1000
SPEED_MPS = 80.0 / 3.6
DEG = 0.017453292519943295
TWO_PI = 6.283185307179586

SETTLE_S = 2.0
RAMP_RATE_DEG_S = 0.5
RAMP_S = 12.0
STEP_AY = 4.0
STEP_RISE_S = 0.1
STEP_HOLD_S = 4.0
SINE_HZ = 1.0
SINE_PERIODS = 3

#: speed PI: throttle (or brake) per m/s of error, per m of integrated error; start value
SPEED_KP = 0.5
SPEED_KI = 0.5
SPEED_U0 = 0.05

MANOEUVRES = ("ramp", "step", "sine")


class Manoeuvre(NamedTuple):
    """A road-wheel angle against integer host steps, and the landmarks its metrics use."""

    name: str
    steps: int
    settle_steps: int  # host steps before the steer starts
    amplitude: float  # rad: the step's held angle, the sine's amplitude, the ramp's final angle

    def delta(self, k: int) -> float:
        """Road-wheel angle (rad) at the end of host step ``k`` (0-based)."""
        n = k + 1 - self.settle_steps
        if n <= 0:
            return 0.0
        if self.name == "ramp":
            return RAMP_RATE_DEG_S * DEG * n / HOST_HZ
        if self.name == "step":
            rise = int(STEP_RISE_S * HOST_HZ + 0.5)
            return self.amplitude * (n / rise if n < rise else 1.0)
        period = int(HOST_HZ / SINE_HZ + 0.5)
        if n >= SINE_PERIODS * period:
            return 0.0
        return self.amplitude * smath.sin(TWO_PI * (n % period) / period)


def step_angle(wheelbase: float) -> float:
    """The neutral-steer angle (rad) for :data:`STEP_AY` at 80 km/h: ``L·a_y/V²``."""
    return wheelbase * STEP_AY / (SPEED_MPS * SPEED_MPS)


def manoeuvre(name: str, wheelbase: float) -> Manoeuvre:
    """The manoeuvre ``name`` for a car of ``wheelbase`` (the step's angle depends on it)."""
    settle = int(SETTLE_S * HOST_HZ + 0.5)
    if name == "ramp":
        return Manoeuvre(
            name, settle + int(RAMP_S * HOST_HZ + 0.5), settle, RAMP_RATE_DEG_S * DEG * RAMP_S
        )
    amp = step_angle(wheelbase)
    if name == "step":
        n = int((STEP_RISE_S + STEP_HOLD_S) * HOST_HZ + 0.5)
        return Manoeuvre(name, settle + n, settle, amp)
    if name == "sine":
        n = int((SINE_PERIODS / SINE_HZ + 1.0) * HOST_HZ + 0.5)
        return Manoeuvre(name, settle + n, settle, amp)
    raise ValueError(f"unknown manoeuvre {name!r}; known: {', '.join(MANOEUVRES)}")


class SpeedPI:
    """The speed controller both cars get: PI on the speed error, out to the two pedals."""

    def __init__(self, target: float, host_hz: int = HOST_HZ) -> None:
        self.target = target
        self.dt = 1.0 / host_hz
        self.integral = SPEED_U0 / SPEED_KI

    def pedals(self, speed: float) -> tuple[float, float]:
        """(throttle, brake) in [0, 1] for the measured ``speed`` (m/s)."""
        e = self.target - speed
        u = SPEED_KP * e + SPEED_KI * self.integral
        if -1.0 < u < 1.0:  # no wind-up against a saturated pedal
            self.integral += e * self.dt
        if u >= 0.0:
            return (u if u < 1.0 else 1.0), 0.0
        return 0.0, (-u if -u < 1.0 else 1.0)
