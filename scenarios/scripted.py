"""The fixed 30 s scripted drive: the same open-loop input script for every preset.

See docs/architecture.md §2.

Its final state hash is the preset's *scripted drive hash*. The script is
data: for each input channel (``engine.fourwheel.inputs``: ``throttle``, ``brake``,
``handbrake`` 0..1, ``steer`` -1..1 as a fraction of the preset's maximum
road-wheel angle, positive left) a list of key frames ``(t_ms, value)``
with integer times in milliseconds, linearly interpolated between them and
held after the last. Host step ``k`` (0-based) reads the script at
``t = k·1000 // host_hz`` ms — integer time, never accumulated floats —
and the interpolation ``v0 + (v1 − v0)·((t − t0)/(t1 − t0))`` uses an
integer quotient that Python rounds correctly, so the inputs are the same
bits in every runtime.

What the car does (from standstill on a flat, dry surface):

====== ============================================================
0–1 s   held on the brake, then released
1–6 s   launch: throttle ramps to 0.8
6–10 s  left-hand corner (steer 0.15) at part throttle
10–15 s right-hand corner (steer −0.2), with a lift-off mid-corner
        (throttle to zero at 12.5–14.5 s while the steer is held)
15–19 s straight-line acceleration (throttle 0.7)
19–21 s braking (brake 0.7)
22–25 s a slalom (steer ±0.12) at part throttle
26–30 s braking to rest (brake 0.9), handbrake pulled at 29 s
====== ============================================================
"""

from __future__ import annotations

from collections.abc import Sequence

DURATION_MS = 30_000

#: channel -> key frames (t_ms, value); times strictly increasing.
SCRIPT: dict[str, tuple[tuple[int, float], ...]] = {
    "throttle": (
        (0, 0.0),
        (1000, 0.0),
        (1500, 0.8),
        (6000, 0.8),
        (6500, 0.35),
        (10000, 0.35),
        (10500, 0.5),
        (12500, 0.5),
        (12700, 0.0),
        (14500, 0.0),
        (15000, 0.7),
        (19000, 0.7),
        (19200, 0.0),
        (21500, 0.0),
        (22000, 0.45),
        (25500, 0.45),
        (25800, 0.0),
    ),
    "brake": (
        (0, 0.3),
        (900, 0.3),
        (1000, 0.0),
        (19200, 0.0),
        (19600, 0.7),
        (21000, 0.7),
        (21300, 0.0),
        (26000, 0.0),
        (26400, 0.9),
    ),
    "steer": (
        (0, 0.0),
        (6000, 0.0),
        (7000, 0.15),
        (9500, 0.15),
        (10500, 0.0),
        (11000, 0.0),
        (12000, -0.2),
        (14500, -0.2),
        (15500, 0.0),
        (22000, 0.0),
        (22750, 0.12),
        (23500, -0.12),
        (24250, 0.12),
        (25000, 0.0),
    ),
    "handbrake": ((0, 0.0), (29000, 0.0), (29300, 1.0)),
}


def value_at(frames: Sequence[tuple[int, float]], t_ms: int) -> float:
    """The key-framed value at integer time ``t_ms`` (linear between frames, held outside)."""
    if t_ms <= frames[0][0]:
        return frames[0][1]
    for (t0, v0), (t1, v1) in zip(frames, frames[1:], strict=False):
        if t_ms < t1:
            return v0 + (v1 - v0) * ((t_ms - t0) / (t1 - t0))
    return frames[-1][1]


def check_script(script: dict, channels: Sequence) -> None:
    """Every channel named, key frames increasing and inside the channel range."""
    by_name = {c.name: c for c in channels}
    for name, frames in script.items():
        if name not in by_name:
            raise ValueError(f"script channel {name!r} is not an engine input channel")
        ch = by_name[name]
        for (t0, _), (t1, _) in zip(frames, frames[1:], strict=False):
            if not t1 > t0:
                raise ValueError(
                    f"script channel {name}: key frame times must increase ({t0}, {t1})"
                )
        for _, v in frames:
            if not ch.lo <= v <= ch.hi:
                raise ValueError(f"script channel {name}: {v} outside {ch.lo}..{ch.hi}")


class ScriptedDriver:
    """Open-loop driver that plays :data:`SCRIPT`; ignores telemetry."""

    drive = "scripted"
    track = None

    def __init__(
        self, host_hz: int = 100, script: dict | None = None, duration_ms: int = DURATION_MS
    ) -> None:
        from skidpad.engine.fourwheel import inputs as engine_inputs

        self.host_hz = int(host_hz)
        self.script = SCRIPT if script is None else script
        self.duration_ms = int(duration_ms)
        self.channels = engine_inputs.CHANNELS
        check_script(self.script, self.channels)

    def initial(self) -> dict:
        return {}

    def max_steps(self) -> int:
        return self.duration_ms * self.host_hz // 1000

    def inputs(self, step: int, telemetry: object = None) -> tuple:
        t = step * 1000 // self.host_hz
        return tuple(
            value_at(self.script[c.name], t) if c.name in self.script else c.default
            for c in self.channels
        )

    def finished(self, step: int, telemetry: object) -> bool:
        return False


def make_driver(definition: dict, host_hz: int = 100) -> ScriptedDriver:
    """The scripted drive; the same script for every definition."""
    return ScriptedDriver(host_hz)
