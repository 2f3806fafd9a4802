"""Every validation figure of every preset stays inside its golden tolerance (issue 7).

One test per preset x scenario, so ``pytest -n 2`` spreads them; a result is
computed once per process (module-scoped cache). A test fails on any of the
scenario's own criteria (chatter, creep, cones, sweep deviations...) and on
any figure outside the tolerance ``scenarios/golden/validation.json`` gives it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from skidpad.engine.definition import PRESET_NAMES
from skidpad.scenarios.validation import run as vrun

GOLDEN = vrun.load_golden()
HASHES = Path(__file__).resolve().parent.parent / "hashes"


@functools.cache
def _result(preset: str, name: str) -> dict:
    return vrun.run_scenario(preset, name)


@pytest.mark.parametrize("name", list(vrun.SCENARIOS))
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_scenario_within_golden_tolerance(preset, name):
    problems = vrun.check(preset, name, _result(preset, name), GOLDEN)
    assert not problems, "\n".join(problems)
    if name == "scripted":
        # the same drive the replay goldens record: the two hashes must agree exactly
        path = HASHES / f"{preset}-scripted.json"
        if path.exists():
            final = json.loads(path.read_text(encoding="utf-8"))["final"]
            assert _result(preset, name)["hash"] == final
