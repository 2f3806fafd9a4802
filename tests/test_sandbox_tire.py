"""A person's own .tir tire in the sandbox: the drive (in CPython, the class the page runs in
Pyodide), the key its laps are kept under, and ``skidpad sandbox --tir``'s refusals.

The page's side (loading the file with a real file chooser, what a person sees) is in
tests/test_sandbox_e2e.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.tir import TirError
from skidpad.replay.recording import dumps
from skidpad.replay.session import DriveSession, Keys, PageAPI, session_tire

from tests.helpers import BAD_TIR_EDITS, ROOT, TIR

PRESET = "hatchbackFwd"
STEPS = 300  # 3 s at 100 Hz: off the line and into second gear on full throttle


def drive(tire: object = None) -> DriveSession:
    session = DriveSession(PRESET, tire=tire)
    for _ in range(STEPS):
        session.step(Keys(throttle=True, left=session.steps > 200))
    return session


def test_a_drive_on_a_tir_runs_that_tire_and_verifies_from_its_recording(
    tmp_path: Path, verify_cli
) -> None:
    tire = session_tire(TIR.name, TIR.read_bytes())
    on_file, own = drive(tire), drive()
    for axle in ("front", "rear"):
        assert on_file.definition["tires"][axle]["mf61"] == tire.mapping
        assert "mf61" not in own.definition["tires"][axle]
    # the tire is what the car drove on: the same keys end in another state
    assert on_file.state_hash() != own.state_hash()
    text = dumps(on_file.recording())
    doc = json.loads(text)
    assert doc["preset"] is None  # the definition is no longer the preset's
    rc, out = verify_cli(text.encode(), tmp_path, "on-file.json", "--json")
    assert rc == 0, out
    (row,) = json.loads(out)["recordings"]
    assert row["verdict"] == "verified" and row["final_hash"] == on_file.state_hash()


def test_the_tire_id_is_the_parameters_not_the_files_text() -> None:
    text = TIR.read_text(encoding="utf-8")
    same = session_tire("copy.tir", ("$ a comment a person added\n" + text).encode())
    other = session_tire("other.tir", text.replace("= 0.94002", "= 0.95").encode())
    first = session_tire(TIR.name, TIR.read_bytes())
    assert same.id == first.id and same.name == "copy.tir"
    assert other.id != first.id


def test_a_path_in_the_files_name_is_dropped() -> None:
    assert session_tire("C:\\tires\\mine.tir", TIR.read_bytes()).name == "mine.tir"
    assert session_tire("/home/x/mine.tir", TIR.read_bytes()).name == "mine.tir"
    assert session_tire("..", TIR.read_bytes()).name == "tire.tir"


@pytest.mark.parametrize(("edit", "words"), BAD_TIR_EDITS)
def test_the_page_refuses_a_bad_tire_in_one_line_and_keeps_the_drive(
    edit: object, words: str
) -> None:
    api = PageAPI()
    api.start(json.dumps({"preset": PRESET}))
    api.steps(50, json.dumps({"throttle": True}))
    before = api.session
    bad = edit(TIR.read_text(encoding="utf-8")).encode()
    with pytest.raises(TirError) as refused:
        api.start(json.dumps({"preset": PRESET}), "mine.tir", bad)
    message = str(refused.value)
    assert "\n" not in message and words in message and "mine.tir" in message
    assert api.session is before and api.session.steps == 50


def test_a_tire_a_car_cannot_carry_is_refused_naming_both() -> None:
    text = TIR.read_text(encoding="utf-8").replace("= 1.4675", "= 2.5")  # PCY1 out of (1, 2)
    with pytest.raises(DefinitionError, match=r"^wide\.tir on sportsRwd: .*PCY1"):
        PageAPI().start(json.dumps({"preset": "sportsRwd"}), "wide.tir", text.encode())


def sandbox(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skidpad", "sandbox", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        *BAD_TIR_EDITS,
        (lambda t: t.replace("= 1.4675", "= 2.5"), "PCY1"),  # a tire the car cannot carry
        (None, "no such file"),
    ],
)
def test_sandbox_refuses_a_bad_tir_in_one_line_before_serving(
    tmp_path: Path, edit: object, words: str
) -> None:
    bad = tmp_path / "bad.tir"
    if edit is not None:
        bad.write_text(edit(TIR.read_text(encoding="utf-8")), encoding="utf-8")
    proc = sandbox("--tir", str(bad), "--port", "1")  # (never reached: port 1 is not ours)
    assert proc.returncode == 2
    assert proc.stdout == ""  # no URL: nothing was served
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in proc.stderr


def test_sandbox_refuses_a_fifo_or_a_folder_without_reading_it(tmp_path: Path) -> None:
    """The reader every .tir goes through: a named pipe would block a plain read forever."""
    fifo = tmp_path / "pipe.tir"
    os.mkfifo(fifo)
    for path, words in ((fifo, "FIFO"), (tmp_path, "directory")):
        proc = sandbox("--tir", str(path), "--port", "1")
        assert proc.returncode == 2 and proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and words in proc.stderr
