"""The handling metrics of one model's run of each manoeuvre (same code for both models).

Ramp (slowly increasing steer, ISO 4138 at constant speed): over the samples
with ``a_y`` in [:data:`FIT_LO`, :data:`FIT_HI`] m/s² of the ramp, least-squares
slopes against ``a_y`` in g of

* ``understeer_gradient``: ``δ - L·r/V`` (the steer past the Ackermann angle of
  the path actually driven), deg/g;
* ``roll_gradient``: roll, deg/g; ``side_slip_gradient``: β, deg/g;

and ``max_lat_accel``: the largest ``|a_y|`` averaged over
:data:`LIMIT_WINDOW_S` (the limit the car holds, not a spike).

Step (ISO 7401): time zero at 50 % of the steer; steady values are means over
the last second. ``yaw_rate_gain`` = steady ``r/δ``; ``yaw_response_time`` and
``lat_accel_response_time`` = first time at 90 % of the steady value;
``yaw_overshoot`` = peak past steady, % of steady; ``side_slip`` = steady β (deg).

Sine (ISO 7401 continuous sine): the first period is left out (the start
transient); over the remaining whole periods each signal is fitted as
``A·sin ωt + B·cos ωt + c`` (orthogonal sums over whole periods).
``yaw_rate_gain`` = yaw-rate amplitude over steer amplitude,
``yaw_rate_lag`` = the yaw rate's phase lag behind the steer in seconds,
``side_slip_amplitude`` = β's amplitude (deg).
"""

from __future__ import annotations

from skidpad.engine import smath
from skidpad.scenarios.comparison.drive import Series, derived
from skidpad.scenarios.comparison.manoeuvres import (
    HOST_HZ,
    SINE_HZ,
    SINE_PERIODS,
    STEP_RISE_S,
    TWO_PI,
    Manoeuvre,
)

G = 9.80665
DEG_PER_RAD = 57.29577951308232
FIT_LO = 0.5
FIT_HI = 4.0
LIMIT_WINDOW_S = 0.5


def _slope(xs: list, ys: list) -> float:
    n = len(xs)
    if n < 2:
        return float("nan")
    mx = my = 0.0
    for x, y in zip(xs, ys, strict=True):
        mx += x
        my += y
    mx /= n
    my /= n
    sxx = sxy = 0.0
    for x, y in zip(xs, ys, strict=True):
        sxx += (x - mx) * (x - mx)
        sxy += (x - mx) * (y - my)
    return sxy / sxx if sxx > 0.0 else float("nan")


def _mean(xs: list) -> float:
    acc = 0.0
    for x in xs:
        acc += x
    return acc / len(xs)


def ramp(s: Series, m: Manoeuvre, wheelbase: float) -> dict:
    d = derived(s)
    ch = s.channels
    ay, beta = ch["lat_accel"], d["side_slip"]
    start = m.settle_steps
    ay_g, steer, roll, slip = [], [], [], []
    for k in range(start, len(ay)):
        if FIT_LO <= ay[k] <= FIT_HI:
            ay_g.append(ay[k] / G)
            ack = wheelbase * ch["yaw_rate"][k] / ch["speed"][k]
            steer.append((ch["delta"][k] - ack) * DEG_PER_RAD)
            roll.append(ch["roll"][k] * DEG_PER_RAD)
            slip.append(beta[k] * DEG_PER_RAD)
    window = int(LIMIT_WINDOW_S * HOST_HZ + 0.5)
    best = 0.0
    acc = 0.0
    for k in range(start, len(ay)):
        acc += abs(ay[k])
        if k - start >= window:
            acc -= abs(ay[k - window])
            if acc / window > best:
                best = acc / window
    return {
        "understeer_gradient": _slope(ay_g, steer),
        "roll_gradient": _slope(ay_g, roll),
        "side_slip_gradient": _slope(ay_g, slip),
        "max_lat_accel": best,
        "fit_points": len(ay_g),
    }


def _response(ts: list, xs: list, steady: float) -> tuple[float, float]:
    t90 = float("nan")
    peak = 0.0
    reached = False
    for t, x in zip(ts, xs, strict=True):
        if not reached and x >= 0.9 * steady:
            t90 = t
            reached = True
        if reached and x > peak:
            peak = x
    over = 100.0 * (peak - steady) / steady if reached else 0.0
    return t90, (over if over > 0.0 else 0.0)


def step(s: Series, m: Manoeuvre) -> dict:
    d = derived(s)
    ch = s.channels
    t_mid = m.settle_steps / HOST_HZ + 0.5 * STEP_RISE_S
    first = m.settle_steps
    ts = [s.t[k] - t_mid for k in range(first, len(s.t))]
    r = ch["yaw_rate"][first:]
    ay = ch["lat_accel"][first:]
    last = HOST_HZ  # the last second
    r_ss = _mean(r[-last:])
    ay_ss = _mean(ay[-last:])
    t_r, over = _response(ts, r, r_ss)
    t_ay, _ = _response(ts, ay, ay_ss)
    return {
        "yaw_rate_gain": r_ss / m.amplitude,
        "yaw_response_time": t_r,
        "yaw_overshoot": over,
        "lat_accel_response_time": t_ay,
        "side_slip": _mean(d["side_slip"][-last:]) * DEG_PER_RAD,
        "steady_lat_accel": ay_ss,
        "steady_roll_deg": _mean(ch["roll"][-last:]) * DEG_PER_RAD,
    }


def _harmonic(xs: list, first: int, n: int, period: int) -> tuple[float, float]:
    """(amplitude, phase) of ``xs[first:first+n]`` at one cycle per ``period`` samples."""
    a = b = c = 0.0
    for j in range(n):
        c += xs[first + j]
    c /= n
    for j in range(n):
        w = TWO_PI * (j % period) / period
        x = xs[first + j] - c
        a += x * smath.sin(w)
        b += x * smath.cos(w)
    a *= 2.0 / n
    b *= 2.0 / n
    return smath.sqrt(a * a + b * b), smath.atan2(b, a)


def sine(s: Series, m: Manoeuvre) -> dict:
    d = derived(s)
    period = int(HOST_HZ / SINE_HZ + 0.5)
    # samples k hold the state after step k-1, whose steer is delta(k - 1): the sine's
    # phase at sample k is (k - settle) / period
    first = m.settle_steps + period
    n = (SINE_PERIODS - 1) * period
    amp_r, ph_r = _harmonic(s.channels["yaw_rate"], first, n, period)
    amp_d, ph_d = _harmonic(s.channels["delta"], first, n, period)
    amp_b, _ = _harmonic(d["side_slip"], first, n, period)
    lag = ph_d - ph_r
    while lag < -0.5 * TWO_PI:
        lag += TWO_PI
    while lag > 0.5 * TWO_PI:
        lag -= TWO_PI
    return {
        "yaw_rate_gain": amp_r / m.amplitude,
        "yaw_rate_lag": lag / (TWO_PI * SINE_HZ),
        "side_slip_amplitude": amp_b * DEG_PER_RAD,
        "steer_amplitude_deg": amp_d * DEG_PER_RAD,
    }


def metrics(s: Series, m: Manoeuvre, wheelbase: float) -> dict:
    """The metrics of ``s`` for its manoeuvre, by name (see the module doc)."""
    if m.name == "ramp":
        return ramp(s, m, wheelbase)
    if m.name == "step":
        return step(s, m)
    return sine(s, m)
