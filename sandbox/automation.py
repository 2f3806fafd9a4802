"""Driving the sandbox page from outside, with real input events: the end-to-end tests and
the recording of the committed sandbox laps both use this.

:func:`drive_stepped` drives a page opened in stepping mode (``?stepping=1``, ADR 0222): the
test, not the clock, advances the drive, ``every`` host steps at a time, and delivers the
input events between advances — real key events (``page.keyboard``), taps on the on-screen
controls (``page.touchscreen``) or a gamepad's state (a stubbed ``navigator.getGamepads``,
:data:`GAMEPAD_STUB`). Nothing depends on the machine's speed: the same driver on the same
page drives the same lap.

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

from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.track import load_circuit
from skidpad.scenarios.key_driver import KeyDriver

KEYS = {"throttle": "ArrowUp", "brake": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight"}
#: how much of the tyres' grip the driver plans on, and its top speed, through the page (key
#: events arrive with real-time latency): the kart's solid axle needs more margin
PAGE_PLANNING = {"kart": (0.2, 18.0)}
DEFAULT_PLANNING = (0.25, 32.0)

STATE_JS = """() => {
  const v = window.skidpad.view();
  return {car: window.skidpad.car(), steer: v.steer, brake: v.brake,
          valid: v.laps.some((lap) => lap.valid), laps: v.laps.length};
}"""


STEP_JS = (
    """async (arg) => {
  if (arg.pad) Object.assign(window.__skidpadPad, arg.pad);
  await window.skidpad.advance(arg.n);
  return (STATE)();
}""".replace("STATE", STATE_JS)
)

#: an init script giving the page one standard-mapping gamepad whose state the test sets
#: (``window.__skidpadPad``: ``axes`` and ``buttons``, as the Gamepad API reports them)
GAMEPAD_STUB = """(() => {
  const button = () => ({ pressed: false, touched: false, value: 0 });
  window.__skidpadPad = { id: "skidpad test pad", index: 0, connected: true, mapping: "standard",
    timestamp: 0, axes: [0, 0, 0, 0], buttons: Array.from({ length: 17 }, button) };
  navigator.getGamepads = () => [window.__skidpadPad, null, null, null];
})();"""
#: what the gamepad driver applies for a wanted key: analog values short of full scale, so a
#: recording shows they were applied as given
PAD_THROTTLE = 0.9
PAD_BRAKE = 0.8
PAD_STEER = 0.85


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


def pad_state(want: dict) -> dict:
    """The stub gamepad's axes and buttons for the wanted keys (standard mapping: stick x
    steers, right trigger 7 throttle, left trigger 6 brake)."""
    steer = PAD_STEER if want["left"] else (-PAD_STEER if want["right"] else 0.0)
    buttons = [{"pressed": False, "touched": False, "value": 0.0} for _ in range(17)]
    throttle = PAD_THROTTLE if want["throttle"] else 0.0
    brake = PAD_BRAKE if want["brake"] else 0.0
    for i, v in ((7, throttle), (6, brake)):
        buttons[i] = {"pressed": v > 0.0, "touched": v > 0.0, "value": v}
    return {"axes": [-steer, 0.0, 0.0, 0.0], "buttons": buttons}


def click(page: Any, x: float, y: float) -> None:
    """A click as its three real events: the pointer moves there, presses, releases.
    (Playwright's ``mouse.click`` does the same, but over WebDriver BiDi in Firefox it took
    49 ms a click against 13 ms for the three events sent one by one.)"""
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.up()


def drive_stepped(
    page: Any,
    preset: str,
    device: str = "keyboard",
    every: int = 10,
    max_sim_s: float = 240.0,
    need_lap: bool = True,
) -> int:
    """Drive a page in stepping mode until it has timed a valid lap, advancing ``every`` host
    steps between decisions (10: a decision every 0.1 simulated s, a driver's reaction; each
    decision is a round trip to the page, most of a stepped lap's cost), with ``device``
    ("keyboard", "touch" or "gamepad"); return the laps timed. The page must have been
    started for this drive (``skidpad.start``). With ``need_lap`` false the drive is the
    first ``max_sim_s`` simulated seconds, lap or not (a stated sample of a lap)."""
    driver = page_driver(preset)
    held: set[str] = set()
    centres = {}
    # the on-screen controls: tapped on a touch screen, clicked where the browser has no
    # touch input (Firefox over WebDriver BiDi reports navigator.maxTouchPoints 0)
    press = page.touchscreen.tap
    if device == "touch" and not page.evaluate("navigator.maxTouchPoints > 0"):
        press = lambda x, y: click(page, x, y)  # noqa: E731
    if device == "touch":
        for name in KEYS:
            box = page.locator(f'#touch [data-input="{name}"]').bounding_box()
            centres[name] = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    state = page.evaluate(STEP_JS, {"n": 0, "pad": None})
    steps = 0
    try:
        while steps * 0.01 < max_sim_s:
            if state["valid"]:
                return state["laps"]
            want = driver.keys(state["car"], state["steer"], state["brake"])
            pad = None
            if device == "keyboard":
                for name, key in KEYS.items():
                    if want[name] and key not in held:
                        page.keyboard.down(key)
                        held.add(key)
                    elif not want[name] and key in held:
                        page.keyboard.up(key)
                        held.discard(key)
            elif device == "touch":
                # a tap between two advances holds the control for the next run of steps
                for name in KEYS:
                    if want[name]:
                        press(*centres[name])
            elif device == "gamepad":
                pad = pad_state(want)
            else:
                raise ValueError(f"unknown device {device!r}")
            state = page.evaluate(STEP_JS, {"n": every, "pad": pad})
            steps += every
        if not need_lap:
            return state["laps"]
        raise NoLap(f"{preset} ({device}, stepping): no valid lap in {max_sim_s:.0f} simulated s")
    finally:
        for key in held:
            page.keyboard.up(key)
        if device == "gamepad":
            page.evaluate(STEP_JS, {"n": 0, "pad": pad_state(dict.fromkeys(KEYS, False))})


def text_handed_over(page: Any, click: Any) -> str:
    """Call ``click()`` (a click on a button that hands a recording to the browser as a
    download) and return the text handed over. The page counts what it hands over, since
    two drives can hand over the same text, so this waits for the count to move."""
    page.evaluate("() => { window.__before = window.skidpad.downloads(); }")
    click()
    page.wait_for_function("window.skidpad.downloads() !== window.__before")
    return page.evaluate("window.skidpad.lastDownload()")


def drive_real_time(page: Any, preset: str, wall_s: float) -> None:
    """Drive with real keys against the clock for ``wall_s`` seconds of wall time (the page
    paces itself; under load it falls behind and the driver may leave the road: what holds
    whatever the load is that the recording replays to what the page showed)."""
    driver = page_driver(preset)
    held: set[str] = set()
    deadline = time.monotonic() + wall_s
    try:
        while time.monotonic() < deadline:
            state = page.evaluate(STATE_JS)
            want = driver.keys(state["car"], state["steer"], state["brake"])
            for name, key in KEYS.items():
                if want[name] and key not in held:
                    page.keyboard.down(key)
                    held.add(key)
                elif not want[name] and key in held:
                    page.keyboard.up(key)
                    held.discard(key)
            time.sleep(0.01)
    finally:
        for key in held:
            page.keyboard.up(key)
