"""Validation manoeuvres as recordable drives: ``skidpad record --drive validation:NAME``.

A figure of ``docs/validation.md`` comes from a driver whose inputs depend on the
telemetry of the step before (the step steer's speed hold, the stop's end).
Recording one of those drives captures exactly the inputs the manoeuvre fed
the core. The recording then replays in every runtime of the parity harness,
and `skidpad diff` can locate where two runtimes, or two commits, part on it.

Drives (each at the host rate ``--host-hz``, 100 Hz by default, like the validation):

* ``accel``: full throttle from rest to 100 km/h (the 0–100 km/h figure).
* ``stop``: full brake from 100 km/h with the ABS switched off, to rest, then
  held 2 s (the locked 100–0 km/h stop).
* ``stop_abs``: the same stop with the ABS switched on.
* ``step_steer``: ISO 7401 at 80 km/h, ramped to the linear-theory angle for
  4 m/s² and held 5 s.

The validation switches the ABS by editing the definition's ``assists`` block.
These drives switch it through the ``abs`` input channel instead (-1 off, 1
on). The recording therefore embeds the preset exactly as it ships, and the
physics is the same: the switch overrides the definition's flag each substep.
"""

from __future__ import annotations

from collections.abc import Callable

from skidpad.engine.errors import SkidpadError
from skidpad.scenarios.validation.step_steer import (
    StepSteerDriver,
)
from skidpad.scenarios.validation.straight_line import (
    V100,
    AccelDriver,
    StopDriver,
)

PREFIX = "validation:"


def _stop(abs_switch: int) -> Callable[[dict, int], object]:
    def make(definition: dict, host_hz: int) -> object:
        return StopDriver(V100, host_hz, {"abs": abs_switch})

    return make


DRIVES: dict[str, Callable[[dict, int], object]] = {
    "accel": lambda definition, host_hz: AccelDriver(host_hz),
    "stop": _stop(-1),
    "stop_abs": _stop(1),
    "step_steer": lambda definition, host_hz: StepSteerDriver(definition, host_hz),
}


def make_driver(drive: str, definition: dict, host_hz: int) -> object:
    """The driver of ``validation:NAME``; its ``drive`` attribute is that full name."""
    name = drive[len(PREFIX) :] if drive.startswith(PREFIX) else drive
    factory = DRIVES.get(name)
    if factory is None:
        raise SkidpadError(
            f"--drive {drive!r}: unknown validation drive "
            f"(known: {', '.join(PREFIX + n for n in DRIVES)})"
        )
    driver = factory(definition, host_hz)
    driver.drive = PREFIX + name
    return driver
