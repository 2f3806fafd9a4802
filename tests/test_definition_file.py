"""A car of one's own from a definition file, kinematics and all (ADR 0265): ``skidpad
validate --definition FILE --preset P`` through the standard manoeuvres, ``skidpad record
--definition FILE`` to a recording that verifies anywhere, and every bad file or option
refused in one line, exit 2, before any work."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, cambered, without_kc
from skidpad.cli import main
from skidpad.engine.fourwheel.definition import load_preset


def validate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skidpad", "validate", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip


def one_line_refusal(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_a_car_of_ones_own_runs_and_its_kinematics_move_its_understeer(tmp_path, capsys) -> None:
    """The hatchback (without its K&C) with front roll camber, run against its own row: the
    scenario's criteria are met, and its K_us is the upright car's plus what the camber
    adds (the size of that move is tests/test_kinematics.py's; here, that the file's car is
    the one run)."""
    section = {
        "static_camber_rad": 0.0,
        "roll_camber_share": 1.0,
        "camber_gain": {"travel_m": [-0.1, 0.1], "camber_rad": [0.0, 0.0]},
        "bump_steer": {"travel_m": [-0.1, 0.1], "toe_rad": [0.0, 0.0]},
        "roll_steer": 0.0,
    }
    car = cambered("hatchbackFwd", ("front",), section)
    car["name"] = "my hatchback"
    path = tmp_path / "car.json"
    path.write_text(json.dumps(car), encoding="utf-8")
    upright = tmp_path / "upright.json"  # the same car without the kinematics
    upright.write_text(json.dumps(without_kc("hatchbackFwd")), encoding="utf-8")
    figures = {}
    for args in (["--definition", str(path)], ["--definition", str(upright)]):
        code = main(["validate", *args, "--preset", "hatchbackFwd", "--scenario", "iso4138",
                     "--json"])  # fmt: skip
        out = json.loads(capsys.readouterr().out)
        assert out["problems"] == [] and code == 0, out["problems"]
        figures[args[1]] = out["presets"]["hatchbackFwd"]["iso4138"]
    kus = "kus_four_wheel_deg_per_g"
    cambered_kus, upright_kus = figures[str(path)][kus], figures[str(upright)][kus]
    assert cambered_kus > upright_kus + 0.1, (cambered_kus, upright_kus)


def test_the_table_names_the_car_and_the_row_it_is_shown_in(tmp_path) -> None:
    car = load_preset("kart")
    car["name"] = "kart\x1b[31m of mine"
    path = tmp_path / "kart.json"
    path.write_text(json.dumps(car), encoding="utf-8")
    proc = validate("--definition", str(path), "--preset", "kart", "--scenario", "parking")
    assert proc.returncode == 0, proc.stderr
    assert "car: kart\\x1b[31m of mine from" in proc.stdout  # escaped, not obeyed
    assert "in the row of kart" in proc.stdout


def _bad(tmp_path: Path, text: str | bytes) -> str:
    path = tmp_path / "bad.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def _kinematics_edit(edit) -> str:
    car = cambered("hatchbackFwd", ("front",))
    edit(car)
    return json.dumps(car)


def _huge_clutch_torque() -> str:
    """The kart with a clutch torque of 401 digits (an integer no float holds)."""
    car = load_preset("kart")
    car["drivetrain"]["clutch"]["max_torque_nm"] = "HUGE"
    return json.dumps(car).replace('"HUGE"', "1" + "0" * 400)


BAD_FILES = [
    ("{", "truncated"),
    ('{"name": "a", "name": "b"}', "key 'name' appears twice"),
    (re.sub(r'"total_kg": [0-9.]+', '"total_kg": NaN', json.dumps(load_preset("kart"))),
     "NaN is not allowed in a definition file"),
    (b"\xff\xfe{}", "not UTF-8"),
    (_huge_clutch_torque(), "drivetrain.clutch.max_torque_nm: must be a finite number, not an "
     "integer of 1329 bits"),
    ("[]", "definition: must be an object"),
    (_kinematics_edit(lambda d: d["suspension"]["front"]["kinematics"]["camber_gain"][
        "travel_m"].reverse()), "suspension.front.kinematics.camber_gain.travel_m[1]"),
    (_kinematics_edit(lambda d: d["tires"]["front"].pop("camber_stiffness_per_load")),
     "tires.front.camber_stiffness_per_load: is missing"),
    (_kinematics_edit(lambda d: d["tires"]["rear"].update(relaxation_y_load_share=-1)),
     "relaxation_y_load_share: must be >= 0"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "words"), BAD_FILES, ids=range(len(BAD_FILES)))
def test_a_bad_definition_file_is_refused_in_one_line(tmp_path, text, words) -> None:
    path = _bad(tmp_path, text)
    one_line_refusal(validate("--definition", path, "--preset", "kart"), path, words)


def test_what_is_not_a_definition_file_is_refused_in_one_line(tmp_path) -> None:
    one_line_refusal(
        validate("--definition", str(tmp_path / "none.json"), "--preset", "kart"),
        "no such file",
    )
    one_line_refusal(validate("--definition", str(tmp_path), "--preset", "kart"), str(tmp_path))
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)
        one_line_refusal(validate("--definition", str(fifo), "--preset", "kart"), str(fifo))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "--preset P"),
        (["--preset", "kart,sportsRwd"], "--preset P"),
        (["--preset", "kart", "--bless"], "not with --bless"),
        (["--preset", "kart", "--docs"], "not with --bless, --docs"),
    ],
)
def test_a_definition_goes_with_one_preset_and_neither_bless_nor_docs(tmp_path, args, words):
    path = tmp_path / "kart.json"
    path.write_text(json.dumps(load_preset("kart")), encoding="utf-8")
    one_line_refusal(validate("--definition", str(path), *args), words)


# ------------------------------------------------------------------------- record
def test_a_recorded_drive_of_ones_own_car_embeds_it_and_verifies(tmp_path, capsys) -> None:
    car = cambered("sportsRwd")
    path = tmp_path / "my-car.json"
    path.write_text(json.dumps(car), encoding="utf-8")
    assert main(["record", "--definition", str(path), "--drive", "random:3", "--duration",
                 "2", "-o", str(tmp_path)]) == 0  # fmt: skip
    written = tmp_path / "my-car-random-3.json"
    doc = json.loads(written.read_text(encoding="utf-8"))
    assert doc["preset"] is None
    assert doc["definition"]["suspension"]["rear"]["kinematics"] == car["suspension"]["rear"][
        "kinematics"
    ]
    capsys.readouterr()
    assert main(["verify", str(written)]) == 0
    assert "VERIFIED" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--preset", "kart", "--drive", "random:1"], "not with --preset"),
        (["--drive", "commonroad:st:2"], "--definition does not apply to --drive commonroad"),
    ],
)
def test_record_refuses_a_definition_where_it_does_not_apply(tmp_path, args, words) -> None:
    path = tmp_path / "kart.json"
    path.write_text(json.dumps(load_preset("kart")), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", "record", "--definition", str(path), *args, "-o",
         str(tmp_path / "out.json")],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    one_line_refusal(proc, words)
    assert not (tmp_path / "out.json").exists()


def test_record_refuses_a_bad_definition_before_any_drive(tmp_path) -> None:
    text, words = BAD_FILES[5]
    path = _bad(tmp_path, text)
    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", "record", "--definition", path, "--drive", "lap", "-o",
         str(tmp_path / "out.json")],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    one_line_refusal(proc, path, words)
    assert not (tmp_path / "out.json").exists()
