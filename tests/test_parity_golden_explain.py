"""A mismatch against the golden hashes is explained from the run of the runtime that mismatched.

A copy of the sources with one constant moved by one ulp (``engine/fourwheel/aero.py``) is
built into a wheel; the harness runs that wheel in CPython 3.11 and in Pyodide under Node on
one short recording blessed from the working tree. Each runtime then has to explain its own
mismatch:
the first differing host step, substep, fields and stage, exactly what a direct diff of
``skidpad replay --trace`` in the two source trees gives, and which code each side ran. When
every runtime agrees but the golden file is stale (blessed from the perturbed physics), the
explanation says so in one line first and then why the traces cannot explain it. No report of
these planted cases may say "identical" while its verdict is a mismatch.

Pyodide boots once for the whole module (a shared Node runtime behind the factory); the
wheel and the recording are built once.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from skidpad.cli import main as skidpad
from skidpad.parity import worker
from skidpad.parity.harness import run_parity
from skidpad.parity.runtimes.base import Runtime
from skidpad.parity.runtimes.cpython import CPythonRuntime
from skidpad.parity.wheel import PACKAGES, build_wheel, code_hash, wheel_code_hash
from skidpad.replay.diff import diff_traces
from skidpad.replay.trace import load_trace_document

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
EVERY = 10  # checkpoints every 10 host steps: a short recording still has a window
#: a recording on which the one-ulp change in the aero constant reaches the checkpoints
RECORD = ["--preset", "sportsRwd", "--drive", "random:1", "--duration", "3"]
AGREE_LINE = (
    "every runtime agrees; they differ from the golden hashes: "
    "the physics changed since the last bless, or the wheel is not this checkout"
)


# ---------------------------------------------------------------------------- fixtures


def _copy_sources(target: Path) -> Path:
    for package in (*PACKAGES, "skidpad"):  # the folders and the import package
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__py*"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, target / name)
    return target


@pytest.fixture(scope="module")
def perturbed_tree(tmp_path_factory) -> Path:
    """The sources with ½ in the dynamic pressure moved one ulp up."""
    tree = _copy_sources(tmp_path_factory.mktemp("perturbed"))
    aero = tree / "engine" / "fourwheel" / "aero.py"
    text = aero.read_text("utf-8")
    nudged = repr(math.nextafter(0.5, 1.0))
    assert text.count("q = 0.5 * ") == 1, "the constant this test perturbs has moved"
    aero.write_text(text.replace("q = 0.5 * ", f"q = {nudged} * "), "utf-8")
    return tree


@pytest.fixture(scope="module")
def perturbed_wheel(perturbed_tree, tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheels"), root=perturbed_tree)


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "aero.json"
    assert skidpad(["record", *RECORD, "-o", str(path), "--no-verify"]) == 0
    return path


def _bless(recording: Path, hashes: Path, tree: Path) -> Path:
    """``skidpad bless`` of ``recording`` by the code of ``tree`` (a subprocess in it)."""
    argv = ["bless", str(recording), "--hashes", str(hashes), "--checkpoint-every", str(EVERY)]
    proc = subprocess.run(
        [sys.executable, "-m", "skidpad", *argv],
        cwd=tree,
        env=_env_without_pythonpath(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return hashes


def _env_without_pythonpath() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def blessed_here(recording, tmp_path_factory) -> Path:
    return _bless(recording, tmp_path_factory.mktemp("hashes-here"), ROOT)


@pytest.fixture(scope="module")
def blessed_perturbed(recording, perturbed_tree, tmp_path_factory) -> Path:
    return _bless(recording, tmp_path_factory.mktemp("hashes-perturbed"), perturbed_tree)


def _trace(tree: Path, recording: Path, out: Path, detail: str | None = None) -> dict:
    """``skidpad replay --trace`` of ``recording`` with the code of ``tree``."""
    argv = ["replay", str(recording), "--trace", "--checkpoint-every", str(EVERY), "-o", str(out)]
    no_hashes = out.parent / "no-hashes"  # an empty golden folder: no golden file to match
    no_hashes.mkdir(exist_ok=True)
    argv += ["--hashes", str(no_hashes)]
    if detail:
        argv += ["--detail-steps", detail]
    subprocess.run(
        [sys.executable, "-m", "skidpad", *argv],
        cwd=tree,
        env=_env_without_pythonpath(),
        capture_output=True,
        check=False,  # exit 1: there are no golden hashes for it; the trace is written anyway
    )
    return load_trace_document(out.read_text("utf-8"), str(out))


@pytest.fixture(scope="module")
def direct_diff(recording, perturbed_tree, tmp_path_factory) -> dict:
    """The diff of the two source trees' own traces: A the perturbed tree, B the working tree."""
    out = tmp_path_factory.mktemp("traces")
    a = _trace(perturbed_tree, recording, out / "perturbed.json")
    b = _trace(ROOT, recording, out / "here.json")
    step = diff_traces(a, b).step
    assert step is not None, "the perturbation does not reach this recording"
    window = f"{step}:{step + 1}"
    a = _trace(perturbed_tree, recording, out / "perturbed-detail.json", window)
    b = _trace(ROOT, recording, out / "here-detail.json", window)
    report = diff_traces(a, b).to_json()
    assert report["fields"] and report["stage"] is not None
    return report


