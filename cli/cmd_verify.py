"""``skidpad verify``: replay recordings on their own and check every claim they carry.

No ``hashes/`` folder is used and the current directory plays no part: a recording made
anywhere (the browser sandbox, another machine) is checked against what it says about
itself — the math self-test hash it was made with, its final state hash, its checkpoint
hashes and, on a circuit, every completed lap's time, sector times and validity. Files
from strangers are normal input: every file is loaded and checked against the budgets
before anything is replayed.

Every recording is replayed under its own physics (ADR 0205): a stamped one (format 3)
under the physics version it names, an unstamped one under the first version of this
installation — today's or one from the archive of earlier physics — that reproduces every
claim it makes (identified by trial). ``--physics current`` asks what the lap would be
today; ``--min-physics N`` refuses recordings of an older physics (one line, exit 2).

By default one line per file and one per lap; a failing file says how many claims failed,
the first one (claimed and found), and where the replay departs; ``--verbose`` lists every
claim. Exit 0 when every claim of every file holds, 1 when one does not or when a file
claims nothing (unless ``--allow-unclaimed``), 2 for bad input, 3 (:data:`EXIT_UNKNOWN`)
when a file names a physics version this installation does not have and nothing failed.

At scale (ADR 0163): with ``--report FILE.jsonl``, ``--jobs N`` or ``--scheduler`` every
recording under each folder (at any depth, sorted) is verified on its own, a batch of files
per task, and each file is one JSON line as its result arrives — path, SHA-256, each claim
with its verdict, the overall verdict, seconds. A file that is unreadable, malformed or over
the budgets is a ``REFUSED`` line there, not the end of the run. ``--jobs N`` runs the tasks
on a dask LocalCluster of N worker processes on 127.0.0.1 with no dashboard, ``--scheduler
tcp://HOST:PORT`` on an existing cluster (whose workers see the files at the same paths);
with ``--report`` alone they run one after the other in this process. Without these three
options nothing of this is imported: the plain verify above, no dask.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from skidpad.cli.options import MAX_JOBS, add_json_flag, int_in
from skidpad.engine.errors import SkidpadError
from skidpad.engine.state import NonFiniteStateError
from skidpad.replay.budget import DEFAULT_MAX_SIM_SECONDS, sim_seconds
from skidpad.replay.terminal import printable
from skidpad.replay.verify import (
    UNKNOWN,
    UnknownPhysics,
    counted,
    format_rows,
    physics_label,
    physics_of,
    verify_one,
)

#: files per task when verifying at scale (``--batch``)
DEFAULT_BATCH = 4
#: exit status of a run whose only failures are recordings of a physics this installation
#: lacks: neither verified nor a mismatch; the line says what to install
EXIT_UNKNOWN = 3



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="recordings (a folder: its *.json)")
    add_json_flag(p, "the verdicts")
    p.add_argument(
        "--allow-unclaimed",
        action="store_true",
        help="a recording that claims nothing passes (it is reported as 'nothing claimed')",
    )
    p.add_argument(
        "--physics",
        metavar="N|current",
        type=_physics_option,
        help="replay under this physics version only ('current': what the lap would be today) "
        "instead of the recording's own",
    )
    p.add_argument(
        "--min-physics",
        type=_min_physics_option,
        metavar="N",
        help="refuse recordings of a physics version older than N (a leaderboard that resets "
        "on a physics change)",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list every claim with what the replay gave",
    )
    p.add_argument(
        "--upgrade",
        action="store_true",
        help="rewrite each verified version 1 recording in place as version 2, with the claims "
        "this replay computed (checkpoints and laps); no state hash moves",
    )
    p.add_argument(
        "--max-sim-seconds",
        type=sim_seconds,
        default=DEFAULT_MAX_SIM_SECONDS,
        metavar="S",
        help="refuse recordings longer than S simulated seconds "
        f"(default {DEFAULT_MAX_SIM_SECONDS:g})",
    )
    scale = p.add_argument_group("at scale (every recording under the folders, one JSON line each)")
    scale.add_argument(
        "--report",
        metavar="FILE.jsonl",
        help="write one JSON line per file (path, sha256, claims, verdict, seconds) as results "
        "arrive; the file appears whole when the run ends",
    )
    scale.add_argument(
        "--jobs",
        type=int_in(1, MAX_JOBS),
        metavar="N",
        help="verify on a dask LocalCluster of N worker processes on 127.0.0.1 "
        "(needs pip install 'skidpad[scale]')",
    )
    scale.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="verify on an existing dask cluster, tcp://HOST:PORT ('local': a LocalCluster of "
        "--jobs workers); its workers must see the files at the same paths",
    )
    scale.add_argument(
        "--batch",
        type=int_in(1, 10**6),
        default=DEFAULT_BATCH,
        metavar="B",
        help=f"files per task (default {DEFAULT_BATCH})",
    )


def _physics_option(text: str) -> str:
    if text == "current" or (text.isascii() and text.isdigit() and 0 < len(text) <= 7
                             and int(text) >= 1):
        return text
    raise argparse.ArgumentTypeError(f"{text[:40]!r}: a physics version (1, 2, ...) or 'current'")


def _min_physics_option(text: str) -> int:
    if text.isascii() and text.isdigit() and 0 < len(text) <= 7 and int(text) >= 1:
        return int(text)
    raise argparse.ArgumentTypeError(f"{text[:40]!r}: a physics version (1, 2, ...)")


def expand(files: list[str]) -> list[Path]:
    out: list[Path] = []
    for f in files:
        p = Path(f)
        out.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    if not out:
        raise SkidpadError("no recordings to verify")
    return out


def run(args: argparse.Namespace) -> int:
    if args.report is not None or args.jobs is not None or args.scheduler is not None:
        return run_at_scale(args)
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds

    budget = from_seconds(args.max_sim_seconds)
    paths = expand(args.files)
    loaded = []
    for path in paths:  # every file is checked against the budget before anything is replayed
        rec = recording.load(path, budget)
        loaded.append((path, rec, recording.file_sha256(path)))
    unknown: dict[Path, str] = {}
    for path, rec, _sha in loaded:  # a stamp nothing here can run, or too old: before any work
        try:
            physics_of(rec, args.physics)
        except UnknownPhysics as exc:
            if args.physics is not None:
                raise
            unknown[path] = str(exc)
        stamp = getattr(rec, "physics_version", None)
        if args.min_physics is not None and stamp is not None and stamp < args.min_physics:
            raise SkidpadError(f"{path}: physics {stamp} is older than --min-physics "
                               f"{args.min_physics}; refused")
    rows = []
    for path, rec, sha in loaded:
        if path in unknown:
            rows.append({"file": str(path), "verdict": UNKNOWN, "problems": [unknown[path]]})
            continue
        try:
            rows.append(verify_one(path, rec, physics=args.physics,
                                   min_physics=args.min_physics, sha256=sha))
        except NonFiniteStateError as exc:
            rows.append(
                {"file": str(path), "verdict": "FAILED", "problems": [f"the physics failed: {exc}"]}
            )
    settled = [r for r in rows if r["verdict"] != UNKNOWN]
    ok = all(
        r["verdict"] == "verified" or (r["verdict"] == "nothing claimed" and args.allow_unclaimed)
        for r in settled
    )
    if args.upgrade:
        if not ok:
            raise SkidpadError("--upgrade rewrites recordings only when every one verifies")
        for (path, rec, _sha), r in zip(loaded, rows, strict=True):
            if not rec.format.current:
                upgrade(path, rec, *r["replayed"], physics=r["physics"]["version"])
                r["upgraded"] = True
    for r in rows:
        r.pop("replayed", None)
    if args.json:
        for r in rows:
            r.pop("claim_details", None)
        print(json.dumps({"ok": ok and not unknown, "recordings": rows}, indent=1))
    else:
        print(format_rows(rows, verbose=args.verbose))
    if not ok:
        return 1
    return EXIT_UNKNOWN if unknown else 0


def upgrade(
    path: Path, rec: Any, result: Any, laps: list[dict] | None, physics: int | None = None
) -> None:
    """Rewrite a verified old-format recording in the current format, with the claims its
    replay gave and the physics version it verified under."""
    from dataclasses import replace

    from skidpad.replay import recording
    from skidpad.replay.recorder import circuit_timer

    if not hasattr(rec, "definition"):  # CommonRoad: it claims its final hash alone
        recording.save(replace(rec, physics_version=physics), path)
        return
    if laps is None and circuit_timer(rec.track, rec.definition, rec.substep_hz) is not None:
        from skidpad.replay.laps import replay_laps

        laps, result = replay_laps(rec)
    upgraded = replace(
        rec,
        version=rec.format.writes,
        checkpoint_every=result.checkpoint_every,
        checkpoints=tuple(result.checkpoints),
        laps=None if laps is None else tuple(laps),
        physics_version=physics,
    )
    recording.save(upgraded, path)


def run_at_scale(args: argparse.Namespace) -> int:
    """Every recording under the given folders, a batch per task, one report line per file."""
    from skidpad.parity.executor import check_scheduler, make_executor
    from skidpad.replay import output
    from skidpad.replay.progress import Progress
    from skidpad.replay.verify import ERROR, passed, verify_files, walk

    if args.upgrade:
        raise SkidpadError(
            "--upgrade rewrites files one by one; use it without --report/--jobs/--scheduler"
        )
    if args.jobs is not None and args.jobs < 1:
        raise SkidpadError(f"--jobs {args.jobs}: needs at least one worker")
    if args.batch < 1:
        raise SkidpadError(f"--batch {args.batch}: needs at least one file per task")
    check_scheduler(args.scheduler)
    paths = walk(args.files)
    shown = {os.path.abspath(p): str(p) for p in paths}
    if args.report is not None:  # before any work: a device, a folder or an input is refused
        try:
            output.preflight([args.report], paths)
        except output.OutputError as exc:
            raise SkidpadError(f"--report {exc}") from None
    batches = [list(shown)[i : i + args.batch] for i in range(0, len(shown), args.batch)]
    physics_choice = {
        k: v for k, v in (("physics", args.physics), ("min_physics", args.min_physics))
        if v is not None
    }
    tasks = [
        functools.partial(verify_files, b, args.max_sim_seconds, **physics_choice)
        for b in batches
    ]

    def task_failed(index: int, exc: BaseException) -> list[dict]:  # e.g. its workers died
        problem = f"the task failed: {type(exc).__name__}: {exc}"
        return [
            {
                "path": p,
                "sha256": None,
                "verdict": ERROR,
                "claims": [],
                "problems": [problem],
                "seconds": 0.0,
            }
            for p in batches[index]
        ]

    scheduler = args.scheduler or ("local" if args.jobs is not None else None)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    report = output.StreamedText(args.report, paths) if args.report is not None else None
    executor = None
    bar = Progress(len(paths), "verify", unit="files", quiet=args.json)
    counts = {"files": 0, "verified": 0}
    t0 = time.perf_counter()
    try:
        executor = make_executor(scheduler, jobs if scheduler else 1)
        print(f"verify: {len(paths)} files on {executor.description}", file=sys.stderr, flush=True)
        for _index, lines in executor.run(tasks, task_failed):
            for line in lines:
                line["path"] = shown.get(line["path"], line["path"])
                text = json.dumps(line, separators=(",", ":"))
                if report is not None:
                    report.write(text + "\n")
                ok = passed(line["verdict"], args.allow_unclaimed)
                counts["files"] += 1
                counts["verified"] += ok
                bar.close()
                print(text if args.json else _one_line(line), flush=True)
                bar.advance()
        if report is not None:
            report.close()
    except BaseException:
        if report is not None:
            report.discard()
        raise
    finally:
        bar.close()
        if executor is not None:
            executor.close()
    failed = counts["files"] - counts["verified"]
    summary = (
        f"verify: {counts['files']} files, {counts['verified']} verified, {failed} not "
        f"({time.perf_counter() - t0:.1f} s)"
        + (f"; report {args.report}" if args.report is not None else "")
    )
    print(summary, file=sys.stderr if args.json else sys.stdout)
    return 0 if failed == 0 else 1


def _one_line(line: dict) -> str:
    """A report line for people: the file, its verdict, and what went wrong."""
    head = f"{printable(line['path'])}: {line['verdict']}"
    if line.get("physics"):
        head += f" ({physics_label(line['physics'])})"
    if line.get("final_hash"):
        head += f" ({counted(len(line['claims']), 'claim')}, final {line['final_hash']})"
    return "\n".join([head, *(f"  {printable(p)}" for p in line["problems"])])
