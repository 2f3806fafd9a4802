"""Archived physics run inside this interpreter (ADR 0206): what the sandbox page and the
Pyodide runtimes of the parity matrix do, where there are no processes. The answers must
be the bits a process of its own gives, and the run must leave today's engine untouched."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from skidpad.replay import archive
from skidpad.replay.archive_inprocess import IsolationError, run_in_process

ROOT = Path(__file__).resolve().parents[1]
HISTORY = ROOT / "recordings" / "history"
KART6 = HISTORY / "physics-6-kart-scripted.json"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SKIDPAD_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_in_process_gives_the_bits_of_a_process_of_its_own_and_leaves_no_trace(cache) -> None:
    import skidpad.engine.fourwheel.simulation as today

    tree = archive.unpacked_tree(6)
    path, meta = list(sys.path), list(sys.meta_path)
    inside = run_in_process(tree, KART6)
    # the same archived version in a process of its own (python -I), as `skidpad verify` runs it
    alone = archive.run_archived(6, KART6)
    assert inside["final_hash"] == alone.final_hash
    assert [tuple(c) for c in inside["checkpoints"]] == alone.checkpoints
    # and both are what the recording claims: that physics, not today's
    claims = json.loads(KART6.read_text("utf-8"))["claims"]
    assert inside["final_hash"] == claims["final_hash"]
    assert [list(c) for c in inside["checkpoints"]] == claims["checkpoints"]
    # nothing of the archived tree is left, and today's engine is the same module object
    assert not [n for n in sys.modules if n.split(".")[0] in ("engine", "replay")]
    assert sys.modules["skidpad.engine.fourwheel.simulation"] is today
    assert sys.path == path and sys.meta_path == meta


def _planted_tree(tmp_path: Path, body: str) -> Path:
    tree = tmp_path / "planted"
    for package in ("engine", "replay"):
        (tree / package).mkdir(parents=True)
        (tree / package / "__init__.py").write_text("")
    (tree / "replay" / "recording.py").write_text(body)
    (tree / "replay" / "replayer.py").write_text("")
    (tree / "archive_shim.py").write_bytes(archive.SHIM.read_bytes())
    return tree


@pytest.mark.parametrize("reach", ["import skidpad.engine.physics", "import numpy"])
def test_an_archived_tree_cannot_reach_outside_itself(tmp_path, reach) -> None:
    tree = _planted_tree(tmp_path, f"{reach}\n")
    with pytest.raises(IsolationError, match="tried to import"):
        run_in_process(tree, KART6)
    assert not [n for n in sys.modules if n.split(".")[0] in ("engine", "replay")]


def test_a_top_level_engine_already_imported_refuses_the_run(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "engine", types.ModuleType("engine"))
    tree = _planted_tree(tmp_path, "")
    with pytest.raises(IsolationError, match="already imported"):
        run_in_process(tree, KART6)


def test_a_version_zip_holds_one_version_and_is_checked_whole(tmp_path, cache) -> None:
    data = archive.version_zip(6)
    assert len(data) < archive.archive_size()  # one version, not the archive
    with pytest.raises(archive.ArchiveError, match="holds versions"):
        archive.add_version_zip(7, data)
    broken = bytearray(data)
    broken[len(broken) // 2] ^= 0xFF
    with pytest.raises(archive.ArchiveError):
        archive.add_version_zip(6, bytes(broken))
    assert archive.add_version_zip(6, data).read_bytes() == data


def test_the_pages_loop_fetches_one_version_then_gives_the_commands_words(
    tmp_path, cache, monkeypatch
) -> None:
    """The page's wheel has no archive: verify answers which version it needs, the page hands
    that version's zip over, and the second call's verdict is the one `skidpad verify` gives
    with the whole archive shipped."""
    from skidpad.replay.budget import DEFAULT_MAX_SIM_SECONDS
    from skidpad.replay.session import PageAPI
    from skidpad.replay.verify import verify_as_the_command

    name = KART6.name
    (tmp_path / name).write_bytes(KART6.read_bytes())
    monkeypatch.chdir(tmp_path)
    code, text, _ = verify_as_the_command(Path(name), DEFAULT_MAX_SIM_SECONDS)
    assert (code, text.split(" (")[0]) == (0, f"{name}: VERIFIED")
    assert "(physics 6, identified)" in text
    zips = {n: archive.version_zip(n) for n in (6,)}
    monkeypatch.setattr(archive, "ARCHIVE_FILE", tmp_path / "no-archive.zip")  # the page's wheel
    monkeypatch.setenv("SKIDPAD_ARCHIVE_IN_PROCESS", "1")
    api = PageAPI()
    first = json.loads(api.verify(name, KART6.read_bytes()))
    assert first == {"needs_physics": 6}  # the manifest names 6 for these bytes: tried first
    api.add_physics(6, zips[6])
    out = json.loads(api.verify(name, KART6.read_bytes()))
    assert (out["exit"], out["text"]) == (code, text)
    # a scripted drive on no circuit: no ghost, and the page says why
    assert out["ghost"] is None and out["ghost_note"].startswith("no ghost: ")


KART1 = HISTORY / "physics-1-kart-scripted.json"
LAP7 = HISTORY / "physics-7-openWheeler-sandbox.json"


def _newest_archived() -> tuple[Path, int]:
    """The frozen file of the newest archived physics (``physics-N-*.json``, N largest)."""
    files = {int(p.name.split("-")[1]): p for p in HISTORY.glob("physics-*.json")}
    newest = max(files)
    return files[newest], newest


PHYSICS9 = HISTORY / "physics-9-hatchbackFwd-random-21.json"


@pytest.mark.parametrize("path,number", [(KART1, 1), (PHYSICS9, 9), _newest_archived()])
def test_an_archived_run_reports_its_poses_the_same_in_process_and_alone(
    cache, monkeypatch, path, number
) -> None:
    """The oldest archived tree, the last with the four-wheel modules in ``engine/`` and the
    newest (``engine/fourwheel/``): the pose after every host step, read by the
    shim from the old simulation's state, is the same in this interpreter and in a process
    of its own; asking for poses moves no hash; and the poses are that physics' drive (the
    last one is where the archived car ended, not where today's does)."""
    alone = archive.run_archived(number, path, poses=True)
    bare = archive.run_archived(number, path)
    assert bare.poses is None and bare.final_hash == alone.final_hash
    assert bare.checkpoints == alone.checkpoints
    monkeypatch.setenv("SKIDPAD_ARCHIVE_IN_PROCESS", "1")
    inside = archive.run_archived(number, path, poses=True)
    assert inside.poses == alone.poses and inside.final_hash == alone.final_hash
    assert len(alone.poses) == json.loads(path.read_text("utf-8"))["steps"]
    from skidpad.replay.replayer import replay

    from skidpad.api import load_recording

    today = []
    rec = load_recording(path)
    every = rec.substep_hz // rec.host_hz
    replay(rec, 100, observer=lambda t, x, y, c, s: today.append((x, y)) if t % every == 0 else 0)
    if number < 10:  # another physics that moves this car: the drive ends elsewhere
        assert alone.poses[-1][:2] != today[-1]
    else:  # physics 11 gave the presets data and left every earlier car's bits alone
        assert alone.poses[-1][:2] == today[-1]


