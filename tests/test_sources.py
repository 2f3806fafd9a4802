"""The ranges and sources a definition states for its values (engine/fourwheel/sources.py,
ADR 0270): every preset states one for each of its K&C and steering values, each value lies
in its range, and a bad entry is refused in one line naming it."""

from __future__ import annotations

import copy

import pytest
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import sources
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset, validate_definition


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_preset_states_a_range_and_a_source_for_each_kc_and_steering_value(preset):
    d = validate_definition(load_preset(preset))
    stated = d.get("sources", {})
    missing = [path for path in sources.sourced_paths(d) if path not in stated]
    assert not missing, missing
    for path, entry in stated.items():
        assert len(entry["source"]) > 20, path  # a source a reader can look up


def test_the_road_cars_have_every_mechanism_and_the_kart_a_rigid_steering():
    for preset in PRESET_NAMES:
        d = load_preset(preset)
        if preset == "kart":
            assert "system" not in d["steering"]
            assert "kinematics" not in d["suspension"]["front"]
            continue
        assert "system" in d["steering"], preset
        for axle in ("front", "rear"):
            assert "kinematics" in d["suspension"][axle], (preset, axle)
            assert "lateral_compliance_mm_per_kn" in d["suspension"][axle], (preset, axle)


def edited(edit) -> dict:
    d = copy.deepcopy(load_preset("hatchbackFwd"))
    edit(d)
    return d


def _set(path: str, value: object):
    def edit(d: dict) -> None:
        *head, last = path.split(".")
        node = d
        for part in head:
            node = node[part]
        node[last] = value

    return edit


RATIO = "steering.system.ratio"


def _source(field: str | None, value: object, key: str = RATIO):
    """An edit of the sources block's entry ``key`` (its ``field``, or the whole entry)."""

    def edit(d: dict) -> None:
        if field is None:
            d["sources"][key] = value
        else:
            d["sources"][key][field] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            _set(RATIO, 20.0),
            r"^steering\.system\.ratio: 20\.0 lies outside its stated range \[14\.0, 18\.0\]",
        ),
        (
            _set("suspension.front.kinematics.camber_gain.camber_rad", [0.002, -0.002]),
            r"camber_gain: -0\.02 lies outside its stated range \[-0\.35, -0\.05\]",
        ),
        (_source("range", [18.0, 14.0]), r"range: lo must be <= hi"),
        (_source("range", [14.0]), r"range: must be \[lo, hi\]"),
        (_source("range", [14.0, 10**401]), r"range: must hold two finite"),
        (_source("range", [14.0, "18"]), r"range: must hold two finite"),
        (_source("source", ""), r"source: must be a non-empty line"),
        (_source("source", "a\nb"), r"source: must be a non-empty line"),
        (_source("source", "x" * 501), r"source: must be at most 500"),
        (_source("page", 3), r"sources\.steering\.system\.ratio\.page: unknown parameter"),
        (_source(None, [14.0, 18.0]), r"sources\.steering\.system\.ratio: must be an object"),
        (
            _source(None, {"range": [0, 1], "source": "somewhere"}, "steering.system.gear"),
            r"steering\.system\.gear names no number or table of the definition",
        ),
        (_set("sources", []), r"^sources: must be an object, not list"),
    ],
)
def test_a_bad_or_broken_source_is_named(edit, message):
    with pytest.raises(DefinitionError, match=message):
        validate_definition(edited(edit))


def test_a_definition_may_state_no_sources_and_stays_valid():
    d = edited(lambda d: d.pop("sources"))
    assert "sources" not in validate_definition(d)
