"""The lane change's ISO 3888 courses (issue 17): the 3888-2 course as the standard lays it
out, its entry protocol, the ``--course`` option, bless of one course alone, the partial
docs update, and the golden pass speed falling with weaker tyres.

Every preset's 3888-2 figures against the golden file are checked with the other scenarios
in ``tests/test_validation_results.py`` (``lane_change_3888_2``)."""

from __future__ import annotations

import argparse
import json
from types import SimpleNamespace

import pytest
from skidpad.cli import cmd_validate
from skidpad.cli.options import chosen_names
from skidpad.engine.errors import SkidpadError
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.scenarios.validation import lane_change, report
from skidpad.scenarios.validation import run as vrun

PRESET = "hatchbackFwd"


def _course(preset: str, name: str) -> lane_change.Course:
    d = load_preset(preset)
    g = d["geometry"]
    track = max(g["track_front_m"], g["track_rear_m"])
    return lane_change.Course(lane_change.vehicle_width(d), track, lane_change.COURSES[name])


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_3888_2_course_is_laid_out_to_the_standard(preset: str) -> None:
    c = _course(preset, "3888-2")
    w = lane_change.vehicle_width(load_preset(preset))
    assert [b - a for a, b in c.edges] == [12.0, 13.5, 11.0, 12.5, 12.0]
    assert c.length == 61.0
    (x0, x1, y1, h1), (x2, x3, y3, h3), (x4, x5, y5, h5) = c.lanes
    assert (x0, x1, x2, x3, x4, x5) == (0.0, 12.0, 25.5, 36.5, 49.0, 61.0)
    assert 2 * h1 == pytest.approx(1.1 * w + 0.25)
    assert 2 * h3 == pytest.approx(w + 1.0)
    assert 2 * h5 == pytest.approx(max(1.3 * w + 0.25, 3.0))
    assert (y3 - h3) - (y1 + h1) == pytest.approx(1.0)  # 1 m between lanes 1 and 3
    assert y5 - h5 == pytest.approx(y1 - h1)  # lanes 1 and 5 share their right edge
    # the centreline runs from lane to lane and stays inside each coned lane
    for x in [0.5 * k for k in range(0, 123)]:
        assert c.overlap(x, c.centre(x)) < -c.half_track


def test_3888_1_course_keeps_its_layout() -> None:
    c = _course(PRESET, "3888-1")
    assert [b - a for a, b in c.edges] == list(lane_change.SECTIONS_3888_1)
    assert [lane[2] for lane in c.lanes] == [0.0, lane_change.OFFSET_M, 0.0]
    assert c.centre(-5.0) == 0.0 and c.centre(57.5) == lane_change.OFFSET_M


def _tel(x: float, speed: float) -> SimpleNamespace:
    return SimpleNamespace(x=x, y=0.0, yaw=0.0, speed=speed, yaw_rate=0.0)


@pytest.mark.parametrize(("name", "coasts"), [("3888-1", False), ("3888-2", True)])
def test_throttle_is_released_at_the_entry_gate_on_3888_2(name: str, coasts: bool) -> None:
    d = load_preset(PRESET)
    c = _course(PRESET, name)
    drv = lane_change.LaneChangeDriver(d, c, 20.0, [0.0] * 200)
    before = dict(zip(_channels(), drv.inputs(10, _tel(-1.0, 19.0)), strict=True))
    after = dict(zip(_channels(), drv.inputs(11, _tel(0.5, 19.0)), strict=True))
    assert before["throttle"] > 0.0
    assert (after["throttle"] == 0.0 and after["brake"] == 0.0) is coasts


def _channels() -> tuple:
    from skidpad.engine.fourwheel import inputs as engine_inputs

    return tuple(engine_inputs.CHANNEL_INDEX)


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(**{"scenario": None, "course": None, **kw})


