"""Adding a four-wheel state field, or a stage, touches two files: the subsystem that owns it
and the stage list's module (docs/architecture.md, "Adding a state field").

A copy of the engine gets a new field, ``suspension.ay_lag`` (the lateral specific force
through a first-order lag), by edits to ``engine/fourwheel/suspension.py`` and
``engine/fourwheel/stages.py`` and nothing else: either inside the suspension stage (the field,
its record, its equation; the stage's record of the suspension state takes it, NEW_STATE says
where its new value is), or as a stage of its own (its function in the subsystem; its stage
function, its slot of Produced and its line of STAGES). The copy then runs a drive on both
paths, probed and not: the layout, the state at a substep's start, the fast path's locals, its
stages, its moves and its checks all follow, and both paths give the same bits and report the
same stages. A hand-written list of the state or of the stages anywhere else (a slot list or a
stage sequence in the fast path, a record of the start) fails this test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TAU = 0.05  # the lag's time constant (s)

FIELD = (
    "engine/fourwheel/suspension.py",
    '    Field("suspension.pitch_rate", "f", "rad/s", "pitch rate"),\n',
    '    Field("suspension.pitch_rate", "f", "rad/s", "pitch rate"),\n'
    '    Field("suspension.ay_lag", "f", "m/s^2", "lateral specific force, lagged"),\n',
)
#: the edits, each (file, anchor, replacement) with its anchor found exactly once: the field
#: in the suspension stage, or the field with a stage of its own
EDITS = {
    "in its subsystem's stage": (
        FIELD,
        (
            "engine/fourwheel/suspension.py",
            "    pitch_rate: float\n\n\ndef step(",
            "    pitch_rate: float\n    ay_lag: float\n\n\ndef step(",
        ),
        (
            "engine/fourwheel/suspension.py",
            "    return SuspensionState(roll, roll_rate, pitch, pitch_rate)\n",
            f"    ay_lag = sus.ay_lag + h * (fy - sus.ay_lag) / {TAU!r}\n"
            "    return SuspensionState(roll, roll_rate, pitch, pitch_rate, ay_lag)\n",
        ),
        (
            "engine/fourwheel/stages.py",
            "suspension.SuspensionState(s.roll, s.roll_rate, s.pitch, s.pitch_rate)",
            "suspension.SuspensionState(s.roll, s.roll_rate, s.pitch, s.pitch_rate, s.ay_lag)",
        ),
        (
            "engine/fourwheel/stages.py",
            '    "pitch_rate": "sus.pitch_rate",\n',
            '    "pitch_rate": "sus.pitch_rate",\n    "ay_lag": "sus.ay_lag",\n',
        ),
    ),
    "as a stage of its own": (
        FIELD,
        (
            "engine/fourwheel/suspension.py",
            "\n\ndef step(",
            "\n\ndef lag(h: float, fy: float, ay_lag: float) -> float:\n"
            f"    return ay_lag + h * (fy - ay_lag) / {TAU!r}\n\n\ndef step(",
        ),
        (
            "engine/fourwheel/stages.py",
            '"dc", "bd", "sus",\n',
            '"dc", "bd", "sus", "lag",\n',
        ),
        (
            "engine/fourwheel/stages.py",
            "\n\n#: The stages of one substep, in order:",
            "\n\ndef _ay_lag(sim: object, s: SubstepStart, out: Produced) -> tuple:\n"
            "    out.lag = suspension.lag(sim.h, out.bd.ay, s.ay_lag)\n"
            "    return (out.lag,)\n\n\n#: The stages of one substep, in order:",
        ),
        (
            "engine/fourwheel/stages.py",
            '    Stage("suspension", _suspension),\n',
            '    Stage("suspension", _suspension),\n    Stage("ay_lag", _ay_lag),\n',
        ),
        (
            "engine/fourwheel/stages.py",
            '    "pitch_rate": "sus.pitch_rate",\n',
            '    "pitch_rate": "sus.pitch_rate",\n    "ay_lag": "lag",\n',
        ),
    ),
}

DRIVE = """
import json
from skidpad.engine.fourwheel import fastpath
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import LAYOUT

class Stages:
    def __init__(self):
        self.seen = []
    def stage(self, name, values):
        self.seen.append((name, [float(v).hex() for v in values]))
    def substep(self, tick, state):
        pass

d = load_preset("hatchbackFwd")
fast = Simulation(d, initial={"speed_mps": 15.0})
slow = Simulation(d, initial={"speed_mps": 15.0}, path="readable")
for k in range(60):
    frame = {"throttle": 0.3, "steer": 0.25 if k >= 10 else 0.0}
    fast.step(frame)
    slow.step(frame)
probes = []
for path in ("fast", "readable"):
    sim = Simulation(d, initial={"speed_mps": 15.0})
    sim.probed_path = path
    probe = Stages()
    sim.step({"throttle": 0.3, "steer": 0.25}, probe)
    probes.append(probe.seen)
i = LAYOUT.index["suspension.ay_lag"]
print(json.dumps({
    "names": list(LAYOUT.names),
    "fast": [float(v).hex() for v in fast.state],
    "slow": [float(v).hex() for v in slow.state],
    "ay_lag": fast.state[i],
    "ay": fast.state[LAYOUT.index["body.ay"]],
    "text": "ay_lag" in fastpath.source(fast),
    "derived": fast.fast_run is not None and fast.fast_run.__name__ == "run",
    "probes": probes,
}))
"""


def copy_with_edits(tmp: Path, edits: tuple) -> set:
    """A copy of the engine at ``tmp`` with ``edits`` made; the files they touched."""
    for folder in ("skidpad", "engine"):
        shutil.copytree(ROOT / folder, tmp / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    touched = set()
    for name, anchor, replacement in edits:
        path = tmp / name
        text = path.read_text(encoding="utf-8")
        assert text.count(anchor) == 1, (name, anchor)
        path.write_text(text.replace(anchor, replacement), encoding="utf-8")
        touched.add(name)
    return touched


@pytest.mark.parametrize("how", sorted(EDITS))
def test_a_new_state_field_needs_its_subsystem_and_the_stage_list_only(
    tmp_path: Path, how: str
) -> None:
    touched = copy_with_edits(tmp_path, EDITS[how])
    assert touched == {"engine/fourwheel/suspension.py", "engine/fourwheel/stages.py"}
    run = subprocess.run(
        [sys.executable, "-c", DRIVE],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout)
    assert "suspension.ay_lag" in got["names"]
    assert got["derived"] and got["text"]  # the fast path ran, and it names the new field
    assert got["fast"] == got["slow"]  # both paths, bit for bit
    fast, readable = got["probes"]
    assert fast == readable  # every stage reported alike, a new one included
    if how == "as a stage of its own":
        assert [name for name, _ in readable].count("ay_lag") > 0
    # the field is live: after 0.5 s of steady steer the lag has caught up with the force
    assert abs(got["ay"]) > 1.0
    assert abs(got["ay_lag"] - got["ay"]) < 0.05 * abs(got["ay"])
