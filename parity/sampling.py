"""The parity matrix's stated sample: what the test command runs in each runtime (ADR 0243).

The full matrix (every recording in every runtime, ``nox -s parity -- --all``) does not fit
the test command's budget on a 2-core machine: Pyodide replays a recording several times
slower than CPython, and the archived engines of physics 2-4 have no fast path for the
CommonRoad std model (one such file: about 40 s of CPU in CPython 3.11, about 280 s of wall
time in Pyodide under Node on a loaded machine). The sample:

* the **reference runtime** (``cpython3.11``, the first of the matrix) replays **every**
  recording, ``recordings/history/`` included, but the archived CommonRoad std files
  (:func:`left_to_history`), so every golden file and every recording's claims are checked
  in the test command, and every other runtime is compared with it. The archived std files
  are verified under their own physics by ``nox -s history`` in the same command, which
  adds them to its sample: replaying them here as well was the same archived engine on the
  same bytes twice (about 20 s of the reference's 50);
* every **other runtime** (CPython 3.12, 3.13, Pyodide in Node and the three browsers)
  replays the cover below: all of its recordings of today's physics, and its archived ones
  (physics of earlier versions) in turn, each by one other CPython and one Pyodide runtime
  (:func:`archived_turns`).

The cover is chosen from the files' contents, never from timings, so it is the same on
every machine: the recordings of today's physics sorted by size (bytes, then name), each
taken when it adds a model family (a vehicle preset or a CommonRoad model) or a kind of drive
(scripted, lap, sandbox, random) not yet covered; and the smallest archived recording of
each earlier physics version. Archived recordings of the
CommonRoad std model are left out of it and out of the reference's share (their versions,
2-4, have no fast path: they cost more than the rest of a runtime's share together); the
history session verifies them in the test command, and the full matrix replays them in
every runtime.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from skidpad.parity.runs import RecordingFile

REFERENCE = "cpython3.11"
#: archived recordings of these CommonRoad models stay out of the cover (cost)
FULL_ONLY_MODELS = ("std",)


_TRAITS: dict[tuple[str, str], dict[str, str]] = {}


def traits(rec: RecordingFile) -> dict[str, str]:
    """What a recording covers: its model family, its kind of drive, its physics version."""
    key = (rec.name, rec.sha256)
    if key not in _TRAITS:  # a recording is parsed once, however often the plan asks
        _TRAITS[key] = _read_traits(rec)
    return dict(_TRAITS[key])


def _read_traits(rec: RecordingFile) -> dict[str, str]:
    try:
        doc: Any = json.loads(rec.text)
    except ValueError:
        doc = {}
    doc = doc if isinstance(doc, dict) else {}
    if doc.get("format") == "skidpad-commonroad-recording":
        family = f"commonroad:{doc.get('model')}"
    else:
        family = str(doc.get("preset"))
    drive = str(doc.get("drive", "?")).partition(":")[0]
    return {"family": family, "drive": drive, "physics": _physics(doc, rec)}


def _physics(doc: dict[str, Any], rec: RecordingFile) -> str:
    """``archived.archived_version``'s answer from the parsed document (a 400 kB recording is
    parsed once): its stamp, else, in ``recordings/history/``, the manifest's version for its
    bytes, else today's."""
    from skidpad.engine.physics import PHYSICS_VERSION
    from skidpad.parity.archived import in_history
    from skidpad.replay.archive import known_recordings

    stamp = doc.get("physics_version")
    if not isinstance(stamp, int) or isinstance(stamp, bool):
        known = known_recordings().get(rec.sha256) if in_history(rec.path) else None
        stamp = int(known["version"]) if known else None
    return "current" if stamp is None or stamp == PHYSICS_VERSION else str(stamp)


def cover(
    recordings: Sequence[RecordingFile], keys: Sequence[str] = ("family", "drive", "physics")
) -> list[RecordingFile]:
    """The smallest files that together cover every value of the traits ``keys`` (family,
    drive kind, physics version; greedy, by size in bytes then name: deterministic), in the
    recordings' order."""
    seen: set[tuple[str, str]] = set()
    chosen: set[str] = set()
    for rec in sorted(recordings, key=lambda r: (len(r.text.encode("utf-8")), r.name)):
        new = {(k, v) for k, v in traits(rec).items() if k in keys} - seen
        if new:
            seen |= new
            chosen.add(rec.name)
    return [r for r in recordings if r.name in chosen]


def _full_only(rec: RecordingFile) -> bool:
    """An archived recording of a :data:`FULL_ONLY_MODELS` CommonRoad model."""
    t = traits(rec)
    return t["physics"] != "current" and t["family"] in {
        f"commonroad:{m}" for m in FULL_ONLY_MODELS}


def _candidates(recordings: Sequence[RecordingFile]) -> list[RecordingFile]:
    """The recordings the sample is chosen from: all but the archived CommonRoad std ones."""
    return [r for r in recordings if not _full_only(r)]


def left_to_history(recordings: Sequence[RecordingFile]) -> list[RecordingFile]:
    """The recordings no runtime replays in the sample: the archived CommonRoad std files
    (:data:`FULL_ONLY_MODELS`). The history session verifies each of them under its own
    physics in the test command (noxfile.py, ``history``); the full matrix replays them in
    every runtime."""
    return [r for r in recordings if _full_only(r)]


def sample_plan(
    names: Sequence[str], recordings: Sequence[RecordingFile]
) -> dict[str, list[RecordingFile]]:
    """Each runtime's share of ``recordings`` in the test command's sample: the reference
    runs every recording but those :func:`left_to_history`, the others a cover."""
    candidates = _candidates(list(recordings))
    # today's physics covers every family and drive kind by itself; each archived version
    # adds its smallest file, replayed in turn
    today = cover([r for r in candidates if traits(r)["physics"] == "current"])
    archived = cover([r for r in candidates if traits(r)["physics"] != "current"],
                     keys=("physics",))
    turns = archived_turns(names, archived)
    shared = {r.name for r in today}
    plan = {name: candidates if name == REFERENCE else
            [r for r in candidates if r.name in shared or r.name in turns.get(name, ())]
            for name in names}
    if REFERENCE not in plan and names:  # no reference asked for: the first runtime runs all
        plan[names[0]] = candidates
    return plan


def archived_turns(names: Sequence[str], archived: Sequence[RecordingFile]) -> dict[str, set]:
    """Which runtime other than the reference replays which archived recording of the cover:
    each one CPython and one Pyodide runtime, taken in turn (by physics version, then
    name). An archived engine is frozen code that ran in every runtime while it was today's;
    the reference replays every archived file but those :func:`left_to_history`, and the
    full matrix runs them all."""
    others = [n for n in names if n != REFERENCE]
    groups = [[n for n in others if n.startswith("cpython")],
              [n for n in others if not n.startswith("cpython")]]
    turns: dict[str, set] = {n: set() for n in others}
    ordered = sorted(archived, key=lambda r: (int(traits(r)["physics"]), r.name))
    for k, rec in enumerate(ordered):
        for group in groups:
            if group:
                turns[group[k % len(group)]].add(rec.name)
    return turns


def describe(plan: dict[str, list[RecordingFile]], total: int) -> str:
    """One line: how many recordings each runtime replays in the sample."""
    parts = [f"{name} {len(share)}/{total}" for name, share in plan.items()]
    return "sample (ADR 0243; `nox -s parity -- --all` runs every one): " + ", ".join(parts)
