"""The vehicle-model seam and the format registry (ADR 0165, ADR 0166, ADR 0167).

* replay/ never asks which family it has: no ``isinstance`` on a recording, model or engine
  class, no format name outside the registry's entries (scanned from the source);
* the format modules import one another without a cycle, lazy imports included;
* every registry entry reads what it names, writes it back, and builds a model that
  replays the committed recordings to their golden hashes; snapshot/restore and the
  stage names hold for both families;
* ``skidpad diff`` of two CommonRoad runs that differ by one ulp of one parameter names
  the first differing substep, field and physics stage.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from dataclasses import replace
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.commonroad.daemon import STAGES as CR_STAGES
from skidpad.engine.commonroad.models import MODELS
from skidpad.engine.commonroad.scheduler import plan_steps
from skidpad.engine.floatbits import bits_float, float_bits
from skidpad.engine.fourwheel.stages import STAGES as FOUR_WHEEL_STAGES
from skidpad.replay import commonroad, recording
from skidpad.replay.diff import diff_recordings
from skidpad.replay.replayer import replay, start_model

ROOT = Path(__file__).resolve().parent.parent
REPLAY = ROOT / "replay"
#: the classes whose type would tell the families apart
FAMILY_CLASSES = {
    "Recording",
    "CommonRoadRecording",
    "Simulation",
    "CommonRoadDaemon",
    "FourWheelModel",
    "CommonRoadModel",
}
#: where each format's name may be written: the module that declares its registry entry
NAME_HOMES = {
    recording.FORMAT_NAME: "recording.py",
    commonroad.CR_FORMAT_NAME: "commonroad.py",
}


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(REPLAY.glob("*.py"))]


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants (prose, not code)."""
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def _names(node: ast.AST) -> list[str]:
    """The class names an isinstance second argument mentions."""
    if isinstance(node, ast.Tuple):
        return [n for elt in node.elts for n in _names(elt)]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    return []


def test_replay_asks_no_family_question() -> None:
    found = []
    for path, tree in _modules():
        prose = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                hit = FAMILY_CLASSES.intersection(_names(node.args[1]))
                if hit:
                    found.append(f"{path.name}:{node.lineno}: isinstance on {sorted(hit)}")
            if isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops
            ):
                calls = [node.left, *node.comparators]
                if any(getattr(getattr(c, "func", None), "id", None) == "type" for c in calls):
                    found.append(f"{path.name}:{node.lineno}: compares types")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in prose
            ):
                for name, home in NAME_HOMES.items():
                    if name in node.value and path.name != home:
                        found.append(f"{path.name}:{node.lineno}: format name {name!r}")
    assert found == []


def test_each_format_name_is_written_once_in_code() -> None:
    for name, home in NAME_HOMES.items():
        tree = ast.parse((REPLAY / home).read_text(encoding="utf-8"))
        prose = _docstrings(tree)
        uses = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value == name and id(n) not in prose
        ]
        assert len(uses) == 1, (name, home, [n.lineno for n in uses])


