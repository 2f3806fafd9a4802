"""The Simulation API: state hash, snapshot/restore, NaN detection, probe order, telemetry."""

from __future__ import annotations

import dataclasses
import json

import pytest
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.simulation import LAYOUT, Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_VX
from skidpad.engine.state import NonFiniteStateError

DRIVE = [(0.6, 0.0, 0.2, 0.0)] * 30 + [(0.0, 0.5, -0.3, 0.0)] * 30 + [(0.0, 0.0, 0.0, 1.0)] * 10


def run(sim: Simulation, frames: list) -> list[str]:
    return [(sim.step(f), sim.state_hash())[1] for f in frames]


def test_state_hash_changes_with_every_step_and_input() -> None:
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 10.0})
    h0 = sim.state_hash()
    hashes = run(sim, DRIVE)
    assert len(set(hashes + [h0])) == len(hashes) + 1
    other = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 10.0})
    frames = list(DRIVE)
    frames[40] = (0.0, 0.5, -0.3 + 1e-9, 0.0)  # one input differs by 1e-9
    other_hashes = run(other, frames)
    assert other_hashes[:40] == hashes[:40]
    assert other_hashes[40] != hashes[40]


def test_same_inputs_same_hash() -> None:
    a = Simulation(load_preset("crossoverEv"), initial={"speed_mps": 5.0})
    b = Simulation(load_preset("crossoverEv"), initial={"speed_mps": 5.0})
    assert run(a, DRIVE) == run(b, DRIVE)
    assert a.state_hash() == LAYOUT.hash(a.step_count, a.state)
    assert a.step_count == len(DRIVE) and a.tick == len(DRIVE) * 10


def test_snapshot_restore_is_exact_and_json_serialisable() -> None:
    a = Simulation(load_preset("hatchbackFwd"), initial={"speed_mps": 15.0})
    run(a, DRIVE[:35])
    snap = json.loads(json.dumps(a.snapshot()))
    tel_a = a.telemetry()
    rest_a = run(a, DRIVE[35:])
    b = Simulation(load_preset("hatchbackFwd"), initial={"speed_mps": 15.0})
    b.restore(snap)
    assert b.telemetry() == tel_a
    assert run(b, DRIVE[35:]) == rest_a
    bad = dict(snap)
    bad["state"] = list(snap["state"])
    bad["state"][3] = float("nan")
    with pytest.raises(Exception, match="body.heading_c"):
        b.restore(bad)


def test_nan_raises_at_the_substep_naming_the_field() -> None:
    sim = Simulation(load_preset("kart"), initial={"speed_mps": 5.0}, path="readable")
    run(sim, DRIVE[:3])
    # A NaN arising inside a substep: a wheel inertia of inf makes the wheel solve
    # produce NaN spin (inf/inf); it is caught at that very substep. (The fast path has
    # the constants folded into its code; tests/test_fastpath.py ties it to this path.)
    sim.wheels = (sim.wheels[0]._replace(a=float("inf")),) + sim.wheels[1:]
    with pytest.raises(NonFiniteStateError) as err:
        sim.step((0.0, 0.0, 0.0, 0.0))
    assert err.value.where == "tick 31"  # the first substep of host step 3
    assert err.value.field.startswith("body.")  # the first bad field in layout order
    # A value put in from outside is named before anything uses it.
    sim2 = Simulation(load_preset("kart"), initial={"speed_mps": 5.0})
    run(sim2, DRIVE[:2])
    sim2.state[I_VX] = float("nan")
    with pytest.raises(NonFiniteStateError, match="state field body.vx became nan") as err:
        sim2.step((0.0, 0.0, 0.0, 0.0))
    assert err.value.where == "the start of host step 2"


class Recorder:
    def __init__(self) -> None:
        self.events: list = []

    def stage(self, name: str, values: tuple) -> None:
        assert all(isinstance(v, float) for v in values)
        self.events.append(name)

    def substep(self, tick: int, state: list) -> None:
        self.events.append(("substep", tick))


def test_probe_sees_stages_in_fixed_order_and_costs_nothing_to_results() -> None:
    a = Simulation(load_preset("openWheeler"), initial={"speed_mps": 20.0})
    b = Simulation(load_preset("openWheeler"), initial={"speed_mps": 20.0})
    probe = Recorder()
    for f in DRIVE[:5]:
        a.step(f, probe)
        b.step(f)
    assert a.state_hash() == b.state_hash()
    order = [
        "ground",
        "kinematics",
        "steering",
        "load_transfer",
        "tire_forces",
        "assists",
        "drivetrain",
        "wheel_solve",
        "steering_compliance",
        "body_integration",
        "suspension",
    ]
    assert probe.events[: len(order) + 1] == order + [("substep", 1)]
    assert len(probe.events) == 50 * (len(order) + 1)
    assert probe.events[-1] == ("substep", 50)


def test_telemetry_is_a_read_only_snapshot() -> None:
    sim = Simulation(load_preset("pickup4x4"), initial={"speed_mps": 20.0})
    tel = sim.step((0.0, 1.0, 0.1, 0.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        tel.vx = 0.0
    assert len(tel.fz) == 4 and tel.speed > 0.0 and tel.time_s == 0.01
    assert all(b > 0.0 for b in tel.brake_torque)
    assert tel.ax < -3.0  # braking
    assert tel.slip_ratio[0] < 0.0  # braking slip
    before = tel.as_dict()
    sim.step((0.0, 1.0, 0.1, 0.0))
    assert tel.as_dict() == before


def test_step_telemetry_is_assembled_when_read_with_the_values_of_its_step() -> None:
    """``step`` returns its telemetry unassembled; read steps later (a restore and a
    direct state write in between), it is what ``telemetry()`` gave right after the step."""
    sim = Simulation(load_preset("sportsRwd"), initial={"speed_mps": 15.0})
    tel = sim.step((0.6, 0.0, 0.3, 0.0))
    assert tel.built is None  # nothing assembled for a caller that does not read it
    eager = sim.telemetry()
    snap = sim.snapshot()
    for _ in range(5):
        sim.step((0.0, 0.5, -0.2, 0.0))
    sim.restore(snap)
    sim.state[0] += 100.0
    assert tel.built is None
    assert tel == eager and eager == tel.resolve()
    assert tel.as_dict() == eager.as_dict()
    assert tel.x == eager.x and tel.slip_angle == eager.slip_angle and tel.step == 1
    assert tel.resolve() is tel.resolve()  # assembled once
    with pytest.raises(AttributeError):
        tel.no_such_field  # noqa: B018
