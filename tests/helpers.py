"""What several test modules share: vehicle definitions no preset is, cut recordings, and the
rule that a runtime missing here skips a test, but fails it in CI."""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import json
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from skidpad.engine.fourwheel import gearbox
from skidpad.engine.fourwheel.definition import load_preset

ROOT = Path(__file__).resolve().parents[1]

#: the shipped MF 6.1 file (Project Chrono's 185/80 R14 set)
TIR = ROOT / "engine" / "fourwheel" / "tires" / "chrono_185_80R14_mf61.tir"
#: issue 32's four bad ``.tir`` files as edits of :data:`TIR`'s text, each with the key its
#: one-line refusal must name: a missing key, NaN, a string, a number of 401 digits
BAD_TIR_EDITS = (
    (lambda t: t.replace("FNOMIN", "FNOMINAL"), "FNOMIN"),
    (lambda t: t.replace("PKY1                     = -", "PKY1 = nan  $ -"), "PKY1"),
    (lambda t: t.replace("PDY1                     = 0.94002", "PDY1 = 'abc'"), "PDY1"),
    (lambda t: t.replace("PCY1                     = 1.4675", "PCY1 = 1" + "0" * 400), "PCY1"),
)

def without_kc(preset: str) -> dict:
    """Preset ``preset`` without its K&C and steering data (physics 11 and 12, ADRs 0270,
    0272): no steering system, kinematics, lateral compliance, rear compliance steer, camber
    stiffness or relaxation share, and no sources. The car each mechanism's toggle is
    measured against."""
    d = without_kinematics(preset)
    d.pop("sources", None)
    d["steering"].pop("system", None)
    for axle in ("front", "rear"):
        d["suspension"][axle].pop("lateral_compliance_mm_per_kn", None)
        d["suspension"][axle].pop("compliance_steer", None)
        d["tires"][axle].pop("relaxation_y_load_share", None)
    return d


def braked_straight(d: dict, wheels: tuple[str, str]) -> tuple[tuple, object]:
    """((the compliance steer of ``wheels``, rad), the telemetry) after 0.5 s of straight
    braking (brake 0.6, assists on) from 20 m/s of the car ``d``: the settled state a
    compliance steer under braking force is measured in."""
    from skidpad.engine.fourwheel.simulation import Simulation

    sim = Simulation(d, initial={"speed_mps": 20.0})
    tel = None
    for _ in range(50):
        tel = sim.step((0.0, 0.6, 0.0, 0.0, 0, 1, 1, 1, 1))
    st = sim.layout.as_dict(sim.state)
    return tuple(st[f"steer.{w}.compliance"] for w in wheels), tel


def without_kinematics(preset: str) -> dict:
    """Preset ``preset`` without its suspension kinematics (and the camber stiffness and the
    stated sources that go with them): the car the single-track model and linear theory,
    which see the steering system and not the kinematics, describe."""
    d = copy.deepcopy(load_preset(preset))
    for axle in ("front", "rear"):
        d["suspension"][axle].pop("kinematics", None)
        d["tires"][axle].pop("camber_stiffness_per_load", None)
    if "sources" in d:
        d["sources"] = {
            k: v for k, v in d["sources"].items()
            if ".kinematics." not in k and not k.endswith("camber_stiffness_per_load")
        }  # fmt: skip
    return d


def patch_build_up(
    k: object, fz: float, speed: float, h: float, slip: float, steps: int
) -> tuple[float, object]:
    """A patch of tire constants ``k`` rolled at ``speed`` and a constant small slip angle
    from no deflection, ``steps`` substeps of ``h``: (the distance in m until its lateral
    deflection, and so its force, reaches 1 - 1/e of where it ends, interpolated between
    substeps: the relaxation length measured; the patch terms at the end)."""
    from skidpad.engine.fourwheel import tire, wheel

    w = wheel.constants(1.0, 0.75, k, 1.0, h)
    v_sy = -speed * slip
    path = [0.0]
    for _ in range(steps):
        path.append(tire.patch_terms(w, fz, speed, v_sy, 0.0, path[-1], 1.0, h, 0.0).uy_next)
    target = (1.0 - math.exp(-1.0)) * path[-1]
    n = next(i for i, uy in enumerate(path) if uy >= target)
    before, after = path[n - 1], path[n]
    distance = (n - 1 + (target - before) / (after - before)) * h * speed
    return distance, tire.patch_terms(w, fz, speed, v_sy, 0.0, path[-1], 1.0, h, 0.0)


#: a ``suspension.<axle>.kinematics`` section of a test's own (ADR 0265): a little static
#: camber, an independent suspension's roll camber, a camber-gain table of a strut
#: (negative in bump, steeper past the first 30 mm) and a little toe-out in bump
KINEMATICS = {
    "static_camber_rad": -0.01,
    "roll_camber_share": 1.0,
    "camber_gain": {
        "travel_m": [-0.08, -0.03, 0.0, 0.03, 0.08],
        "camber_rad": [0.02, 0.006, 0.0, -0.008, -0.03],
    },
    "bump_steer": {"travel_m": [-0.08, 0.0, 0.08], "toe_rad": [0.002, 0.0, -0.003]},
    "roll_steer": 0.0,
}


