"""Driving the sandbox page from outside, with real key events: the end-to-end tests and the
recording of the committed sandbox laps both use this.

:func:`drive_until_a_valid_lap` is a closed loop: it reads ``window.skidpad.car()`` (and the
current steering and brake inputs from ``window.skidpad.view()``), asks a
:class:`scenarios.key_driver.KeyDriver` which keys to hold, and presses or releases real
keys through the browser driver (Playwright's ``page.keyboard``). Key events land on host
steps with real-time jitter, so two drives are never the same; what a drive produces is
checked afterwards by replaying its recording.
"""

from __future__ import annotations

import time
from typing import Any

from skidpad.engine.definition import load_preset
from skidpad.engine.track import load_circuit
from skidpad.scenarios.key_driver import KeyDriver

KEYS = {"throttle": "ArrowUp", "brake": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight"}
#: how much of the tyres' grip the driver plans on, and its top speed, through the page (key
#: events arrive with real-time latency): the kart's solid axle needs more margin
PAGE_PLANNING = {"kart": (0.2, 20.0)}
DEFAULT_PLANNING = (0.25, 32.0)

STATE_JS = """() => {
  const v = window.skidpad.view();
  return {car: window.skidpad.car(), steer: v.steer, brake: v.brake,
          valid: v.laps.some((lap) => lap.valid), laps: v.laps.length};
}"""


class NoLap(RuntimeError):
    """No valid lap within the time allowed."""


def page_driver(preset: str) -> KeyDriver:
    lat_accel, v_max = PAGE_PLANNING.get(preset, DEFAULT_PLANNING)
    return KeyDriver.for_definition(
        load_preset(preset), load_circuit("sandbox"), lat_accel=lat_accel, v_max=v_max
    )


def drive_until_a_valid_lap(page: Any, preset: str, timeout_s: float = 1200.0) -> int:
    """Drive with real keys until the page has timed a valid lap; return the laps timed."""
    driver = page_driver(preset)
    held: set[str] = set()
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            state = page.evaluate(STATE_JS)
            if state["valid"]:
                return state["laps"]
            want = driver.keys(state["car"], state["steer"], state["brake"])
            for name, key in KEYS.items():
                if want[name] and key not in held:
                    page.keyboard.down(key)
                    held.add(key)
                elif not want[name] and key in held:
                    page.keyboard.up(key)
                    held.discard(key)
            time.sleep(0.01)
        raise NoLap(f"{preset}: no valid lap within {timeout_s:.0f} s")
    finally:
        for key in held:
            page.keyboard.up(key)
