"""The closed-loop lap driver: one full lap of a track from a standing start.

It reads only the simulation's telemetry (position, heading, speed) and the
vehicle definition, and computes with strict math (``engine.smath``, the
operations of docs/architecture.md §3): its inputs are recorded and feed the state hash,
and a replay of the recording must reproduce the closed-loop run's final
hash exactly, so the driver itself must compute the same bits everywhere.

Steering — pure pursuit from the rear axle (Coulter 1992): the target is the
centreline point a look-ahead ``L_d = clamp(5 m + 0.7 s·v, 8 m, 40 m)``
beyond the nearest one; with the target at ``(l_x, l_y)`` in the body frame
the path curvature is ``κ = 2·l_y/(l_x² + l_y²)``, the bicycle road-wheel
angle ``δ = atan(L·κ)`` (L wheelbase), plus a small correction of the
lateral offset ``e`` from the centreline, ``−k_e·e``, and a yaw damper
``k_r·(v·κ − r)`` that counter-steers a beginning slide; the input is
``steer = δ/δ_max`` clamped to [−1, 1]. Positive is left (ISO 8855).

Speed — a profile from curvature and grip, with braking points:
``v_corner(s) = sqrt(a_y/|κ(s)|)`` with ``a_y = 0.55·μ_y·g`` (the lesser axle
μ), capped at ``v_max``; then a backward pass around the closed loop,
``v(s) ≤ sqrt(v(s+ds)² + 2·a_x·ds)`` with ``a_x = 0.55·b·μ_x·g`` (``b`` the
share of the weight the brake bias can use before an axle locks), so the
car brakes before each corner; the target is read ``0.4 s·v`` ahead.
Pedals: ``throttle = clamp(k_t·(v_target − v))``, ``brake =
clamp(k_b·(v − v_target − 0.3 m/s))``, never both; while the car slides
(``|v_y| > 0.04·|v_x| + 0.2 m/s``) the throttle is capped at 0.25, and
when a wheel's slip ratio drops below −0.08 the brake is eased; each pedal
moves at most 0.1 per host step.

The lap is finished when the car has covered the track length (progress is
counted from sample index changes, wrap-aware) and is past the start line.
"""

from __future__ import annotations

from math import sqrt

from skidpad.engine import smath
from skidpad.engine.fourwheel.tire import peak_friction
from skidpad.engine.track import Track, load_track

G = 9.80665
V_MAX = 60.0  # m/s cap of the speed profile
LAT_GRIP = 0.55  # share of the tyre's lateral friction the driver plans to use
LONG_GRIP = 0.55  # share of the longitudinal friction used for braking
K_THROTTLE = 0.35  # 1/(m/s)
K_BRAKE = 0.25  # 1/(m/s)
K_LATERAL = 0.02  # rad of road-wheel angle per m of lateral offset
K_YAW = 0.15  # rad of road-wheel angle per rad/s of yaw-rate error (damps a slide)
PEDAL_RATE = 0.1  # max pedal change per host step
SLIDE_VY_SHARE = 0.04  # lateral/forward speed ratio taken as the start of a slide
SLIDE_THROTTLE = 0.25  # throttle cap while sliding
LOCK_SLIP = -0.08  # slip ratio below which the driver eases the brake (a wheel about to lock)
MAX_LAP_S = 400


