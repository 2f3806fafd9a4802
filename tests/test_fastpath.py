"""The fast path (engine/fastpath.py) gives the readable stages' bits: every committed
four-wheel recording (a part of each) and a set of random drives, through both paths in
lockstep, agree on the whole state and the derived values at every host step and on the
state hash every second; a one-ulp change planted in any one stage of the generated code
is caught; the generated text obeys the strict-float contract."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from helpers import strict_float_lint

from engine import fastpath
from engine.definition import PRESET_NAMES, load_preset
from engine.floatbits import float_bits
from engine.simulation import STAGES, Simulation
from engine.state import NonFiniteStateError
from engine.vehicle_layout import I_YAW
from replay import recording
from replay.fourwheel import build_simulation
from scenarios.random_drive import RandomDriver

ROOT = Path(__file__).resolve().parents[1]
lint = strict_float_lint()

SCRIPTED = sorted(ROOT.glob("recordings/*-scripted.json"))
LAPS = sorted(ROOT.glob("recordings/*-lap.json"))
# The first 20 s of each scripted recording (its manoeuvres) and 5 s of each lap: the whole
# files take minutes on the readable path; the blessed hashes of the whole files are checked
# on the fast path by tests/test_replay_determinism.py.
SCRIPTED_STEPS = 2000
LAP_STEPS = 500
ASSISTS_ON = (0, 1, 1, 1, 1)


def bits(values: list) -> list:
    return [float_bits(v) if isinstance(v, float) else v for v in values]


def first_mismatch(fast: Simulation, slow: Simulation, frames: list, every: int = 50) -> str:
    """Step both simulations through ``frames``; the first host step where they part ('' if
    none): state and derived values bit for bit each step, the state hash every ``every``."""
    assert fast.path == "fast" and slow.path == "readable"
    for k, values in enumerate(frames):
        fast.step(values)
        slow.step(values)
        if bits(fast.state) != bits(slow.state):
            return f"state at host step {k}"
        if bits(fast.derived.flat()) != bits(slow.derived.flat()):
            return f"derived values at host step {k}"
        if k % every == every - 1 and fast.state_hash() != slow.state_hash():
            return f"state hash at host step {k}"
    if fast.telemetry() != slow.telemetry():
        return "telemetry at the end"
    return ""


def both_paths(rec: recording.Recording) -> tuple[Simulation, Simulation]:
    fast = build_simulation(rec)
    slow = Simulation(
        fast.definition,
        substep_hz=rec.substep_hz,
        host_hz=rec.host_hz,
        initial=rec.initial or None,
        path="readable",
    )
    return fast, slow


@pytest.mark.parametrize("path", SCRIPTED + LAPS, ids=lambda p: p.stem)
def test_recordings_agree_on_both_paths(path: Path) -> None:
    rec = recording.load(path)
    frames = list(rec.inputs())[: LAP_STEPS if path in LAPS else SCRIPTED_STEPS]
    fast, slow = both_paths(rec)
    assert first_mismatch(fast, slow, frames, every=rec.host_hz) == ""


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_drives_agree_on_both_paths(preset: str) -> None:
    seed = 1000 + PRESET_NAMES.index(preset)
    driver = RandomDriver(seed, 100, 8.0)
    channels = ("throttle", "brake", "steer", "handbrake")
    # assists on, and a gear request pulse now and then (the manual boxes shift on its edge)
    frames = []
    for k in range(driver.max_steps()):
        v = driver.inputs(k)
        req = 1 if k % 150 == 0 else (2 if k % 150 == 75 else 0)
        frames.append(tuple(v.get(c, 0.0) for c in channels) + (req,) + ASSISTS_ON[1:])
    d = load_preset(preset)
    initial = {"speed_mps": 5.0 + 3.0 * PRESET_NAMES.index(preset), "surface": "wet"}
    fast = Simulation(d, initial=initial)
    slow = Simulation(d, initial=initial, path="readable")
    assert first_mismatch(fast, slow, frames) == ""


def test_a_probed_step_runs_the_readable_stages() -> None:
    class Names:
        def __init__(self) -> None:
            self.names: list = []

        def stage(self, name: str, values: tuple) -> None:
            self.names.append(name)

        def substep(self, tick: int, state: list) -> None:
            pass

    sim = Simulation(load_preset("kart"), initial={"speed_mps": 10.0})
    probe = Names()
    sim.step((0.5, 0.0, 0.2, 0.0), probe)
    n = sim.substeps_in(0)
    assert probe.names == [s.name for s in STAGES] * n


# --------------------------------------------------------------- planted differences
def plant(text: str, target: str) -> str:
    """``text`` with the first assignment ``target = RHS`` (or ``target *= RHS``) made one
    ulp larger."""
    pat = re.compile(rf"^(?P<pad> *){re.escape(target)} (?P<op>\*?=) (?P<rhs>.+)$", re.M)
    # the first computed value: not the chained ``a = b = ... = None`` that binds the hot
    # locals first at the top of ``run`` (which names come first depends on the preset)
    m = next((m for m in pat.finditer(text) if not m["rhs"].endswith("= None")), None)
    assert m, target
    rhs = m["rhs"] if m["op"] == "=" else f"{target} * ({m['rhs']})"
    line = f"{m['pad']}{target} = nextafter({rhs}, inf)"
    return text[: m.start()] + line + text[m.end() :]


# One line of each stage of the generated substep (the stage names of STAGES).
PLANTS = {
    "steering": "c0",
    "load_transfer": "base_f",
    "tire_forces": "v_x0",
    "assists": "cap0",
    "drivetrain": "theta_n",
    "wheel_solve": "uxn0",
    "body_integration": "dr",
}


def test_every_stage_has_a_plant() -> None:
    assert sorted(PLANTS) == sorted(s.name for s in STAGES)


@pytest.mark.parametrize("stage", sorted(PLANTS))
def test_a_one_ulp_difference_in_one_stage_is_caught(stage: str) -> None:
    d = load_preset("hatchbackFwd")
    fast = Simulation(d, initial={"speed_mps": 12.0})
    slow = Simulation(d, initial={"speed_mps": 12.0}, path="readable")
    text = plant(fastpath.source(fast), PLANTS[stage])
    fast.fast_run = fastpath.build(fast, text, {"nextafter": math.nextafter, "inf": math.inf})
    frames = [(0.4, 0.2 if k >= 20 else 0.0, 0.1, 0.0, 0) + ASSISTS_ON[1:] for k in range(40)]
    assert first_mismatch(fast, slow, frames) != ""


# --------------------------------------------------------------- the generated text
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_generated_text_obeys_the_strict_float_contract(preset: str) -> None:
    sim = Simulation(load_preset(preset), initial={"speed_mps": 3.0, "grade": 0.1})
    text = fastpath.source(sim)
    assert lint.lint_source(text, f"<fast path of {preset}>") == []
    # nothing but numbers comes from the definition: its strings are not in the text
    assert preset not in text
    for word in re.findall(r"[A-Za-z_]\w*", text):
        assert not word.startswith("__"), word


def test_only_numbers_are_folded() -> None:
    assert fastpath.num(-0.5) == "(-0.5)" and float(fastpath.num(0.1)) == 0.1
    for bad in ("1.0", True, None, (1.0,)):
        with pytest.raises(TypeError):
            fastpath.num(bad)
    with pytest.raises(fastpath.Unfoldable):
        fastpath.num(math.inf)


def test_a_definition_with_a_constant_that_has_no_literal_runs_the_stages(monkeypatch) -> None:
    # the definition's upper bounds keep every folded constant finite; a constant that still
    # had no literal (inf) is refused by the folding, and the simulation then runs the stages
    with pytest.raises(fastpath.Unfoldable):
        fastpath.num(1e300 * 1e300)
    d = load_preset("sportsRwd")

    def unfoldable(sim):
        return fastpath.num(float("inf"))

    monkeypatch.setattr(fastpath, "build", unfoldable)
    fast = Simulation(d, initial={"speed_mps": 10.0})
    slow = Simulation(d, initial={"speed_mps": 10.0}, path="readable")
    frames = [(0.3, 0.0, 0.05, 0.0)] * 20
    assert first_mismatch(fast, slow, frames) == ""
    assert fast.fast_run is not None and fast.fast_run.__name__ == "_run_stages"


def test_a_non_finite_value_is_named_at_its_substep_on_the_fast_path() -> None:
    sim = Simulation(load_preset("kart"), initial={"speed_mps": 5.0})
    sim.step((0.2, 0.0, 0.0, 0.0))
    pat = re.compile(r"^(?P<pad> *)dr = (?P<rhs>.+)$", re.M)
    text = pat.sub(r"\g<pad>dr = (\g<rhs>) if tick < 14 else nan", fastpath.source(sim), 1)
    sim.fast_run = fastpath.build(sim, text, {"nan": math.nan})
    with pytest.raises(NonFiniteStateError) as err:
        sim.step((0.2, 0.0, 0.0, 0.0))
    assert err.value.where == "tick 15"  # the fifth substep of host step 1
    assert err.value.field == "body.x"  # the first bad field in layout order
    assert sim.tick == 15 and not math.isfinite(sim.state[I_YAW])