class _Shared(Runtime):
    """A started runtime lent to the harness: ``start`` and ``stop`` leave it running."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime, self.name = runtime, runtime.name

    def start(self, timeout_s: float = 0.0) -> dict[str, Any]:
        return dict(self.runtime.info)

    def run(self, request: dict, timeout_s: float = 1800.0) -> dict:
        return self.runtime.run(request, timeout_s=timeout_s)

    def stop(self) -> None:
        pass


@pytest.fixture(scope="module")
def perturbed_runtimes(perturbed_wheel) -> Callable[[str], Runtime]:
    """The factory the harness uses: CPython 3.11 and one shared Pyodide/Node, both running
    the perturbed wheel."""
    from skidpad.parity.runtimes.node import NodeRuntime, find_pyodide

    if find_pyodide(ROOT) is None or shutil.which("node") is None:
        if IN_CI:
            pytest.fail("node runtime missing in CI: node_modules/pyodide absent (run `npm ci`)")
        pytest.skip("node_modules/pyodide is not installed (run `npm ci`)")
    node = NodeRuntime(wheel=perturbed_wheel, pyodide_dir=find_pyodide(ROOT))
    node.start(timeout_s=300)

    def factory(name: str) -> Runtime:
        if name == "node":
            return _Shared(node)
        return CPythonRuntime(name.removeprefix("cpython"), wheel=perturbed_wheel)

    yield factory
    node.stop()


class _InProcess(Runtime):
    """The worker in this interpreter (the working tree); ``flaky`` moves one state field by
    one ulp in its first request only, like a runtime that does not compute the same twice."""

    def __init__(self, name: str, flaky: bool = False) -> None:
        self.name, self.flaky = name, flaky

    def start(self, timeout_s: float = 0.0) -> dict:
        return {"name": self.name, "version": "in-process", "startup_s": 0.0}

    def run(self, request: dict, timeout_s: float = 0.0) -> dict:
        if not (self.flaky and request.get("recordings")):
            return worker.run_request(request)
        self.flaky = False
        import skidpad.replay.replayer as replayer

        real = replayer.replay

        def nudged(rec, *args, **kwargs):
            return real(rec, *args, hook=_NudgeOnce(), **kwargs)

        replayer.replay = nudged
        try:
            return worker.run_request(request)
        finally:
            replayer.replay = real

    def stop(self) -> None:
        pass


class _NudgeOnce:
    """Probe hook: one ulp more on every state float from substep 205 on."""

    def stage(self, name, values) -> None:
        pass

    def substep(self, tick, state) -> None:
        if tick >= 205:
            for i, value in enumerate(state):
                if isinstance(value, float):
                    state[i] = math.nextafter(value, math.inf)


def _parity(names, recording, hashes, tmp_path, factory) -> tuple[int, str, dict, str]:
    printed: list[str] = []
    code = run_parity(
        names,
        root=ROOT,
        fastpath=False,  # about something else: the fast path has its own tests
        recording_paths=[recording],
        hashes_dir=hashes,
        report_dir=tmp_path / "report",
        checkpoint_every=EVERY,
        out=printed.append,
        progress=lambda _m: None,
        factory=factory,
    )
    report = json.loads((tmp_path / "report" / "report.json").read_text("utf-8"))
    markdown = (tmp_path / "report" / "report.md").read_text("utf-8")
    return code, "\n".join(printed), report, markdown


def _assert_no_identical_under_a_mismatch(text: str, report: dict, markdown: str) -> None:
    verdicts = [v["status"] for r in report["runtimes"] for v in r["verdicts"].values()]
    assert "mismatch" in verdicts, "a planted case must end in a mismatch"
    for name, body in (("printed report", text), ("report.md", markdown)):
        assert "identical" not in body.lower(), f"{name} says identical under a mismatch:\n{body}"
    assert "identical" not in "\n".join(line for d in report["divergences"] for line in d["lines"])


def _assert_names_the_direct_diff(text: str, explained: dict, direct: dict) -> None:
    """The runtime's explanation equals the direct diff of the two trees, in JSON and text."""
    for key in ("differing_checkpoint", "equal_checkpoint", "tick", "step", "substep_in_step"):
        assert explained[key] == direct[key], key
    assert explained["substeps_in_step"] == direct["substeps_in_step"]
    assert explained["fields"] == direct["fields"]  # names, both values, hex, ulps
    assert explained["stage"] == direct["stage"]
    substep = direct["substep_in_step"] + 1
    assert (
        f"first differing substep: tick {direct['tick']} = host step {direct['step']} (0-based), "
        f"substep {substep} of {direct['substeps_in_step']}"
    ) in text
    for f in (f for f in direct["fields"] if f["kind"] == "f"):
        value = rf"a={re.escape(repr(f['a']))} \({re.escape(f['a_hex'])}\)"
        row = rf"^\s+{re.escape(f['name'])}\s+{value}"
        assert re.search(row, text, re.M), f["name"]
        assert f"{f['ulps']} ulp" in text
    assert f"first differing physics stage: stage {direct['stage']['stage']} " in text


