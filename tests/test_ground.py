"""The ground under each wheel (engine.fourwheel.ground): surfaces by position on a circuit.

Each physical claim is tested by its mechanism: the same drive with a surface's factor
switched to the track's, and the move measured.
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel.ground import (
    CELL_M,
    EDGE_SLACK_M,
    Ground,
    GroundError,
    Lattice,
    Surface,
    ground_for,
    parse_surfaces,
)
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_HC, I_HS
from skidpad.engine.track import drive_ground, load_circuit, wheel_offsets
from skidpad.replay.session import DriveSession, Keys

CIRCUIT = load_circuit("sandbox")
TRACK, RUNOFF = CIRCUIT.surfaces


def brute_force(px: float, py: float) -> float:
    """|e| at the whole lap's nearest centreline sample, searched over every sample."""
    t = CIRCUIT.track
    best = min(range(t.n), key=lambda i: ((t.x[i] - px) ** 2 + (t.y[i] - py) ** 2, i))
    nx, ny = CIRCUIT.normals[best]
    return abs((px - t.x[best]) * nx + (py - t.y[best]) * ny)


def test_the_sandbox_runoff_is_grass_that_grips_less_and_rolls_harder() -> None:
    assert (TRACK.name, TRACK.friction, TRACK.rolling_resistance) == ("asphalt", 1.0, 0.0)
    assert RUNOFF.name == "grass"
    assert RUNOFF.friction < TRACK.friction
    assert RUNOFF.rolling_resistance > TRACK.rolling_resistance


def test_the_lattice_agrees_with_a_search_of_the_whole_lap_away_from_the_edge() -> None:
    """Points near the edges, on both sides: the lattice's surface is the one the whole
    lap's nearest sample gives, except within the slack of the edge itself."""
    lattice = Lattice(CIRCUIT, TRACK, RUNOFF)
    t = CIRCUIT.track
    rng = random.Random(7)
    half = t.width / 2
    checked = 0
    for _ in range(400):
        i = rng.randrange(t.n)
        e = half + rng.uniform(-1.5, 1.5)
        e = e if rng.random() < 0.5 else -e
        nx, ny = CIRCUIT.normals[i]
        px = t.x[i] + e * nx + rng.uniform(-0.2, 0.2)
        py = t.y[i] + e * ny + rng.uniform(-0.2, 0.2)
        exact = brute_force(px, py)
        if abs(exact - half) < 2 * EDGE_SLACK_M:
            continue  # on the edge itself: either answer is within the slack
        want = TRACK if exact <= half else RUNOFF
        assert lattice.surface_at(px, py) is want, (px, py, exact)
        checked += 1
    assert checked > 300


def test_the_surface_is_a_function_of_the_point_not_of_the_order_it_is_asked() -> None:
    rng = random.Random(3)
    points = [(rng.uniform(-20, 200), rng.uniform(-30, 120)) for _ in range(300)]
    a = Lattice(CIRCUIT, TRACK, RUNOFF)
    b = Lattice(CIRCUIT, TRACK, RUNOFF)
    first = [a.surface_at(*p).name for p in points]
    second = [b.surface_at(*p).name for p in reversed(points)][::-1]
    assert first == second
    assert {"asphalt", "grass"} <= set(first)


def test_the_factors_are_each_wheels_surface_wherever_the_car_is() -> None:
    """Ground.factors answers a car deep in the track from its CoG's cell alone: that answer
    is the one the four contact points give, for poses all over the track and its edges."""
    d = engine_definition.load_preset("pickup4x4")  # the widest, longest car
    ground = drive_ground("sandbox", d, 0.8)
    t = CIRCUIT.track
    rng = random.Random(11)
    values = {s.name: (0.8 * s.friction, s.rolling_resistance) for s in (TRACK, RUNOFF)}
    kinds = set()
    for _ in range(3000):
        i = rng.randrange(t.n)
        e = rng.uniform(-t.width, t.width)
        nx, ny = CIRCUIT.normals[i]
        x, y = t.x[i] + e * nx, t.y[i] + e * ny
        heading = rng.uniform(-3.2, 3.2)
        c, s = math.cos(heading), math.sin(heading)
        names = [w.name for w in ground.surfaces(x, y, c, s)]
        want = tuple(values[n][0] for n in names) + tuple(values[n][1] for n in names)
        assert ground.factors(x, y, c, s) == want
        kinds.add(len(set(names)))
    assert kinds == {1, 2}


def test_a_wheel_over_the_edge_is_on_grass_and_the_others_stay_on_track() -> None:
    d = engine_definition.load_preset("hatchbackFwd")
    offsets = wheel_offsets(d)
    ground = drive_ground("sandbox", d, 1.0)
    assert ground is not None
    half = CIRCUIT.track.width / 2
    # on the start straight (heading +x, left normal +y): the left wheels 0.2 m past the edge
    y = half + 0.2 - offsets[0][1]
    names = [s.name for s in ground.surfaces(60.0, y, 1.0, 0.0)]
    assert names == ["grass", "asphalt", "grass", "asphalt"]
    f = ground.factors(60.0, y, 1.0, 0.0)
    g, r = RUNOFF.friction, RUNOFF.rolling_resistance
    assert f == (g, 1.0, g, 1.0, r, 0.0, r, 0.0)
    # a wet road scales both surfaces' friction; rolling resistance does not change
    wet = drive_ground("sandbox", d, 0.7)
    assert wet.factors(60.0, y, 1.0, 0.0) == (0.7 * g, 0.7, 0.7 * g, 0.7, r, 0.0, r, 0.0)


