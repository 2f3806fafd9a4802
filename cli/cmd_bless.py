"""``skidpad bless``: rewrite ``hashes/`` from the current physics, print what changed (§8).

    skidpad bless                       every recordings/*.json, and hashes/math.json
    skidpad bless recordings/kart-lap.json

For each recording it replays with the embedded definition, writes
``hashes/<stem>.json`` (checkpoints every ``--checkpoint-every`` host steps,
final hash, math hash, the recording's sha256) atomically, and prints one
line per change. ``hashes/math.json`` is rewritten from
``engine.smath.selftest.selftest_hash()``. Every recording is validated
before anything is written. The golden folder is ``--hashes DIR`` (created
if missing) or the recording's checkout's ``hashes/`` (ADR 0120: the nearest
folder above the recording holding ``hashes/`` beside ``recordings/``; for a
recording in a ``recordings/`` folder with no ``hashes/`` beside it yet, that
``hashes/`` is created). When a state hash changed, bless ends by printing
:data:`PHYSICS_RULE`: a commit of the result needs a ``physics:`` line saying
why the physics changed (tests/test_hashes_commits.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from skidpad.cli.options import add_checkpoint_every, add_json_flag, at_least_one
from skidpad.engine.errors import SkidpadError
from skidpad.engine.state import NonFiniteStateError
from skidpad.replay.terminal import printable, printable_lines

PHYSICS_RULE = (
    'commit hashes/ with a line starting "physics:" in the message saying why the physics '
    "changed (a commit touching hashes/ without one fails tests/test_hashes_commits.py)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "files", nargs="*", metavar="FILE", help="recordings (default: every recordings/*.json)"
    )
    p.add_argument(
        "--recordings", default="recordings", help="recordings directory for the default"
    )
    p.add_argument(
        "--hashes",
        default=None,
        help="golden hash folder, created if missing (default: the hashes/ beside the "
        "recordings/ folder that holds each recording)",
    )
    add_checkpoint_every(p)
    from skidpad.replay.budget import add_budget_argument

    add_budget_argument(p)
    add_json_flag(p)


def run(args: argparse.Namespace) -> int:
    from skidpad.engine import smath
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds
    from skidpad.replay.golden import (
        describe_change,
        golden_document,
        golden_path,
        identity_of,
        math_document,
        physics_bump_missing,
        read_golden,
    )
    from skidpad.replay.progress import Progress
    from skidpad.replay.recorder import current_math_hash
    from skidpad.replay.replayer import replay

    from skidpad import engine

    at_least_one(("--checkpoint-every", args.checkpoint_every))
    files = [Path(f) for f in args.files]
    if not files:
        rec_dir = Path(args.recordings)
        if not rec_dir.is_dir():
            raise SkidpadError(f"{rec_dir}: no recordings directory (record with skidpad record)")
        files = sorted(rec_dir.glob("*.json"))
        if not files:
            raise SkidpadError(f"{rec_dir}: no recordings to bless")
    _refuse_history(files)
    targets = [_hashes_dir(f, args.hashes) for f in files]
    _refuse_same_names(files, targets)
    _check_names_fit(files, targets)
    budget = from_seconds(args.max_sim_seconds)
    loaded = [(f, recording.load(f, budget), recording.file_sha256(f)) for f in files]
    olds = [
        read_golden(golden_path(d, f)) if d.is_dir() else None
        for f, d in zip(files, targets, strict=True)
    ]
    changes: list[str] = []
    math_hash = current_math_hash()
    math_doc = None
    old_math = None
    if math_hash is None:
        changes.append("math.json: engine.smath.selftest is not available; not written")
    else:
        old_math = next((m for m in map(_read_math_if_any, dict.fromkeys(targets)) if m), None)
        math_doc = math_document(math_hash, list(smath.FUNCTIONS), engine.__version__)
        changes.append(
            f"math.json: math_hash {old_math} -> {math_hash}"
            if old_math != math_hash
            else f"math.json: unchanged ({math_hash})"
        )
    _preflight(files, targets, math_doc is not None)  # before any replay
    # replay everything first, then write: a failing replay leaves hashes/ untouched
    docs = []
    bar = Progress(sum(rec.steps for _, rec, _ in loaded), "bless", unit="steps", quiet=args.json)
    for f, rec, sha in loaded:
        bar.note(f.name)
        base = bar.done
        try:
            result = replay(
                rec, args.checkpoint_every, progress=lambda n, _t, b=base: bar.update(b + n)
            )
        except NonFiniteStateError as exc:
            bar.close()
            print(
                f"skidpad bless: {printable(f)}: the replay failed, nothing written: {exc}",
                file=sys.stderr,
            )
            return 1
        bar.update(base + rec.steps)
        docs.append(
            golden_document(
                f,
                sha,
                rec.preset,
                result,
                math_hash,
                engine.__version__,
                definition_hash=identity_of(rec).definition_hash,
            )
        )
    bar.close()
    for (f, rec, _), old, doc in zip(loaded, olds, docs, strict=True):
        refusal = physics_bump_missing(f.name, old, doc, rec)
        if refusal is not None:  # before anything is written
            raise SkidpadError(refusal)
    _write_sets(
        targets,
        [golden_path(d, f) for (f, _, _), d in zip(loaded, targets, strict=True)],
        docs,
        math_doc,
    )
    out = []
    moved = old_math != math_hash
    for (f, _, _), old, doc in zip(loaded, olds, docs, strict=True):
        lines = describe_change(old, doc)
        changes += lines
        moved = moved or state_hash_moved(old, doc)
        out.append({"recording": str(f), "final": doc["final"], "changes": lines})
    if args.json:
        print(json.dumps({"changes": changes, "recordings": out, "hashes_moved": moved}, indent=1))
    else:
        print(printable_lines("\n".join(changes)))
        if moved:
            print(PHYSICS_RULE)
    return 0


def _refuse_history(files: list[Path]) -> None:
    """A recording of the frozen folder of earlier physics (``recordings/history/``, ADR
    0207) is never blessed: its own claims are its golden hashes, made by its own physics,
    and today's physics would write other ones."""
    for f in files:
        parent = f.absolute().parent
        if parent.name == "history" and parent.parent.name == "recordings":
            raise SkidpadError(
                f"{printable(f)}: recordings/history/ holds recordings of earlier physics, "
                "verified under their own (skidpad verify); bless never writes hashes for them"
            )