def _replay_imports(path: Path, tree: ast.Module) -> set[str]:
    """The replay modules ``path`` imports anywhere in it (lazy imports inside functions too)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("skidpad.replay."))
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "skidpad.replay":
                out.update(f"skidpad.replay.{a.name}" for a in node.names)
            elif node.module.startswith("skidpad.replay."):
                out.add(node.module)
    known = {f"skidpad.replay.{p.stem}" for p in REPLAY.glob("*.py")}
    return (out & known) - {f"skidpad.replay.{path.stem}"}


def test_the_format_modules_import_without_a_cycle() -> None:
    graph = {f"skidpad.replay.{p.stem}": _replay_imports(p, t) for p, t in _modules()}
    seam = {
        "skidpad.replay.recording",
        "skidpad.replay.commonroad",
        "skidpad.replay.recorder",
        "skidpad.replay.replayer",
        "skidpad.replay.document",
        "skidpad.replay.model",
        "skidpad.replay.fourwheel",
        "skidpad.replay.trace",
        "skidpad.replay.diff",
        "skidpad.replay.golden",
        "skidpad.replay.claims",
        "skidpad.replay.laps",
        "skidpad.replay.session",
    }

    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    return [*path, nxt]
                if nxt not in path and nxt in seam:
                    stack.append((nxt, [*path, nxt]))
        return None

    cycles = [c for m in sorted(seam) if (c := cycle_from(m)) is not None]
    assert cycles == []
    # the CommonRoad entry stands on the shared document checks, not on the other formats
    assert graph["skidpad.replay.commonroad"] <= {
        "skidpad.replay.document", "skidpad.replay.model", "skidpad.replay.budget"
    }


# ----------------------------------------------------------------------------- the registry


def test_the_registry_is_one_table_of_unique_entries() -> None:
    keys = [(f.name, f.version) for f in recording.FORMATS]
    assert len(keys) == len(set(keys))
    assert (recording.FORMAT_NAME, 1) in keys and (recording.FORMAT_NAME, 2) in keys
    assert commonroad.FORMAT in recording.FORMATS
    for f in recording.FORMATS:  # every family writes a version it can read
        assert (f.name, f.writes) in keys


#: the steps of a recording the seam test replays (its opening)
SEAM_STEPS = 600


@pytest.mark.parametrize(
    "name", ["hatchbackFwd-scripted.json", "kart-lap.json", "commonroad-mb-v2.json"]
)
def test_each_entry_reads_writes_and_replays_its_recordings(name: str) -> None:
    """Each entry reads its file, writes it back unchanged, and its replay meets the golden
    checkpoints of the file's first :data:`SEAM_STEPS` steps. The whole file against its
    golden file is the parity matrix's reference runtime's, in the same test command (it
    replays every recording), so the seam does not replay a 2,000-step MB file again."""
    path = ROOT / "recordings" / name
    doc = json.loads(path.read_text(encoding="utf-8"))
    rec = recording.load(path)
    assert rec.format is recording.FORMAT_OF[(doc["format"], doc["version"])]
    again = recording.loads(recording.dumps(rec))
    assert again == rec
    golden = json.loads((ROOT / "hashes" / name).read_text(encoding="utf-8"))
    every = golden["checkpoint_every"]
    wanted = [tuple(c) for c in golden["checkpoints"] if c[0] <= SEAM_STEPS]
    assert len(wanted) >= 3  # the opening holds several of the golden checkpoints
    assert replay(rec, every, stop_after=SEAM_STEPS).checkpoints == wanted


def test_a_version_1_recording_is_read_by_its_entry_and_written_in_a_later_version() -> None:
    rec = recording.load(ROOT / "recordings" / "hatchbackFwd-scripted.json")
    doc = json.loads(recording.dumps(rec))
    claims = doc.pop("claims")
    v1 = {**doc, "version": 1, "final_hash": claims["final_hash"]}
    old = recording.from_document({k: v1[k] for k in recording.KEYS_V1})
    assert old.format is recording.FORMAT_OF[(recording.FORMAT_NAME, 1)]
    assert not old.format.current
    # unstamped, it is written as version 2; stamped with its physics, as the current format
    assert json.loads(recording.dumps(old))["version"] == 2
    stamped = dataclasses.replace(old, physics_version=1)
    assert stamped.format.writes == recording.FORMAT_VERSION == 3
    assert json.loads(recording.dumps(stamped))["version"] == recording.FORMAT_VERSION


def test_an_unknown_format_names_every_registered_one() -> None:
    with pytest.raises(recording.RecordingError) as err:
        recording.from_document({"format": "skidpad-banana", "version": 1})
    for name in recording.FORMAT_NAMES:
        assert repr(name) in str(err.value)


# ----------------------------------------------------------------------------- the model


class StageLog:
    """A probe that keeps the stage names of every substep."""

    def __init__(self) -> None:
        self.current: list[str] = []
        self.substeps: list[tuple[int, tuple[str, ...]]] = []

    def stage(self, name: str, values: tuple) -> None:
        self.current.append(name)

    def substep(self, tick: int, state: list) -> None:
        self.substeps.append((tick, tuple(self.current)))
        self.current = []


@pytest.mark.parametrize(
    ("name", "stages"),
    [
        ("sportsRwd-scripted.json", tuple(s.name for s in FOUR_WHEEL_STAGES)),
        ("commonroad-std-v2.json", CR_STAGES),
    ],
)
def test_both_families_fulfil_the_model_protocol(name: str, stages: tuple) -> None:
    rec = recording.load(ROOT / "recordings" / name)
    frames = list(rec.inputs())[:120]
    model = start_model(rec)
    assert model.stages == stages
    assert model.state_hash() == replay(rec, stop_after=0).final_hash
    for values in frames[:60]:
        model.step(values)
    snap = json.loads(json.dumps(model.snapshot()))  # JSON-serialisable, exactly
    at_60 = model.state_hash()
    for values in frames[60:]:
        model.step(values)
    straight = model.state_hash()
    assert straight == replay(rec, stop_after=120).final_hash
    assert model.telemetry() is not None

    other = start_model(rec)
    other.restore(snap)
    assert other.state_hash() == at_60
    log = StageLog()
    other.attach(log)
    for values in frames[60:]:
        other.step(values)
    assert other.state_hash() == straight  # a probe changes no bit
    assert log.substeps and all(names == stages for _, names in log.substeps)
    ticks = [t for t, _ in log.substeps]
    assert ticks == list(range(ticks[0], ticks[0] + len(ticks)))
    assert ticks == list(model.tick_window(range(60, 120)))


# ----------------------------------------------------------------------------- CommonRoad diff


def _one_ulp_up(rec: commonroad.CommonRoadRecording, block: str, key: str):
    parameters = json.loads(json.dumps(rec.parameters))
    parameters[block][key] = bits_float(float_bits(parameters[block][key]) + 1)
    return replace(
        rec, parameters=parameters, parameters_hash=commonroad.parameters_hash(parameters)
    )


def test_commonroad_diff_names_the_substep_field_and_stage_of_a_one_ulp_mass() -> None:
    rec, _ = commonroad.record_scripted("st", 2, 1_000_000)
    heavier = _one_ulp_up(rec, "vehicle", "m")
    report = diff_recordings(rec, heavier)
    assert "the embedded parameters differ" in report.notes[0]
    # the mass divides the longitudinal forces from the first substep on (throttle 0.4 at t=0)
    assert (report.tick, report.step, report.substep_in_step) == (1, 0, 0)
    first_dt = rec.frames[0][1][0]
    assert report.substeps_in_step == plan_steps(first_dt, MODELS["st"].max_dt_us).substeps
    assert "model.v" in [f.name for f in report.fields]
    assert report.stage is not None and report.stage.name == "longitudinal"
    assert report.stage.index == 0  # the acceleration command, the stage's first value


def test_skidpad_diff_of_two_commonroad_runs_names_the_braking_stage(
    tmp_path: Path, capsys
) -> None:
    """One ulp of the friction-brake limit acts only once the brake pedal is pressed: the
    diff must find that host step among host steps of different lengths."""
    a_path = ROOT / "recordings" / "commonroad-st-v2.json"
    rec = recording.load(a_path)
    b_path = tmp_path / "braking.json"
    recording.save(_one_ulp_up(rec, "powertrain", "brake_decel_max"), b_path)
    capsys.readouterr()
    assert main(["diff", str(a_path), str(b_path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    steps = list(rec.inputs())
    braking = next(k for k, values in enumerate(steps) if values[3] > 0.0)
    assert report["step"] >= braking  # the parameter is not used before
    assert all(v[3] > 0.0 for v in steps[braking : report["step"] + 1])
    assert report["stage"]["stage"] == "longitudinal"
    assert report["fields"] and report["fields"][0]["ulps"] >= 1
    dt_us = steps[report["step"]][0]
    assert report["substeps_in_step"] == plan_steps(dt_us, MODELS["st"].max_dt_us).substeps
    done_before = sum(
        plan_steps(v[0], MODELS["st"].max_dt_us).substeps for v in steps[: report["step"]]
    )
    assert report["tick"] == done_before + report["substep_in_step"] + 1

    assert main(["diff", str(a_path), str(b_path)]) == 1
    text = capsys.readouterr().out
    assert "first differing physics stage: stage longitudinal" in text
    assert f"first differing substep: tick {report['tick']}" in text


def test_a_four_wheel_process_does_not_load_the_commonroad_models() -> None:
    """The table names the CommonRoad entry without loading its models, so the sandbox
    page (four-wheel only) starts no slower for it."""
    import subprocess
    import sys

    code = (
        "import sys, skidpad.replay.session, skidpad.replay.replayer\n"
        "print(sorted(m for m in sys.modules if m.startswith('skidpad.engine.commonroad.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == (
        "['skidpad.engine.commonroad.inputs', 'skidpad.engine.commonroad.scheduler']"
    )