# ------------------------------------------------------------------------------- tests


def test_the_worker_reports_the_code_it_runs(perturbed_wheel, perturbed_runtimes):
    node = perturbed_runtimes("node").run({"selftest": False}, timeout_s=120)
    assert node["code_hash"] == wheel_code_hash(perturbed_wheel)
    assert wheel_code_hash(perturbed_wheel) != code_hash(ROOT)  # one ulp is other code
    assert worker.run_request({"selftest": False})["code_hash"] == code_hash(ROOT)


def test_node_alone_explains_its_own_golden_mismatch(
    recording, blessed_here, perturbed_wheel, perturbed_runtimes, direct_diff, tmp_path
):
    """Pyodide's explanation; CPython's is the one the next test gets (its first runtime)."""
    runtime = "node"
    code, text, report, markdown = _parity(
        [runtime], recording, blessed_here, tmp_path, perturbed_runtimes
    )
    assert code == 1
    row = text.splitlines()[3]  # header, rule, the recordings' physics row, the runtime
    assert row.startswith(runtime) and f"MISMATCH @{direct_diff['differing_checkpoint']}" in row
    (divergence,) = report["divergences"]
    assert (divergence["a"], divergence["b"]) == (runtime, "golden")
    explanation = divergence["report"]
    assert explanation["explained"] is True
    assert explanation["differing_checkpoint"] == direct_diff["differing_checkpoint"]
    assert explanation["runtime_code"] == wheel_code_hash(perturbed_wheel)
    assert explanation["reference_code"] == code_hash(ROOT)
    _assert_names_the_direct_diff(text, explanation["diff"], direct_diff)
    assert divergence["lines"][0].startswith(
        f"{runtime} (the only runtime run) differs from the golden hashes"
    )
    assert f"{runtime} ran code {wheel_code_hash(perturbed_wheel)}" in text
    assert f"this process runs the working tree {ROOT}, code {code_hash(ROOT)}" in text
    _assert_no_identical_under_a_mismatch(text, report, markdown)


