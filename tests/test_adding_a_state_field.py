"""Adding a four-wheel state field touches two files: the subsystem that owns it and the stage
list's module (docs/architecture.md, "Adding a state field").

A copy of the engine gets a new field, ``suspension.ay_lag`` (the lateral specific force
through a first-order lag), by edits to ``engine/fourwheel/suspension.py`` (the field, its
record, its equation) and ``engine/fourwheel/stages.py`` (the stage passes it, NEW_STATE says
where its new value is) and nothing else. The copy then runs a drive on both paths: the layout,
the state at a substep's start, the fast path's locals, its moves and its checks all follow,
and both paths give the same bits. A hand-written list of the state anywhere else (a slot list
in the fast path, a record of the start) fails this test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAU = 0.05  # the lag's time constant (s)

#: the two edits: (file, anchor, replacement), each anchor found exactly once
EDITS = (
    (
        "engine/fourwheel/suspension.py",
        '    Field("suspension.pitch_rate", "f", "rad/s", "pitch rate"),\n',
        '    Field("suspension.pitch_rate", "f", "rad/s", "pitch rate"),\n'
        '    Field("suspension.ay_lag", "f", "m/s^2", "lateral specific force, lagged"),\n',
    ),
    (
        "engine/fourwheel/suspension.py",
        "    pitch_rate: float\n\n\ndef step(",
        "    pitch_rate: float\n    ay_lag: float\n\n\ndef step(",
    ),
    (
        "engine/fourwheel/suspension.py",
        "    pitch_rate: float,\n) -> SuspensionState:",
        "    pitch_rate: float,\n    ay_lag: float,\n) -> SuspensionState:",
    ),
    (
        "engine/fourwheel/suspension.py",
        "    return SuspensionState(roll, roll_rate, pitch, pitch_rate)\n",
        f"    ay_lag = ay_lag + h * (fy - ay_lag) / {TAU!r}\n"
        "    return SuspensionState(roll, roll_rate, pitch, pitch_rate, ay_lag)\n",
    ),
    (
        "engine/fourwheel/stages.py",
        "bd.ax, bd.ay, s.roll, s.roll_rate, s.pitch, s.pitch_rate\n",
        "bd.ax, bd.ay, s.roll, s.roll_rate, s.pitch, s.pitch_rate, s.ay_lag\n",
    ),
    (
        "engine/fourwheel/stages.py",
        '    "pitch_rate": "sus.pitch_rate",\n',
        '    "pitch_rate": "sus.pitch_rate",\n    "ay_lag": "sus.ay_lag",\n',
    ),
)

DRIVE = """
import json
from skidpad.engine.fourwheel import fastpath
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import LAYOUT
d = load_preset("hatchbackFwd")
fast = Simulation(d, initial={"speed_mps": 15.0})
slow = Simulation(d, initial={"speed_mps": 15.0}, path="readable")
for k in range(60):
    frame = {"throttle": 0.3, "steer": 0.25 if k >= 10 else 0.0}
    fast.step(frame)
    slow.step(frame)
i = LAYOUT.index["suspension.ay_lag"]
print(json.dumps({
    "names": list(LAYOUT.names),
    "fast": [float(v).hex() for v in fast.state],
    "slow": [float(v).hex() for v in slow.state],
    "ay_lag": fast.state[i],
    "ay": fast.state[LAYOUT.index["body.ay"]],
    "text": "ay_lag" in fastpath.source(fast),
    "derived": fast.fast_run is not None and fast.fast_run.__name__ == "run",
}))
"""


def copy_with_the_field(tmp: Path) -> set:
    """A copy of the engine at ``tmp`` with the edits made; the files they touched."""
    for folder in ("skidpad", "engine"):
        shutil.copytree(ROOT / folder, tmp / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    touched = set()
    for name, anchor, replacement in EDITS:
        path = tmp / name
        text = path.read_text(encoding="utf-8")
        assert text.count(anchor) == 1, (name, anchor)
        path.write_text(text.replace(anchor, replacement), encoding="utf-8")
        touched.add(name)
    return touched


def test_a_new_state_field_needs_its_subsystem_and_the_stage_list_only(tmp_path: Path) -> None:
    touched = copy_with_the_field(tmp_path)
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
    # the field is live: after 0.5 s of steady steer the lag has caught up with the force
    assert abs(got["ay"]) > 1.0
    assert abs(got["ay_lag"] - got["ay"]) < 0.05 * abs(got["ay"])