def test_the_page_draws_an_old_lap_and_cuts_its_lap_under_its_own_physics(
    tmp_path, cache, monkeypatch
) -> None:
    """The page's loop on a lap of physics 7: the ghost is physics 7's pose after every host
    step, and the lap asked for is cut from it where the lap began and ended (its length is
    the claimed lap time, to a host step)."""
    from skidpad.replay.session import PageAPI

    alone = archive.run_archived(7, LAP7, poses=True)
    zip7 = archive.version_zip(7)
    monkeypatch.setattr(archive, "ARCHIVE_FILE", tmp_path / "no-archive.zip")  # the page's wheel
    monkeypatch.setenv("SKIDPAD_ARCHIVE_IN_PROCESS", "1")
    api = PageAPI()
    assert json.loads(api.verify(LAP7.name, LAP7.read_bytes(), None, 1)) == {"needs_physics": 7}
    api.add_physics(7, zip7)
    out = json.loads(api.verify(LAP7.name, LAP7.read_bytes(), None, 1))
    assert out["exit"] == 0 and out["physics"]["version"] == 7
    assert [tuple(p) for p in out["ghost"]] == alone.poses
    lap = out["lap_ghost"]
    (claim,) = json.loads(LAP7.read_text("utf-8"))["claims"]["laps"]
    assert abs(len(lap["x"]) / lap["host_hz"] - claim["time_s"]) <= 1 / lap["host_hz"]
    assert all(len(lap[k]) == len(lap["x"]) for k in ("y", "c", "s", "d"))
    assert lap["d"][0] < 1.0 and lap["d"][-1] > 1190.0  # from the line round to it
    assert api.verify(LAP7.name, LAP7.read_bytes(), None, 2).count('"lap_ghost": null') == 1


def test_a_lap_stamped_with_an_archived_physics_verifies_stamped(tmp_path, capsys) -> None:
    """What `skidpad verify --upgrade` writes for an old lap (format 3 naming physics 6) is
    read by physics 6, whose loader predates the stamp: verified, stamped, not refused."""
    from skidpad.cli import main

    doc = json.loads(KART6.read_text("utf-8"))
    assert doc["version"] == 2 and "physics_version" not in doc
    doc = {"format": doc["format"], "version": 3, "engine_version": doc["engine_version"],
           "math_hash": doc["math_hash"], "physics_version": 6,
           **{k: v for k, v in doc.items() if k not in ("format", "version", "engine_version",
                                                     "math_hash")}}
    path = tmp_path / "kart-upgraded.json"
    path.write_text(json.dumps(doc), "utf-8")
    capsys.readouterr()
    assert main(["verify", str(path)]) == 0
    assert "kart-upgraded.json: VERIFIED (physics 6, stamped)" in capsys.readouterr().out