def _clamp(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def speed_profile(track: Track, lat_accel: float, long_accel: float, v_max: float) -> tuple:
    """Target speed at every sample: curvature limit, then braking points (closed loop)."""
    n = track.n
    v = []
    for i in range(n):
        k = abs(track.curvature[i])
        v.append(v_max if k * v_max * v_max <= lat_accel else sqrt(lat_accel / k))
    two_a_ds = 2.0 * long_accel * track.ds
    for _ in range(2):  # twice around, so the braking zone before the start line is seen too
        for i in range(n - 1, -1, -1):
            nxt = v[(i + 1) % n]
            reachable = sqrt(nxt * nxt + two_a_ds)
            if reachable < v[i]:
                v[i] = reachable
    return tuple(v)


def braking_limit(definition: dict) -> float:
    """Share of ``μ·g`` the brakes can reach before one axle locks, from the brake bias β and the
    static axle loads (a rear-only brake stops on the rear axle's share of the weight)."""
    wheelbase = definition["geometry"]["wheelbase_m"]
    a = definition["mass"]["cog_to_front_axle_m"]
    front_load = (wheelbase - a) / wheelbase
    rear_load = a / wheelbase
    bias = definition["brakes"]["front_bias"]
    limit = 1.0
    if bias > 0.0:
        limit = min(limit, front_load / bias)
    if bias < 1.0:
        limit = min(limit, rear_load / (1.0 - bias))
    return limit


def telemetry_pose(t: object) -> tuple[float, float, float, float, float]:
    """(x, y, cos yaw, sin yaw, forward speed) from ``engine.fourwheel.telemetry.Telemetry``."""
    yaw = t.yaw
    return t.x, t.y, smath.cos(yaw), smath.sin(yaw), t.vx


class LapDriver:
    """Pure-pursuit steering and a grip-limited speed profile around ``track``."""

    drive = "lap"

    def __init__(self, definition: dict, host_hz: int = 100, track: Track | None = None) -> None:
        self.host_hz = int(host_hz)
        self.t = load_track("sandbox") if track is None else track
        self.track = self.t.name
        geo, tires = definition["geometry"], definition["tires"]
        self.wheelbase = geo["wheelbase_m"]
        self.rear_arm = geo["wheelbase_m"] - definition["mass"]["cog_to_front_axle_m"]
        self.max_angle = definition["steering"]["max_angle_deg"] * 0.017453292519943295
        (mu_xf, mu_yf), (mu_xr, mu_yr) = map(peak_friction, (tires["front"], tires["rear"]))
        mu_y = min(mu_yf, mu_yr)
        mu_x = min(mu_xf, mu_xr)
        brake_share = braking_limit(definition)
        self.profile = speed_profile(
            self.t, LAT_GRIP * mu_y * G, LONG_GRIP * brake_share * mu_x * G, V_MAX
        )
        self.index = 0
        self.progress = 0  # samples covered, wrap-aware
        self.throttle = 0.0
        self.brake = 0.0
        self._observed = -1  # host step count of the last telemetry observed
        self.max_offset = 0.0  # largest |lateral offset| of the rear axle seen (m)

    def initial(self) -> dict:
        """At rest with the centre of gravity on the start line, facing along the track."""
        return {"x_m": self.t.x[0], "y_m": self.t.y[0], "yaw_rad": self.t.heading[0]}

    def max_steps(self) -> int:
        return MAX_LAP_S * self.host_hz

    def _steer(self, x: float, y: float, c: float, s: float, v: float, yaw_rate: float) -> float:
        t = self.t
        look = _clamp(5.0 + 0.7 * v, 8.0, 40.0)
        j = (self.index + int(look / t.ds)) % t.n
        dx = t.x[j] - x
        dy = t.y[j] - y
        lx = c * dx + s * dy
        ly = -s * dx + c * dy
        d2 = lx * lx + ly * ly
        kappa = 2.0 * ly / d2 if d2 > 0.0 else 0.0
        delta = smath.atan(self.wheelbase * kappa)
        delta = delta - K_LATERAL * t.lateral_offset(self.index, x, y)
        delta = delta + K_YAW * (v * kappa - yaw_rate)
        return _clamp(delta / self.max_angle, -1.0, 1.0)

    def _pedals(self, v: float, vy: float, min_slip: float) -> tuple[float, float]:
        t = self.t
        ahead = (self.index + int(0.4 * (v if v > 0.0 else 0.0) / t.ds)) % t.n
        target = self.profile[ahead]
        err = target - v
        want_t = _clamp(K_THROTTLE * err, 0.0, 1.0)
        want_b = _clamp(K_BRAKE * (-err - 0.3), 0.0, 1.0)
        if want_b > 0.0:
            want_t = 0.0
        if abs(vy) > SLIDE_VY_SHARE * abs(v) + 0.2:  # sliding: ease off, do not power it round
            want_t = min(want_t, SLIDE_THROTTLE)
        if min_slip < LOCK_SLIP:  # a wheel is about to lock: ease the brake as a driver would
            want_b = min(want_b, self.brake - 2.0 * PEDAL_RATE)
        self.throttle = _clamp(want_t, self.throttle - PEDAL_RATE, self.throttle + PEDAL_RATE)
        self.brake = _clamp(want_b, self.brake - PEDAL_RATE, self.brake + PEDAL_RATE)
        # easing a brake that is already off must not push the pedal below 0 (engine braking
        # can bring a driven wheel's slip below LOCK_SLIP with no brake applied)
        self.brake = _clamp(self.brake, 0.0, 1.0)
        return self.throttle, self.brake

    def _observe(self, step: int, telemetry: object) -> tuple[float, float, float, float, float]:
        """Rear-axle pose and speed from telemetry; advances the lap progress once per step."""
        x, y, c, s, v = telemetry_pose(telemetry)
        xr = x - self.rear_arm * c
        yr = y - self.rear_arm * s
        if step != self._observed:
            self._observed = step
            i = self.t.nearest(xr, yr, self.index)
            moved = (i - self.index) % self.t.n
            if moved > self.t.n // 2:  # moved backwards
                moved -= self.t.n
            self.progress += moved
            self.index = i
            off = abs(self.t.lateral_offset(i, xr, yr))
            if off > self.max_offset:
                self.max_offset = off
        return xr, yr, c, s, v

    def inputs(self, step: int, telemetry: object) -> dict:
        if telemetry is None:  # before the first step: at rest on the start line
            self.throttle = PEDAL_RATE
            return {"throttle": self.throttle, "brake": 0.0, "steer": 0.0}
        xr, yr, c, s, v = self._observe(step, telemetry)
        steer = self._steer(xr, yr, c, s, v, telemetry.yaw_rate)
        throttle, brake = self._pedals(v, telemetry.vy, min(telemetry.slip_ratio))
        return {"throttle": throttle, "brake": brake, "steer": steer}

    def finished(self, step: int, telemetry: object) -> bool:
        self._observe(step, telemetry)
        return self.progress >= self.t.n


def make_driver(definition: dict, host_hz: int = 100) -> LapDriver:
    return LapDriver(definition, host_hz)
