"""``skidpad replay``: replay recordings, print their hashes, compare with ``hashes/`` (§8, §12).

    skidpad replay recordings/*.json
    skidpad replay recordings/kart-lap.json --trace -o kart-lap.trace.json [--detail-steps 200:300]

Prints one row per recording: recording, preset, steps, final hash, the
recording's own claim (its embedded ``final_hash`` against this replay,
:mod:`replay.claims`), the match against its golden file ``<stem>.json``, wall
time and real-time factor (simulated seconds per wall second). The golden
folder is the recording's own checkout's ``hashes/`` (the nearest folder above
it holding ``hashes/`` beside ``recordings/``, ADR 0120) or ``--hashes DIR``,
never the current directory; a golden file for another preset or definition
is reported as such. First, when ``engine.smath.selftest`` and ``math.json``
exist, the math self-test hash is checked, because nothing after a math
mismatch can be trusted. Exit 0 when everything matches, 1 on any mismatch
(claim or golden) or missing golden file, 2 on bad input. Every file is
loaded and validated before anything is replayed. ``--trace`` writes a trace
file (per-substep hashes, optional detail) for ``skidpad diff``. Progress
(steps, ETA) goes to stderr when it is a terminal and ``--json`` is not given.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from skidpad.cli.options import add_checkpoint_every, add_json_flag, at_least_one
from skidpad.engine.errors import SkidpadError
from skidpad.engine.state import NonFiniteStateError
from skidpad.replay.budget import add_budget_argument
from skidpad.replay.table import format_table
from skidpad.replay.terminal import printable, printable_lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="recordings to replay")
    p.add_argument(
        "--hashes",
        default=None,
        help="golden hash folder (default: the hashes/ beside the recordings/ folder that "
        "holds the recording, found upwards from it)",
    )
    add_checkpoint_every(p)
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
    add_json_flag(p)


#: A host step as typed: ASCII digits, few enough that no conversion limit is reached
#: (a step beyond the recording's end is refused against the recording itself).
_STEP = re.compile(r"[0-9]{1,4000}")


def parse_steps_range(text: str | None) -> range | None:
    if text is None:
        return None
    parts = text.split(":")
    if len(parts) != 2 or not all(_STEP.fullmatch(p) for p in parts):
        raise SkidpadError(
            f"--detail-steps {text[:60]!r}: expected A:B with integers 0 <= A < B "
            "(host steps, ASCII digits)"
        )
    r = range(int(parts[0]), int(parts[1]))
    if r.stop <= r.start:
        raise SkidpadError(f"--detail-steps {text!r}: expected 0 <= A < B")
    if r.stop - r.start > 2000:
        raise SkidpadError(f"--detail-steps {text!r}: at most 2000 host steps of detail")
    return r


def parse_state_at(text: str | None) -> list[int]:
    if not text:
        return []
    items = [s for s in text.split(",") if s]
    if not all(_STEP.fullmatch(s) for s in items):
        raise SkidpadError(
            f"--state-at {text[:60]!r}: expected a comma list of host steps >= 0 "
            "(ASCII digits)"
        )
    if len(items) > 100_000:
        raise SkidpadError(f"--state-at: {len(items)} host steps, at most 100000")
    return [int(s) for s in items]


class Loaded(NamedTuple):
    """One recording to replay, loaded and validated, with its golden file (None: none)."""

    path: str
    rec: Any
    sha256: str
    hashes_dir: Path | None
    golden: dict | None


def check_state_steps(loaded: list[Loaded], state_at: list[int], detail: range | None) -> None:
    """Refuse ``--state-at`` / ``--detail-steps`` beyond the end of any recording."""
    for x in loaded:
        f, rec = x.path, x.rec
        late = [s for s in state_at if s > rec.steps]
        if late:
            raise SkidpadError(
                f"--state-at {late[0]}: {printable(f)} has {rec.steps} host steps "
                f"(states exist after steps 0..{rec.steps})"
            )
        if detail is not None and detail.stop > rec.steps:
            raise SkidpadError(
                f"--detail-steps {detail.start}:{detail.stop}: {printable(f)} has "
                f"{rec.steps} host steps (0..{rec.steps - 1})"
            )


def check_math(hashes_dir: Path) -> dict | None:
    """``{"golden", "here", "ok"}`` for the math self-test hash; None if either side is missing."""
    from skidpad.replay.golden import read_math
    from skidpad.replay.recorder import current_math_hash

    golden = read_math(hashes_dir)
    here = current_math_hash()
    if golden is None or here is None:
        return None
    return {"golden": golden, "here": here, "ok": golden == here, "hashes": str(hashes_dir)}


def _golden_for(f: str, hashes_dir: Path | None) -> dict | None:
    from skidpad.replay.golden import golden_path, read_golden

    return None if hashes_dir is None else read_golden(golden_path(hashes_dir, f))


def _no_golden_reason(f: str, hashes_dir: Path | None) -> str:
    if hashes_dir is None:
        return (
            f"no hashes/ folder beside a recordings/ folder above {Path(f).parent or '.'} "
            "(give --hashes DIR)"
        )
    return f"no golden hashes in {hashes_dir} (run skidpad bless)"


def run(args: argparse.Namespace) -> int:
    from skidpad.replay import output, recording
    from skidpad.replay.budget import from_seconds
    from skidpad.replay.claims import check_claims, not_checked
    from skidpad.replay.golden import compare, hashes_dir_for, identity_of
    from skidpad.replay.progress import Progress
    from skidpad.replay.replayer import replay
    from skidpad.replay.trace import dumps_trace, trace_document

    at_least_one(("--checkpoint-every", args.checkpoint_every))
    detail = parse_steps_range(args.detail_steps)
    state_at = parse_state_at(args.state_at)
    tracing = args.trace or detail is not None or bool(state_at)
    if tracing and not args.output:
        raise SkidpadError("--trace needs -o FILE (or -o DIR for several recordings)")
    if args.output and not tracing:
        raise SkidpadError("-o is only used with --trace")
    if tracing:
        output.check_name_fits(Path(args.output), args.output)
    if tracing and len(args.files) > 1 and not Path(args.output).is_dir():
        raise SkidpadError(
            f"-o {args.output}: with several recordings, -o must be an existing directory"
        )
    budget = from_seconds(args.max_sim_seconds)
    # what the command reads by itself (golden files, math.json) is an input too
    inputs = [*args.files, *_implicit_inputs(args.files, args.hashes)]
    if tracing:
        output.preflight([_trace_target(args.output, f) for f in args.files], inputs)

    # Validate every input before replaying anything: no partial runs on bad input.
    loaded = []
    recs = [(f, recording.load(f, budget), recording.file_sha256(f)) for f in args.files]
    for f, rec, sha in recs:
        hashes_dir = hashes_dir_for(f, args.hashes)
        loaded.append(Loaded(f, rec, sha, hashes_dir, _golden_for(f, hashes_dir)))
    check_state_steps(loaded, state_at, detail)
    dirs = dict.fromkeys(x.hashes_dir for x in loaded if x.hashes_dir is not None)
    maths = [check_math(d) for d in dirs]
    maths = [m for m in maths if m is not None]
    math = next((m for m in maths if not m["ok"]), maths[0] if maths else None)
    if not args.json:
        for m in maths:
            where = Path(m["hashes"]) / "math.json"
            verdict = "match" if m["ok"] else f"MISMATCH ({where} has {m['golden']})"
            print(f"math self-test hash {m['here']}: {verdict}")

    rows = []
    failed = any(not m["ok"] for m in maths)
    bar = Progress(sum(x.rec.steps for x in loaded), "replay", unit="steps", quiet=args.json)
    for f, rec, sha, hashes_dir, golden in loaded:
        bar.note(Path(f).name)
        base = bar.done
        try:
            result = replay(
                rec,
                args.checkpoint_every,
                use_preset=args.use_preset,
                trace=args.trace,
                progress=lambda n, _total, base=base: bar.update(base + n),
                state_at=state_at,
                detail_steps=detail,
            )
        except NonFiniteStateError as exc:  # the physics failed: a failed check, not bad input
            failed = True
            rows.append(_failed_row(f, rec, f"the replay failed: {exc}"))
            bar.update(base + rec.steps)
            continue
        bar.update(base + rec.steps)
        cmp = compare(golden, result, sha, identity_of(rec))
        if golden is None:
            cmp.problems[:] = [_no_golden_reason(f, hashes_dir)]
        if (
            golden is not None
            and cmp.status != "other"
            and golden["checkpoint_every"] != args.checkpoint_every
        ):
            cmp.problems.append(
                "(compare with the golden interval: --checkpoint-every "
                f"{golden['checkpoint_every']})"
            )
        claim = (
            not_checked("--use-preset replays another definition")
            if args.use_preset
            else check_claims(rec, result)
        )
        failed = failed or not cmp.ok or not claim.ok
        rows.append(
            {
                "recording": str(f),
                "preset": rec.preset,
                "steps": result.steps,
                "final_hash": result.final_hash,
                "claim": claim.to_json(),
                "match": cmp.status,
                "problems": [*claim.problems, *cmp.problems],
                "wall_s": result.wall_s,
                "realtime_factor": result.realtime_factor,
                "checkpoints": [[s, h] for s, h in result.checkpoints],
                "use_preset": args.use_preset,
                "hashes": None if hashes_dir is None else str(hashes_dir),
            }
        )
        if tracing:
            target = _trace_target(args.output, f)
            info = {"name": Path(f).name, "sha256": sha, "preset": rec.preset, "steps": rec.steps}
            output.write_text(
                target, dumps_trace(trace_document(result, info, _math_here())), inputs
            )
            rows[-1]["trace"] = str(target)
    bar.close()

    if args.json:
        print(json.dumps({"math": math, "recordings": rows}, indent=1))
    else:
        print(printable_lines(replay_table(rows)))
        for r in rows:
            for p in r["problems"]:
                print(printable_lines(f"  {Path(r['recording']).name}: {p}"))
            if "trace" in r:
                print(printable_lines(f"  trace written to {r['trace']}"))
    return 1 if failed else 0


def _implicit_inputs(files: list[str], given: str | None) -> list[Path]:
    """The golden file and math.json each recording is compared with: read, so never
    written over. (A ``--hashes`` that is no folder is refused later, after the recordings
    are checked, as before.)"""
    from skidpad.replay.golden import GoldenError, golden_path, hashes_dir_for, math_path

    out: list[Path] = []
    for f in files:
        try:
            d = hashes_dir_for(f, given)
        except GoldenError:
            continue
        if d is not None:
            out += [golden_path(d, f), math_path(d)]
    return out


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
        "claim": {"status": "not checked", "reason": "the replay failed", "claims": []},
        "problems": [problem],
        "wall_s": 0.0,
        "realtime_factor": 0.0,
        "checkpoints": [],
    }


def _math_here() -> str | None:
    from skidpad.replay.recorder import current_math_hash

    return current_math_hash()


def _claim_label(status: str) -> str:
    return "MISMATCH" if status == "mismatch" else status


def _golden_label(status: str) -> str:
    return {"mismatch": "MISMATCH", "other": "other recording"}.get(status, status)


def replay_table(rows: list[dict]) -> str:
    """The replay rows as the table ``skidpad replay`` prints (numbers right-aligned)."""
    head = (
        "recording",
        "preset",
        "steps",
        "final hash",
        "own claim",
        "golden",
        "wall s",
        "x real time",
    )
    body = [
        (
            printable(Path(r["recording"]).name),
            printable(r["preset"] or "-"),
            str(r["steps"]),
            r["final_hash"],
            _claim_label(r["claim"]["status"]),
            _golden_label(r["match"]),
            f"{r['wall_s']:.2f}",
            f"{r['realtime_factor']:.1f}",
        )
        for r in rows
    ]
    return format_table([head, *body], right={2, 6, 7})