def _run(ground: Ground | None, keys: Keys, steps: int, path: str = "fast") -> Simulation:
    s = DriveSession("hatchbackFwd")
    s.sim.path = path
    if ground is not False:
        s.sim.set_ground(ground)
    for i in range(steps):
        s.step(keys if i >= 100 else Keys(throttle=True))
    return s


def _ground_with(runoff: Surface) -> Ground:
    d = engine_definition.load_preset("hatchbackFwd")
    return ground_for(CIRCUIT, wheel_offsets(d), 1.0, runoff)


def _straight(runoff: Surface, speed: float, inputs: dict, steps: int) -> tuple:
    """A car on the grass beside the start straight (20 m to its right, heading along it),
    at ``speed``, with ``inputs`` held: its speed (m/s) after ``steps`` host steps, and the
    surfaces its wheels were on at the end."""
    d = engine_definition.load_preset("hatchbackFwd")
    sim = Simulation(d, initial={"x_m": 10.0, "y_m": -20.0, "yaw_rad": 0.0, "speed_mps": speed})
    ground = ground_for(CIRCUIT, wheel_offsets(d), 1.0, runoff)
    sim.set_ground(ground)
    for _ in range(steps):
        t = sim.step(inputs)
    c, s = sim.state[I_HC], sim.state[I_HS]
    return t.speed, ground.surfaces(t.x, t.y, c, s)


def test_grass_rolling_resistance_slows_a_car_under_full_throttle() -> None:
    """Throttle held for 3 s on the grass from 20 m/s: the car gains less speed than with
    the grass's rolling resistance switched to the track's, and the same as on a ground that
    is all track when both factors are the track's."""
    full = {"throttle": 1.0}
    grass, where = _straight(RUNOFF, 20.0, full, 300)
    assert where == (RUNOFF,) * 4
    rolling_as_track, _ = _straight(Surface("grass", RUNOFF.friction, 0.0), 20.0, full, 300)
    all_track, _ = _straight(Surface("grass", 1.0, 0.0), 20.0, full, 300)
    assert grass < rolling_as_track - 0.5
    d = engine_definition.load_preset("hatchbackFwd")
    flat = Simulation(d, initial={"x_m": 10.0, "y_m": -20.0, "yaw_rad": 0.0, "speed_mps": 20.0})
    for _ in range(300):
        t = flat.step(full)
    assert t.speed == all_track


def test_braking_on_grass_is_limited_by_its_friction() -> None:
    """Full brake (ABS on) from 25 m/s on the grass, rolling resistance held at the track's:
    the speed lost in 1 s scales with the surface's friction factor."""
    brake = {"brake": 1.0}
    lost = {}
    for friction in (RUNOFF.friction, 1.0):
        v, where = _straight(Surface("grass", friction, 0.0), 25.0, brake, 100)
        assert where[0].name == "grass"
        lost[friction] = 25.0 - v
    assert lost[RUNOFF.friction] / lost[1.0] == pytest.approx(RUNOFF.friction, rel=0.15)


def test_the_fast_path_and_the_stages_agree_across_the_edge_stage_by_stage() -> None:
    keys = Keys(throttle=True, steer_amount=0.3)
    fast = _run(_ground_with(RUNOFF), keys, 400, "fast")
    readable = _run(_ground_with(RUNOFF), keys, 400, "readable")
    assert abs(fast.car()["lateral"]) > 6.0
    assert fast.state_hash() == readable.state_hash()

    class Probe:
        def __init__(self) -> None:
            self.rows: list = []

        def stage(self, name: str, values: tuple) -> None:
            self.rows.append((name, tuple(values)))

        def substep(self, tick: int, state: list) -> None:
            self.rows.append(("substep", tuple(state)))

    reports = []
    for probed_path in ("readable", "fast"):
        s = _run(_ground_with(RUNOFF), keys, 380)
        s.sim.probed_path = probed_path
        probe = Probe()
        for _ in range(20):
            s.sim.step(s.sim.inputs, probe)
        reports.append(probe.rows)
    assert reports[0] == reports[1]
    grounds = [v for name, v in reports[0] if name == "ground"]
    assert grounds and any(0.5 in v[:4] for v in grounds)


def test_the_fast_path_on_a_ground_obeys_the_strict_float_contract() -> None:
    from helpers import strict_float_lint
    from skidpad.engine.fourwheel import fastpath

    sim = DriveSession("openWheeler").sim
    assert sim.ground is not None
    text = fastpath.source(sim)
    assert "ground_factors(x, y, heading_c, heading_s)" in text
    assert strict_float_lint().lint_source(text, "<fast path on a ground>") == []


