"""What leaving the circuit costs: the runoff's grass against the track, measured.

Two measurements, each made twice — on the circuit's runoff as its track file defines it,
and with the runoff switched to the track's surface — so the difference is the grass's and
nothing else's (:mod:`engine.fourwheel.ground`):

- **Throttle held on the grass** (:func:`throttle_held`): a car on the grass 20 m to the
  right of the start straight, heading along it at 25 m/s (90 km/h), full throttle for
  2 s; its mean longitudinal acceleration (m/s², negative: it slows) on the grass and on
  the same spot made track.
- **A shortcut across the grass** (:func:`shortcut_laps`): the lap driver
  (:mod:`scenarios.lap_driver`) drives one lap of the centreline, and one lap of a path that
  cuts the inside of the 60 m sweeper: the centreline moved inward by ``d·sin²(π·u)`` over
  140 m of it (``u`` from 0 to 1), 14 m at the apex, so its wheels run on the grass for a
  while and its path is 11.5 m shorter. The shortcut is timed on the grass and on the same
  path made track: the first loses time against the centreline lap, the second gains it.

Both drive the simulation directly on the circuit's ground (no recording); the numbers
are printed by ``skidpad runoff``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from skidpad.engine import smath
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.ground import Surface, ground_for
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_HC, I_HS
from skidpad.engine.track import Circuit, Track, load_circuit, wheel_offsets
from skidpad.scenarios.lap_driver import LapDriver

#: where the throttle is held: on the grass beside the start straight, heading along it
GRASS_POSE = {"x_m": 10.0, "y_m": -20.0, "yaw_rad": 0.0}
SPEED_MPS = 25.0
HELD_S = 2.0
#: the shortcut: the arc length of its middle (m, the 60 m sweeper's), half its length (m),
#: and how far inward it cuts at the middle (m)
SHORTCUT_MID_M = 373.0
SHORTCUT_HALF_M = 70.0
SHORTCUT_DEPTH_M = 14.0
HOST_HZ = 100
MAX_LAP_S = 200

__all__ = [
    "as_track",
    "lap_time",
    "markdown",
    "path_length",
    "shortcut_laps",
    "shortcut_path",
    "table",
    "throttle_held",
]


def as_track(circuit: Circuit) -> Surface:
    """The circuit's runoff made of its track's surface (the name stays the runoff's)."""
    on, off = circuit.surfaces
    return Surface(off.name, on.friction, on.rolling_resistance)


def throttle_held(
    preset: str, circuit: Circuit | None = None, runoff: Surface | None = None
) -> float:
    """The mean longitudinal acceleration (m/s²) over :data:`HELD_S` of full throttle from
    :data:`SPEED_MPS` on the grass beside the start straight (``runoff``: the circuit's own
    unless given)."""
    circuit = circuit or load_circuit("sandbox")
    runoff = circuit.surfaces[1] if runoff is None else runoff
    d = load_preset(preset)
    sim = Simulation(d, host_hz=HOST_HZ, initial={**GRASS_POSE, "speed_mps": SPEED_MPS})
    sim.set_ground(ground_for(circuit, wheel_offsets(d), sim.surface, runoff))
    steps = int(HELD_S * HOST_HZ)
    for _ in range(steps):
        t = sim.step({"throttle": 1.0})
    return (t.vx - SPEED_MPS) / HELD_S


def shortcut_path(
    track: Track,
    mid_m: float = SHORTCUT_MID_M,
    half_m: float = SHORTCUT_HALF_M,
    depth_m: float = SHORTCUT_DEPTH_M,
) -> Track:
    """The centreline with one stretch moved sideways (left +) by ``depth·sin²(π·u)``: a
    path for the lap driver to follow (its samples keep the centreline's headings, which the
    driver reads only for its lateral-offset correction)."""
    xs, ys = list(track.x), list(track.y)
    for i in range(track.n + 1):
        u = (track.s[i] - (mid_m - half_m)) / (2.0 * half_m)
        if 0.0 < u < 1.0:
            bump = smath.sin(math.pi * u)
            e = depth_m * bump * bump
            h = track.heading[i]
            xs[i] -= smath.sin(h) * e
            ys[i] += smath.cos(h) * e
    return replace(track, name=f"{track.name}-shortcut", x=tuple(xs), y=tuple(ys))


def path_length(track: Track) -> float:
    """The length (m) of a path's polyline, one lap."""
    total = 0.0
    for i in range(track.n):
        total += smath.hypot(track.x[i + 1] - track.x[i], track.y[i + 1] - track.y[i])
    return total


def lap_time(preset: str, path: Track, circuit: Circuit, runoff: Surface) -> tuple[float, float]:
    """One lap of the lap driver along ``path`` on ``circuit`` with that ``runoff``: the lap
    time (s, host steps from the standing start until the driver has covered the lap) and
    the time (s) with a wheel on the runoff."""
    d = load_preset(preset)
    driver = LapDriver(d, HOST_HZ, path)
    sim = Simulation(d, host_hz=HOST_HZ, initial=driver.initial())
    ground = ground_for(circuit, wheel_offsets(d), sim.surface, runoff)
    sim.set_ground(ground)
    t, step, off = None, 0, 0
    while step < MAX_LAP_S * HOST_HZ:
        t = sim.step(driver.inputs(step, t))
        step += 1
        c, s = sim.state[I_HC], sim.state[I_HS]
        if any(w is not ground.lattice.track_surface for w in ground.surfaces(t.x, t.y, c, s)):
            off += 1
        if driver.finished(step, t):
            return step / HOST_HZ, off / HOST_HZ
    raise RuntimeError(f"{preset}: the lap driver did not finish within {MAX_LAP_S} s")


def shortcut_laps(preset: str, circuit: Circuit | None = None) -> dict:
    """The centreline lap, the shortcut on the grass and the shortcut made track: each
    ``(lap time s, time with a wheel on the runoff s)``, and the metres the cut saves."""
    circuit = circuit or load_circuit("sandbox")
    track = circuit.track
    cut = shortcut_path(track)
    grass = circuit.surfaces[1]
    return {
        "centreline": lap_time(preset, track, circuit, grass),
        "shortcut_on_grass": lap_time(preset, cut, circuit, grass),
        "shortcut_as_track": lap_time(preset, cut, circuit, as_track(circuit)),
        "saved_m": path_length(track) - path_length(cut),
    }


def table(
    presets: tuple = PRESET_NAMES, progress: Callable[[str], None] | None = None
) -> list[dict]:
    """Per preset: the acceleration with throttle held on the grass and on the spot made
    track (m/s²), and the three laps of :func:`shortcut_laps`."""
    circuit = load_circuit("sandbox")
    rows = []
    for k, preset in enumerate(presets):
        if progress:
            progress(f"[{k + 1}/{len(presets)}] {preset}: throttle held, three laps")
        rows.append(
            {
                "preset": preset,
                "grass_mps2": throttle_held(preset, circuit),
                "track_mps2": throttle_held(preset, circuit, as_track(circuit)),
                **shortcut_laps(preset, circuit),
            }
        )
    return rows


def markdown(rows: list[dict]) -> str:
    """The table as the docs show it."""
    lines = [
        "| preset | throttle held, grass (m/s²) | same spot as track (m/s²) | centreline lap (s) "
        "| shortcut on grass (s) | shortcut as track (s) | on the grass (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['preset']} | {r['grass_mps2']:+.2f} | {r['track_mps2']:+.2f} "
            f"| {r['centreline'][0]:.2f} | {r['shortcut_on_grass'][0]:.2f} "
            f"| {r['shortcut_as_track'][0]:.2f} | {r['shortcut_on_grass'][1]:.2f} |"
        )
    return "\n".join(lines) + "\n"