def _write_sets(targets: list[Path], paths: list[Path], docs: list[dict], math_doc) -> None:
    """Each hashes folder's golden files and math.json, written as one set, all or nothing
    (ADR 0210): an interruption leaves the old set or the new one."""
    from skidpad.replay import output
    from skidpad.replay.fileset import write_set
    from skidpad.replay.golden import MATH_FILE, dumps_golden, dumps_math

    sets: dict[Path, dict[str, bytes]] = {}
    for d, path, doc in zip(targets, paths, docs, strict=True):
        sets.setdefault(d, {})[path.name] = dumps_golden(doc).encode("utf-8")
    for d, files in sets.items():
        if math_doc is not None:
            files[MATH_FILE] = dumps_math(math_doc).encode("utf-8")
        output.make_directory(d)
        write_set(d, files)


def _check_names_fit(files: list[Path], targets: list[Path]) -> None:
    """Every golden file and math.json fits the file system's name and path limits, checked
    before anything is read or replayed (a hashes folder not made yet included)."""
    from skidpad.replay import output
    from skidpad.replay.golden import golden_path, math_path

    for f, d in zip(files, targets, strict=True):
        output.check_name_fits(golden_path(d, f), golden_path(d, f))
        output.check_name_fits(math_path(d), math_path(d))


def _refuse_same_names(files: list[Path], targets: list[Path]) -> None:
    """Two recordings whose golden files would be the same file are refused, whether or not
    the hashes folder exists yet (names compared as the folder will hold them)."""
    from skidpad.replay.golden import MATH_FILE, golden_path

    seen: dict[tuple[str, str], Path] = {}
    for f, d in zip(files, targets, strict=True):
        g = golden_path(d, f)
        if g.name == MATH_FILE:
            raise SkidpadError(
                f"{printable(f)}: its golden file would be {printable(g)}, the math hash file"
            )
        key = (os.path.normcase(os.path.abspath(d)), os.path.normcase(g.name))
        if key in seen:
            raise SkidpadError(
                f"{printable(f)}: its golden file {printable(g)} is also that of "
                f"{printable(seen[key])}; bless them into different hashes folders"
            )
        seen[key] = f


def _preflight(files: list[Path], targets: list[Path], with_math: bool) -> None:
    """Every golden file (and math.json) bless will write can be written, or the folder
    that will hold a hashes/ not made yet can take it; OutputError in one line if not."""
    from skidpad.replay import output
    from skidpad.replay.golden import golden_path, math_path

    outputs = []
    for d in dict.fromkeys(targets):
        if d.exists() or d.is_symlink():
            if with_math:
                outputs.append(math_path(d))
            continue
        parent = d.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        output.check_directory(parent)
    outputs += [
        golden_path(d, f)
        for f, d in zip(files, targets, strict=True)
        if d.exists() or d.is_symlink()
    ]
    output.preflight(outputs, files)


def state_hash_moved(old: dict | None, new: dict) -> bool:
    """Whether blessing ``new`` over ``old`` changes a state hash (not only bookkeeping)."""
    if old is None:
        return True
    return old.get("final") != new["final"] or dict(old.get("checkpoints", [])) != dict(
        new["checkpoints"]
    )


def _read_math_if_any(hashes_dir: Path) -> str | None:
    from skidpad.replay.golden import read_math

    return read_math(hashes_dir) if hashes_dir.is_dir() else None


def _hashes_dir(recording_path: Path, given: str | None) -> Path:
    """Where the golden file of ``recording_path`` goes (see the module docstring)."""
    from skidpad.replay.golden import find_hashes_dir

    if given is not None:
        p = Path(given)
        if p.exists() and not p.is_dir():
            raise SkidpadError(f"--hashes {p}: is not a folder")
        return p
    found = find_hashes_dir(recording_path)
    if found is not None:
        return found
    folder = recording_path.absolute().parent
    if folder.name == "recordings":
        return folder.parent / "hashes"
    raise SkidpadError(
        f"{printable(recording_path)}: no hashes/ folder beside a recordings/ folder above it "
        "(give --hashes DIR)"
    )
