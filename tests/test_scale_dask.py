"""The harness on dask.distributed and ``skidpad fuzz`` (ADR 0145).

One LocalCluster of two worker processes on 127.0.0.1 serves the module: parity verdicts
on it equal a serial run's; a worker killed in the middle of a task gets its cell re-run
elsewhere, logged and counted once; a divergence planted in one runtime is found by the
fuzzer, saved with both traces and diffed. The in-process runtimes (the worker's own
interpreter, optionally perturbed) travel to the workers pickled by value. One test starts
``dask scheduler`` and two ``dask worker`` processes on loopback and runs ``skidpad fuzz
--scheduler`` against them with the real CPython runtimes; one runs Pyodide under Node in
a worker of the cluster.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import cloudpickle  # dask's; both come with skidpad[scale], part of the test extra
import distributed
import pytest
from skidpad.cli import build_parser, main
from skidpad.cli.cmd_fuzz import campaign_of, run_fuzz
from skidpad.parity.executor import LocalExecutor
from skidpad.parity.fuzz import LOG_NAME, Campaign, judge, run_campaign
from skidpad.parity.harness import run_parity
from skidpad.parity.runtimes.base import Runtime

from tests.helpers import loopback_cluster, run_in_process

ROOT = Path(__file__).resolve().parent.parent
# engine.fourwheel.simulation.LAYOUT.index["body.x"]; checked in test_the_plant_moves_body_x
BODY_X = 0
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def cluster():
    with loopback_cluster() as local:
        yield local


class InProcess(Runtime):
    """The worker code in the interpreter of the process that runs the task. ``nudge``: add it
    to body.x after substep ``tick`` (a stand-in for a runtime whose arithmetic differs).
    ``die_once``: a marker file; the first run anywhere creates it and kills its process."""

    def __init__(self, name: str, nudge: float = 0.0, tick: int = 30, die_once: str = "") -> None:
        self.name, self.nudge, self.tick, self.die_once = name, nudge, tick, die_once

    def start(self, timeout_s: float = 0.0) -> dict:
        return {"name": self.name, "version": "in-process", "startup_s": 0.0}

    def run(self, request: dict, timeout_s: float = 0.0) -> dict:
        if self.die_once and request.get("recordings"):
            try:
                os.close(os.open(self.die_once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)  # the dask worker dies mid-task
        runtime = self

        class Nudge:
            def stage(self, name, values):
                pass

            def substep(self, tick, state):
                if tick == runtime.tick:
                    state[BODY_X] += runtime.nudge

        return run_in_process(self.name, request, Nudge() if self.nudge else None)

    def stop(self) -> None:
        pass


class Factory:
    """Picklable ``factory(name)``: every runtime in process, ``planted`` ones nudged."""

    def __init__(self, planted: tuple[str, ...] = (), die_once: str = "") -> None:
        self.planted, self.die_once = planted, die_once

    def __call__(self, name: str) -> Runtime:
        return InProcess(name, 1e-6 if name in self.planted else 0.0, die_once=self.die_once)


def _args(tmp: Path, *extra: str):
    argv = ["fuzz", "--drives", "4", "--duration", "1", "--batch", "2"]
    argv += ["--max-substep-hz", "400", "--out", str(tmp), *extra]
    return build_parser().parse_args(argv)


def _cells(out: Path) -> list[list]:
    lines = (out / LOG_NAME).read_text().splitlines()
    return [json.loads(line)["cell"] for line in lines if '"cell"' in line]


def _results(out: Path) -> dict:
    lines = [json.loads(line) for line in (out / LOG_NAME).read_text().splitlines()]
    return {(d["cell"][0], d["cell"][1]): d["results"] for d in lines if "cell" in d}


def test_the_plant_moves_body_x():
    from skidpad.engine.fourwheel.simulation import LAYOUT

    assert LAYOUT.index["body.x"] == BODY_X


@pytest.fixture(scope="module")
def short_recordings(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rec")
    paths = []
    for preset, seed in (("kart", 3), ("hatchbackFwd", 4)):
        paths.append(folder / f"{preset}.json")
        argv = ["record", "--preset", preset, "--drive", f"random:{seed}", "--duration", "1"]
        assert main([*argv, "-o", str(paths[-1]), "--no-verify"]) == 0
    return paths


def test_parity_on_a_local_cluster_equals_a_serial_run(cluster, short_recordings, tmp_path):
    """Serially, one task per runtime; on the cluster, one task per runtime and recording."""
    names = ["cpython3.11", "cpython3.12"]
    reports = {}
    runs = (("serial", None, None), ("dask", cluster.scheduler_address, 1))
    for label, scheduler, batch in runs:
        printed: list[str] = []
        run_parity(
            names,
            root=ROOT,
            fastpath=False,  # about something else: the fast path has its own tests
            recording_paths=short_recordings,
            batch=batch,
            hashes_dir=tmp_path / "hashes",
            report_dir=tmp_path / label,
            checkpoint_every=10,
            diff=False,
            out=printed.append,
            progress=lambda _m: None,
            scheduler=scheduler,
            jobs=2,
        )
        reports[label] = json.loads((tmp_path / label / "report.json").read_text())
        assert [row.split()[0] for row in printed[0].splitlines()[3:]] == names  # past physics
    for serial, dask in zip(
        reports["serial"]["runtimes"], reports["dask"]["runtimes"], strict=True
    ):
        assert serial["status"] == dask["status"] == "ok", (serial["error"], dask["error"])
        assert serial["math_hash"] == dask["math_hash"]
        assert serial["verdicts"] == dask["verdicts"]
        assert set(serial["recordings"]) == {"kart", "hatchbackFwd"}
        for name, result in serial["recordings"].items():
            assert result["checkpoints"] == dask["recordings"][name]["checkpoints"]
    assert reports["serial"]["problems"] == reports["dask"]["problems"]


def test_a_killed_worker_s_cell_is_recomputed_once(cluster, tmp_path):
    marker = tmp_path / "killed-one-worker"
    serial = tmp_path / "serial"
    campaign = campaign_of(_args(serial))
    run_campaign(campaign, serial, LocalExecutor(1), Factory(), say=lambda _l: None)
    out = tmp_path / "dask"
    args = _args(out, "--scheduler", cluster.scheduler_address)
    code = run_fuzz(args, campaign, cluster.scheduler_address, Factory(die_once=str(marker)))
    assert marker.exists()  # a worker really died in the middle of a task
    assert code == 0
    cells = _cells(out)
    assert sorted(map(tuple, cells)) == sorted(campaign.cells())  # none lost, none twice
    assert _results(out) == _results(serial)


def test_a_planted_divergence_is_found_saved_and_diffed(cluster, tmp_path, capsys):
    args = _args(tmp_path, "--scheduler", cluster.scheduler_address)
    campaign = campaign_of(args)
    code = run_fuzz(args, campaign, cluster.scheduler_address, Factory(("cpython3.12",)))
    assert code == 1
    printed = capsys.readouterr().out
    assert "4 divergences" in printed.splitlines()[-1]
    folder = tmp_path / "divergences" / "drive-000001"
    a, b = folder / "cpython3.11.trace.json", folder / "cpython3.12.trace.json"
    assert {p.name for p in folder.iterdir()} >= {"recording.json", "diff.txt", a.name, b.name}
    report = json.loads((folder / "diff.json").read_text())
    assert report["tick"] == 30
    assert [f["name"] for f in report["fields"]] == ["body.x"]
    assert "body.x" in (folder / "diff.txt").read_text()
    capsys.readouterr()
    assert main(["diff", str(a), str(b)]) == 1  # the saved traces diff the same from the CLI
    assert "tick 30" in capsys.readouterr().out
    from skidpad.replay.recording import loads
    from skidpad.replay.replayer import replay

    setup = json.loads((folder / "setup.json").read_text())
    rec = loads((folder / "recording.json").read_text())
    assert (rec.host_hz, rec.substep_hz, rec.preset) == (
        setup["host_hz"],
        setup["substep_hz"],
        setup["preset"],
    )
    clean = _results(tmp_path)[("cpython3.11", 0)]["1"]
    assert replay(rec, checkpoint_every=10).final_hash == clean["final"]


def test_a_stopped_campaign_resumes_where_it_stopped(tmp_path):
    campaign = campaign_of(_args(tmp_path))
    whole = run_campaign(campaign, tmp_path, LocalExecutor(1), Factory(), say=lambda _l: None)
    log = tmp_path / LOG_NAME
    lines = log.read_text().splitlines()
    last_cell = max(i for i, line in enumerate(lines) if '"cell"' in line)
    # stop mid-write: the last cell and what followed it gone, half a line left
    log.write_text("\n".join(lines[:last_cell]) + "\n" + lines[last_cell][:25])
    again = run_campaign(campaign, tmp_path, LocalExecutor(1), Factory(), say=lambda _l: None)
    assert (again.cells_run, again.cells_resumed) == (1, len(campaign.cells()) - 1)
    assert [v.verdict for v in again.verdicts] == [v.verdict for v in whole.verdicts]
    assert sorted(map(tuple, _cells(tmp_path))) == sorted(campaign.cells())


def test_another_campaign_s_log_is_refused_before_any_work(tmp_path, capsys):
    campaign = campaign_of(_args(tmp_path))
    run_campaign(campaign, tmp_path, LocalExecutor(1), Factory(), say=lambda _l: None)
    before = (tmp_path / LOG_NAME).read_bytes()
    assert main(["fuzz", "--drives", "5", "--out", str(tmp_path), "--seed", "9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "other settings" in err[0]
    assert (tmp_path / LOG_NAME).read_bytes() == before


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--drives", "0"], "--drives 0"),
        (["--drives", "2", "--presets", "bus"], "--presets bus: unknown preset"),
        (["--drives", "2", "--runtimes", "cpython2.7"], "--runtimes cpython2.7"),
        (["--drives", "2", "--duration", "-1"], "--duration -1"),
        (["--drives", "2", "--runtimes", "cpython3.11"], "at least two runtimes"),
        (["--drives", "2", "--max-substep-hz", "50"], "--max-substep-hz 50"),
        (["--drives", "2", "--scheduler", "http://x"], "expected tcp://HOST:PORT"),
    ],
)
def test_hostile_fuzz_arguments_are_one_line(argv, words, tmp_path, capsys):
    assert main(["fuzz", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert not (tmp_path / "out").exists()


def test_an_out_that_is_a_file_is_refused_and_kept(tmp_path, capsys):
    mine = tmp_path / "notes.txt"
    mine.write_text("a user's file\n")
    assert main(["fuzz", "--drives", "2", "--out", str(mine)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a folder" in err[0], err
    assert mine.read_text() == "a user's file\n"


def test_scheduler_without_dask_says_what_to_install(monkeypatch, tmp_path, capsys):
    import skidpad.parity.executor as executor

    monkeypatch.setattr(executor, "dask_available", lambda: False)
    argv = ["--drives", "2", "--scheduler", "tcp://127.0.0.1:8786", "--out", str(tmp_path)]
    assert main(["fuzz", *argv]) == 2
    assert main(["parity", "-r", "cpython3.11", "--scheduler", "local"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("pip install 'skidpad[scale]'" in line for line in err)


def _square(x: int) -> int:
    return x * x


def test_the_local_cluster_is_on_loopback_and_yields_each_task_once():
    import functools

    from skidpad.parity.executor import DaskExecutor

    executor = DaskExecutor("local", 1)
    try:
        info = executor.client.scheduler_info()
        addresses = [info["address"], *info["workers"]]
        assert all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses
        tasks = [functools.partial(_square, n) for n in (3, 3, 4)]  # equal calls stay two tasks
        got = sorted(executor.run(tasks, lambda i, exc: None))
    finally:
        executor.close()
    assert got == [(0, 9), (1, 9), (2, 16)]


def test_random_setups_stay_in_the_allowed_ranges():
    from skidpad.engine.fourwheel.simulation import Simulation
    from skidpad.scenarios.random_drive import HOST_RATES, SURFACES, drive_seed, random_setup

    setups = [random_setup(drive_seed(5, i)) for i in range(300)]
    assert [s.to_json() for s in setups[:20]] == [
        random_setup(drive_seed(5, i)).to_json() for i in range(20)
    ]
    for s in setups:
        assert 100 <= s.substep_hz <= 20000 and 20 <= s.host_hz <= min(250, s.substep_hz)
        assert abs(s.initial["grade"]) <= 0.15 and 0.0 <= s.initial["speed_mps"] <= 40.0
    assert {s.initial["surface"] for s in setups} == set(SURFACES)
    assert len({s.preset for s in setups}) == 6 and len({s.host_hz for s in setups}) > 50
    assert any(s.host_hz not in HOST_RATES for s in setups)
    assert max(s.substep_hz for s in setups) > 10000 and min(s.substep_hz for s in setups) < 300
    capped = [random_setup(drive_seed(5, i), max_substep_hz=600) for i in range(100)]
    assert all(s.substep_hz <= 600 for s in capped)
    from skidpad.engine.fourwheel.definition import load_preset

    for s in setups[:10]:  # the engine accepts every drawn setup
        Simulation(load_preset(s.preset), s.substep_hz, s.host_hz, s.initial)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_workers(address: str, count: int, deadline_s: float = 60.0) -> None:
    with distributed.Client(address, timeout=deadline_s) as client:
        client.wait_for_workers(count, timeout=deadline_s)


def test_fuzz_against_a_dask_scheduler_and_two_workers(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    dask = [sys.executable, "-m", "dask"]
    procs = [
        subprocess.Popen(
            [*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
            + ["--dashboard-address", "127.0.0.1:0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(2):
            worker_argv = [*dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "1"]
            procs.append(
                subprocess.Popen(
                    [*worker_argv, "--no-dashboard", "--nworkers", "1"],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        _wait_for_workers(address, 2)
        out = tmp_path / "campaign"
        argv = ["fuzz", "--drives", "2", "--duration", "1", "--batch", "2"]
        argv += ["--max-substep-hz", "500", "--out", str(out), "--scheduler", address]
        assert main(argv) == 0
        cells = _cells(out)
        assert sorted(map(tuple, cells)) == [("cpython3.11", 0), ("cpython3.12", 0)]
        versions = {
            json.loads(line)["version"][:4]
            for line in (out / LOG_NAME).read_text().splitlines()
            if '"cell"' in line
        }
        assert versions == {"3.11", "3.12"}  # the real interpreters ran, not stand-ins
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def test_fuzz_with_pyodide_under_node_on_the_cluster(cluster, tmp_path):
    import shutil

    from skidpad.parity.runtimes.node import find_pyodide

    if find_pyodide(ROOT) is None or shutil.which("node") is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("node runtime missing in CI: node_modules/pyodide absent (run `npm ci`)")
        pytest.skip("node_modules/pyodide is not installed (run `npm ci`)")
    argv = ["fuzz", "--drives", "2", "--duration", "1", "--batch", "2", "--max-substep-hz", "300"]
    argv += ["--runtimes", "cpython3.11,node", "--out", str(tmp_path), "--root", str(ROOT)]
    assert main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    lines = [json.loads(line) for line in (tmp_path / LOG_NAME).read_text().splitlines()]
    versions = {d["cell"][0]: d["version"] for d in lines if "cell" in d}
    assert versions["cpython3.11"].startswith("3.11.")
    assert versions["node"].startswith("pyodide ")  # Pyodide really ran in a dask worker
    assert [d["verdict"] for d in lines if "drive" in d] == ["agree", "agree"]


def test_the_harness_and_fuzz_import_no_dask():
    code = (
        "import sys; import skidpad.parity.harness, skidpad.parity.fuzz, skidpad.cli.cmd_fuzz; "
        "import skidpad.cli.cmd_parity; "
        "import skidpad.cli.cmd_verify; from skidpad import cli; cli.build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_fuzz_without_dask_runs_on_the_local_pool(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    argv = ["fuzz", "--drives", "2", "--duration", "1", "--batch", "2", "--max-substep-hz", "300"]
    assert main([*argv, "--out", str(tmp_path), "--root", str(ROOT)]) == 0
    captured = capsys.readouterr()
    assert "running on local" in captured.err
    assert "0 divergences, 0 errors, 2 agree" in captured.out
    assert sorted(map(tuple, _cells(tmp_path))) == [("cpython3.11", 0), ("cpython3.12", 0)]


def test_a_task_that_could_not_record_its_drive_is_named_with_its_error():
    """A recording that failed in one task (its result has no hash) is that task's error,
    not "the recordings differ": the line names the task and the exception."""
    campaign = Campaign(1, ("kart",), ("cpython3.11", "cpython3.12"), seed=0, duration_s=1.0)
    good = {"checkpoints": [[0, "00"]], "final": "00", "steps": 1, "sha256": "ab" * 32}
    broken = {"error": "recording failed: SystemError: AST constructor recursion depth mismatch"}
    for cells, who in (
        ({"cpython3.11": {"results": {"0": good}}, "cpython3.12": {"results": {"0": broken}}},
         "cpython3.12"),
        ({"cpython3.11": {"results": {"0": broken}}, "cpython3.12": {"results": {"0": good}}},
         "cpython3.11"),
        ({"cpython3.11": {"results": {"0": good}}, "cpython3.12": {"results": {}}},
         "cpython3.12"),
    ):  # fmt: skip
        verdict = judge(campaign, 0, cells)
        assert (verdict.verdict, verdict.a) == ("error", who)
        assert verdict.detail.startswith(f"{who}'s task could not record the drive")
    both = {"cpython3.11": {"results": {"0": good}}, "cpython3.12": {"results": {"0": good}}}
    assert judge(campaign, 0, both).verdict == "agree"


HANGS_ON_RECORDINGS = """\
import json, sys, time
print('@@skidpad {"ready": true}', flush=True)
for line in sys.stdin:
    if json.loads(line).get("recordings"):
        time.sleep(120)
    print('@@skidpad {"math_hash": null, "recordings": {}}', flush=True)
