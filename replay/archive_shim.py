"""The request/answer shim that runs one recording under an archived physics version.

This file is copied beside an archived engine (its own ``engine/`` and ``replay/`` of the
version's commit) and run there in a process of its own, with the Python flag ``-I``: it
imports *that* tree's packages under their old names and never today's ``skidpad``, so an
archived engine and today's never share a namespace (ADR 0205).

Request: ``python -I archive_shim.py TREE RECORDING``. Answer: one JSON line on stdout,
``{"checkpoints": [[step, hash], ...], "final_hash": ..., "steps": ...,
"checkpoint_every": ..., "laps": [...] | null}``, or ``{"error": "..."}`` when the old
code refuses the file. The old trees' APIs differ a little; the branches below are the
thin per-version shim: CommonRoad drives had their own ``replay.commonroad.replay``
before the vehicle-model seam, and laps are timed where the tree knows how
(``replay.laps``).
"""

import importlib
import json
import sys


def _every(rec):
    return getattr(rec, "checkpoint_every", None) or 100


def _replay(rec, recording, replayer):
    every = _every(rec)
    if type(rec).__name__.startswith("CommonRoad"):
        commonroad = importlib.import_module("replay.commonroad")
        if hasattr(commonroad, "replay"):  # before the model seam: its own replayer
            return commonroad.replay(rec, checkpoint_every=every), None
    if getattr(rec, "laps", None) is not None:
        laps = importlib.import_module("replay.laps")
        timed, result = laps.replay_laps(rec)
        return result, timed
    return replayer.replay(rec, checkpoint_every=every), None


def answer(path):
    """Replay the recording at ``path`` with the ``replay``/``engine`` packages importable
    now (the archived tree's): the answer document, or ``{"error": ...}`` when the old
    loader refuses the file. Called by :func:`main` in a process of its own, and by
    ``replay.archive_inprocess`` where there are no processes (Pyodide)."""
    recording = importlib.import_module("replay.recording")
    replayer = importlib.import_module("replay.replayer")
    try:
        rec = recording.load(path)
    except Exception as exc:  # the old loader's own refusal: an answer, not a crash
        return {"error": f"{type(exc).__name__}: {exc}"}
    result, laps = _replay(rec, recording, replayer)
    return {
        "checkpoints": [[int(s), h] for s, h in result.checkpoints],
        "final_hash": result.final_hash,
        "steps": result.steps,
        "checkpoint_every": _every(rec),
        "laps": laps,
    }


def main(argv):
    tree, path = argv[1], argv[2]
    sys.path.insert(0, tree)
    print(json.dumps(answer(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
