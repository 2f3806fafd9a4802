"""The distribution as a user installs it (ADR 0204): one top-level import package,
``skidpad``, that works from outside the checkout, beside other distributions that ship
generic top-level names such as ``cli`` and ``engine``.

Everything here runs the *installed wheel* in a fresh virtualenv with ``python -P`` (the
current directory is not put on ``sys.path``) from a directory outside the checkout, so
the work tree cannot shadow what was installed.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from skidpad.parity.wheel import build_wheel

ROOT = Path(__file__).resolve().parents[1]
RECORDING = ROOT / "recordings" / "kart-scripted.json"


def _run(python: Path, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), "-P", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def _pip(venv_python: Path, *args: str) -> None:
    # the suite's own pip installs into the fresh venv: no network, no index
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv_python), "--disable-pip-version-check",
         *args],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _foreign_wheel(folder: Path) -> Path:
    """A throwaway distribution that ships top-level ``cli`` and ``engine`` packages."""
    wheel = folder / "generic_names-1.0-py3-none-any.whl"
    info = "generic_names-1.0.dist-info"
    files = {
        "cli/__init__.py": "WHO = 'generic-names cli'\ndef main():\n    return 0\n",
        "engine/__init__.py": "WHO = 'generic-names engine'\n",
        "engine/errors.py": "class SkidpadError(Exception):\n    pass\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: generic-names\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
        zf.writestr(f"{info}/RECORD", record)
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("installed")
    wheel = build_wheel()
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    _pip(python, "install", "--no-deps", "--no-index", str(wheel))
    outside = base / "elsewhere"
    outside.mkdir()
    return {"wheel": wheel, "python": python, "venv": venv, "cwd": outside, "base": base}


def _site_packages(python: Path, cwd: Path) -> Path:
    out = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=cwd)
    return Path(out.stdout.strip())


def test_the_wheel_record_lists_skidpad_and_its_dist_info_and_nothing_else(installed):
    with zipfile.ZipFile(installed["wheel"]) as zf:
        info = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        record = zf.read(info).decode("utf-8").splitlines()
    tops = {line.split(",", 1)[0].split("/", 1)[0] for line in record if line}
    assert tops == {"skidpad", info.split("/", 1)[0]}
    # the six folders are subpackages, each with its __init__
    listed = {line.split(",", 1)[0] for line in record}
    for package in ("engine", "replay", "scenarios", "parity", "sandbox", "cli"):
        assert f"skidpad/{package}/__init__.py" in listed, package
    # and site-packages received exactly that
    site = _site_packages(installed["python"], installed["cwd"])
    names = sorted(p.name for p in site.iterdir() if not p.name.startswith(("_", ".")))
    assert names == ["skidpad", installed["wheel"].name.split("-py3")[0] + ".dist-info"]


def test_the_readme_example_runs_as_written_against_the_installed_wheel(installed):
    readme = (ROOT / "README.md").read_text("utf-8")
    match = re.search(r"<!-- api-example -->\n```python\n(.*?)\n```", readme, re.S)
    assert match, "README has lost its API example"
    example = installed["base"] / "example"
    example.mkdir()
    proc = _run(installed["python"], "-c", match.group(1), cwd=example)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3, proc.stdout
    # the installed wheel computes the checkout's bits: the same two seconds, here
    import skidpad

    car = skidpad.Simulation(skidpad.load_preset("hatchbackFwd"))
    for _ in range(200):
        car.step({"throttle": 0.6})
    assert lines[0].endswith(f"state {car.state_hash()}")
    assert lines[1] == "verify: verified"
    assert lines[2].startswith("refused: my-drive.json: /steps:") and "budget of 1 s" in lines[2]
    # what the example saved is a recording this checkout verifies too
    assert skidpad.verify(example / "my-drive.json")["verdict"] == "verified"


def test_python_m_skidpad_verifies_a_committed_recording_from_outside_the_checkout(installed):
    proc = _run(installed["python"], "-m", "skidpad", "verify", str(RECORDING),
                cwd=installed["cwd"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VERIFIED (physics " in proc.stdout
    where = _run(installed["python"], "-c", "import skidpad.engine as e; print(e.__file__)",
                 cwd=installed["cwd"])
    assert Path(where.stdout.strip()).is_relative_to(installed["venv"]), where.stdout


def test_a_distribution_with_top_level_cli_and_engine_breaks_nothing(installed, tmp_path):
    python, cwd = installed["python"], installed["cwd"]
    _pip(python, "install", "--no-deps", "--no-index", str(_foreign_wheel(tmp_path)))
    try:
        both = _run(python, "-c", "import cli, engine, skidpad.cli, skidpad.engine; "
                    "print(cli.WHO, '|', engine.WHO, '|', skidpad.engine.__version__)", cwd=cwd)
        assert both.returncode == 0, both.stderr
        assert both.stdout.split(" | ")[:2] == ["generic-names cli", "generic-names engine"]
        proc = _run(python, "-m", "skidpad", "verify", str(RECORDING), cwd=cwd)
        assert proc.returncode == 0 and "VERIFIED" in proc.stdout, proc.stdout + proc.stderr
    finally:
        _pip(python, "uninstall", "--yes", "generic-names")
    # uninstalling the other distribution took none of skidpad's files
    proc = _run(python, "-m", "skidpad", "verify", str(RECORDING), cwd=cwd)
    assert proc.returncode == 0 and "VERIFIED" in proc.stdout, proc.stdout + proc.stderr


def test_the_public_api_is_listed_typed_and_documented():
    import inspect

    import skidpad

    assert skidpad.__all__ == sorted(skidpad.__all__) and len(skidpad.__all__) >= 15
    for name in skidpad.__all__:
        value = getattr(skidpad, name)
        assert inspect.getdoc(value), f"skidpad.{name} has no docstring"
        if inspect.isfunction(value):
            hints = inspect.signature(value)
            assert hints.return_annotation is not inspect.Signature.empty, name
            for p in hints.parameters.values():
                assert p.annotation is not inspect.Parameter.empty, (name, p.name)
    with pytest.raises(AttributeError):
        skidpad.no_such_name  # noqa: B018


def test_one_identity_per_module_in_the_checkout():
    # the folders are reached only as skidpad.*: a bare name would be a second copy
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys, skidpad.engine.errors as a, skidpad.replay.recording as r\n"
         "print(sorted(m for m in sys.modules if m.split('.')[0] in "
         "('engine', 'replay', 'scenarios', 'parity', 'sandbox', 'cli')))\n"
         "print(issubclass(r.RecordingError, a.SkidpadError))"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.stdout.splitlines() == ["[]", "True"], proc.stderr


@pytest.mark.slow
def test_old_laps_verify_under_their_own_physics_from_a_plain_install_with_no_git(installed):
    """The four-wheel laps of recordings/history/ (physics 1, 5, 6 and 7: what a page
    recorded), copied out of the checkout and verified by the installed wheel from another
    directory, with no git on the PATH and a fresh cache: each is VERIFIED under the version
    the manifest names, identified (the archive ships in the wheel). The archived CommonRoad
    std files (physics 2-4, no fast path: most of the cost) are verified the same way by
    ``nox -s history``, in the test command; this test would replay them a second time."""
    import hashlib
    import json
    import shutil

    from skidpad.replay.archive import known_recordings

    laps = installed["base"] / "old-laps"
    laps.mkdir()
    for path in sorted((ROOT / "recordings" / "history").glob("*.json")):
        if "commonroad" not in path.name:
            shutil.copyfile(path, laps / path.name)
    report = installed["base"] / "old-laps.jsonl"
    env = {"PATH": str(installed["base"] / "no-git-here"), "HOME": str(installed["base"]),
           "SKIDPAD_CACHE": str(installed["base"] / "cache")}
    proc = subprocess.run(
        [str(installed["python"]), "-P", "-m", "skidpad", "verify", str(laps), "--report",
         str(report)], cwd=installed["cwd"], env=env, capture_output=True, text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert shutil.which("git", path=env["PATH"]) is None
    lines = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert len(lines) == len(list(laps.iterdir())) >= 4
    for line in lines:
        sha = hashlib.sha256(Path(line["path"]).read_bytes()).hexdigest()
        want = known_recordings()[sha]["version"]
        # a file written before physics versions is identified; a later one names its own
        stamped = "physics_version" in json.loads(Path(line["path"]).read_text("utf-8"))
        assert (line["verdict"], line["physics"]["version"], line["physics"]["how"]) == (
            "verified", want, "stamped" if stamped else "identified"), line
    assert f"verify: {len(lines)} files, {len(lines)} verified, 0 not" in proc.stdout
