"""Vehicle definitions and inputs: presets, validation errors naming the parameter, the hash."""

from __future__ import annotations

import copy
import json

import pytest
from helpers import without_kc
from skidpad.engine.errors import DefinitionError, InputError, SkidpadError
from skidpad.engine.fourwheel import inputs
from skidpad.engine.fourwheel.definition import (
    PRESET_NAMES,
    SCHEMA,
    canonical_json,
    definition_hash,
    load_preset,
    validate_definition,
)
from skidpad.engine.fourwheel.simulation import LAYOUT, Simulation


def test_seven_presets_load_and_validate() -> None:
    assert PRESET_NAMES == (
        "hatchbackFwd",
        "sportsRwd",
        "kart",
        "pickup4x4",
        "crossoverEv",
        "openWheeler",
        "hatchbackMf61",
    )
    hashes = set()
    for name in PRESET_NAMES:
        d = load_preset(name)
        assert d["name"] == name
        assert validate_definition(d) == d  # normalised form is a fixed point
        hashes.add(definition_hash(d))
    assert len(hashes) == len(PRESET_NAMES)


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(DefinitionError, match="unknown preset 'van'.*hatchbackFwd.*openWheeler"):
        load_preset("van")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("tires", "front", "mu_x"), 0.0, r"^tires\.front\.mu_x: must be > 0"),
        (("tires", "rear", "mu_y"), -1.0, r"^tires\.rear\.mu_y: must be > 0"),
        (("mass", "total_kg"), "heavy", r"^mass\.total_kg: must be a number, not str"),
        (("mass", "total_kg"), True, r"^mass\.total_kg: must be a number, not bool"),
        (("brakes", "front_bias"), 1.5, r"^brakes\.front_bias: must be <= 1"),
        (("geometry", "wheelbase_m"), float("nan"), r"^geometry\.wheelbase_m: must be finite"),
        (("mass", "cog_to_front_axle_m"), 9.0, r"^mass\.cog_to_front_axle_m: must be < geometry"),
        (("tires", "front", "sliding_slip"), 0.5, r"^tires\.front\.sliding_slip: must lie past"),
        (("suspension", "front", "roll_centre_height_m"), 2.0, r"^suspension\.front\.roll_centre"),
        (("substep_hz",), 10, r"^substep_hz: must be between"),
    ],
)
def test_bad_parameter_is_named(path: tuple, value: object, message: str) -> None:
    d = load_preset("hatchbackFwd")
    node = d
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(DefinitionError, match=message):
        validate_definition(d)


def test_missing_and_unknown_parameters_are_named() -> None:
    d = load_preset("sportsRwd")
    del d["steering"]["toe_front_deg"]
    with pytest.raises(DefinitionError, match=r"^steering\.toe_front_deg: is missing$"):
        validate_definition(d)
    d = load_preset("sportsRwd")
    d["aero"]["drag_coef"] = 0.3
    with pytest.raises(DefinitionError, match=r"^aero\.drag_coef: unknown parameter$"):
        validate_definition(d)
    d = load_preset("sportsRwd")
    del d["brakes"]
    with pytest.raises(DefinitionError, match=r"^brakes: is missing$"):
        validate_definition(d)
    with pytest.raises(DefinitionError, match=r"^name: must be a non-empty string$"):
        validate_definition({})


def test_schema_covers_every_preset_parameter() -> None:
    def leaves(node: dict, prefix: str = "") -> list[str]:
        out = []
        for k, v in node.items():
            out += leaves(v, f"{prefix}{k}.") if isinstance(v, dict) else [prefix + k]
        return out

    # (the optional entries, which the schema's optional sections hold, taken out)
    raw = json.loads(canonical_json(without_kc("kart")))
    del raw["name"], raw["description"], raw["substep_hz"]
    del raw["drivetrain"], raw["assists"]  # structured blocks with their own validators
    assert sorted(leaves(raw)) == sorted(leaves(SCHEMA))


def test_definition_hash_is_canonical_and_sensitive() -> None:
    d = load_preset("pickup4x4")
    h = definition_hash(d)
    assert len(h) == 16 and int(h, 16) >= 0
    ints = copy.deepcopy(d)
    ints["mass"]["total_kg"] = int(d["mass"]["total_kg"])  # 2150 and 2150.0 hash alike
    assert definition_hash(ints) == h
    reordered = json.loads(json.dumps(d, sort_keys=False))
    reordered = dict(reversed(list(reordered.items())))
    assert definition_hash(reordered) == h
    changed = copy.deepcopy(d)
    changed["tires"]["rear"]["mu_x"] = d["tires"]["rear"]["mu_x"] + 1e-12
    assert definition_hash(changed) != h


def test_simulation_rejects_bad_definition_and_initial_conditions() -> None:
    d = load_preset("kart")
    d["aero"]["drag_area_m2"] = -1.0
    with pytest.raises(DefinitionError, match=r"^aero\.drag_area_m2: must be >= 0"):
        Simulation(d)
    with pytest.raises(DefinitionError, match=r"^initial\.surface: unknown surface 'mud'"):
        Simulation(load_preset("kart"), initial={"surface": "mud"})
    with pytest.raises(DefinitionError, match=r"^initial\.speed: unknown initial condition"):
        Simulation(load_preset("kart"), initial={"speed": 3.0})
    with pytest.raises(SkidpadError, match="host_hz"):
        Simulation(load_preset("kart"), host_hz=0)


def test_input_channels_and_validation() -> None:
    assert [c.name for c in inputs.CHANNELS][:4] == ["throttle", "brake", "steer", "handbrake"]
    assert isinstance(inputs.INPUT_VERSION, int)
    assert inputs.validate_inputs([0.5, 0, -1, 1.0])[:4] == (0.5, 0.0, -1.0, 1.0)
    with pytest.raises(InputError, match="^input steer: 1.5 outside -1..1$"):
        inputs.validate_inputs([0.0, 0.0, 1.5, 0.0])
    with pytest.raises(InputError, match="^input brake: must be finite"):
        inputs.validate_inputs([0.0, float("inf"), 0.0, 0.0])
    with pytest.raises(InputError, match="^input throttle: must be a number"):
        inputs.validate_inputs(["full", 0.0, 0.0, 0.0])
    with pytest.raises(InputError, match="expected 4 to"):
        inputs.validate_inputs([0.0, 0.0])
    with pytest.raises(InputError, match="unknown input channel 'gear'"):
        inputs.inputs_from_mapping({"gear": 1})
    assert inputs.inputs_from_mapping({"steer": 0.25})[:4] == (0.0, 0.0, 0.25, 0.0)


def test_one_fixed_layout_for_every_preset() -> None:
    names = None
    for name in PRESET_NAMES:
        sim = Simulation(load_preset(name))
        assert sim.layout is LAYOUT
        names = names or sim.layout.names
        assert sim.layout.names == names
    for f in LAYOUT.fields:
        assert f.unit and f.doc, f.name
    for group in ("body", "suspension", "steer", "wheel", "tire", "drivetrain"):
        assert len(LAYOUT.group(group)) > 0