def test_agreeing_runtimes_against_the_golden_file_say_so_first(
    recording, blessed_here, perturbed_wheel, perturbed_runtimes, direct_diff, tmp_path
):
    """The issue's case: every runtime runs the perturbed wheel and they agree; the explanation
    comes from cpython3.11's own run."""
    names = ["cpython3.11", "node"]
    code, text, report, markdown = _parity(
        names, recording, blessed_here, tmp_path, perturbed_runtimes
    )
    assert code == 1
    (divergence,) = report["divergences"]
    assert divergence["lines"][0] == AGREE_LINE
    assert "where cpython3.11 and the golden hashes parted on aero:\n  " + AGREE_LINE in text
    explanation = divergence["report"]
    assert divergence["a"] == "cpython3.11" and explanation["explained"] is True
    assert explanation["runtime_code"] == wheel_code_hash(perturbed_wheel)
    _assert_names_the_direct_diff(text, explanation["diff"], direct_diff)
    _assert_no_identical_under_a_mismatch(text, report, markdown)


def test_a_stale_golden_file_gets_the_one_line_and_why_the_traces_agree(
    recording, blessed_perturbed, tmp_path
):
    """The runtimes and this process run the working tree; the golden file was blessed from
    the perturbed physics: nothing here can reproduce it, and the report says why."""
    code, text, report, markdown = _parity(
        ["cpython3.11", "node"], recording, blessed_perturbed, tmp_path, _InProcess
    )
    assert code == 1
    (divergence,) = report["divergences"]
    assert divergence["lines"][0] == AGREE_LINE
    assert divergence["report"]["explained"] is False
    assert divergence["report"]["differing_checkpoint"] is not None
    here = code_hash(ROOT)
    assert f"both ran the same code ({here}): the golden file is stale" in text
    assert "not explained by a reference trace" in text
    _assert_no_identical_under_a_mismatch(text, report, markdown)


def test_a_runtime_that_does_not_reproduce_itself_is_named(recording, blessed_here, tmp_path):
    """The first run of node differed (against the golden file and cpython3.11); its traced
    re-run does not: the pair diff says it did not reproduce, never "identical"."""

    started: list[str] = []

    def factory(name: str) -> Runtime:
        first_node = name == "node" and name not in started
        started.append(name)
        return _InProcess(name, flaky=first_node)

    code, text, report, markdown = _parity(
        ["cpython3.11", "node"], recording, blessed_here, tmp_path, factory
    )
    assert code == 1 and started.count("node") == 2  # the run, then the traced re-run
    (divergence,) = report["divergences"]
    assert (divergence["a"], divergence["b"]) == ("cpython3.11", "node")
    assert divergence["report"]["explained"] is False
    assert "not reproduced: the traced re-runs of cpython3.11 and node agree" in text
    _assert_no_identical_under_a_mismatch(text, report, markdown)


def test_skidpad_diff_against_hashes_names_the_code_it_replayed(
    recording, blessed_perturbed, capsys
):
    assert skidpad(["diff", str(recording), str(blessed_perturbed)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        f"A: {recording} replayed here (the working tree {ROOT}, code {code_hash(ROOT)})\n"
    )
    assert "identical" not in out
