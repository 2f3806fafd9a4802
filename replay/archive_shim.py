"""The request/answer shim that runs one recording under an archived physics version.

This file is copied beside an archived engine (its own ``engine/`` and ``replay/`` of the
version's commit) and run there in a process of its own, with the Python flag ``-I``: it
imports *that* tree's packages under their old names and never today's ``skidpad``, so an
archived engine and today's never share a namespace (ADR 0205).

Request: ``python -I archive_shim.py TREE RECORDING [--poses]``. Answer: one JSON line on
stdout, ``{"checkpoints": [[step, hash], ...], "final_hash": ..., "steps": ...,
"checkpoint_every": ..., "laps": [...] | null, "poses": [[x, y, c, s], ...] | null}``, or
``{"error": "..."}`` when the old code refuses the file. ``poses`` (asked with
``--poses``) is the CoG position and heading unit vector after every host step, read from
the old simulation's own state by the names that version used (``engine.vehicle_layout``'s
``I_X``, ``I_Y``, ``I_HC``, ``I_HS``, the same in every archived tree): the ghost of an old
lap, drawn under the physics that made it.

A tree from after the package rename imports its own modules as ``skidpad.engine...`` and
``skidpad.replay...``: for it, ``skidpad`` is made a package whose only folder is the tree
(:func:`own_package`) before anything is imported, so those names are the tree's and never
today's install (which ``-I`` still leaves importable from site-packages).

The old trees' APIs differ a little; the branches below are the thin per-version shim:
CommonRoad drives had their own ``replay.commonroad.replay`` before the vehicle-model seam,
and laps are timed where the tree knows how (``replay.laps``).
"""

import importlib
import json
import sys
import types
from pathlib import Path

#: what the tree's modules are imported under: "" (before the rename) or "skidpad."
PREFIX = ""


def _module(name):
    return importlib.import_module(PREFIX + name)


def _family_module(name):
    """A four-wheel module of the tree by its name: ``engine.fourwheel.<name>`` in trees
    from physics 10 on (the model families' folders), ``engine.<name>`` before."""
    try:
        return _module("engine.fourwheel." + name)
    except ModuleNotFoundError:
        return _module("engine." + name)


def renamed(tree):
    """The tree imports its modules as ``skidpad.*`` (it is from after the package rename)."""
    text = (Path(tree) / "replay" / "recording.py").read_text(encoding="utf-8")
    return "from skidpad." in text or "import skidpad" in text


def own_package(tree):
    """Make ``skidpad`` the (renamed) tree itself: a package whose ``__path__`` is the tree,
    so ``skidpad.engine`` is the tree's ``engine/``, and import the tree's modules under it."""
    global PREFIX
    package = types.ModuleType("skidpad")
    package.__path__ = [str(tree)]
    sys.modules["skidpad"] = package
    PREFIX = "skidpad."


def _every(rec):
    return getattr(rec, "checkpoint_every", None) or 100


def _replay(rec, recording, replayer):
    every = _every(rec)
    if type(rec).__name__.startswith("CommonRoad"):
        commonroad = _module("replay.commonroad")
        if hasattr(commonroad, "replay"):  # before the model seam: its own replayer
            return commonroad.replay(rec, checkpoint_every=every), None
    if getattr(rec, "laps", None) is not None:
        laps = _module("replay.laps")
        timed, result = laps.replay_laps(rec)
        return result, timed
    return replayer.replay(rec, checkpoint_every=every), None


def _pose_probe(rows):
    """Have every four-wheel host step of the old simulation append the CoG pose after it to
    ``rows``; returns the undo. Every archived replayer drives ``Simulation.step`` once per
    host step, so wrapping that method (on the class of this run's own, throw-away import of
    the tree) sees each host step; the wrapper reads state and changes nothing."""
    simulation = _family_module("simulation")
    layout = _family_module("vehicle_layout")
    ix, iy, ic, i_s = layout.I_X, layout.I_Y, layout.I_HC, layout.I_HS
    cls = simulation.Simulation
    original = cls.step

    def step(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        st = self.state
        rows.append([st[ix], st[iy], st[ic], st[i_s]])
        return out

    cls.step = step

    def undo():
        cls.step = original

    return undo


def answer(path, poses=False):
    """Replay the recording at ``path`` with the ``replay``/``engine`` packages importable
    now (the archived tree's): the answer document, or ``{"error": ...}`` when the old
    loader refuses the file; with ``poses``, the pose after every host step too (a
    CommonRoad drive has none: ``null``). Called by :func:`main` in a process of its own, and
    by ``replay.archive_inprocess`` where there are no processes (Pyodide)."""
    recording = _module("replay.recording")
    replayer = _module("replay.replayer")
    try:
        rec = recording.load(path)
    except Exception as exc:  # the old loader's own refusal: an answer, not a crash
        return {"error": f"{type(exc).__name__}: {exc}"}
    rows = []
    undo = _pose_probe(rows) if poses else None
    try:
        result, laps = _replay(rec, recording, replayer)
    finally:
        if undo is not None:
            undo()
    return {
        "checkpoints": [[int(s), h] for s, h in result.checkpoints],
        "final_hash": result.final_hash,
        "steps": result.steps,
        "checkpoint_every": _every(rec),
        "laps": laps,
        "poses": rows if poses and len(rows) == result.steps else None,
    }


def main(argv):
    tree, path = argv[1], argv[2]
    sys.path.insert(0, tree)
    if renamed(tree):
        own_package(tree)
    print(json.dumps(answer(path, poses="--poses" in argv[3:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
