"""The runtime worker's protocol, the wheel cache, the process adapters and the harness verdicts.

The Node test runs Pyodide for real and checks its math self-test hash against the native
one: that is the cross-runtime check. It skips only when ``node_modules/pyodide`` is absent
outside CI; with ``CI=true`` a missing runtime fails.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from skidpad.engine.fourwheel.definition import PRESET_NAMES
from skidpad.parity import worker
from skidpad.parity.harness import make_runtime, run_parity
from skidpad.parity.render import problem_lines, table_rows
from skidpad.parity.runs import RecordingFile, RuntimeRun
from skidpad.parity.runtimes.base import Runtime, RuntimeFailed, RuntimeUnavailable
from skidpad.parity.runtimes.cpython import CPythonRuntime, find_cpython
from skidpad.parity.runtimes.process import LineProcess, child_env
from skidpad.parity.verdicts import Cell, compare_runs, first_difference
from skidpad.replay.table import format_table

from tests.helpers import run_in_process

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def native_math_hash() -> str:
    if IN_CI:
        from skidpad.engine.smath.selftest import selftest_hash
    else:
        selftest_hash = pytest.importorskip("skidpad.engine.smath.selftest").selftest_hash
    return selftest_hash()


# ------------------------------------------------------------------------ worker protocol


def test_response_shape_without_work():
    response = worker.run_request({"selftest": False, "recordings": []})
    assert response["python"] == sys.version
    assert response["platform"] and response["implementation"].startswith("cpython 3.")
    assert response["math_hash"] is None and "math_error" not in response
    assert response["recordings"] == {}
    assert response["wall_s"] >= 0.0


def test_bad_recordings_fail_alone():
    response = worker.run_request(
        {
            "selftest": False,
            "recordings": [
                {"name": "garbage", "text": "this is not JSON"},
                {"name": "empty-object", "text": "{}"},
            ],
        }
    )
    results = response["recordings"]
    assert set(results) == {"garbage", "empty-object"}
    for name in results:
        assert set(results[name]) == {"error"}, name
        assert results[name]["error"].split(":")[0].endswith("Error"), results[name]
    # the two failures are each described, not one generic message
    assert results["garbage"]["error"] != results["empty-object"]["error"]


def test_a_missing_replayer_fails_only_the_recordings(monkeypatch):
    real_import = worker.importlib.import_module

    def no_replayer(name, *args):
        if name == "skidpad.replay.replayer":
            raise ModuleNotFoundError("No module named 'skidpad.replay.replayer'", name=name)
        return real_import(name, *args)

    monkeypatch.setattr(worker.importlib, "import_module", no_replayer)
    response = worker.run_request({"selftest": False, "recordings": [{"name": "a", "text": "{}"}]})
    assert response["recordings"]["a"]["error"].startswith("ModuleNotFoundError")


def test_selftest_hash_is_the_engine_one():
    assert worker.run_request({"selftest": True})["math_hash"] == native_math_hash()


def test_a_good_recording_round_trips_the_replayer_result():
    paths = sorted((ROOT / "recordings").glob("*.json"))
    if not paths:
        pytest.skip("no committed recording in recordings/ yet")
    from skidpad.replay.recording import loads
    from skidpad.replay.replayer import replay

    text = paths[0].read_text("utf-8")
    result = worker.run_request(
        {"selftest": False, "recordings": [{"name": "r", "text": text}], "checkpoint_every": 50}
    )["recordings"]["r"]
    direct = replay(loads(text), checkpoint_every=50)
    assert result["checkpoints"] == [[s, h] for s, h in direct.checkpoints]
    assert (result["final"], result["steps"]) == (direct.final_hash, direct.steps)
    json.dumps(result)  # JSON-serialisable as it must cross every runtime boundary


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ([], "request"),
        ({"selftest": "yes"}, "request.selftest"),
        ({"fastpath": 1}, "request.fastpath"),
        ({"checkpoint_every": 0}, "request.checkpoint_every"),
        ({"checkpoint_every": True}, "request.checkpoint_every"),
        ({"recordings": {"a": "b"}}, "request.recordings"),
        ({"recordings": [{"name": "a"}]}, "request.recordings[0]"),
        ({"recordings": [{"name": "", "text": ""}]}, "request.recordings[0].name"),
        ({"recordings": [{"name": "a", "text": 3}]}, "request.recordings[0].text"),
        ({"recordings": [{"name": "a", "text": "", "physics": "7"}]},
         "request.recordings[0].physics"),
        ({"recordings": [{"name": "a", "text": "", "physics": True}]},
         "request.recordings[0].physics"),
        ({"recordings": [{"name": "a", "text": "", "extra": 1}]}, "request.recordings[0]"),
        (
            {"recordings": [{"name": "a", "text": ""}, {"name": "a", "text": ""}]},
            "request.recordings[1].name",
        ),
        ({"selftest": True, "bogus": True}, "request"),
        ({"trace": True}, "request.trace"),
        ({"trace": {"stop_after": -1}}, "request.trace.stop_after"),
        ({"trace": {"detail_steps": [3, 3]}}, "request.trace.detail_steps"),
    ],
)
def test_malformed_requests_name_the_field(request_, field):
    with pytest.raises(worker.RequestError) as info:
        worker.run_request(request_)
    assert str(info.value).startswith(field + ":")


def test_a_physics_this_installation_lacks_fails_that_recording_only():
    response = worker.run_request(
        {"selftest": False, "recordings": [{"name": "a", "text": "{}", "physics": 999}]}
    )
    assert "physics 999 is not in this installation's archive" in response["recordings"]["a"][
        "error"]


def test_handle_line_never_raises():
    bad = worker.handle_line("{not json")
    assert bad.startswith(worker.PROTOCOL_PREFIX)
    assert "request_error" in json.loads(bad[len(worker.PROTOCOL_PREFIX) :])
    wrong = json.loads(worker.handle_line('{"bogus": 1}')[len(worker.PROTOCOL_PREFIX) :])
    assert "bogus" in wrong["request_error"]


def test_serve_answers_each_line_and_keeps_prints_off_stdout(monkeypatch, capsys):
    def noisy(request):
        print("stray output from the run")
        return {"echo": request}

    monkeypatch.setattr(worker, "run_request", noisy)
    out = io.StringIO()
    worker.serve(io.StringIO('{"selftest": false}\n\n{"n": 2}\n'), out)
    lines = out.getvalue().splitlines()
    assert all(line.startswith(worker.PROTOCOL_PREFIX) for line in lines)
    payloads = [json.loads(line[len(worker.PROTOCOL_PREFIX) :]) for line in lines]
    assert payloads[0]["ready"] is True and payloads[0]["python"] == sys.version
    assert payloads[1:] == [{"echo": {"selftest": False}}, {"echo": {"n": 2}}]
    assert "stray output" in capsys.readouterr().err


def test_main_reads_a_request_file(tmp_path, capsys):
    path = tmp_path / "req.json"
    path.write_text(json.dumps({"selftest": False, "recordings": [{"name": "x", "text": "[]"}]}))
    assert worker.main([str(path)]) == 0
    response = json.loads(capsys.readouterr().out)
    assert set(response["recordings"]["x"]) == {"error"}
    path.write_text('{"recordings": 5}')
    assert worker.main([str(path)]) == 2
    assert "request.recordings" in capsys.readouterr().err


# ------------------------------------------------------------------------------ wheel


def test_wheel_is_cached_by_content(tmp_path):
    from skidpad.parity.wheel import PACKAGES, build_wheel

    root = tmp_path / "src"
    for package in (*PACKAGES, "skidpad"):  # the folders and the import package
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__py*"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "README.md").write_text("# test copy\n")
    first = build_wheel(tmp_path / "out", root=root)
    stamp = first.stat().st_mtime_ns
    assert build_wheel(tmp_path / "out", root=root) == first
    assert first.stat().st_mtime_ns == stamp  # served from the cache, not rebuilt
    names = set(zipfile.ZipFile(first).namelist())
    assert {
        "skidpad/parity/worker.py", "skidpad/parity/node/runner.mjs", "skidpad/engine/state.py"
    } <= names
    state_py = root / "engine" / "state.py"
    state_py.write_text(state_py.read_text() + "\n# a change\n")
    second = build_wheel(tmp_path / "out", root=root)
    assert second != first and second.parent.name != first.parent.name


# -------------------------------------------------------------------------- processes


def _fake_child(body: str) -> list[str]:
    return [sys.executable, "-c", body]


def test_a_silent_runtime_times_out_with_its_name_and_log():
    proc = LineProcess(
        "fake-rt",
        _fake_child(
            "import sys, time\n"
            "print('@@skidpad {\"ready\": true}', flush=True)\n"
            "sys.stderr.write('booted, now stuck\\n'); sys.stderr.flush()\n"
            "time.sleep(60)\n"
        ),
        child_env(),
    )
    proc.start(timeout_s=30)
    with pytest.raises(RuntimeFailed) as info:
        proc.request({"selftest": True}, timeout_s=0.5, what="running self-test")
    assert str(info.value) == "fake-rt: running self-test: timed out after 0.5 s"
    assert info.value.runtime == "fake-rt"
    assert "booted, now stuck" in info.value.log
    proc.stop()


def test_a_dying_runtime_is_reported_with_its_exit_code():
    proc = LineProcess(
        "fake-rt", _fake_child("import sys; sys.stderr.write('no pyodide here\\n'); sys.exit(3)")
    )
    with pytest.raises(RuntimeFailed) as info:
        proc.start(timeout_s=30)
    assert "starting: the process exited (code 3)" in str(info.value)
    assert "no pyodide here" in info.value.log


def test_unknown_runtime_and_missing_interpreter(monkeypatch):
    from skidpad.parity.runs import HarnessError

    with pytest.raises(HarnessError, match="unknown runtime 'cpython2.7'"):
        make_runtime("cpython2.7")
    monkeypatch.setenv("SKIDPAD_PYTHON3_99", "/nonexistent/python3.99")
    assert find_cpython("3.99") is None
    with pytest.raises(RuntimeUnavailable, match=r"cpython3\.99: .*SKIDPAD_PYTHON3_99"):
        CPythonRuntime("3.99").start()


@pytest.mark.parametrize("minor", ["3.11", "3.12", "3.13"])
def test_cpython_runtime_computes_the_native_math_hash(minor):
    expected = native_math_hash()
    runtime = CPythonRuntime(minor)
    try:
        runtime.resolve()
    except RuntimeUnavailable as exc:
        if IN_CI:
            raise
        pytest.skip(str(exc))
    with runtime:
        assert runtime.info["version"].startswith(minor + ".")
        # the math alone: fast=readable in each CPython is the parity matrix's column
        # (`nox -s parity`, in the same test command)
        response = runtime.run({"selftest": True, "fastpath": False, "recordings": []},
                               timeout_s=300)
    assert response["runtime"]["name"] == f"cpython{minor}"
    assert response["math_hash"] == expected
    assert "fastpath" not in response


# ------------------------------------------------------------------------------- node


@pytest.fixture(scope="module")
def node_runtime():
    from skidpad.parity.runtimes.node import NodeRuntime, find_pyodide

    if find_pyodide(ROOT) is None or shutil.which("node") is None:
        if IN_CI:
            pytest.fail("node runtime missing in CI: node_modules/pyodide absent (run `npm ci`)")
        pytest.skip("node_modules/pyodide is not installed (run `npm ci`)")
    from skidpad.parity.wheel import build_wheel

    runtime = NodeRuntime(wheel=build_wheel(), pyodide_dir=find_pyodide(ROOT))
    runtime.start(timeout_s=300)
    yield runtime
    runtime.stop()


def test_node_runs_python_314_in_pyodide(node_runtime):
    assert node_runtime.info["version"].startswith("pyodide 314.0.")
    response = node_runtime.run({"selftest": False, "recordings": []}, timeout_s=120)
    assert response["python"].startswith("3.14")
    assert "emscripten" in response["platform"].lower()
    assert response["runtime"]["name"] == "node"


def test_node_math_hash_equals_native(node_runtime):
    expected = native_math_hash()
    response = node_runtime.run({"selftest": True, "recordings": []}, timeout_s=600)
    assert response.get("math_error") is None
    assert response["math_hash"] == expected
    check = response["fastpath"]  # Pyodide generates and execs the fast path itself
    assert check["ok"] and sorted(check["presets"]) == sorted(PRESET_NAMES), check
    native = worker.run_request({"selftest": False, "fastpath": True})["fastpath"]
    assert {n: r["final"] for n, r in check["presets"].items()} == {
        n: r["final"] for n, r in native["presets"].items()
    }
    assert check["commonroad"] == native["commonroad"]  # the generated MB body too (ADR 0185)


def test_node_bad_recording_is_a_per_recording_error(node_runtime):
    response = node_runtime.run(
        {"selftest": False, "recordings": [{"name": "bad", "text": "[1, 2"}]}, timeout_s=120
    )
    assert set(response["recordings"]["bad"]) == {"error"}


# ----------------------------------------------------------------------------- harness


def _result(final: str, checkpoints: list[list]) -> dict:
    return {"checkpoints": checkpoints, "final": final, "steps": 200, "wall_s": 1.0}


GOOD = _result("f" * 16, [[0, "a" * 16], [100, "b" * 16], [200, "c" * 16]])


def _write_golden(
    hashes: Path, rec: RecordingFile, result: dict, math_hash: str, every: int = 100
) -> None:
    from skidpad.replay import golden

    doc = {
        "format": golden.GOLDEN_FORMAT,
        "version": golden.GOLDEN_VERSION,
        "recording": rec.name + ".json",
        "recording_sha256": rec.sha256,
        "preset": None,
        "engine_version": "0.1.0",
        "math_hash": math_hash,
        "steps": result["steps"],
        "checkpoint_every": every,
        "checkpoints": result["checkpoints"],
        "final": result["final"],
    }
    hashes.mkdir(parents=True, exist_ok=True)
    golden.write_golden(hashes / f"{rec.name}.json", doc)
    golden.write_math(hashes, golden.math_document(math_hash, ["sin"], "0.1.0"))


def _run(name: str, result: dict, math_hash: str = "1" * 16) -> RuntimeRun:
    return RuntimeRun(
        name,
        info={"startup_s": 0.1, "version": "x"},
        math_hash=math_hash,
        recordings={"lap": result},
    )


def test_harness_finds_the_planted_mismatch(tmp_path):
    rec = RecordingFile("lap", "recordings/lap.json", "{}", "d" * 64)
    _write_golden(tmp_path, rec, GOOD, "1" * 16)
    perturbed = _result("e" * 16, [[0, "a" * 16], [100, "9" * 16], [200, "c" * 16]])
    runs = [_run("cpython3.11", GOOD), _run("node", perturbed), _run("firefox", GOOD, "2" * 16)]
    matrix = compare_runs(runs, [rec], tmp_path)
    assert not matrix.ok
    assert matrix.cells["cpython3.11"]["lap"] == Cell("match", "f" * 16)
    node = matrix.cells["node"]["lap"]
    assert (node.status, node.first_step) == ("mismatch", 100)
    assert matrix.math["firefox"].status == "mismatch"
    table = format_table(table_rows(matrix, runs))
    # header, rule, the recordings' physics versions, cpython3.11, node
    # "{}" asks for no other physics: today's replays it, and the row says so
    from skidpad.engine.physics import PHYSICS_VERSION

    assert table.splitlines()[2].split() == ["physics", str(PHYSICS_VERSION)]
    assert "MISMATCH @100" in table.splitlines()[4]
    lines = problem_lines(matrix, runs)
    assert any(line.startswith("node: lap: MISMATCH") for line in lines)


def test_harness_passes_when_all_agree_and_flags_missing_golden(tmp_path):
    rec = RecordingFile("lap", "recordings/lap.json", "{}", "d" * 64)
    runs = [_run("cpython3.11", GOOD), _run("node", GOOD)]
    missing = compare_runs(runs, [rec], tmp_path)
    assert not missing.ok and missing.cells["node"]["lap"].status == "no-golden"
    assert missing.math["node"].status == "no-golden"
    _write_golden(tmp_path, rec, GOOD, "1" * 16)
    assert compare_runs(runs, [rec], tmp_path).ok
    stale = RecordingFile("lap", "recordings/lap.json", "{ }", "0" * 64)
    assert compare_runs(runs, [stale], tmp_path).cells["node"]["lap"].status == "stale-golden"


def test_first_difference_prefers_the_earliest_checkpoint():
    other = _result("f" * 16, [[0, "a" * 16], [100, "x" * 16], [200, "y" * 16]])
    assert first_difference(GOOD, other)[0] == 100
    assert first_difference(GOOD, dict(GOOD)) == (None, "")


def test_run_parity_reports_an_unavailable_runtime_and_writes_reports(tmp_path, monkeypatch):
    monkeypatch.setenv("SKIDPAD_PYTHON3_13", "/nonexistent/python3.13")
    if sys.version_info[:2] == (3, 13):
        pytest.skip("the running interpreter is 3.13 itself")
    printed: list[str] = []
    code = run_parity(
        ["cpython3.13"],
        root=ROOT,
        selftest_only=True,
        wheel=tmp_path / "never-used.whl",
        hashes_dir=tmp_path / "hashes",
        report_dir=tmp_path / "report",
        out=printed.append,
        progress=lambda _m: None,
    )
    assert code == 1
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["ok"] is False
    assert report["runtimes"][0]["status"] == "unavailable"
    assert "pyenv install 3.13.0" in report["runtimes"][0]["error"]
    assert (tmp_path / "report" / "report.md").read_text().count("FAIL") == 1
    assert printed[-1].startswith("parity: FAIL")


# ------------------------------------------------------------------- planted divergence


class _Plant:
    """A probe hook that moves one state field by one ulp at the end of one substep."""

    def __init__(self, tick: int, index: int) -> None:
        self.tick, self.index = tick, index

    def stage(self, name, values):
        pass

    def substep(self, tick, state):
        if tick == self.tick:
            state[self.index] = math.nextafter(state[self.index], math.inf)


class _InProcessRuntime(Runtime):
    """The worker in this interpreter; with ``plant``, its engine is perturbed (a stand-in for a
    runtime whose arithmetic differs)."""

    def __init__(self, name: str, plant: _Plant | None = None) -> None:
        self.name, self.plant = name, plant

    def start(self, timeout_s: float = 0.0) -> dict:
        return {"name": self.name, "version": "in-process", "startup_s": 0.0}

    def run(self, request: dict, timeout_s: float = 0.0) -> dict:
        return run_in_process(self.name, request, self.plant)

    def stop(self) -> None:
        pass


@pytest.fixture(scope="module")
def short_recording(tmp_path_factory):
    from skidpad.cli import main as skidpad

    path = tmp_path_factory.mktemp("rec") / "planted.json"
    argv = ["record", "--preset", "sportsRwd", "--drive", "random:7", "--duration", "1"]
    assert skidpad([*argv, "-o", str(path), "--no-verify"]) == 0
    return path


def test_harness_diff_names_the_planted_step_and_field(short_recording, tmp_path):
    from skidpad.engine.ticks import step_of_tick
    from skidpad.replay.fourwheel import build_simulation
    from skidpad.replay.recording import loads

    rec = loads(short_recording.read_text("utf-8"))
    layout = build_simulation(rec).layout
    index = next(
        i for i, f in enumerate(layout.fields) if f.kind == "f" and f.name.startswith("body.")
    )
    field_name = layout.fields[index].name
    tick = 3 * rec.substep_hz // rec.host_hz * 11 + 2  # inside host step 33, not its first substep
    step = step_of_tick(tick, rec.host_hz, rec.substep_hz)
    runtimes = {
        "cpython3.11": _InProcessRuntime("cpython3.11"),
        "node": _InProcessRuntime("node", _Plant(tick, index)),
    }
    code, printed = _parity_cpython_vs_node(short_recording, tmp_path, runtimes.__getitem__)
    assert code == 1
    table = printed[0].splitlines()
    assert table[2].startswith("physics")  # each recording's physics version
    assert table[3].startswith("cpython3.11") and "MISMATCH" not in table[3]
    first_bad_checkpoint = (step // 10 + 1) * 10
    assert table[4].startswith("node") and f"MISMATCH @{first_bad_checkpoint}" in table[4]
    text = "\n".join(printed)
    assert "where cpython3.11 and node parted on planted:" in text
    assert f"first differing checkpoint: step {first_bad_checkpoint}" in text
    assert f"first differing substep: tick {tick} = host step {step} (0-based)" in text
    assert re.search(rf"^\s+{re.escape(field_name)}\s.*", text, re.M), text
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    divergence = report["divergences"][0]
    assert (divergence["a"], divergence["b"]) == ("cpython3.11", "node")
    assert [f["name"] for f in divergence["report"]["fields"]] == [field_name]
    assert divergence["report"]["tick"] == tick
    assert "identical" not in text  # never next to a mismatch


def test_harness_diff_against_a_perturbed_golden_file(short_recording, tmp_path):
    from skidpad.replay.recording import loads
    from skidpad.replay.replayer import replay

    text = short_recording.read_text("utf-8")
    result = replay(loads(text), checkpoint_every=10)
    checkpoints = [[s, h] for s, h in result.checkpoints]
    checkpoints[5][1] = "0" * 16  # the golden file lies about step 50
    planted = {"checkpoints": checkpoints, "final": result.final_hash, "steps": result.steps}
    rec = RecordingFile("planted", str(short_recording), text, file_sha(short_recording))
    _write_golden(tmp_path / "hashes", rec, planted, worker.math_hash(), every=10)
    code, printed = _parity_cpython_vs_node(short_recording, tmp_path, _InProcessRuntime)
    assert code == 1
    assert "MISMATCH @50" in printed[0]
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["divergences"][0]["b"] == "golden"
    assert report["divergences"][0]["report"]["differing_checkpoint"] == 50
    assert "identical" not in "\n".join(printed)  # never next to a mismatch


def _parity_cpython_vs_node(recording: Path, tmp_path: Path, factory) -> tuple[int, list[str]]:
    """run_parity of cpython3.11 against node on one recording, checkpoints every 10 steps."""
    printed: list[str] = []
    code = run_parity(
        ["cpython3.11", "node"],
        root=ROOT,
        fastpath=False,  # about something else: the fast path has its own tests
        recording_paths=[recording],
        hashes_dir=tmp_path / "hashes",
        report_dir=tmp_path / "report",
        checkpoint_every=10,
        out=printed.append,
        progress=lambda _m: None,
        factory=factory,
    )
    return code, printed


def file_sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_node_replays_and_traces_like_native(node_runtime, short_recording):
    text = short_recording.read_text("utf-8")
    request = {
        "selftest": False,
        "recordings": [{"name": "r", "text": text}],
        "checkpoint_every": 10,
        "trace": {"stop_after": 60, "detail_steps": [20, 21]},
    }
    native = worker.run_request(request)["recordings"]["r"]
    pyodide = node_runtime.run(request, timeout_s=600)["recordings"]["r"]
    assert "error" not in pyodide, pyodide
    assert pyodide["checkpoints"] == native["checkpoints"]
    assert pyodide["final"] == native["final"] and pyodide["steps"] == 60
    assert pyodide["trace"]["substep_hashes"] == native["trace"]["substep_hashes"]
    assert pyodide["trace"]["detail"] == native["trace"]["detail"]
    assert pyodide["trace"]["runtime"]["platform"] == "emscripten"


def test_a_bad_recording_file_is_bad_input_before_any_runtime_starts(tmp_path):
    from skidpad.parity.runs import HarnessError

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "not-a-recording"}')
    started: list[str] = []

    def factory(name):
        started.append(name)
        return _InProcessRuntime(name)

    with pytest.raises(HarnessError, match=r"recording .*bad\.json: /format"):
        run_parity(
            ["cpython3.11"],
            root=ROOT,
            recording_paths=[bad],
            hashes_dir=tmp_path,
            report_dir=tmp_path / "report",
            out=lambda _l: None,
            progress=lambda _m: None,
            factory=factory,
        )
    assert started == []
    assert not (tmp_path / "report").exists()


def test_runtimes_run_concurrently_keep_their_order_and_verdicts(short_recording, tmp_path):
    """``jobs=2`` runs runtimes side by side; the table and verdicts are those of a serial run."""
    from skidpad.replay.recording import loads
    from skidpad.replay.replayer import replay

    text = short_recording.read_text("utf-8")
    result = replay(loads(text), checkpoint_every=10)
    golden = {
        "checkpoints": [[s, h] for s, h in result.checkpoints],
        "final": result.final_hash,
        "steps": result.steps,
    }
    rec = RecordingFile("planted", str(short_recording), text, file_sha(short_recording))
    _write_golden(tmp_path / "hashes", rec, golden, worker.math_hash(), every=10)
    names = ["cpython3.11", "node", "chromium"]
    lock = threading.Lock()
    active = [0, 0]  # now, most at once
    overlapped = threading.Event()  # set once two runs were active at the same time

    class Counting(_InProcessRuntime):
        def run(self, request: dict, timeout_s: float = 0.0) -> dict:
            with lock:
                active[0] += 1
                active[1] = max(active[1], active[0])
                if active[0] > 1:
                    overlapped.set()
            # long enough for a second runtime to start alongside; once one has (jobs=2), the
            # point is made and no run need wait any longer. A serial run (jobs=1, or jobs=2
            # broken) waits the whole window every time, as a plain sleep did.
            overlapped.wait(0.3)
            try:
                return super().run(request, timeout_s)
            finally:
                with lock:
                    active[0] -= 1

    tables, most = {}, {}
    for jobs in (1, 2):
        active[:] = [0, 0]
        overlapped.clear()
        printed: list[str] = []
        code = run_parity(
            names,
            root=ROOT,
            fastpath=False,  # about something else: the fast path has its own tests
            recording_paths=[short_recording],
            hashes_dir=tmp_path / "hashes",
            report_dir=tmp_path / f"report{jobs}",
            checkpoint_every=10,
            out=printed.append,
            progress=lambda _m: None,
            factory=lambda name: Counting(name),
            jobs=jobs,
        )
        assert code == 0, printed
        rows = printed[0].splitlines()[3:6]  # after the header, the rule and the physics row
        assert [row.split()[0] for row in rows] == names
        tables[jobs] = [row.split()[:2] for row in rows]
        most[jobs] = active[1]
    assert tables[1] == tables[2]
    assert most == {1: 1, 2: 2}


# ------------------------------------------------------- fast path against the readable stages


def _planted_fast_path(monkeypatch, target: str = "v_x0") -> None:
    """Every fast path built from now on has ``target`` (a line of the tire stage) one ulp
    larger: the pattern of tests/test_fastpath.py."""
    from skidpad.engine.fourwheel import fastpath
    from test_fastpath import plant

    real_build, real_source = fastpath.build, fastpath.source

    def planted_build(sim, text=None, extra=None):
        planted = plant(real_source(sim), target)
        return real_build(sim, planted, {"nextafter": math.nextafter, "inf": math.inf})

    monkeypatch.setattr(fastpath, "build", planted_build)


def test_the_worker_selftest_compares_the_paths_of_every_preset():
    response = worker.run_request({"selftest": True, "recordings": []})
    check = response["fastpath"]
    assert check["ok"] and sorted(check["presets"]) == sorted(PRESET_NAMES)
    assert all(r["first_difference"] is None and r["final"] for r in check["presets"].values())
    assert check["commonroad"]["commonroad:mb"]["first_difference"] is None  # ADR 0185
    assert "fastpath" not in worker.run_request({"selftest": True, "fastpath": False})
    assert "fastpath" not in worker.run_request({"selftest": False})


def test_a_one_ulp_plant_in_the_fast_path_fails_the_worker_check(monkeypatch):
    _planted_fast_path(monkeypatch)
    check = worker.run_request({"selftest": False, "fastpath": True})["fastpath"]
    assert check["ok"] is False
    for name in PRESET_NAMES:  # the tire stage runs in every substep of every preset
        first = check["presets"][name]["first_difference"]
        assert first is not None and first["host_step"] == 0, (name, first)


def _selftest_parity_run(tmp_path: Path) -> tuple[int, list[str], dict]:
    """A self-test-only parity run of cpython3.11 in this process: exit code, what it
    printed, and its JSON report."""
    printed: list[str] = []
    code = run_parity(
        ["cpython3.11"],
        root=ROOT,
        selftest_only=True,
        hashes_dir=ROOT / "hashes",
        report_dir=tmp_path / "report",
        out=printed.append,
        progress=lambda _m: None,
        factory=_InProcessRuntime,
    )
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    return code, printed, report


def test_a_planted_fast_path_fails_the_parity_run_naming_preset_and_step(monkeypatch, tmp_path):
    _planted_fast_path(monkeypatch)
    code, printed, report = _selftest_parity_run(tmp_path)
    assert code == 1
    table = printed[0].splitlines()
    assert "fast=readable" in table[0] and "MISMATCH @0" in table[3]
    text = "\n".join(printed)
    first = PRESET_NAMES[0]
    assert re.search(
        rf"cpython3\.11: fast path vs readable MISMATCH: {first}: fast and readable paths "
        rf"part at host step 0 \(tick \d+\): \S+ fast 0x\S+ readable 0x\S+, \d+ ulp",
        text,
    ), text
    assert report["ok"] is False
    verdict = report["runtimes"][0]["fastpath_verdict"]
    assert (verdict["status"], verdict["first_step"]) == ("mismatch", 0)


def test_the_paths_agree_in_a_clean_parity_run(tmp_path):
    code, printed, report = _selftest_parity_run(tmp_path)
    assert code == 0, printed
    # header, rule, the recordings' physics row, then the runtime
    assert printed[0].splitlines()[3].split()[5] == "ok"  # the fast=readable column
    assert report["runtimes"][0]["fastpath_verdict"]["status"] == "match"
