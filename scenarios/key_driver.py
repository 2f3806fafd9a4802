"""A closed-loop keyboard driver: it drives the circuit pressing keys, as a person would.

It sees what the sandbox page's ``window.skidpad.car()`` shows (position, heading, speed,
yaw rate, distance along the centreline, lateral offset, the front wheels' road-wheel
angle) and decides which keys to hold for the next host step: bang-bang on the pedals
against a target speed from the curvature ahead, and on the steering against a
pure-pursuit road-wheel angle with lateral-offset and yaw-rate corrections. The session
records the inputs its keys produced and replays use those; the driver still computes with
strict math, like every driver, so a headless lap records the same bits everywhere. The
end-to-end tests drive the page with this same driver (``sandbox.automation`` reads the
page's car and presses real keys); it also drives the Python session in tests and records
sandbox laps without a browser.
"""

from __future__ import annotations

from math import pi, sqrt

from skidpad.engine import smath
from skidpad.engine.fourwheel.tire import peak_friction
from skidpad.engine.track import Circuit

LOOKAHEAD_S = 0.9  # s of travel to the pure-pursuit target
MIN_LOOKAHEAD_M = 8.0
LAT_ACCEL = 0.35  # share of the tyres' lateral grip the speed target plans to use in corners
V_MAX = 40.0
DEADBAND = 0.01  # steer error (fraction of full lock) within which no steering key is held
K_LATERAL = 0.015  # rad of road-wheel angle per m of lateral offset from the centreline
K_YAW = 0.15  # rad of road-wheel angle per rad/s of yaw-rate error: damps a beginning slide
OFF_LINE_M = 2.0  # lateral offset (m) beyond which the driver slows to regain the line
#: how far (rad) the steering input may lead the road wheels' actual angle: past it the
#: steering assist is capping the angle and winding the input further only adds lag
MAX_LEAD_RAD = 0.03


class KeyDriver:
    """Keys for the next host step from the car's pose (see the module docstring)."""

    def __init__(
        self,
        circuit: Circuit,
        max_steer_rad: float,
        wheelbase_m: float,
        mu: float,
        lat_accel: float = LAT_ACCEL,
        v_max: float = V_MAX,
    ) -> None:
        self.circuit = circuit
        self.max_steer = max_steer_rad
        self.wheelbase = wheelbase_m
        self.mu = mu
        self.lat_accel = lat_accel
        self.v_max = v_max

    @classmethod
    def for_definition(
        cls,
        definition: dict,
        circuit: Circuit,
        lat_accel: float = LAT_ACCEL,
        v_max: float = V_MAX,
    ) -> KeyDriver:
        """The driver for a car: its steering lock, wheelbase and lesser lateral grip."""
        tires = definition["tires"]
        return cls(
            circuit,
            definition["steering"]["max_angle_deg"] * (pi / 180.0),
            definition["geometry"]["wheelbase_m"],
            min(peak_friction(tires["front"])[1], peak_friction(tires["rear"])[1]),
            lat_accel=lat_accel,
            v_max=v_max,
        )

    def target_speed(self, distance: float, speed: float) -> float:
        track = self.circuit.track
        start = self.circuit.lines[0].s
        worst = 0.0
        reach = 10.0 + speed * speed / (2.0 * 0.5 * self.mu * 9.81)
        steps = int(reach / track.ds) + 1
        i0 = track.index_at(distance + start)
        for k in range(0, steps, 4):
            worst = max(worst, abs(track.curvature[(i0 + k) % track.n]))
        if worst == 0.0:
            return self.v_max
        return min(self.v_max, sqrt(self.lat_accel * self.mu * 9.81 / worst))

    def keys(self, car: dict, steer_now: float, brake_now: float) -> dict:
        """Which keys to hold (the page's key names, as ``replay.session.Keys`` takes them)."""
        track = self.circuit.track
        v = car["speed"]
        look = max(MIN_LOOKAHEAD_M, LOOKAHEAD_S * v)
        i = track.index_at(car["distance"] + self.circuit.lines[0].s + look)
        dx = track.x[i] - car["x"]
        dy = track.y[i] - car["y"]
        c, s = smath.cos(car["heading"]), smath.sin(car["heading"])
        lx = c * dx + s * dy
        ly = -s * dx + c * dy
        curvature = 2.0 * ly / (lx * lx + ly * ly)
        road_wheel = (
            smath.atan(self.wheelbase * curvature)
            - K_LATERAL * car["lateral"]
            + K_YAW * (v * curvature - car["yaw_rate"])
        )
        wanted = road_wheel / self.max_steer
        wanted = max(-1.0, min(1.0, wanted))
        err = wanted - steer_now
        lead = steer_now * self.max_steer - car["steer_angle"]
        target = self.target_speed(car["distance"], v)
        if abs(car["lateral"]) > OFF_LINE_M:
            target = target * 0.8
        return {
            "throttle": v < target - 0.5,
            # in a corner, hold the brake only part way: a locked axle there spins the car
            "brake": v > target + 1.5 and (abs(steer_now) < 0.2 or brake_now < 0.4),
            "left": err > DEADBAND and lead < MAX_LEAD_RAD,
            "right": err < -DEADBAND and lead > -MAX_LEAD_RAD,
        }
