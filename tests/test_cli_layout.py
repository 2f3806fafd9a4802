"""The command line is its own top-level package, ``cli/`` (ADR 0160): one module per
subcommand, all of them in the dispatch table, shipped in the wheel, and a subcommand
that cannot be imported stops the command line with a message naming it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from skidpad import cli

ROOT = Path(__file__).resolve().parents[1]


def test_every_subcommand_module_is_in_the_table_and_nothing_else():
    on_disk = sorted(p.stem for p in (ROOT / "cli").glob("cmd_*.py"))
    in_table = sorted(
        module.removeprefix("skidpad.cli.") for module, _help in cli.COMMANDS.values()
    )
    assert in_table == on_disk
    for name, (module, _help) in cli.COMMANDS.items():
        assert module == f"skidpad.cli.cmd_{name.replace('-', '_')}", name


def test_no_subcommand_module_is_left_in_the_lower_packages():
    for package in ("engine", "replay", "scenarios", "parity", "sandbox"):
        strays = sorted(p.name for p in (ROOT / package).rglob("cmd_*.py"))
        assert strays == [], f"{package}/ still holds {strays}"
        assert not (ROOT / package / "cli.py").exists()


@pytest.mark.parametrize(
    "module, why",
    [
        ("skidpad.cli.cmd_not_there", "ModuleNotFoundError"),
        ("skidpad.cli", "no add_arguments()"),  # importable, but not a subcommand module
    ],
)
def test_a_subcommand_that_cannot_be_imported_fails_loudly(monkeypatch, capsys, module, why):
    table = dict(cli.COMMANDS)
    table["ghost"] = (module, "a subcommand whose module is broken")
    monkeypatch.setattr(cli, "COMMANDS", table)
    assert cli.main(["replay", "--help"]) == cli.EXIT_BROKEN_INSTALL
    err = capsys.readouterr().err
    assert err.startswith("skidpad: broken installation: subcommand 'ghost' cannot be imported")
    assert module in err and why in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_an_import_error_inside_a_subcommand_module_names_it(monkeypatch, capsys):
    # a module that exists but whose own import fails (a dependency it needs is missing)
    monkeypatch.setitem(sys.modules, "skidpad.cli.cmd_diff", None)
    assert cli.main(["--help"]) == cli.EXIT_BROKEN_INSTALL
    err = capsys.readouterr().err
    assert "subcommand 'diff' cannot be imported from skidpad.cli.cmd_diff" in err


def test_the_wheel_ships_every_package_under_skidpad_and_the_script_points_at_cli():
    from skidpad.parity.wheel import PACKAGES as harness_packages
    from skidpad.sandbox.serve import PACKAGES as sandbox_packages

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    sdist = project["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    top_level = sorted(
        p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
    )
    assert sorted(wheel["only-include"]) == top_level  # every importable folder ships
    # ... and each lands inside the one import package (ADR 0204)
    assert wheel["sources"] == {
        name: "skidpad" if name == "skidpad" else f"skidpad/{name}" for name in top_level
    }
    packages = sorted(set(top_level) - {"skidpad"})
    assert sorted(harness_packages) == packages == sorted(sandbox_packages)
    assert set(top_level) <= set(sdist)
    assert project["project"]["scripts"] == {"skidpad": "skidpad.cli:main"}


def test_python_m_cli_runs_and_python_m_replay_says_where_it_went():
    ok = subprocess.run(
        [sys.executable, "-m", "skidpad", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert ok.returncode == 0 and "verify" in ok.stdout, ok.stderr
    gone = subprocess.run(
        [sys.executable, "-m", "skidpad.replay", "verify", "x.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert gone.returncode == 2 and gone.stdout == ""
    assert "'python -m skidpad'" in gone.stderr and "Traceback" not in gone.stderr
