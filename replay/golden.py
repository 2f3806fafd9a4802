"""Golden hashes: ``hashes/<recording-stem>.json`` and ``hashes/math.json``.

See docs/architecture.md §4.

A golden file records what the current physics produces for one recording::

    {"format": "skidpad-golden", "version": 1,
     "recording": "sportsRwd-scripted.json", "recording_sha256": "<64 hex>",
     "preset": "sportsRwd", "definition_hash": "<16 hex>",
     "engine_version": "0.1.0", "math_hash": "<16 hex>", "physics_version": 8,
     "steps": 3000, "checkpoint_every": 100,
     "checkpoints": [[0, "<16 hex>"], [100, "..."], ...], "final": "<16 hex>"}

``physics_version`` is the physics version (``engine.physics``) the hashes were blessed
under; files blessed before it existed lack it and still load. A bless that moves a state
hash without raising the physics version is refused (:func:`physics_bump_missing`).

``definition_hash`` (the recording's ``definition_hash``, or a CommonRoad
recording's ``parameters_hash``) is written by ``skidpad bless`` since it was
added; files blessed before it lack it and still load. ``preset`` and
``definition_hash`` say which recording a golden file is for: a recording
whose preset or definition differs is *another* recording, not a changed one
(:func:`compare` says so).

Golden files are found from the recording (ADR 0120): :func:`find_hashes_dir`
walks up from the recording's folder to the nearest folder holding both
``hashes/`` and ``recordings/``; ``--hashes DIR`` names the folder instead.

``hashes/math.json`` is ``{"math_hash": ..., "functions": [...], "engine_version": ...}``.
Only ``skidpad bless`` writes them (atomically); :func:`compare` says whether
a replay matches, and :func:`describe_change` says exactly what a bless changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from skidpad.engine.errors import SkidpadError
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.replay import output
from skidpad.replay.document import is_int, shown
from skidpad.replay.fileset import recover
from skidpad.replay.strict import Checker, read_json_file

GOLDEN_FORMAT = "skidpad-golden"
GOLDEN_VERSION = 1
MATH_FILE = "math.json"


class GoldenError(SkidpadError, ValueError):
    """A golden hash file is unreadable or malformed; the message names the file and field."""


def golden_path(hashes_dir: str | Path, recording_path: str | Path) -> Path:
    return Path(hashes_dir) / (Path(recording_path).stem + ".json")


def find_hashes_dir(recording_path: str | Path) -> Path | None:
    """The ``hashes/`` of the recording's checkout: the nearest folder at or above the
    recording's own that holds both ``hashes/`` and ``recordings/``; None if there is none.

    The path is made absolute but symlinks are not followed: the checkout is the one the
    recording is seen in.
    """
    here = Path(recording_path).absolute().parent
    for folder in (here, *here.parents):
        if (folder / "hashes").is_dir() and (folder / "recordings").is_dir():
            return folder / "hashes"
    return None


def hashes_dir_for(recording_path: str | Path, given: str | Path | None) -> Path | None:
    """``given`` (``--hashes``), which must be an existing folder, or the recording's own."""
    if given is not None:
        p = Path(given)
        if not p.is_dir():
            what = "is not a folder" if p.exists() else "does not exist"
            raise GoldenError(f"--hashes {p}: {what}")
        return p
    return find_hashes_dir(recording_path)


class Identity(NamedTuple):
    """Which recording a golden file is for, as it records it."""

    preset: str | None
    definition_hash: str | None


def identity_of(rec: Any) -> Identity:
    """The :class:`Identity` of a recording of any format."""
    return Identity(rec.preset, rec.embedded_hash)


def golden_document(
    recording_path: str | Path,
    recording_sha256: str,
    preset: str | None,
    result: Any,
    math_hash: str | None,
    engine_version: str,
    *,
    definition_hash: str | None = None,
) -> dict:
    identity = {"preset": preset}
    if definition_hash is not None:
        identity["definition_hash"] = definition_hash
    return {
        "format": GOLDEN_FORMAT,
        "version": GOLDEN_VERSION,
        "recording": Path(recording_path).name,
        "recording_sha256": recording_sha256,
        **identity,
        "engine_version": engine_version,
        "math_hash": math_hash,
        "physics_version": PHYSICS_VERSION,
        "steps": result.steps,
        "checkpoint_every": result.checkpoint_every,
        "checkpoints": [[s, h] for s, h in result.checkpoints],
        "final": result.final_hash,
    }


