"""Archived physics in the parity matrix: recordings of earlier physics versions, replayed
under their own physics in every runtime (ADR 0207).

``recordings/history/`` is a frozen folder of recordings made by earlier physics, at least
one per archived version that made a committed recording; ``skidpad bless`` never rewrites
it. ``nox -s parity`` replays each of them, in each of the seven runtimes, under the
archived version that made it (the version the file is stamped with, else the one the
manifest of committed recordings gives for its bytes), in the runtime's own interpreter
(:mod:`replay.archive_inprocess`: the same code path in CPython and Pyodide). A cell is
green when the runtime reproduces every claim the recording makes (each checkpoint hash,
the final hash, each lap) and agrees with the reference runtime; there is no golden file
for these: the recording's own claims are its golden hashes, made once by that physics.

The harness calls this module at four hooks: :func:`history_paths` (which files,
``parity.runs``), :func:`request_item` (what a runtime is asked, ``parity.harness``),
:func:`recording_cell` (the verdict, ``parity.verdicts``) and :func:`is_archived` (no
tracing diff for them, ``parity.diagnosis``: today's tracer does not run old physics).
A runtime answers through :func:`replay_archived`, called by ``parity.worker``.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

#: the frozen folder of recordings of earlier physics, inside ``recordings/``
HISTORY = Path("recordings") / "history"


def history_paths(root: Path) -> list[Path]:
    """The frozen recordings of earlier physics under ``root``, sorted."""
    folder = root / HISTORY
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def physics_of(text: str, sha256: str) -> int | None:
    """The physics version a recording names (its stamp), else the manifest's for its bytes,
    else None."""
    from skidpad.replay.archive import known_recordings

    stamp = stamp_of(text)
    if stamp is not None:
        return stamp
    known = known_recordings().get(sha256)
    return int(known["version"]) if known else None


def stamp_of(text: str) -> int | None:
    """The physics version a recording's text is stamped with, or None."""
    try:
        stamp = json.loads(text).get("physics_version")
    except (ValueError, AttributeError):
        return None
    return stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else None


def archived_version(rec: Any) -> int | None:
    """The archived physics ``rec`` (a harness ``RecordingFile``) is replayed under, or None
    for today's physics."""
    from skidpad.engine.physics import PHYSICS_VERSION

    if in_history(rec.path):
        version = physics_of(rec.text, rec.sha256)
    else:
        # Outside the frozen folder a file is judged by its golden file, made by today's
        # physics: only a stamp can ask for another. The manifest names the physics that
        # *first* made a file's bytes, and bytes that today's physics still reproduces
        # (the CommonRoad drives) must be replayed by today's engine, or no recording
        # would check it in any runtime.
        version = stamp_of(rec.text)
    return version if version is not None and version != PHYSICS_VERSION else None


def in_history(path: str | Path) -> bool:
    """Whether ``path`` lies in the frozen folder of earlier physics (``recordings/history/``)."""
    return Path(path).parts[-3:-1] == HISTORY.parts


def is_archived(rec: Any) -> bool:
    return archived_version(rec) is not None


def request_item(rec: Any) -> dict[str, Any]:
    """The request's entry for ``rec``: name and text, and the physics for an archived one."""
    item: dict[str, Any] = {"name": rec.name, "text": rec.text}
    version = archived_version(rec)
    if version is not None:
        item["physics"] = version
    return item


def replay_archived(name: str, text: str, version: int) -> dict[str, Any]:
    """In a runtime: the recording replayed under archived physics ``version`` in this
    interpreter; the worker's per-recording shape plus the laps it timed."""
    from skidpad.replay.archive import unpacked_tree, unstamped_copy
    from skidpad.replay.archive_inprocess import run_in_process

    started = time.perf_counter()
    tree = unpacked_tree(version)
    handle, scratch = tempfile.mkstemp(prefix="skidpad-archived-", suffix=".json")
    unstamped = None
    try:
        with open(handle, "w", encoding="utf-8") as f:
            f.write(text)
        unstamped = unstamped_copy(Path(scratch))  # a stamped file, as the old loader reads
        answer = run_in_process(tree, unstamped or Path(scratch))
    finally:
        os.unlink(scratch)
        if unstamped is not None:
            unstamped.unlink(missing_ok=True)
    if "error" in answer:
        return {"error": f"physics {version} refused {name}: {answer['error']}"}
    return {
        "checkpoints": [[int(s), str(h)] for s, h in answer["checkpoints"]],
        "final": str(answer["final_hash"]),
        "steps": int(answer["steps"]),
        "laps": answer["laps"],
        "physics": version,
        "wall_s": time.perf_counter() - started,
    }


def claims_verdict(rec: Any, result: dict[str, Any]) -> tuple[bool, str, int | None]:
    """Whether ``result`` reproduces every claim of ``rec``: (ok, what failed first, its host
    step). Claims the run did not compute count as failed."""
    from skidpad.replay.archive import ArchivedRun
    from skidpad.replay.claims import check_claims, claims_of
    from skidpad.replay.recording import loads

    loaded = loads(rec.text)
    run = ArchivedRun(
        [(int(s), h) for s, h in result["checkpoints"]], result["final"], result["steps"],
        result.get("laps"),
    )
    check = check_claims(loaded, run, run.laps)
    claims = len(claims_of(loaded))
    failed = [d for d in check.details if not d["ok"]]
    if failed:
        first = failed[0]
        return False, f"{first['where']} claims {first['claimed']}, here {first['replayed']}", None
    if len(check.details) < claims:
        return False, f"{claims - len(check.details)} of {claims} claims not computed", None
    return True, f"{claims} claims", None


def recording_cell(run: Any, rec: Any, reference: Any, cell: Any, first_difference: Any) -> Any:
    """The verdict of ``run`` on archived ``rec``: every claim of the recording reproduced
    under its own physics, and the same result as the reference runtime. ``cell`` and
    ``first_difference`` are the harness's (passed in: this module stays importable on its
    own while the harness is reorganised)."""
    if run.status != "ok":
        return cell("skipped", run.status)
    result = run.recordings.get(rec.name)
    if result is None:
        return cell("error", "not run")
    if "error" in result:
        return cell("error", result["error"])
    ok, what, step = claims_verdict(rec, result)
    if not ok:
        return cell("mismatch", f"physics {result.get('physics')}: vs its claims: {what}", step)
    if reference is not None and reference is not run:
        ref = reference.recordings.get(rec.name)
        if ref is not None and "error" not in ref:
            step, why = first_difference(result, ref)
            if why:
                return cell("mismatch", f"vs {reference.name}: {why}", step)
    return cell("match", result["final"])