def cambered(
    preset: str,
    axles: tuple = ("front", "rear"),
    section: dict | None = None,
    camber_stiffness: float = 0.9,
) -> dict:
    """Preset ``preset`` without its K&C (:func:`without_kc`), with kinematics
    (:data:`KINEMATICS`, or ``section``) on ``axles``, and the camber stiffness an engine
    tire needs with them."""
    d = without_kc(preset)
    for axle in axles:
        d["suspension"][axle]["kinematics"] = copy.deepcopy(section or KINEMATICS)
        if "mf61" not in d["tires"][axle]:
            d["tires"][axle]["camber_stiffness_per_load"] = camber_stiffness
    return d


def strict_float_lint() -> ModuleType:
    """The strict-float lint (``ci/strict_float_lint.py``, a script rather than a package),
    loaded once per test process."""
    module = sys.modules.get("strict_float_lint")
    if module is None:
        spec = importlib.util.spec_from_file_location(
            "strict_float_lint", ROOT / "ci" / "strict_float_lint.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["strict_float_lint"] = module
        spec.loader.exec_module(module)
    return module


#: under CI a runtime that cannot run fails its tests instead of skipping them
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

#: ``nox -s campaigns`` sets ``SKIDPAD_CAMPAIGNS=full``: the tests that run a stated sample
#: in the test command (docs/manual/testing.md, "Stated samples") run their whole campaign
FULL_CAMPAIGNS = os.environ.get("SKIDPAD_CAMPAIGNS") == "full"


def manual(block: dict) -> dict:
    """A copy of gearbox definition ``block`` as a manual gearbox (the shift points dropped)."""
    g = {k: v for k, v in block.items() if k not in gearbox.AUTOMATIC_KEYS}
    g["type"] = "manual"
    return g


def manual_hatch() -> dict:
    """hatchbackFwd with a manual gearbox of the same ratios."""
    d = copy.deepcopy(load_preset("hatchbackFwd"))
    d["drivetrain"]["gearbox"] = manual(d["drivetrain"]["gearbox"])
    return d


def cut_recording(name: str, steps: int) -> dict:
    """``recordings/<name>.json`` as a document, cut to its first ``steps`` host steps.

    The frames' run lengths are shortened to fit; the claims are left as they are.
    """
    doc = json.loads((ROOT / "recordings" / f"{name}.json").read_text(encoding="utf-8"))
    frames, left = [], steps
    for count, *values in doc["frames"]:
        if left == 0:
            break
        frames.append([min(count, left), *values])
        left -= frames[-1][0]
    doc.update(frames=frames, steps=steps)
    return doc


def skip_unless_browser(name: str) -> None:
    """Skip (fail under CI) unless browser runtime ``name`` and Pyodide can run here."""
    from skidpad.parity.runtimes import browser
    from skidpad.parity.server import DEFAULT_PYODIDE_DIR

    reason = browser.unavailable_reason(name)
    if reason is None and not (DEFAULT_PYODIDE_DIR / "pyodide.mjs").is_file():
        reason = "node_modules/pyodide is missing; install it with `npm ci`"
    if reason is not None:
        if IN_CI:
            pytest.fail(f"CI=true and the {name} runtime cannot run: {reason}")
        pytest.skip(f"{name}: {reason}")


def run_in_process(name: str, request: dict, hook: object = None) -> dict:
    """The worker's response to ``request``, computed in this interpreter, as runtime ``name``.

    ``hook`` is given to every replay of the request as its probe hook: a test plants a
    perturbation there to stand in for a runtime whose arithmetic differs.
    """
    import skidpad.replay.replayer as replayer
    from skidpad.parity import worker

    real = replayer.replay
    if hook is not None:
        replayer.replay = lambda rec, *args, **kwargs: real(rec, *args, hook=hook, **kwargs)
    try:
        response = worker.run_request(request)
    finally:
        replayer.replay = real
    response["runtime"] = {"name": name, "version": "in-process"}
    return response


@contextlib.contextmanager
def loopback_cluster() -> Iterator[object]:
    """A dask LocalCluster of two single-threaded worker processes on 127.0.0.1 with no
    dashboard (skidpad[scale], part of the test extra), closed on leaving."""
    import distributed

    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
    ) as local:
        yield local


def commonroad_checkpoints(
    model: str, vehicle: int | str, every: int = 100, duration_us: int | None = None
) -> tuple[list[tuple[int, str]], str]:
    """The scripted CommonRoad drive's checkpoint hashes ``[(host step, hash), ...]`` every
    ``every`` steps and its final hash (moved here from the engine: only tests call it)."""
    from skidpad.engine.commonroad.daemon import CommonRoadDaemon
    from skidpad.engine.commonroad.scripted import DURATION_US, INITIAL, drive_steps

    d = CommonRoadDaemon(model=model, vehicle=vehicle, initial=dict(INITIAL))
    checkpoints = []
    for _ in drive_steps(d, DURATION_US if duration_us is None else duration_us):
        if d.step_count % every == 0:
            checkpoints.append((d.step_count, d.state_hash()))
    return checkpoints, d.state_hash()