def physics_bump_missing(
    name: str, old: dict | None, new: dict, rec: Any = None
) -> str | None:
    """Why blessing ``new`` over ``old`` is refused, or None: a state hash moves while the
    physics version is not above the one ``old`` was blessed under (every change that moves
    a bit raises it, ``engine/physics.py``). When ``old`` does not hold what the recording
    ``rec`` claims (its final hash, a checkpoint at the same step), ``old`` is what is wrong
    (a golden file edited or damaged), not the physics: that bless is allowed."""
    if old is None or not isinstance(old.get("physics_version"), int):
        return None
    if rec is not None and not _holds_claims(old, rec):
        return None
    moved = old.get("final") != new["final"] or dict(
        map(tuple, old.get("checkpoints", []))
    ) != dict(map(tuple, new["checkpoints"]))
    if not moved or new["physics_version"] > old["physics_version"]:
        return None
    return (
        f"{name}: the state hashes moved, but the physics version is still "
        f"{new['physics_version']} (the golden file was blessed under physics "
        f"{old['physics_version']}): a change that moves a state bit raises PHYSICS_VERSION "
        "in engine/physics.py (a physics: commit); nothing written"
    )


def _holds_claims(golden: dict, rec: Any) -> bool:
    """Whether a golden document agrees with every hash ``rec`` claims at the same step."""
    final = getattr(rec, "final_hash", None)
    if final is not None and golden.get("final") != final:
        return False
    marks = dict(map(tuple, golden.get("checkpoints", [])))
    return all(marks.get(step, value) == value for step, value in getattr(rec, "checkpoints", ()))


def dumps_golden(doc: dict) -> str:
    head = {k: v for k, v in doc.items() if k != "checkpoints"}
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    cps = ",\n  ".join(json.dumps(c) for c in doc.get("checkpoints", []))
    lines.append(f' "checkpoints": [\n  {cps}\n ]')
    return "{\n" + ",\n".join(lines) + "\n}\n"


#: The fields of a golden file: required ones, then those older or newer files may lack.
_GOLDEN_REQUIRED = (
    "format",
    "version",
    "recording_sha256",
    "steps",
    "checkpoint_every",
    "checkpoints",
    "final",
)
_GOLDEN_OPTIONAL = (
    "recording",
    "preset",
    "definition_hash",
    "engine_version",
    "math_hash",
    "physics_version",
)


def read_golden(path: str | Path) -> dict | None:
    """The golden document at ``path``, or None if there is none; a malformed file raises
    :class:`GoldenError` naming the file and the field (every field is checked, ADR 0210)."""
    p = Path(path)
    recover(p.parent)  # a set a stopped bless left half published is completed first
    if not p.exists() and not p.is_symlink():
        return None
    doc = read_json_file(p, GoldenError)
    return check_golden(doc, str(p))


def check_golden(doc: Any, source: str) -> dict:
    """``doc`` checked field by field as a golden file (:class:`GoldenError` if not)."""
    c = Checker(source, GoldenError)
    if not isinstance(doc, dict) or doc.get("format") != GOLDEN_FORMAT:
        c.fail("/format", f"not a Skidpad golden hash file (expected format {GOLDEN_FORMAT!r})")
    if doc.get("version") != GOLDEN_VERSION or not is_int(doc.get("version")):
        c.fail("/version", f"{shown(doc.get('version'))} is not supported")
    c.object(doc, "", _GOLDEN_REQUIRED, _GOLDEN_OPTIONAL)
    c.hash64(doc["recording_sha256"], "/recording_sha256")
    steps = c.integer(doc["steps"], "/steps")
    c.integer(doc["checkpoint_every"], "/checkpoint_every", 1)
    doc["checkpoints"] = c.checkpoints(doc["checkpoints"], "/checkpoints", steps)
    c.hash16(doc["final"], "/final", nullable=True)
    for key in ("recording", "preset", "engine_version"):
        if key in doc:
            c.string(doc[key], f"/{key}", 4096, nullable=key == "preset")
    for key in ("definition_hash", "math_hash"):
        if key in doc:
            c.hash16(doc[key], f"/{key}", nullable=True)
    c.physics_version(doc)
    return doc


def write_golden(path: str | Path, doc: dict) -> None:
    output.write_text(path, dumps_golden(doc))


def math_path(hashes_dir: str | Path) -> Path:
    """Where the math self-test hash is kept in ``hashes_dir``."""
    return Path(hashes_dir) / MATH_FILE


def read_math(hashes_dir: str | Path) -> str | None:
    """The golden math self-test hash of ``hashes_dir``, or None when it has no math.json.

    A math.json that is there must be a JSON object whose ``math_hash`` is 16 lowercase
    hex digits; anything else raises :class:`GoldenError` naming the file and the field.
    """
    p = math_path(hashes_dir)
    recover(hashes_dir)
    if not p.exists() and not p.is_symlink():
        return None
    doc = read_json_file(p, GoldenError)
    c = Checker(str(p), GoldenError)
    c.object(doc, "", ("math_hash",), ("functions", "engine_version", "physics_version"))
    c.hash16(doc["math_hash"], "/math_hash")
    if "functions" in doc:
        c.each(c.array(doc["functions"], "/functions", 1000), "/functions", c.string)
    if "engine_version" in doc:
        c.string(doc["engine_version"], "/engine_version")
    c.physics_version(doc)
    return doc["math_hash"]