"""


class Hanging(Runtime):
    """A runtime process that answers the self-test and then hangs on the first recording."""

    def __init__(self, name: str) -> None:
        self.name, self.proc = name, None

    def start(self, timeout_s: float = 30.0) -> dict:
        from skidpad.parity.runtimes.process import LineProcess, child_env

        self.proc = LineProcess(self.name, [sys.executable, "-c", HANGS_ON_RECORDINGS], child_env())
        ready = self.proc.start(timeout_s)
        return {"name": self.name, "version": "hangs", "startup_s": ready["startup_s"]}

    def run(self, request: dict, timeout_s: float = 0.0) -> dict:
        return self.proc.request(request, timeout_s, "running " + str(len(request["recordings"])))

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()


def test_a_hanging_runtime_is_timed_out_per_recording_on_the_cluster(
    cluster, short_recordings, tmp_path
):
    run_parity(
        ["cpython3.11"],
        root=ROOT,
        recording_paths=short_recordings[:1],
        hashes_dir=tmp_path / "hashes",
        report_dir=tmp_path / "report",
        request_timeout_s=1.0,
        diff=False,
        out=lambda _l: None,
        progress=lambda _m: None,
        factory=Hanging,
        scheduler=cluster.scheduler_address,
    )
    (run,) = json.loads((tmp_path / "report" / "report.json").read_text())["runtimes"]
    assert run["status"] == "failed"
    assert run["error"] == "cpython3.11: running 1: timed out after 1 s"
