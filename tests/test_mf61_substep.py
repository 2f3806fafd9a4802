"""The Magic Formula 6.1 tire in the four-wheel substep (ADR 0261): each mechanism is toggled
and the move it causes measured, and the tire's place in the definition is checked: embedded,
hashed, refused in one line when bad."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import definition as defs
from skidpad.engine.fourwheel import tir, tire
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.scenarios.validation.straight_line import V100, drive_start_inputs, make_inputs

from tests.helpers import BAD_TIR_EDITS, ROOT, TIR

PRESET = "hatchbackMf61"


def coast(d: dict, seconds: float = 3.0) -> Simulation:
    """Coast straight, hands off the wheel, from 20 m/s (readable path: a test may replace a
    function of the tire module, which the fast path would have inlined already)."""
    sim = Simulation(d, host_hz=100, initial={"speed_mps": 20.0}, path="readable")
    values = drive_start_inputs()
    inputs = make_inputs(values)
    for _ in range(int(seconds * 100)):
        sim.step(inputs)
    return sim


def roll_back_after_a_locked_stop(d: dict) -> float:
    """How far (m) the car moves backwards after a locked-wheel stop from 100 km/h."""
    sim = Simulation(d, host_hz=100, initial={"speed_mps": V100}, path="readable")
    values = drive_start_inputs()
    values["brake"] = 1.0
    inputs = make_inputs(values)
    stopped_at = None
    least = None
    for _ in range(600):
        tel = sim.step(inputs)
        if stopped_at is None and tel.speed < 0.05 and tel.vx >= 0.0:
            stopped_at = tel.x
        if stopped_at is not None:
            least = tel.x if least is None else min(least, tel.x)
    assert stopped_at is not None
    return stopped_at - least


def test_mirroring_by_side_cancels_ply_steer_and_conicity(monkeypatch: pytest.MonkeyPatch) -> None:
    d = defs.load_preset(PRESET)
    straight = coast(d)
    # every tire as the file's, unmirrored: the file's lateral offsets (PVY1 = 3 % of the
    # load) all push one way and the car pulls
    monkeypatch.setattr(tire, "mirrored", lambda p, y: False)
    pulled = coast(d)
    assert abs(straight.telemetry().y) < 0.02
    assert abs(pulled.telemetry().y) > 10 * max(abs(straight.telemetry().y), 0.01)


def test_the_transient_gain_keeps_the_roll_back_to_the_carcass_deflection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = defs.load_preset(PRESET)
    with_gain = roll_back_after_a_locked_stop(d)
    monkeypatch.setattr(tire, "transient_gain", lambda c, e, rho: 1.0)
    without = roll_back_after_a_locked_stop(d)
    # σ·(sliding slip)/Bx = 0.57 m · 3/11 ≈ 15 cm stored without the gain; the carcass's
    # deflection at the friction limit, D/(Kxκ/σ) ≈ 3 cm, with it
    assert without > 0.10
    assert with_gain < 0.05
    assert without > 3.0 * with_gain


def test_the_gain_is_one_at_zero_slip_and_grows_to_the_floor_past_the_peak() -> None:
    p = tir.read_tir(TIR)
    c, e = p.PCY1, p.PEY1
    assert tire.transient_gain(c, e, 0.0) == 1.0
    values = [tire.transient_gain(c, e, r / 10.0) for r in range(0, 40)]
    assert all(b >= a for a, b in zip(values, values[1:], strict=False))
    assert values[-1] >= 1.0 / tire.GAIN_FLOOR


def test_the_preset_embeds_its_file_and_the_hash_covers_the_parameters() -> None:
    d = defs.load_preset(PRESET)
    embedded = d["tires"]["front"]["mf61"]
    assert embedded == tir.to_mapping(tir.read_tir(TIR))
    raw = json.loads((ROOT / "engine/fourwheel/presets" / f"{PRESET}.json").read_text())
    assert "tir" in raw["tires"]["front"] and "mf61" not in raw["tires"]["front"]
    changed = copy.deepcopy(d)
    changed["tires"]["rear"]["mf61"]["PDY1"] = embedded["PDY1"] * 1.01
    assert defs.definition_hash(changed) != defs.definition_hash(d)
    # the normalised definition is a fixed point (what a recording embeds is what it hashes)
    assert defs.validate_definition(copy.deepcopy(d)) == d


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda m: m.pop("FNOMIN"), "FNOMIN"),
        (lambda m: m.update(PKY1="x"), "PKY1: must be a number"),
        (lambda m: m.update(PHY3=0.1), "'PHY3' is not an MF 6.1 parameter"),
        (lambda m: m.update(PCY1=2.5), "mf61.PCY1"),
    ],
)
def test_a_bad_embedded_tire_is_refused_in_one_line(change: object, words: str) -> None:
    d = copy.deepcopy(defs.load_preset(PRESET))
    change(d["tires"]["front"]["mf61"])
    with pytest.raises(DefinitionError) as got:
        defs.validate_definition(d)
    assert words in str(got.value) and "\n" not in str(got.value)


def test_the_sliding_slip_must_lie_past_the_files_force_peak() -> None:
    d = copy.deepcopy(defs.load_preset(PRESET))
    d["tires"]["rear"]["sliding_slip"] = 1.5  # the peak of C = 1.4675, E ≈ 0 is ρ ≈ 1.8
    with pytest.raises(DefinitionError, match="tires.rear.sliding_slip"):
        defs.validate_definition(d)


def test_with_tir_keeps_each_axles_wheel_and_replaces_the_force_law() -> None:
    base = defs.load_preset("sportsRwd")
    got = defs.with_tir(base, tir.to_mapping(tir.read_tir(TIR)))
    for axle in ("front", "rear"):
        t = got["tires"][axle]
        assert set(t) == {*defs._MF61_TIRE_SCHEMA, "mf61"}
        assert t["radius_m"] == base["tires"][axle]["radius_m"]
    assert got["mass"] == base["mass"]


@pytest.mark.parametrize(("edit", "words"), BAD_TIR_EDITS)
def test_validate_refuses_a_bad_tir_in_one_line_before_any_work(
    tmp_path: Path, edit: object, words: str
) -> None:
    bad = tmp_path / "bad.tir"
    bad.write_text(edit(TIR.read_text(encoding="utf-8")), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", "validate", "--tir", str(bad), "--preset", "kart"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in proc.stderr


def test_validate_with_a_tir_goes_with_neither_bless_nor_docs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", "validate", "--tir", str(TIR), "--bless"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "--tir" in proc.stderr
