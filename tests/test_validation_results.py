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
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.scenarios.validation import run as vrun
from skidpad.scenarios.validation import timestep_sweep

from tests.helpers import FULL_CAMPAIGNS

GOLDEN = vrun.load_golden()
HASHES = Path(__file__).resolve().parent.parent / "hashes"


#: The stated sample of the timestep sweep (docs/manual/testing.md): the reference cell and
#: one diagonal of the grid's four corners (the coarsest and the finest substep, each with
#: the slowest or the fastest host), the two diagonals in turn from preset to preset, so
#: every corner runs in half the presets; ``nox -s campaigns`` (and ``skidpad validate``)
#: run all 16 cells of every preset.
SWEEP_DIAGONALS = (((250, 30), (2000, 240)), ((250, 240), (2000, 30)))


def sweep_sample(preset: str) -> list[tuple[int, int]]:
    """The (substep Hz, host Hz) corner cells ``preset`` runs in the test command."""
    return list(SWEEP_DIAGONALS[PRESET_NAMES.index(preset) % len(SWEEP_DIAGONALS)])


@functools.cache
def _result(preset: str, name: str) -> dict:
    if name == "timestep_sweep" and not FULL_CAMPAIGNS:
        return timestep_sweep.run(load_preset(preset), cells_hz=sweep_sample(preset))
    return vrun.run_scenario(preset, name)


def test_the_sweep_sample_runs_every_corner_of_the_grid() -> None:
    substeps = (min(timestep_sweep.SUBSTEPS_HZ), max(timestep_sweep.SUBSTEPS_HZ))
    hosts = (min(timestep_sweep.HOSTS_HZ), max(timestep_sweep.HOSTS_HZ))
    corners = {(s, h) for s in substeps for h in hosts}
    sampled = [cell for preset in PRESET_NAMES for cell in sweep_sample(preset)]
    assert set(sampled) == corners and corners <= set(timestep_sweep.grid())
    for preset in PRESET_NAMES:  # each preset: its coarsest and its finest substep
        assert tuple(sorted(s for s, _ in sweep_sample(preset))) == substeps


def sampled_sweep_problems(preset: str, result: dict) -> list[str]:
    """The sweep's criteria on the sampled cells; the reference cell against its golden
    figures (``vrun.compare``); and each worst difference no worse than the whole grid's
    golden worst (a maximum over some of the cells cannot exceed the maximum over all)."""
    golden = dict(vrun.golden_for(GOLDEN, preset, "timestep_sweep") or {})
    figs = vrun.figures("timestep_sweep", result)
    worst = {key: figs.pop(key) for key in list(figs) if key.startswith("max_")}
    grid = {key: golden.pop(key) for key in list(golden) if key.startswith("max_")}
    problems = vrun.criteria("timestep_sweep", result)
    problems += vrun.compare("timestep_sweep", figs, golden)
    for key, value in worst.items():
        g = grid.get(key)
        if g is None:
            problems.append(f"timestep_sweep.{key}: not in the golden file")
        elif not (value <= g["value"] or vrun.within(value, g["value"], g["tol"])):
            problems.append(f"timestep_sweep.{key}: {value!r} is worse than the whole "
                            f"grid's golden {g['value']!r}")
    return [f"{preset} {p}" for p in problems]


@pytest.mark.parametrize("name", list(vrun.SCENARIOS))
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_scenario_within_golden_tolerance(preset, name):
    if name == "timestep_sweep" and not FULL_CAMPAIGNS:
        problems = sampled_sweep_problems(preset, _result(preset, name))
    else:
        problems = vrun.check(preset, name, _result(preset, name), GOLDEN)
    assert not problems, "\n".join(problems)
    if name == "scripted":
        # the same drive the replay goldens record: the two hashes must agree exactly
        path = HASHES / f"{preset}-scripted.json"
        if path.exists():
            final = json.loads(path.read_text(encoding="utf-8"))["final"]
            assert _result(preset, name)["hash"] == final
