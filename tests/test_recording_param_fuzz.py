"""Every embedded parameter of a recording, set to an extreme, replays or is refused by name.

A recording embeds the numbers it replays with: a CommonRoad recording its
daemon's parameters (ADR 0090), a four-wheel recording its vehicle definition.
The embedded hash is no protection against an edit, since anyone can recompute
it. So for every numeric leaf, set to 0, -1 and 1e300 with the hash recomputed,
loading and replaying the first host steps must either work or raise a
RecordingError (a :class:`SkidpadError`) whose one line names the parameter;
NaN written into the JSON text is refused by the parser. Anything else (a
ZeroDivisionError, a math domain error, a ``NonFiniteStateError`` from a NaN
state) is a bug, and the fix is a valid range for the parameter
(``engine/commonroad/params.py``, ``powertrain.py``, ``safety.py``;
``engine/fourwheel/definition.py``), not a broad ``except``.

CommonRoad: every model's recording is edited, because each model divides by
other parameters (KS uses few, MB nearly all). The test command edits each leaf with
each value in one model, the models taken in turn, so each model meets every value
across the leaves (a stated sample, a quarter of the replays); ``nox -s campaigns``
edits every leaf with every value in every model. KS and ST replay their first 50
host steps; STD and MB (10x slower per step) replay 10, about 170 substeps, past
the substep where every NaN seen before the ranges existed had appeared.
Four-wheel: every leaf of ``sportsRwd-scripted.json``'s definition, and those of
the electric power unit, which only ``crossoverEv-scripted.json`` has.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from skidpad.engine.commonroad import params, powertrain, safety
from skidpad.engine.errors import DefinitionError, SkidpadError
from skidpad.engine.fourwheel.definition import definition_hash
from skidpad.replay import recording
from skidpad.replay.commonroad import parameters_hash
from skidpad.replay.recording import RecordingError
from skidpad.replay.replayer import replay

from tests.helpers import FULL_CAMPAIGNS, cut_recording

ROOT = Path(__file__).resolve().parents[1]
VALUES = (0.0, -1.0, 1e300)
#: host steps replayed per CommonRoad model (STD and MB cost about 10x ST per step)
CR_STEPS = {"ks": 50, "st": 50, "std": 10, "mb": 10}
FOUR_WHEEL_STEPS = 50


@cache
def base_text(name: str, steps: int) -> str:
    """``recordings/<name>.json`` cut to its first ``steps`` host steps, as text."""
    doc = cut_recording(name, steps)
    if "claims" in doc:  # version 2: the cut drive claims nothing
        doc["claims"].update(final_hash=None, checkpoints=[], laps=None)
    else:
        doc["final_hash"] = None
    return json.dumps(doc)


def numeric_leaves(v: object, path: tuple = ()) -> list[tuple]:
    """The paths of every number (not a boolean) inside ``v``."""
    if isinstance(v, dict):
        return [p for k, x in v.items() for p in numeric_leaves(x, (*path, k))]
    if isinstance(v, list):
        return [p for i, x in enumerate(v) for p in numeric_leaves(x, (*path, i))]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return [path]
    return []


def edited(text: str, key: str, leaf: tuple, value: float, rehash: Callable) -> dict:
    """The document ``text`` with ``doc[key]`` at ``leaf`` set to ``value``, then ``rehash``ed."""
    doc = json.loads(text)
    target = doc[key]
    for k in leaf[:-1]:
        target = target[k]
    target[leaf[-1]] = value
    rehash(doc)
    return doc


def leaf_name(leaf: tuple) -> str:
    """What a message must name: the last key (a threshold pair's metric, not its index)."""
    return next(k for k in reversed(leaf) if isinstance(k, str))


#: Cross-parameter rules of ``engine/fourwheel/definition.py`` whose message names the rule (and
#: another parameter of it) rather than the parameter edited here.
NAMED_BY_RULE = {
    "unsprung_rear_kg": "unsprung mass",
    "ratios": "ratio step",
    "travel_m": "zero travel",  # a kinematics table is 0 where the travel is
}


def check_replays_or_is_refused(doc: dict, leaf: tuple, case: str) -> None:
    """Load and replay ``doc``: it runs, or a RecordingError names the parameter in one line."""
    try:
        replay(recording.loads(json.dumps(doc)))
    except SkidpadError as exc:
        message = str(exc)
        name = leaf_name(leaf)
        assert isinstance(exc, RecordingError), (case, message)
        assert "\n" not in message, (case, message)
        assert name in message or NAMED_BY_RULE.get(name, name) in message, (case, message)
    except Exception as exc:  # reported with the case, then it fails the test
        pytest.fail(f"{case}: {type(exc).__name__}: {exc}")


# ----------------------------------------------------------------------------- CommonRoad


def cr_text(model: str) -> str:
    return base_text(f"commonroad-{model}-v2", CR_STEPS[model])


def _rehash_parameters(doc: dict) -> None:
    doc["parameters_hash"] = parameters_hash(doc["parameters"])


def cr_edited(model: str, leaf: tuple, value: float) -> dict:
    """The model's recording with ``parameters`` at ``leaf`` set to ``value``, hash recomputed."""
    return edited(cr_text(model), "parameters", leaf, value, _rehash_parameters)


CR_LEAVES = numeric_leaves(json.loads(cr_text("ks"))["parameters"])


def test_every_model_embeds_the_same_parameter_leaves() -> None:
    # the leaves fuzzed below are those of every model's recording
    for model in CR_STEPS:
        assert numeric_leaves(json.loads(cr_text(model))["parameters"]) == CR_LEAVES, model
    assert len(CR_LEAVES) > 120


def cr_cases(index: int) -> list[tuple[str, float]]:
    """The (model, value) edits of the leaf at ``index`` in ``CR_LEAVES``: every pair in the
    full campaign; in the test command value ``j`` in model ``(index + j) mod 4``."""
    models = list(CR_STEPS)
    if FULL_CAMPAIGNS:
        return [(model, value) for model in models for value in VALUES]
    return [(models[(index + j) % len(models)], value) for j, value in enumerate(VALUES)]


@pytest.mark.parametrize(
    ("index", "leaf"), list(enumerate(CR_LEAVES)), ids=["/".join(map(str, p)) for p in CR_LEAVES]
)
def test_commonroad_extreme_value_replays_or_is_refused_by_name(index, leaf) -> None:
    for model, value in cr_cases(index):
        doc = cr_edited(model, leaf, value)
        check_replays_or_is_refused(doc, leaf, f"{model} {leaf} = {value!r}")
    nan = json.dumps(edited(cr_text("ks"), "parameters", leaf, math.nan, lambda d: None))
    with pytest.raises(RecordingError, match="NaN is not allowed"):
        recording.loads(nan)


def test_the_sample_meets_every_model_with_every_value() -> None:
    met = {pair for index in range(len(CR_LEAVES)) for pair in cr_cases(index)}
    assert met == {(model, value) for model in CR_STEPS for value in VALUES}
    if not FULL_CAMPAIGNS:  # a leaf is edited in three of the four models, one value each
        assert all(len({m for m, _ in cr_cases(i)}) == 3 for i in range(len(CR_LEAVES)))


# the colleague's fuzzing found these dividing by zero (ZeroDivisionError) on load
ZERO_DIVISORS = [
    (("vehicle", "m"), "/parameters/vehicle: vehicle parameter m must be > 0, not 0.0"),
    (("vehicle", "R_w"), "/parameters/vehicle: vehicle parameter R_w must be > 0, not 0.0"),
    (
        ("vehicle", "tire", "p_dy1"),
        "/parameters/vehicle: vehicle parameter tire/p_dy1 must be > 0, not 0.0",
    ),
    (
        ("powertrain", "regen_fade_speed"),
        "/parameters/powertrain: powertrain parameter regen_fade_speed must be > 0, not 0.0",
    ),
]


@pytest.mark.parametrize(("leaf", "message"), ZERO_DIVISORS, ids=[m[0][-1] for m in ZERO_DIVISORS])
def test_zero_divisor_is_a_recording_error_naming_it(leaf, message) -> None:
    for model in CR_STEPS:
        with pytest.raises(RecordingError) as info:
            recording.loads(json.dumps(cr_edited(model, leaf, 0.0)))
        assert str(info.value) == message


def test_cli_reports_a_zero_divisor_in_one_line(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(cr_edited("st", ("vehicle", "tire", "p_dy1"), 0.0)), "utf-8")
    argv = ["replay", str(bad), "--trace", "-o", str(tmp_path / "t.json")]
    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", *argv, "--hashes", str(tmp_path / "h")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].endswith("vehicle parameter tire/p_dy1 must be > 0, not 0.0"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]  # nothing written


def _numeric_fields(cls: type, prefix: str = "") -> list[str]:
    out = []
    for f in dataclasses.fields(cls):
        if f.name in params.BLOCKS:
            out += _numeric_fields(params.BLOCKS[f.name], f"{prefix}{f.name}/")
        elif f.type not in ("int", "str"):
            out.append(prefix + f.name)
    return out


def test_every_commonroad_parameter_has_a_range() -> None:
    assert sorted(params.VEHICLE_RANGES) == sorted(_numeric_fields(params.VehicleParams))
    pt_fields = _numeric_fields(powertrain.PowertrainParams)
    assert sorted(powertrain.POWERTRAIN_RANGES) == sorted(pt_fields)
    assert sorted(safety.STAGING_RANGES) == sorted(_numeric_fields(safety.Staging))


def test_the_data_files_lie_inside_the_ranges() -> None:
    for vid in params.VEHICLES:
        params.load_vehicle(vid)
        powertrain.load_powertrain(vid)
    for model in CR_STEPS:
        safety.load_safety(model)


def test_cross_conditions_are_named() -> None:
    data = params.vehicle_data(2)
    data["I_xz_s"] = 1.01 * math.sqrt(data["I_z"] * data["I_Phi_s"])
    with pytest.raises(SkidpadError, match="vehicle parameter I_xz_s must satisfy"):
        params.build_vehicle_params(data)
    data = params.vehicle_data(2)
    data["h_s"] = 9.81 * data["a"] / data["longitudinal"]["a_max"]  # the rear axle unloads
    with pytest.raises(SkidpadError, match="vehicle parameter h_s must satisfy .* rear axle"):
        params.build_vehicle_params(data)
    with pytest.raises(SkidpadError, match="powertrain parameter soc_min must be < soc_max"):
        powertrain.load_powertrain(2, {"soc_min": 0.9, "soc_max": 0.9})
    with pytest.raises(SkidpadError, match="staging/engage_severity must be < staging/emergency"):
        safety.load_safety("st", {"engage_severity": 1.0})


# ----------------------------------------------------------------------------- four-wheel


def fw_text(name: str) -> str:
    return base_text(name, FOUR_WHEEL_STEPS)


def _rehash_definition(doc: dict) -> None:
    # the loader checks the definition before its hash: an invalid one keeps the old hash
    try:
        doc["definition_hash"] = definition_hash(doc["definition"])
    except DefinitionError:
        pass


def fw_edited(name: str, leaf: tuple, value: float) -> dict:
    """The recording with its definition at ``leaf`` set to ``value``, hash recomputed."""
    return edited(fw_text(name), "definition", leaf, value, _rehash_definition)


def _definition_leaves(name: str) -> list[tuple]:
    return numeric_leaves(json.loads(fw_text(name))["definition"])


#: (recording, leaf): every leaf of sportsRwd, and the leaves only crossoverEv has
FW_CASES = [("sportsRwd-scripted", leaf) for leaf in _definition_leaves("sportsRwd-scripted")]
FW_CASES += [
    ("crossoverEv-scripted", leaf)
    for leaf in _definition_leaves("crossoverEv-scripted")
    if ("sportsRwd-scripted", leaf) not in FW_CASES
]


@pytest.mark.parametrize(
    ("name", "leaf"),
    FW_CASES,
    ids=[f"{n.split('-')[0]}:{'/'.join(map(str, p))}" for n, p in FW_CASES],
)
def test_definition_extreme_value_replays_or_is_refused_by_name(name, leaf) -> None:
    for value in VALUES:
        doc = fw_edited(name, leaf, value)
        check_replays_or_is_refused(doc, leaf, f"{name} {leaf} = {value!r}")
    nan = json.dumps(edited(fw_text(name), "definition", leaf, math.nan, lambda d: None))
    with pytest.raises(RecordingError, match="NaN is not allowed"):
        recording.loads(nan)


@pytest.mark.parametrize(
    ("leaf", "bound"),
    [
        (("mass", "total_kg"), "<= 100000"),
        (("geometry", "wheelbase_m"), "<= 20"),
        (("geometry", "track_front_m"), "<= 10"),
        (("geometry", "track_rear_m"), "<= 10"),
    ],
)
def test_overflowing_sizes_are_refused(leaf, bound) -> None:
    # 1e300 here turned the first substep's state NaN before these had upper bounds
    with pytest.raises(RecordingError) as info:
        recording.loads(json.dumps(fw_edited("sportsRwd-scripted", leaf, 1e300)))
    assert str(info.value) == (
        f"/definition: invalid vehicle definition: {'.'.join(leaf)}: must be {bound}, got 1e+300"
    )
