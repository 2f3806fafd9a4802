"""The parity matrix's stated sample (ADR 0243): what the test command replays in each runtime.

The sample must keep every recording in the reference runtime, cover every model family,
drive kind and physics version elsewhere, be the same on every machine, and never let a
mismatch of a recording it runs pass, nor count a recording it leaves out as a failure.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from pathlib import Path

import pytest
from skidpad.parity import sampling
from skidpad.parity.harness import RUNTIME_NAMES, run_parity
from skidpad.parity.runs import RecordingFile, RuntimeRun, load_recordings
from skidpad.parity.verdicts import compare_runs

from tests.helpers import run_in_process

ROOT = Path(__file__).resolve().parent.parent


def _committed() -> list[RecordingFile]:
    return load_recordings(None, ROOT)


@functools.cache
def _traits_read_here(rec: RecordingFile) -> tuple[str, str, int | None]:
    """Family, drive kind and physics version, read from the file and, for the frozen folder,
    the manifest here (not through the module under test)."""
    from skidpad.engine.physics import PHYSICS_VERSION
    from skidpad.replay.archive import known_recordings

    doc = json.loads(rec.text)
    family = doc.get("preset") or "commonroad:" + doc["model"]
    stamp = doc.get("physics_version")
    frozen = Path(rec.path).parent.name == "history"
    if stamp is None and frozen and rec.sha256 in known_recordings():
        stamp = known_recordings()[rec.sha256]["version"]
    version = None if stamp in (None, PHYSICS_VERSION) else stamp
    return family, doc["drive"].split(":")[0], version


def test_the_reference_replays_everything_the_others_a_cover_of_every_trait() -> None:
    recordings = _committed()
    plan = sampling.sample_plan(list(RUNTIME_NAMES), recordings)
    # everything but the archived CommonRoad std files, which the history session verifies
    left = [r.name for r in recordings
            if _traits_read_here(r)[0] == "commonroad:std" and _traits_read_here(r)[2]]
    assert left and [r.name for r in sampling.left_to_history(recordings)] == left
    assert [r.name for r in plan["cpython3.11"]] == [
        r.name for r in recordings if r.name not in left]
    everything = [_traits_read_here(r) for r in recordings]
    today = [t for t in everything if t[2] is None]
    for name in RUNTIME_NAMES[1:]:
        share = [_traits_read_here(r) for r in plan[name]]
        assert len(share) <= len(recordings) / 2, name  # a sample, or the budget is not met
        for i, what in enumerate(("family", "drive kind")):
            missing = {t[i] for t in today} - {t[i] for t in share}
            assert not missing, f"{name}: no {what} {missing} of today's physics in the sample"
    # each archived version (archived CommonRoad std aside: the full matrix only) in another
    # CPython and in a Pyodide runtime, and no runtime carrying them all
    versions = {t[2] for t in everything if t[2] and t[0] != "commonroad:std"}
    others = RUNTIME_NAMES[1:]
    for kind, group in (("CPython", [n for n in others if n.startswith("cpython")]),
                        ("Pyodide", [n for n in others if not n.startswith("cpython")])):
        held = {n: {_traits_read_here(r)[2] for r in plan[n]} - {None} for n in group}
        missing = versions - set().union(*held.values())
        assert not missing, f"no {kind} runtime but the reference replays physics {missing}"
        assert all(len(v) < len(versions) for v in held.values()), held


def test_what_no_runtime_replays_is_frozen_and_verified_by_the_history_session() -> None:
    """Each file the sample leaves out of every runtime is a frozen file of recordings/history/
    (the history session reads those bytes from the git history), and the history session
    adds exactly the files ``left_to_history`` names to its sample."""
    left = sampling.left_to_history(_committed())
    assert left
    assert all(Path(r.path).parent == ROOT / "recordings" / "history" for r in left)
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    history = noxfile.split("def history(", 1)[1].split("\n@nox.session", 1)[0]
    assert "_LEFT_TO_HISTORY" in history and "left_to_history(" in noxfile


def test_the_sample_does_not_depend_on_the_order_of_the_files() -> None:
    recordings = _committed()
    shuffled = list(recordings)
    random.Random(7).shuffle(shuffled)
    a = sampling.sample_plan(list(RUNTIME_NAMES), recordings)
    b = sampling.sample_plan(list(RUNTIME_NAMES), shuffled)
    assert {n: sorted(r.name for r in s) for n, s in a.items()} == {
        n: sorted(r.name for r in s) for n, s in b.items()
    }


def _result(final: str) -> dict:
    return {"checkpoints": [[0, "a" * 16]], "final": final, "steps": 1, "wall_s": 0.1}


def test_a_left_out_cell_passes_and_a_mismatch_in_the_sample_fails(tmp_path) -> None:
    from skidpad.replay import golden

    recs = [RecordingFile(n, f"recordings/{n}.json", "{}", n[0] * 64) for n in ("a", "b")]
    for rec in recs:
        golden.write_golden(tmp_path / f"{rec.name}.json", {
            "format": golden.GOLDEN_FORMAT, "version": golden.GOLDEN_VERSION,
            "recording": rec.name + ".json", "recording_sha256": rec.sha256, "preset": None,
            "engine_version": "0.1.0", "math_hash": "1" * 16, "steps": 1,
            "checkpoint_every": 100, "checkpoints": [[0, "a" * 16]], "final": "f" * 16,
        })
    golden.write_math(tmp_path, golden.math_document("1" * 16, ["sin"], "0.1.0"))

    def runs(node_a: str, planned: list[str]) -> list[RuntimeRun]:
        ref = RuntimeRun("cpython3.11", math_hash="1" * 16,
                         recordings={"a": _result("f" * 16), "b": _result("f" * 16)})
        node = RuntimeRun("node", math_hash="1" * 16, planned=planned,
                          recordings={"a": _result(node_a)})
        return [ref, node]

    ok = compare_runs(runs("f" * 16, ["a"]), recs, tmp_path)
    assert ok.ok and ok.cells["node"]["b"].status == "sampled-out"
    bad = compare_runs(runs("e" * 16, ["a"]), recs, tmp_path)
    assert not bad.ok and bad.cells["node"]["a"].status == "mismatch"
    # a recording in the share that the runtime did not answer is an error, not a pass
    lost = compare_runs(runs("f" * 16, ["a", "b"]), recs, tmp_path)
    assert not lost.ok and lost.cells["node"]["b"].status == "error"


class _Asked:
    """An in-process runtime that notes which recordings it was asked for."""

    asked: dict[str, list[str]] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    def start(self, timeout_s: float = 0.0) -> dict:
        return {"name": self.name, "version": "in-process", "startup_s": 0.0}

    def run(self, request: dict, timeout_s: float = 0.0) -> dict:
        names = [item["name"] for item in request["recordings"]]
        self.asked.setdefault(self.name, []).extend(names)
        # the self-test is another test's business: a stand-in hash keeps this one short
        response = run_in_process(self.name, {**request, "selftest": False})
        response["math_hash"] = "1" * 16
        return response

    def stop(self) -> None:
        pass


@pytest.fixture(scope="module")
def two_of_a_kind(tmp_path_factory) -> list[Path]:
    """Two recordings of the same family and drive kind, of different sizes."""
    from skidpad.cli import main as skidpad

    folder = tmp_path_factory.mktemp("recs")
    paths = []
    for seed, duration in ((7, "0.2"), (8, "0.4")):
        path = folder / f"kart-random-{seed}.json"
        argv = ["record", "--preset", "kart", "--drive", f"random:{seed}", "--duration", duration]
        assert skidpad([*argv, "-o", str(path), "--no-verify"]) == 0
        paths.append(path)
    return paths


def _goldens(tmp_path: Path, paths: list[Path]) -> Path:
    """A hashes folder with each kart recording's golden file, replayed here, and a stand-in
    math hash (the runtimes of these tests answer "1" * 16)."""
    from skidpad.replay import golden
    from skidpad.replay.recording import loads
    from skidpad.replay.replayer import replay

    hashes = tmp_path / "hashes"
    hashes.mkdir()
    for path in paths:
        text, sha = path.read_text("utf-8"), hashlib.sha256(path.read_bytes()).hexdigest()
        result = replay(loads(text), checkpoint_every=10)
        golden.write_golden(hashes / f"{path.stem}.json", {
            "format": golden.GOLDEN_FORMAT, "version": golden.GOLDEN_VERSION,
            "recording": path.name, "recording_sha256": sha,
            "preset": "kart", "engine_version": "0.1.0", "math_hash": "1" * 16,
            "steps": result.steps, "checkpoint_every": 10,
            "checkpoints": [[s, h] for s, h in result.checkpoints], "final": result.final_hash,
        })
    golden.write_math(hashes, golden.math_document("1" * 16, ["sin"], "0.1.0"))
    return hashes


def test_run_parity_asks_each_runtime_for_its_share_only(two_of_a_kind, tmp_path) -> None:

    hashes = _goldens(tmp_path, two_of_a_kind)
    _Asked.asked = {}
    printed: list[str] = []
    code = run_parity(
        ["cpython3.11", "node"], root=ROOT, recording_paths=two_of_a_kind, hashes_dir=hashes,
        report_dir=tmp_path / "report", checkpoint_every=10, out=printed.append,
        progress=lambda _m: None, factory=_Asked, sample=True,
    )
    assert code == 0, printed
    assert _Asked.asked == {
        "cpython3.11": ["kart-random-7", "kart-random-8"],
        "node": ["kart-random-7"],  # the smaller of the two covers the family and drive
    }
    node_row = next(line for line in printed[0].splitlines() if line.startswith("node"))
    assert "(full)" in node_row
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    node = next(r for r in report["runtimes"] if r["name"] == "node")
    assert node["verdicts"]["kart-random-8"]["status"] == "sampled-out"
    assert node["planned"] == ["kart-random-7"]


def test_recordings_of_the_same_bytes_are_replayed_once(two_of_a_kind, tmp_path) -> None:

    twin = tmp_path / "twin.json"
    twin.write_bytes(two_of_a_kind[0].read_bytes())
    paths = [two_of_a_kind[0], twin]
    hashes = _goldens(tmp_path, paths)
    _Asked.asked = {}
    printed: list[str] = []
    code = run_parity(
        ["cpython3.11"], root=ROOT, recording_paths=paths, hashes_dir=hashes,
        report_dir=tmp_path / "report", checkpoint_every=10, out=printed.append,
        progress=lambda _m: None, factory=_Asked,
    )
    assert code == 0, printed
    assert _Asked.asked == {"cpython3.11": ["kart-random-7"]}
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    (run,) = report["runtimes"]
    assert run["verdicts"]["twin"]["status"] == "match"
    assert run["recordings"]["twin"]["same_as"] == "kart-random-7"


def test_the_same_bytes_asked_of_two_physics_are_two_replays() -> None:
    """``recordings/commonroad-std-v2.json`` and physics 4's history file hold the same bytes:
    one is today's engine's to replay, the other physics 4's; neither may take the other's
    result, and the cover counts today's CommonRoad std as covered by the root file."""
    from skidpad.parity import archived, sampling
    from skidpad.parity.runs import load_recordings

    recs = {r.name: r for r in load_recordings(None, ROOT)}
    root, frozen = recs["commonroad-std-v2"], recs["physics-4-commonroad-std-v2"]
    assert root.sha256 == frozen.sha256
    assert (root.sha256, archived.archived_version(root)) != (
        frozen.sha256, archived.archived_version(frozen))
    assert sampling.traits(root)["physics"] == "current"
    assert sampling.traits(frozen)["physics"] == "4"
