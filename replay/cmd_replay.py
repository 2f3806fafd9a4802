"""``skidpad replay``: replay recordings, print their hashes, compare with ``hashes/`` (§8, §12).

    skidpad replay recordings/*.json
    skidpad replay recordings/kart-lap.json --trace -o kart-lap.trace.json [--detail-steps 200:300]

Prints one row per recording: recording, preset, steps, final hash, match
against ``hashes/<stem>.json``, wall time and real-time factor (simulated
seconds per wall second). First, when ``engine.smath.selftest`` and
``hashes/math.json`` exist, the math self-test hash is checked, because
nothing after a math mismatch can be trusted. Exit 0 when everything
matches, 1 on any mismatch or missing golden file, 2 on bad input. Every
file is loaded and validated before anything is replayed. ``--trace``
writes a trace file (per-substep hashes, optional detail) for ``skidpad diff``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import SkidpadError
from engine.state import NonFiniteStateError
from replay.budget import add_budget_argument


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="recordings to replay")
    p.add_argument("--hashes", default="hashes", help="golden hash directory (default: hashes)")
    p.add_argument(
        "--checkpoint-every", type=int, default=100, help="host steps between checkpoints"
    )
    p.add_argument(
        "--use-preset",
        action="store_true",
        help="replay with today's preset instead of the embedded definition",
    )
    p.add_argument(
        "--trace", action="store_true", help="hash every substep and write a trace file (-o)"
    )
    p.add_argument("-o", "--output", help="trace file (one recording) or directory (several)")
    p.add_argument(
        "--detail-steps", help="A:B: keep every stage's values and the state for host steps A..B-1"
    )
    p.add_argument(
        "--state-at", help="comma list of host steps whose full named state goes in the trace"
    )
    add_budget_argument(p)
    p.add_argument("--json", action="store_true", help="print JSON")


def parse_steps_range(text: str | None) -> range | None:
    if text is None:
        return None
    try:
        a, b = text.split(":")
        r = range(int(a), int(b))
    except ValueError:
        raise SkidpadError(f"--detail-steps {text!r}: expected A:B with integers A < B") from None
    if r.start < 0 or r.stop <= r.start:
        raise SkidpadError(f"--detail-steps {text!r}: expected 0 <= A < B")
    if len(r) > 2000:
        raise SkidpadError(f"--detail-steps {text!r}: at most 2000 host steps of detail")
    return r


def parse_state_at(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        steps = [int(s) for s in text.split(",") if s]
    except ValueError:
        raise SkidpadError(f"--state-at {text!r}: expected a comma list of host steps") from None
    if any(s < 0 for s in steps):
        raise SkidpadError(f"--state-at {text!r}: host steps are >= 0")
    return steps


def _progress(name: str):
    if not sys.stderr.isatty():
        return None

    def show(n: int, total: int) -> None:
        end = "\n" if n >= total else ""
        print(f"\r  {name}: {n}/{total} steps", end=end, file=sys.stderr, flush=True)

    return show


def check_math(hashes_dir: Path) -> dict | None:
    """``{"golden", "here", "ok"}`` for the math self-test hash; None if either side is missing."""
    from replay.golden import read_math
    from replay.recorder import current_math_hash

    golden = read_math(hashes_dir)
    here = current_math_hash()
    if golden is None or here is None:
        return None
    return {"golden": golden, "here": here, "ok": golden == here}


def run(args: argparse.Namespace) -> int:
    from replay import output, recording
    from replay.budget import from_seconds
    from replay.golden import compare, golden_path, read_golden
    from replay.replayer import replay
    from replay.trace import dumps_trace, trace_document

    if args.checkpoint_every <= 0:
        raise SkidpadError("--checkpoint-every must be a positive integer")
    detail = parse_steps_range(args.detail_steps)
    state_at = parse_state_at(args.state_at)
    tracing = args.trace or detail is not None or bool(state_at)
    if tracing and not args.output:
        raise SkidpadError("--trace needs -o FILE (or -o DIR for several recordings)")
    if args.output and not tracing:
        raise SkidpadError("-o is only used with --trace")
    if tracing and len(args.files) > 1 and not Path(args.output).is_dir():
        raise SkidpadError(
            f"-o {args.output}: with several recordings, -o must be an existing directory"
        )
    hashes_dir = Path(args.hashes)
    budget = from_seconds(args.max_sim_seconds)
    if tracing:
        output.preflight([_trace_target(args.output, f) for f in args.files], args.files)

    # Validate every input before replaying anything: no partial runs on bad input.
    loaded = []
    for f in args.files:
        rec = recording.load(f, budget)
        sha = recording.file_sha256(f)
        golden = read_golden(golden_path(hashes_dir, f))
        loaded.append((f, rec, sha, golden))
    math = check_math(hashes_dir)
    if math is not None and not args.json:
        verdict = "match" if math["ok"] else f"MISMATCH (hashes/math.json has {math['golden']})"
        print(f"math self-test hash {math['here']}: {verdict}")

    rows = []
    failed = math is not None and not math["ok"]
    for f, rec, sha, golden in loaded:
        try:
            result = replay(
                rec,
                args.checkpoint_every,
                use_preset=args.use_preset,
                trace=args.trace,
                progress=_progress(Path(f).name),
                state_at=state_at,
                detail_steps=detail,
            )
        except NonFiniteStateError as exc:  # the physics failed: a failed check, not bad input
            failed = True
            rows.append(_failed_row(f, rec, f"the replay failed: {exc}"))
            continue
        cmp = compare(golden, result, sha)
        if golden is not None and golden["checkpoint_every"] != args.checkpoint_every:
            cmp.problems.append(
                "(compare with the golden interval: --checkpoint-every "
                f"{golden['checkpoint_every']})"
            )
        failed = failed or not cmp.ok
        rows.append(
            {
                "recording": str(f),
                "preset": rec.preset,
                "steps": result.steps,
                "final_hash": result.final_hash,
                "match": cmp.status,
                "problems": cmp.problems,
                "wall_s": result.wall_s,
                "realtime_factor": result.realtime_factor,
                "checkpoints": [[s, h] for s, h in result.checkpoints],
                "use_preset": args.use_preset,
            }
        )
        if tracing:
            target = _trace_target(args.output, f)
            info = {"name": Path(f).name, "sha256": sha, "preset": rec.preset, "steps": rec.steps}
            output.write_text(
                target, dumps_trace(trace_document(result, info, _math_here())), args.files
            )
            rows[-1]["trace"] = str(target)

    if args.json:
        print(json.dumps({"math": math, "recordings": rows}, indent=1))
    else:
        print(format_table(rows))
        for r in rows:
            for p in r["problems"]:
                print(f"  {Path(r['recording']).name}: {p}")
            if "trace" in r:
                print(f"  trace written to {r['trace']}")
    return 1 if failed else 0


def _trace_target(out: str, recording_file: str) -> Path:
    """The trace file for one recording: ``-o`` itself, or ``<stem>.trace.json`` in it."""
    o = Path(out)
    return o / (Path(recording_file).stem + ".trace.json") if o.is_dir() else o


def _failed_row(f: str, rec, problem: str) -> dict:
    return {
        "recording": str(f),
        "preset": rec.preset,
        "steps": 0,
        "final_hash": "-",
        "match": "error",
        "problems": [problem],
        "wall_s": 0.0,
        "realtime_factor": 0.0,
        "checkpoints": [],
    }


def _math_here() -> str | None:
    from replay.recorder import current_math_hash

    return current_math_hash()


def format_table(rows: list[dict]) -> str:
    head = ("recording", "preset", "steps", "final hash", "match", "wall s", "x real time")
    body = [
        (
            Path(r["recording"]).name,
            r["preset"] or "-",
            str(r["steps"]),
            r["final_hash"],
            r["match"] if r["match"] != "mismatch" else "MISMATCH",
            f"{r['wall_s']:.2f}",
            f"{r['realtime_factor']:.1f}",
        )
        for r in rows
    ]
    widths = [
        max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)
    ]
    right = {2, 5, 6}

    def fmt(cells):
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    lines = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body]
    return "\n".join(lines)