def require_math(hashes_dir: str | Path) -> str:
    """:func:`read_math`, where a missing math.json is an error too."""
    h = read_math(hashes_dir)
    if h is None:
        raise GoldenError(
            f"{math_path(hashes_dir)} not found: no golden math hash to compare with "
            "(skidpad bless writes it)"
        )
    return h


def math_document(math_hash: str, functions: list[str], engine_version: str) -> dict:
    """math.json: the math self-test hash, with the physics version it was blessed under."""
    return {
        "math_hash": math_hash,
        "functions": functions,
        "engine_version": engine_version,
        "physics_version": PHYSICS_VERSION,
    }


def dumps_math(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def write_math(hashes_dir: str | Path, doc: dict) -> None:
    output.write_text(math_path(hashes_dir), dumps_math(doc))


@dataclass
class Comparison:
    """How a replay compares with its golden file; ``status`` is match, mismatch, missing,
    stale (the hashes agree but the golden file's bookkeeping does not) or other (the golden
    file is for another preset or definition)."""

    status: str
    problems: list[str] = field(default_factory=list)
    first_checkpoint: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "match"


def another_recording(golden: dict, identity: Identity) -> str | None:
    """Why ``golden`` is for another recording than this one (preset, definition), or None."""
    preset, definition_hash = identity.preset, identity.definition_hash
    if "preset" in golden and golden["preset"] != preset:
        return f"golden file is for preset {golden['preset']}, not this recording's ({preset})"
    theirs = golden.get("definition_hash")
    if theirs is not None and definition_hash is not None and theirs != definition_hash:
        return (
            f"golden file is for definition hash {theirs}, not this recording's ({definition_hash})"
        )
    return None


def compare(
    golden: dict | None,
    result: Any,
    recording_sha256: str,
    identity: Identity | None = None,
) -> Comparison:
    """Compare a replay with its golden file: every checkpoint and the final hash must match.

    ``identity`` is the recording's, :func:`identity_of`: a golden
    file for another one is reported as such, not compared hash by hash.
    """
    if golden is None:
        return Comparison("missing", ["no golden hashes (run skidpad bless)"])
    if identity is not None:
        other = another_recording(golden, identity)
        if other is not None:
            return Comparison("other", [other])
    problems = []
    if golden["recording_sha256"] != recording_sha256:
        problems.append("the recording changed since it was blessed (sha256 differs)")
    if golden["steps"] != result.steps:
        problems.append(f"steps: golden {golden['steps']}, replay {result.steps}")
    first = None
    if golden["checkpoint_every"] == result.checkpoint_every:
        mine = dict(result.checkpoints)
        for s, h in golden["checkpoints"]:
            if mine.get(s) != h:
                first = s
                problems.append(f"checkpoint at step {s}: golden {h}, replay {mine.get(s)}")
                break
    else:
        problems.append(
            f"checkpoint interval: golden {golden['checkpoint_every']}, "
            f"replay {result.checkpoint_every}"
        )
    if golden["final"] != result.final_hash:
        problems.append(f"final: golden {golden['final']}, replay {result.final_hash}")
    if not problems:
        return Comparison("match")
    status = "mismatch" if (first is not None or golden["final"] != result.final_hash) else "stale"
    return Comparison(status, problems, first)


def describe_change(old: dict | None, new: dict) -> list[str]:
    """Human lines saying exactly what blessing ``new`` over ``old`` changes."""
    name = new.get("recording", "?")
    if old is None:
        return [
            f"{name}: new golden file, final {new['final']} ({len(new['checkpoints'])} checkpoints)"
        ]
    lines = []
    if old.get("final") != new["final"]:
        lines.append(f"{name}: final {old.get('final')} -> {new['final']}")
    old_cp = dict(old.get("checkpoints", []))
    new_cp = dict(new["checkpoints"])
    changed = [s for s in new_cp if old_cp.get(s) != new_cp[s]]
    removed = [s for s in old_cp if s not in new_cp]
    if changed:
        lines.append(
            f"{name}: {len(changed)} of {len(new_cp)} checkpoints changed, "
            f"the first at step {changed[0]} "
            f"({old_cp.get(changed[0])} -> {new_cp[changed[0]]})"
        )
    if removed:
        lines.append(f"{name}: {len(removed)} checkpoints removed (from step {removed[0]})")
    for k in (
        "recording_sha256",
        "definition_hash",
        "steps",
        "checkpoint_every",
        "math_hash",
        "preset",
        "engine_version",
    ):
        if old.get(k) != new.get(k):
            lines.append(f"{name}: {k} {old.get(k)} -> {new.get(k)}")
    return lines or [f"{name}: unchanged"]
