"""ISO 4138 constant-radius cornering: the understeer gradient of the four-wheel model.

For each speed the car is driven round a circle of radius R by a closed-loop
driver (:class:`CircleDriver`):

* steer: feedforward from linear theory (``L/R + K_us,lin·a_y``) plus a PI
  controller on the yaw-rate error against ``r* = V*/R``; at steady state
  ``r = V*/R`` and ``V = V*``, so the path radius is R;
* speed: a PI controller on the throttle (the brake below zero).

After a settle, the steer angle, yaw rate, speed and lateral acceleration
are averaged; each point's steer angle is reduced by the Ackermann angle of
the path actually driven, ``L·r/V``, and K_us is the least-squares slope of
that over ``a_y = V·r`` in deg/g (:func:`engine.fourwheel.single_track.fit_understeer`).

Everything here uses only ``+ - * /`` and comparisons (the drivers feed the
state hash when a drive is recorded).
"""

from __future__ import annotations

from dataclasses import dataclass

from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.single_track import linear_understeer
from skidpad.engine.fourwheel.steering import DEG

RADIUS_M = 40.0
SPEEDS_MPS = (4.0, 6.0, 8.0, 10.0, 12.0)


def _clamp(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


class CircleDriver:
    """Closed-loop steer (yaw-rate PI + feedforward) and speed (PI) controller for a circle."""

    def __init__(self, definition: dict, speed: float, radius: float, host_hz: int) -> None:
        self.v_target = speed
        self.r_target = speed / radius
        wb = definition["geometry"]["wheelbase_m"]
        self.max_angle = definition["steering"]["max_angle_deg"] * DEG
        k_lin = linear_understeer(definition) * DEG / 9.80665  # rad per m/s²
        self.delta_ff = wb / radius + k_lin * speed * speed / radius
        self.kp_r = 0.3 * wb / speed
        self.ki_r = 1.5 * wb / speed
        self.kp_v = 0.5
        self.ki_v = 0.5
        self.dt = 1.0 / host_hz
        self.int_r = 0.0
        self.int_v = 0.0

    def inputs(self, tel: object) -> tuple[float, float, float, float]:
        """(throttle, brake, steer, handbrake) from the last telemetry (None at the start)."""
        if tel is None:
            e_r = 0.0
            e_v = 0.0
        else:
            e_r = self.r_target - tel.yaw_rate
            e_v = self.v_target - tel.speed
        self.int_r += e_r * self.dt
        self.int_v += e_v * self.dt
        delta = self.delta_ff + self.kp_r * e_r + self.ki_r * self.int_r
        u = self.kp_v * e_v + self.ki_v * self.int_v
        steer = _clamp(delta / self.max_angle, -1.0, 1.0)
        throttle = _clamp(u, 0.0, 1.0)
        brake = _clamp(-u, 0.0, 1.0)
        return (throttle, brake, steer, 0.0)


@dataclass(frozen=True)
class CirclePoint:
    speed: float
    yaw_rate: float
    delta: float  # reference road-wheel angle, rad
    ay: float  # V·r, m/s²
    ay_accel: float  # accelerometer lateral, m/s²
    speed_error: float
    radius: float  # path radius V/r, m


def circle_point(
    definition: dict,
    speed: float,
    radius: float = RADIUS_M,
    settle_s: float = 6.0,
    measure_s: float = 2.0,
    host_hz: int = 100,
    substep_hz: int | None = None,
) -> CirclePoint:
    """Drive the circle at ``speed`` and average the steady state."""
    sim = Simulation(
        definition,
        substep_hz=substep_hz,
        host_hz=host_hz,
        initial={"speed_mps": speed, "yaw_rate_radps": speed / radius},
    )
    drv = CircleDriver(definition, speed, radius, host_hz)
    tel = None
    n_settle = int(settle_s * host_hz)
    n_meas = int(measure_s * host_hz)
    acc = [0.0] * 6
    for k in range(n_settle + n_meas):
        tel = sim.step(drv.inputs(tel))
        if k >= n_settle:
            for j, v in enumerate(
                (tel.speed, tel.yaw_rate, tel.steer_angle, tel.accel_y, 0.0, 0.0)
            ):
                acc[j] += v
    n = float(n_meas)
    v, r, d, ay_acc = acc[0] / n, acc[1] / n, acc[2] / n, acc[3] / n
    return CirclePoint(v, r, d, v * r, ay_acc, v - speed, v / r)