def test_a_restored_snapshot_on_the_grass_goes_on_as_the_drive_did() -> None:
    keys = Keys(throttle=True, steer_amount=0.3)
    s = _run(_ground_with(RUNOFF), keys, 300)
    snap = s.sim.snapshot()
    for _ in range(200):
        s.sim.step(s.sim.inputs)
    other = _run(_ground_with(RUNOFF), keys, 1)
    other.sim.restore(snap)
    for _ in range(200):
        other.sim.step(s.sim.inputs)
    assert other.sim.state_hash() == s.sim.state_hash()


@pytest.mark.parametrize(
    "block, words",
    [
        (None, "exactly track and runoff"),
        ({"track": {}}, "exactly track and runoff"),
        ({"track": {"name": "a", "friction": 1}, "runoff": {}}, "needs exactly name"),
        (
            {
                "track": {"name": "a", "friction": "1", "rolling_resistance": 1},
                "runoff": {"name": "b", "friction": 1, "rolling_resistance": 1},
            },
            "surfaces.track.friction: a number",
        ),
        (
            {
                "track": {"name": "a", "friction": 1, "rolling_resistance": 1},
                "runoff": {"name": "b", "friction": 0.0, "rolling_resistance": 1},
            },
            "surfaces.runoff.friction: must be > 0",
        ),
        (
            {
                "track": {"name": "a", "friction": 1, "rolling_resistance": 1},
                "runoff": {"name": "b", "friction": 1, "rolling_resistance": float("nan")},
            },
            "rolling_resistance: must be >= 0",
        ),
        (
            {
                "track": {"name": "a", "friction": 1, "rolling_resistance": -0.1},
                "runoff": {"name": "b", "friction": 1, "rolling_resistance": 1},
            },
            "surfaces.track.rolling_resistance: must be >= 0 and <= 1",
        ),
        (
            {
                "track": {"name": "a b", "friction": 1, "rolling_resistance": 1},
                "runoff": {"name": "b", "friction": 1, "rolling_resistance": 1},
            },
            "surfaces.track.name",
        ),
        (
            {
                "track": {"name": "a", "friction": 1, "rolling_resistance": 1},
                "runoff": {"name": "a", "friction": 1, "rolling_resistance": 1},
            },
            "different names",
        ),
    ],
)
def test_a_bad_surfaces_block_is_named_in_one_line(block: object, words: str) -> None:
    with pytest.raises(GroundError) as info:
        parse_surfaces(block, "sandbox")
    message = str(info.value)
    assert words in message and "\n" not in message and message.startswith("sandbox")


def test_the_sandbox_file_is_what_the_circuit_reads() -> None:
    from skidpad.engine.track import TRACK_DIR

    doc = json.loads((TRACK_DIR / "sandbox.json").read_text())
    assert parse_surfaces(doc["surfaces"], "sandbox") == CIRCUIT.surfaces
    assert CELL_M > 2 * EDGE_SLACK_M


HISTORY = Path(__file__).resolve().parents[1] / "recordings" / "history"
GRASS_LAP_8 = HISTORY / "physics-8-hatchbackFwd-grass.json"


def test_a_physics_8_drive_onto_the_grass_verifies_under_8_and_parts_from_9_on_the_grass(
    capsys,
) -> None:
    """Recorded by physics 8's sandbox session (the page's code): steered off the start
    straight onto the grass. It verifies under its own physics, from the archive; physics 9,
    which made the grass physics, gives the same checkpoints while the wheels are on the
    asphalt and parts from them once they reach the grass. (Physics 10 parts earlier: its
    launch from rest moves, ADR 0255.)"""
    from skidpad.cli import main
    from skidpad.replay.recording import load
    from skidpad.replay.replayer import replay

    assert main(["verify", str(GRASS_LAP_8)]) == 0
    assert "VERIFIED (physics 8, stamped)" in capsys.readouterr().out
    rec = load(GRASS_LAP_8)
    assert main(["verify", "--physics", "9", "--json", str(GRASS_LAP_8)]) == 1
    (row,) = json.loads(capsys.readouterr().out)["recordings"]
    first = re.search(r"/claims/checkpoints/(\d+) claims", row["problems"][0])
    assert first, row["problems"]
    moved = [rec.checkpoints[int(first.group(1))][0]]
    assert moved[0] > 0
    # the first checkpoint that moves is the first after a wheel reached the grass (the
    # poses from today's replay: it parts from physics 9 by a launch's damper forces only)
    ground = drive_ground("sandbox", rec.definition, 1.0)
    ticks = []

    def observe(tick: int, x: float, y: float, c: float, s: float) -> None:
        if not ticks and any(w.name == "grass" for w in ground.surfaces(x, y, c, s)):
            ticks.append(tick)

    replay(rec, observer=observe)
    first_step_on_grass = (ticks[0] - 1) // (rec.substep_hz // rec.host_hz)
    assert moved[0] - 100 <= first_step_on_grass < moved[0]
