"""Fixed 30 s scripted drives of the daemon, one per model and vehicle.

The host dt follows a fixed cycle of microsecond values (``DT_PATTERN_US``:
60 Hz-like frames, a dropped frame, a burst and one sub-millisecond request
that the scheduler clamps), so a drive exercises the substep split and the
clamp. Inputs are piecewise-linear functions of the integer simulated time
at the start of each host step (``inputs_at``): launch, lane change, lift-off
regen, braking, a steady turn, a drift-toggle press, a harder turn and a
hard stop. The drive stays inside the grip limit: past 90 degrees of slip
the reference's tire kinematics do not hold and the daemon lets the car slide
(ADR 0125).
The **scripted drive hash** is the final ``state_hash()``.

``drive_steps(daemon)`` yields ``(inputs, dt_us, telemetry)`` per host step as
fed to the daemon; ``(inputs, dt_us)`` is what a recording of the drive stores.
"""

from __future__ import annotations

from collections.abc import Iterator

from .daemon import CommonRoadDaemon
from .scheduler import MIN_DT_US

DURATION_US = 30_000_000
DT_PATTERN_US = (16_667, 16_666, 16_667, 33_333, 16_667, 8_333, 8_334, 700, 20_000, 10_000)

#: (time [us], steer, throttle, brake) knots; values are linear between knots.
_KNOTS = (
    (0, 0.0, 0.4, 0.0),
    (5_000_000, 0.0, 0.2, 0.0),
    (6_000_000, 0.0, 0.2, 0.0),
    (6_500_000, 0.03, 0.2, 0.0),
    (7_500_000, -0.03, 0.2, 0.0),
    (8_500_000, 0.0, 0.2, 0.0),
    (10_000_000, 0.0, 0.0, 0.0),
    (14_000_000, 0.0, 0.0, 0.4),
    (18_000_000, 0.03, 0.3, 0.0),
    (22_000_000, 0.03, 0.3, 0.0),
    (22_500_000, 0.06, 0.5, 0.0),
    (26_000_000, 0.0, 0.0, 0.8),
    (DURATION_US, 0.0, 0.0, 0.8),
)
_TOGGLE_ON_US = (22_000_000, 22_500_000)  # drift_toggle held during this window

INITIAL = {"speed": 0.0}


def _lerp(t: int, t0: int, t1: int, a: float, b: float) -> float:
    if t1 == t0 or a == b:
        return a
    return a + (b - a) * ((t - t0) / (t1 - t0))


def inputs_at(t_us: int) -> dict:
    """The scripted inputs at simulated time ``t_us``."""
    for k in range(len(_KNOTS) - 1):
        t0, s0, th0, b0 = _KNOTS[k]
        t1, s1, th1, b1 = _KNOTS[k + 1]
        if t0 <= t_us < t1:
            break
    else:
        t0, s0, th0, b0 = _KNOTS[-1]
        t1, s1, th1, b1 = _KNOTS[-1]
    toggle = 1 if _TOGGLE_ON_US[0] <= t_us < _TOGGLE_ON_US[1] else 0
    return {
        "steer": _lerp(t_us, t0, t1, s0, s1),
        "throttle": _lerp(t_us, t0, t1, th0, th1),
        "brake": _lerp(t_us, t0, t1, b0, b1),
        "drift_toggle": toggle,
    }


def _next_dt(k: int, t_us: int, duration_us: int) -> int:
    dt = DT_PATTERN_US[k % len(DT_PATTERN_US)]
    remaining = duration_us - t_us
    if dt >= remaining or remaining - dt < MIN_DT_US:
        dt = remaining  # land exactly on the end, never leave a sliver
    return dt


def drive_steps(daemon: CommonRoadDaemon, duration_us: int = DURATION_US) -> Iterator[tuple]:
    """Drive ``daemon`` through the script, yielding ``(inputs, dt_us, telemetry)``."""
    k = 0
    while daemon.time_us < duration_us:
        t = daemon.time_us
        dt = _next_dt(k, t, duration_us)
        inputs = inputs_at(t)
        tel = daemon.step_us(inputs, dt)
        yield inputs, dt, tel
        k += 1


def run_drive(model: str, vehicle: int | str, duration_us: int = DURATION_US) -> CommonRoadDaemon:
    """A fresh daemon driven through the script; returns it at the end."""
    d = CommonRoadDaemon(model=model, vehicle=vehicle, initial=dict(INITIAL))
    for _ in drive_steps(d, duration_us):
        pass
    return d


def drive_hash(model: str, vehicle: int | str, duration_us: int = DURATION_US) -> str:
    """The scripted drive hash: the final state hash of the 30 s drive."""
    return run_drive(model, vehicle, duration_us).state_hash()


if __name__ == "__main__":
    import sys

    models = sys.argv[1:] or ["ks", "st", "std", "mb"]
    for m in models:
        for v in (1, 2, 3):
            print(m, v, drive_hash(m, v), flush=True)
