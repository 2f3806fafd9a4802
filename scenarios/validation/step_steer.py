"""ISO 7401 step steer at 80 km/h.

The car starts straight at 80 km/h; a speed PI holds it there for
:data:`PRE_S`, then the throttle is frozen at its last value (ISO 7401:
constant throttle through the manoeuvre) and the reference road-wheel angle
is ramped linearly over 0.1 s to the linear-theory angle for 4 m/s²,

    δ = a_y·(L/V² + K_us,lin)      (K_us,lin in rad per m/s²),

and held for :data:`HOLD_S`. Time zero of the response is the middle of the
ramp (50 % of the steer, as ISO 7401 measures it). Steady state = the mean
over the last second of the hold.

Figures: yaw-rate response time (first reach of 90 % of its steady state),
its overshoot past the steady state (%, peak after the first reach), the
steady yaw rate and its gain per radian of steer (1/s), the lateral
acceleration response time (90 %), the steady lateral acceleration, the
steady side-slip angle ``atan(v_y/v_x)`` and roll (deg).
"""

from __future__ import annotations

from skidpad.engine import smath
from skidpad.engine.fourwheel.single_track import linear_understeer
from skidpad.engine.fourwheel.steering import DEG
from skidpad.scenarios.validation.common import (
    KMH,
    G,
    Run,
    clamp,
    drive_start_inputs,
    make_inputs,
    mean,
)

HOST_HZ = 100
SPEED_MPS = 80.0 * KMH
AY_TARGET = 4.0
RAMP_S = 0.1
PRE_S = 1.0
HOLD_S = 5.0
DEG_PER_RAD = 57.29577951308232


def linear_angle(definition: dict, speed: float, ay: float) -> float:
    """The reference road-wheel angle (rad) linear theory needs for ``ay`` at ``speed``."""
    k = linear_understeer(definition) * DEG / G
    return ay * (definition["geometry"]["wheelbase_m"] / (speed * speed) + k)


class StepSteerDriver:
    drive = "validation:step_steer"
    track = None

    def __init__(self, definition: dict, host_hz: int = HOST_HZ) -> None:
        self.host_hz = host_hz
        self.delta = linear_angle(definition, SPEED_MPS, AY_TARGET)
        self.max_angle = definition["steering"]["max_angle_deg"] * DEG
        self.n_pre = int(PRE_S * host_hz + 0.5)
        self.n_ramp = int(RAMP_S * host_hz + 0.5)
        self.n_hold = int(HOLD_S * host_hz + 0.5)
        self.base = drive_start_inputs()
        self.dt = 1.0 / host_hz
        self.int_v = 0.0
        self.throttle = 0.0

    def initial(self) -> dict:
        return {"speed_mps": SPEED_MPS}

    def max_steps(self) -> int:
        return self.n_pre + self.n_ramp + self.n_hold

    def inputs(self, step: int, tel: object) -> tuple:
        if step < self.n_pre:
            e = 0.0 if tel is None else SPEED_MPS - tel.speed
            self.int_v += e * self.dt
            self.throttle = clamp(0.5 * e + 0.5 * self.int_v + 0.15, 0.0, 1.0)
            frac = 0.0
        else:
            frac = clamp((step - self.n_pre + 1) / self.n_ramp, 0.0, 1.0)
        values = dict(self.base)
        values["throttle"] = self.throttle
        values["steer"] = clamp(frac * self.delta / self.max_angle, -1.0, 1.0)
        return make_inputs(values)

    def finished(self, step: int, tel: object) -> bool:
        return False


def _response(ts: list[float], xs: list[float], ss: float) -> tuple[float | None, float]:
    t90 = None
    peak = 0.0
    for t, x in zip(ts, xs, strict=True):
        if t90 is None and x >= 0.9 * ss:
            t90 = t
        if t90 is not None and x > peak:
            peak = x
    overshoot = 100.0 * (peak - ss) / ss if t90 is not None else 0.0
    return t90, overshoot if overshoot > 0.0 else 0.0


def run(definition: dict, progress: object = None, host_hz: int = HOST_HZ) -> dict:
    if progress:
        progress("ISO 7401 step steer")
    drv = StepSteerDriver(definition, host_hz)
    run_ = Run(definition, drv)
    t_mid = (drv.n_pre + 0.5 * drv.n_ramp) / host_hz
    ts: list[float] = []
    r: list[float] = []
    ay: list[float] = []
    beta: list[float] = []
    roll: list[float] = []

    def observe(k: int, tel: object) -> None:
        if k + 1 > drv.n_pre:
            ts.append((k + 1) / host_hz - t_mid)
            r.append(tel.yaw_rate)
            ay.append(tel.accel_y)
            beta.append(smath.atan(tel.vy / tel.vx))
            roll.append(tel.roll)

    run_.go(observe)
    n_ss = host_hz
    r_ss = mean(r[-n_ss:])
    ay_ss = mean(ay[-n_ss:])
    t_r, over_r = _response(ts, r, r_ss)
    t_ay, _over_ay = _response(ts, ay, ay_ss)
    return {
        "steer_deg": drv.delta * DEG_PER_RAD,
        "yaw_rate_response_s": t_r,
        "yaw_rate_overshoot_pct": over_r,
        "steady_yaw_rate_radps": r_ss,
        "yaw_rate_gain_per_s": r_ss / drv.delta,
        "lat_accel_response_s": t_ay,
        "steady_lat_accel_mps2": ay_ss,
        "steady_side_slip_deg": mean(beta[-n_ss:]) * DEG_PER_RAD,
        "steady_roll_deg": mean(roll[-n_ss:]) * DEG_PER_RAD,
        "trace_t_s": ts[::2],
        "trace_yaw_rate_radps": r[::2],
    }
