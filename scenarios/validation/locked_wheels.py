"""Locked wheels, measured on the 100–0 km/h stop without ABS (:mod:`.straight_line`).

* **time to lock** per wheel (s): the first substep at which the wheel's brake
  constraint held it still while the car was moving (None: never locked,
  e.g. an unbraked axle or brakes weaker than grip);
* **releases while moving** (chatter): locked -> rolling changes, counted at
  substep resolution while the car moved faster than 0.1 m/s;
* **ripple**: relative RMS of the deceleration about its 0.2 s centred moving
  average, over the sliding phase (from 0.2 s after the last wheel locked to
  the last host step above 3 m/s), so the slow drift with speed (aero drag,
  the friction curve) is not counted; relative to the mean deceleration;
* **at rest**: the speed after the brake has been held 2 s past the stop,
  which must be below 0.1 mm/s.

Pass: no release while moving, ripple below :data:`RIPPLE_MAX`, at rest.
"""

from __future__ import annotations

from skidpad.scenarios.validation.common import (
    mean,
    moving_average,
    rms,
)

REST_MPS = 1e-4
RIPPLE_MAX = 0.01  # 1 % relative RMS
WINDOW_S = 0.2
SLIDE_MIN_MPS = 3.0


def metrics(stop: dict) -> dict:
    """Locked-wheel figures from a :func:`.straight_line.stop` result (with the lock probe)."""
    hz = stop["host_hz"]
    lock_times = stop["lock_time_s"]
    locked = [t for t in lock_times if t is not None]
    last_lock = max(locked) if locked else None
    decel = stop["decel_series"]
    speeds = stop["speed_series"]
    ripple = None
    if last_lock is not None:
        k0 = int((last_lock + WINDOW_S) * hz) + 1
        k1 = k0
        for k in range(k0, len(speeds)):
            if speeds[k] > SLIDE_MIN_MPS:
                k1 = k + 1
        seg = decel[k0:k1]
        half = int(WINDOW_S * hz / 2.0 + 0.5)
        if len(seg) > 2 * half + 1:
            avg = moving_average(seg, half)
            dev = [seg[i] - avg[i] for i in range(half, len(seg) - half)]
            ripple = rms(dev) / mean(seg)
    releases = sum_int(stop["releases_moving"])
    return {
        "lock_time_s": lock_times,
        "last_lock_s": last_lock,
        "releases_moving": releases,
        "ripple": ripple,
        "rest_speed_mps": stop["end_speed_mps"],
    }


def sum_int(xs: list) -> int:
    n = 0
    for x in xs:
        n += int(x)
    return n


def failures(m: dict) -> list[str]:
    """The locked-wheel criteria this result breaks (empty: passes)."""
    out = []
    if m["releases_moving"] != 0:
        out.append(f"lock chatter: {m['releases_moving']} releases while moving")
    if m["ripple"] is not None and m["ripple"] > RIPPLE_MAX:
        out.append(f"deceleration ripple {100.0 * m['ripple']:.2f} % > {100.0 * RIPPLE_MAX:g} %")
    if not m["rest_speed_mps"] < REST_MPS:
        out.append(f"not at rest after the hold ({m['rest_speed_mps']:.2g} m/s)")
    return out
