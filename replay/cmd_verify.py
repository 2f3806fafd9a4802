"""``skidpad verify``: replay recordings on their own and check every claim they carry.

No ``hashes/`` folder is used and the current directory plays no part: a recording made
anywhere (the browser sandbox, another machine) is checked against what it says about
itself — the math self-test hash it was made with, its final state hash, its checkpoint
hashes and, on a circuit, every completed lap's time, sector times and validity. Files
from strangers are normal input: every file is loaded and checked against the budgets
before anything is replayed.

Exit 0 when every claim of every file holds, 1 when one does not (the claim, what it says,
what the replay gives, and for hashes the host steps between which the replay departs) or
when a file claims nothing (unless ``--allow-unclaimed``), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from engine.errors import SkidpadError
from engine.state import NonFiniteStateError
from replay.budget import DEFAULT_MAX_SIM_SECONDS
from replay.terminal import printable


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="recordings (a folder: its *.json)")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.add_argument(
        "--allow-unclaimed",
        action="store_true",
        help="a recording that claims nothing passes (it is reported as 'nothing claimed')",
    )
    p.add_argument(
        "--upgrade",
        action="store_true",
        help="rewrite each verified version 1 recording in place as version 2, with the claims "
        "this replay computed (checkpoints and laps); no state hash moves",
    )
    p.add_argument(
        "--max-sim-seconds",
        type=float,
        default=DEFAULT_MAX_SIM_SECONDS,
        metavar="S",
        help="refuse recordings longer than S simulated seconds "
        f"(default {DEFAULT_MAX_SIM_SECONDS:g})",
    )


def expand(files: list[str]) -> list[Path]:
    out: list[Path] = []
    for f in files:
        p = Path(f)
        out.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    if not out:
        raise SkidpadError("no recordings to verify")
    return out


def departure(claimed: list, replayed: list) -> str:
    """Where the replay departs from the claimed checkpoints: "between host steps a and b"."""
    got = dict(replayed)
    last_equal = None
    for step, value in claimed:
        if got.get(step) != value:
            return (
                f"the replay departs between host steps {last_equal} and {step}"
                if (last_equal is not None)
                else f"the replay departs at host step {step}"
            )
        last_equal = step
    return "the checkpoints agree; the replay departs after the last one"


def verify_one(path: Path, rec: Any) -> dict:
    from replay.claims import check_claims, claims_of
    from replay.recorder import current_math_hash
    from replay.replayer import replay

    row: dict[str, Any] = {
        "file": str(path),
        "preset": rec.preset,
        "steps": rec.steps,
        "problems": [],
    }
    claims = claims_of(rec)
    here_math = current_math_hash()
    if rec.math_hash is not None and here_math is not None and rec.math_hash != here_math:
        row["problems"].append(
            f"math self-test hash: the recording was made with {rec.math_hash}, this runtime "
            f"computes {here_math}; no replay here can reproduce it"
        )
    t0 = time.perf_counter()
    laps = None
    if rec.laps is not None:
        from replay.laps import replay_laps

        laps, result = replay_laps(rec)
    else:
        result = replay(rec, rec.checkpoint_every or 100)
    row["wall_s"] = time.perf_counter() - t0
    row["final_hash"] = result.final_hash
    row["replayed"] = (result, laps)
    row["laps"] = laps
    check = check_claims(rec, result, laps)
    row["claims"] = len(claims)
    row["problems"].extend(check.problems)
    if any(c.kind == "checkpoint" for c in claims) and check.status == "mismatch":
        marks = list(rec.checkpoints)
        if dict(result.checkpoints) != dict(marks):
            row["problems"].append(departure(marks, result.checkpoints))
    if not claims:
        row["verdict"] = "nothing claimed"
    else:
        row["verdict"] = "MISMATCH" if row["problems"] else "verified"
    return row


def run(args: argparse.Namespace) -> int:
    from replay import recording
    from replay.budget import from_seconds

    budget = from_seconds(args.max_sim_seconds)
    paths = expand(args.files)
    loaded = []
    for path in paths:  # every file is checked against the budget before anything is replayed
        loaded.append((path, recording.load(path, budget)))
    rows = []
    for path, rec in loaded:
        try:
            rows.append(verify_one(path, rec))
        except NonFiniteStateError as exc:
            rows.append(
                {"file": str(path), "verdict": "FAILED", "problems": [f"the physics failed: {exc}"]}
            )
    ok = all(
        r["verdict"] == "verified" or (r["verdict"] == "nothing claimed" and args.allow_unclaimed)
        for r in rows
    )
    if args.upgrade:
        if not ok:
            raise SkidpadError("--upgrade rewrites recordings only when every one verifies")
        for (path, rec), r in zip(loaded, rows, strict=True):
            if not rec.format.current:
                upgrade(path, rec, *r["replayed"])
                r["upgraded"] = True
    for r in rows:
        r.pop("replayed", None)
    if args.json:
        print(json.dumps({"ok": ok, "recordings": rows}, indent=1))
    else:
        print(format_table(rows))
    return 0 if ok else 1


def upgrade(path: Path, rec: Any, result: Any, laps: list[dict] | None) -> None:
    """Rewrite a verified version 1 recording as version 2 with the claims its replay gave."""
    from dataclasses import replace

    from replay import recording
    from replay.recorder import circuit_timer

    if laps is None and circuit_timer(rec.track, rec.definition, rec.substep_hz) is not None:
        from replay.laps import replay_laps

        laps, result = replay_laps(rec)
    upgraded = replace(
        rec,
        version=rec.format.writes,
        checkpoint_every=result.checkpoint_every,
        checkpoints=tuple(result.checkpoints),
        laps=None if laps is None else tuple(laps),
    )
    recording.save(upgraded, path)


def format_table(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        name = printable(Path(r["file"]).name)
        head = f"{name}: {r['verdict']}"
        if r["verdict"] in ("verified", "MISMATCH"):
            head += f" ({r['claims']} claims, {r['steps']} steps, final {r['final_hash']})"
        if r.get("upgraded"):
            head += ", rewritten as version 2"
        lines.append(head)
        for lap in r.get("laps") or []:
            mark = "valid" if lap["valid"] else f"invalid: {printable(lap['reason'])}"
            lines.append(f"  lap {lap['lap']}: {lap['time_s']:.3f} s ({mark})")
        for problem in r["problems"]:
            lines.append(f"  {printable(problem)}")
    return "\n".join(lines)