def test_course_option_picks_the_scenarios() -> None:
    pick = cmd_validate._with_courses
    names = chosen_names(["lane_change"], vrun.SCENARIO_NAMES, "scenario")
    assert pick(names, _args(course=["3888-2"])) == ["lane_change_3888_2"]
    assert pick(names, _args(course=["3888-1,3888-2"])) == ["lane_change", "lane_change_3888_2"]
    assert pick(names, _args()) == ["lane_change", "lane_change_3888_2"]
    assert pick(["parking"], _args()) == ["parking"]
    with pytest.raises(SkidpadError, match="only with the lane_change"):
        pick(["parking"], _args(course=["3888-2"]))
    with pytest.raises(SkidpadError, match="unknown course"):
        pick(names, _args(course=["3888-3"]))
    assert "lane_change_3888_2" not in vrun.SCENARIO_NAMES


def _fake(course: str, kmh: int) -> dict:
    a = {
        "passed": True,
        "runs": 1,
        "best_overlap_m": -0.05,
        "peak_lat_accel_mps2": 7.0,
        "peak_yaw_rate_radps": 0.6,
        "peak_side_slip_deg": 2.0,
        "gate_speed_kmh": kmh - 0.4,
        "stopped_short": False,
        "path": [],
    }
    return {"course": course, "pass_speed_kmh": kmh, "speeds": {str(kmh): a}, "lanes": []}


def test_blessing_one_course_keeps_the_other(tmp_path) -> None:
    path = tmp_path / "validation.json"
    vrun.bless({"kart": {"lane_change": _fake("3888-1", 70)}}, path)
    first = json.loads(path.read_text())["presets"]["kart"]["lane_change"]
    assert "70.gate_speed_kmh" not in first  # 3888-1 holds its speed through the course
    lines = vrun.bless({"kart": {"lane_change_3888_2": _fake("3888-2", 60)}}, path)
    assert lines == ["kart lane_change_3888_2: new (9 figures)"]
    data = json.loads(path.read_text())["presets"]["kart"]
    assert data["lane_change"] == first
    assert data["lane_change_3888_2"]["60.gate_speed_kmh"]["value"] == pytest.approx(59.6)
    gold = vrun.golden_for({"presets": {"kart": data}}, "kart", "lane_change_3888_2")
    figs = vrun.figures("lane_change_3888_2", _fake("3888-2", 60))
    assert vrun.compare("lane_change_3888_2", figs, gold) == []
    assert vrun.compare("lane_change_3888_2", {**figs, "pass_speed_kmh": 70}, gold)


def test_docs_of_one_course_keep_every_other_cell() -> None:
    before = report.DOC.read_text(encoding="utf-8")
    old = vrun.parse_table(before)
    assert set(old) == set(PRESET_NAMES)
    results = {
        p: {"lane_change_3888_2": _fake("3888-2", 40 + i)} for i, p in enumerate(PRESET_NAMES)
    }
    page = report.markdown(results, 12.0, before)
    new = vrun.parse_table(page)
    column = "ISO 3888-2 passes up to (km/h)"
    for i, p in enumerate(PRESET_NAMES):
        assert new[p][column] == str(40 + i)
        assert {k: v for k, v in new[p].items() if k != column} == {
            k: v for k, v in old[p].items() if k != column
        }
    assert "Updated since by a run of lane_change_3888_2 on every preset (12 s)" in page
    assert page.count(report.WALL_LINE) == 1


def test_weaker_tyres_fail_3888_2_at_the_golden_speed() -> None:
    g = vrun.golden_for(vrun.load_golden(), PRESET, "lane_change_3888_2")
    kmh = g["pass_speed_kmh"]["value"]
    d = load_preset(PRESET)
    for axle in ("front", "rear"):
        d["tires"][axle]["mu_y"] *= 0.6
        d["tires"][axle]["mu_x"] *= 0.6
    assert lane_change.run(d, course="3888-2", speeds_kmh=(kmh,))["pass_speed_kmh"] is None
    ok = lane_change.run(load_preset(PRESET), course="3888-2", speeds_kmh=(kmh,))
    assert ok["pass_speed_kmh"] == kmh


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenario", "parking", "--course", "3888-2"], "only with the lane_change"),
        (["--scenario", "lane_change", "--course", "3888-2,"], "empty"),
        (["--scenario", "lane_change_3888_2"], "unknown scenario"),
    ],
)
def test_course_refusals_are_one_line_before_any_run(argv, message, capsys) -> None:
    from skidpad.cli import main

    assert main(["validate", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
