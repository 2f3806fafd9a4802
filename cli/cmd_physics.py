"""``skidpad physics``: the physics versions this installation runs, the archive of the
earlier ones, and what a physics change does to existing laps (ADR 0205).

Without options: one line per physics version (its number, the commit whose tree it is,
whether it is today's or archived, how many committed recordings it made) and the
archive's size. ``--build`` rewrites the shipped archive from the repository's history
(``git`` and a checkout needed), ``--check`` compares the shipped archive with what the
history builds, file by file (exit 1 on a difference). ``--impact [FILE|DIR ...]``
replays recordings (default: the checkout's ``recordings/``) under today's physics and
prints, per recording, which claims move, each lap time before and after, laps that
change validity and the first host step that moves: the table a ``physics:`` commit's
CHANGELOG entry carries. Nothing is written by ``--impact``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from skidpad.cli.options import add_json_flag
from skidpad.engine.errors import SkidpadError
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.replay.budget import DEFAULT_MAX_SIM_SECONDS
from skidpad.replay.terminal import printable


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_json_flag(p, "the table")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--build",
        action="store_true",
        help="rebuild replay/physics/archive.zip from the repository's history",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="compare the shipped archive with what the repository's history builds",
    )
    mode.add_argument(
        "--impact",
        nargs="*",
        metavar="FILE|DIR",
        help="replay recordings (default: the checkout's recordings/) under today's physics "
        "and print which claims move",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        help="the checkout whose history --build/--check read (default: found from here)",
    )


def run(args: argparse.Namespace) -> int:
    if args.build or args.check:
        return _build_or_check(args)
    if args.impact is not None:
        return _impact(args)
    return _table(args)


def _root(args: argparse.Namespace) -> Path:
    from skidpad.parity.wheel import WheelBuildError, find_repo_root

    try:
        return find_repo_root(Path(args.root) if args.root else None)
    except WheelBuildError as exc:
        raise SkidpadError(f"--build/--check need a git checkout of skidpad: {exc}") from None


def _build_or_check(args: argparse.Namespace) -> int:
    from skidpad.replay import archive, output

    root = _root(args)
    if args.check:
        problems = archive.check_archive(root)
        for line in problems[:20]:
            print(f"physics archive: {line}")
        if problems:
            print(f"physics archive: {len(problems)} difference(s) from the history; "
                  "rebuild it with skidpad physics --build", file=sys.stderr)
            return 1
        print(f"physics archive: what is shipped is what the history builds "
              f"({archive.archive_size():,} bytes)")
        return 0
    entries = archive.build_entries(root)
    data = archive.zip_bytes(entries)
    target = root / "replay" / "physics" / "archive.zip"
    output.write_bytes(target, data)
    objects = sum(1 for n in entries if n.startswith("objects/"))
    print(f"wrote {target}: {len(data):,} bytes, {objects} distinct files, "
          f"{len(archive.archived_versions())} archived physics versions")
    return 0


def _table(args: argparse.Namespace) -> int:
    from skidpad.replay import archive

    made: dict[int, int] = {}
    for entry in archive.known_recordings().values():
        made[entry["version"]] = made.get(entry["version"], 0) + 1
    rows = []
    for number, version in sorted(archive.versions().items()):
        rows.append(
            {
                "version": number,
                "commit": version.commit,
                "runs": "today's engine" if number == PHYSICS_VERSION else "archived",
                "recordings": made.get(number, 0),
                "summary": version.summary,
            }
        )
    if args.json:
        print(json.dumps({"current": PHYSICS_VERSION, "archive_bytes": archive.archive_size(),
                          "versions": rows}, indent=1))
        return 0
    for r in rows:
        commit = (r["commit"] or "(this tree)")[:10]
        print(f"physics {r['version']:>2}  {commit:<12} {r['runs']:<15} "
              f"{r['recordings']:>3} committed recordings  {r['summary']}")
    print(f"today's engine computes physics {PHYSICS_VERSION}; the archive of the others is "
          f"{archive.archive_size():,} bytes")
    return 0


# ----------------------------------------------------------------------------- --impact


def _impact(args: argparse.Namespace) -> int:
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds
    from skidpad.replay.verify import run_under, walk

    given = args.impact or [str(_root(args) / "recordings")]
    paths = walk(given)
    budget = from_seconds(DEFAULT_MAX_SIM_SECONDS)
    loaded = [(p, recording.load(p, budget)) for p in paths]  # every file before any replay
    rows = [impact_row(p, rec, run_under(PHYSICS_VERSION, p, rec)) for p, rec in loaded]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(impact_table(rows))
    return 0


def impact_row(path: Path, rec: Any, run: Any) -> dict:
    """What today's physics does to one recording's claims."""
    moved = [d for d in run.check.details if not d["ok"]]
    first_step = None
    got = dict(run.result.checkpoints)
    for step, value in rec.checkpoints:
        if got.get(step) != value:
            first_step = step
            break
    laps = []
    claimed = list(rec.laps or [])
    now = list(run.laps or [])
    for i in range(max(len(claimed), len(now))):
        before = claimed[i] if i < len(claimed) else None
        after = now[i] if i < len(now) else None
        laps.append(
            {
                "lap": i + 1,
                "before_s": before and before["time_s"],
                "after_s": after and after["time_s"],
                "validity_changed": bool(before and after and before["valid"] != after["valid"]),
            }
        )
    return {
        "recording": path.name,
        "physics_before": getattr(rec, "physics_version", None),
        "claims": run.check.claims,
        "moved": len(moved),
        "first_moved_step": first_step,
        "laps": laps,
    }


def impact_table(rows: list[dict]) -> str:
    """The impact rows as a Markdown table (what a ``physics:`` CHANGELOG entry carries)."""
    out = [
        f"| recording | claims moved (of) | first host step that moves | laps before → after "
        f"(physics {PHYSICS_VERSION}) |",
        "|---|---|---|---|",
    ]
    for r in rows:
        laps = "; ".join(
            f"{lap['lap']}: {_s(lap['before_s'])} → {_s(lap['after_s'])}"
            + (" (validity changes)" if lap["validity_changed"] else "")
            for lap in r["laps"]
        ) or "—"
        step = "—" if r["first_moved_step"] is None else str(r["first_moved_step"])
        out.append(f"| {printable(r['recording'])} | {r['moved']} ({r['claims']}) | {step} | "
                   f"{laps} |")
    return "\n".join(out)


def _s(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f} s"
