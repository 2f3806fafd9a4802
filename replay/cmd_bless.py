"""``skidpad bless``: rewrite ``hashes/`` from the current physics, print what changed (§8).

    skidpad bless                       every recordings/*.json, and hashes/math.json
    skidpad bless recordings/kart-lap.json

For each recording it replays with the embedded definition, writes
``hashes/<stem>.json`` (checkpoints every ``--checkpoint-every`` host steps,
final hash, math hash, the recording's sha256) atomically, and prints one
line per change. ``hashes/math.json`` is rewritten from
``engine.smath.selftest.selftest_hash()``. Every recording is validated
before anything is written. A commit of the result needs a ``physics:``
line saying why the physics changed (tests/test_hashes_commits.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import SkidpadError
from engine.state import NonFiniteStateError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "files", nargs="*", metavar="FILE", help="recordings (default: every recordings/*.json)"
    )
    p.add_argument(
        "--recordings", default="recordings", help="recordings directory for the default"
    )
    p.add_argument("--hashes", default="hashes", help="golden hash directory (default: hashes)")
    p.add_argument(
        "--checkpoint-every", type=int, default=100, help="host steps between checkpoints"
    )
    from replay.budget import add_budget_argument

    add_budget_argument(p)
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    import engine
    from engine import smath
    from replay import output, recording
    from replay.budget import from_seconds
    from replay.golden import (
        describe_change,
        golden_document,
        golden_path,
        math_document,
        math_path,
        read_golden,
        read_math,
        write_golden,
        write_math,
    )
    from replay.recorder import current_math_hash
    from replay.replayer import replay

    if args.checkpoint_every <= 0:
        raise SkidpadError("--checkpoint-every must be a positive integer")
    files = [Path(f) for f in args.files]
    if not files:
        rec_dir = Path(args.recordings)
        if not rec_dir.is_dir():
            raise SkidpadError(f"{rec_dir}: no recordings directory (record with skidpad record)")
        files = sorted(rec_dir.glob("*.json"))
        if not files:
            raise SkidpadError(f"{rec_dir}: no recordings to bless")
    hashes_dir = Path(args.hashes)
    budget = from_seconds(args.max_sim_seconds)
    loaded = [(f, recording.load(f, budget), recording.file_sha256(f)) for f in files]
    olds = [read_golden(golden_path(hashes_dir, f)) for f in files]
    changes: list[str] = []
    math_hash = current_math_hash()
    math_doc = None
    if math_hash is None:
        changes.append("math.json: engine.smath.selftest is not available; not written")
    else:
        old_math = read_math(hashes_dir)
        math_doc = math_document(math_hash, list(smath.FUNCTIONS), engine.__version__)
        changes.append(
            f"math.json: math_hash {old_math} -> {math_hash}"
            if old_math != math_hash
            else f"math.json: unchanged ({math_hash})"
        )
    if hashes_dir.exists() or hashes_dir.is_symlink():
        outputs = [golden_path(hashes_dir, f) for f in files]
        if math_doc is not None:
            outputs.append(math_path(hashes_dir))
        output.preflight(outputs, files)  # before any replay: hashes/ can take the results
    else:
        output.check_directory(hashes_dir.parent)  # where hashes/ will be made
    # replay everything first, then write: a failing replay leaves hashes/ untouched
    docs = []
    for f, rec, sha in loaded:
        try:
            result = replay(rec, args.checkpoint_every)
        except NonFiniteStateError as exc:
            print(f"skidpad bless: {f}: the replay failed, nothing written: {exc}", file=sys.stderr)
            return 1
        docs.append(golden_document(f, sha, rec.preset, result, math_hash, engine.__version__))
    output.make_directory(hashes_dir)
    if math_doc is not None:
        write_math(hashes_dir, math_doc)
    out = []
    for (f, _, _), old, doc in zip(loaded, olds, docs, strict=True):
        write_golden(golden_path(hashes_dir, f), doc)
        lines = describe_change(old, doc)
        changes += lines
        out.append({"recording": str(f), "final": doc["final"], "changes": lines})
    if args.json:
        print(json.dumps({"changes": changes, "recordings": out}, indent=1))
    else:
        print("\n".join(changes))
    return 0
