"""``skidpad diff A B``: where two runs parted (docs/architecture.md §2).

A and B may be:

* two trace files (``skidpad replay REC --trace -o FILE``, e.g. from two
  runtimes or two commits): compared by their checkpoint and substep hashes,
  and field by field / stage by stage where both hold the detail window;
* a trace file and a recording: the recording is replayed here with the same
  tracing and compared with the trace;
* two recordings: both replayed here, the diverging segment in full detail;
* a recording alone, or a recording and a golden file / hashes directory:
  the replay here against ``hashes/<stem>.json`` (checkpoint level).

"Here" is named with the code it ran: the working tree (or installed copy) and its content
hash (``parity.wheel.code_hash``), so a reader knows which code the replay stands for.

Exit 0 when the runs are identical, 1 when they differ, 2 on bad input.

``--stats`` (two recordings, two traces holding states, or one of each) is for runs that
legitimately differ: per state field the RMSE of the difference, the largest absolute
difference and the host step where it occurs, over the host steps both runs hold (a
recording is replayed with its state sampled after every host step; runs of different
lengths are compared over their common prefix, and the report says so). ``--tolerance
FIELD=VALUE`` (repeatable, comma lists, globs such as ``wheel.*.omega=0.5``) bounds a
field's largest difference: exit 1 when one is exceeded, else 0 (ADR 0150).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from skidpad.cli.options import MAX_CHECKPOINT_EVERY, add_json_flag, int_in
from skidpad.engine.errors import SkidpadError
from skidpad.replay.terminal import printable, printable_lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="trace file or recording")
    p.add_argument(
        "b",
        metavar="B",
        nargs="?",
        help="trace file, recording, golden file or hashes dir (default: hashes/)",
    )
    p.add_argument(
        "--hashes",
        default=None,
        help="golden hash folder for a recording alone (default: the recording's checkout's)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=int_in(1, MAX_CHECKPOINT_EVERY),
        default=None,
        help="for two recordings (default 100)",
    )
    p.add_argument(
        "--fast-path",
        choices=("A", "B", "both"),
        default=None,
        help="for two recordings: replay A (B, both) on the fast path, reporting each stage "
        "from the fast path's own values (default: the readable stages), so a difference "
        "only the fast path has is named by its stage",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="per state field RMSE and largest difference (runs that legitimately differ)",
    )
    p.add_argument(
        "--tolerance",
        action="append",
        metavar="FIELD=VALUE",
        help="with --stats: largest allowed |A-B| of a field (glob patterns, comma lists, "
        "repeatable; a later one overrides)",
    )
    from skidpad.replay.budget import add_budget_argument

    add_budget_argument(p)
    add_json_flag(p)


def _exists(path: Path) -> bool:
    """Something is there (what it is, the strict reader checks: a FIFO is refused unopened)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # a name too long or a loop: the reader says which
    return True


def _kind(path: Path) -> tuple[str, str]:
    """('trace'|'recording'|'golden', text) by the file's declared format."""
    from skidpad.replay.document import RecordingError, parse_json
    from skidpad.replay.golden import GOLDEN_FORMAT
    from skidpad.replay.recording import FORMAT_NAMES, decode_utf8, read_bytes_limited
    from skidpad.replay.trace import TRACE_FORMAT

    text = decode_utf8(read_bytes_limited(path), str(path))
    # the whole document's "format", wherever the key is (not a sniffed prefix)
    try:
        declared = parse_json(text)
    except RecordingError as exc:
        raise SkidpadError(f"{path}: {exc}") from None
    fmt = declared.get("format") if isinstance(declared, dict) else None
    del declared
    kinds = [(TRACE_FORMAT, "trace"), *((n, "recording") for n in FORMAT_NAMES)]
    for name, kind in (*kinds, (GOLDEN_FORMAT, "golden")):
        if fmt == name:
            return kind, text
    raise SkidpadError(
        f'{path}: neither a trace, a recording nor a golden hash file (no known "format")'
    )


def run(args: argparse.Namespace) -> int:
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds
    from skidpad.replay.diff import diff_against_golden, diff_recordings, diff_traces
    from skidpad.replay.golden import (
        another_recording,
        golden_path,
        hashes_dir_for,
        identity_of,
        read_golden,
    )
    from skidpad.replay.trace import load_trace_document

    budget = from_seconds(args.max_sim_seconds)
    if args.tolerance and not args.stats:
        raise SkidpadError("--tolerance: only with --stats")
    if args.stats:
        if args.fast_path is not None:
            raise SkidpadError("--fast-path: not with --stats")
        return _stats(args, budget)
    a_path = Path(args.a)
    if not _exists(a_path):
        raise SkidpadError(f"{a_path}: no such file")
    ka, ta = _kind(a_path)
    if args.b is None or Path(args.b).is_dir():
        if ka != "recording":
            raise SkidpadError(f"{a_path}: only a recording can be compared with hashes/; give B")
        hashes_dir = hashes_dir_for(a_path, args.b or args.hashes)
        if hashes_dir is None:
            raise SkidpadError(
                f"{printable(a_path)}: no hashes/ folder beside a recordings/ folder above it "
                "(give B or --hashes DIR)"
            )
        b_path, kb, tb = golden_path(hashes_dir, a_path), "golden", None
        if not b_path.is_file():
            raise SkidpadError(f"{b_path}: no golden hashes for {a_path.name} (run skidpad bless)")
    else:
        b_path = Path(args.b)
        if not _exists(b_path):
            raise SkidpadError(f"{b_path}: no such file")
        kb, tb = _kind(b_path)

    kinds = {ka, kb}
    if args.fast_path is not None and kinds != {"recording"}:
        raise SkidpadError("--fast-path: only for two recordings")
    fast = {None: (), "A": ("a",), "B": ("b",), "both": ("a", "b")}[args.fast_path]
    paths = tuple("fast" if side in fast else "readable" for side in ("a", "b"))
    if kinds == {"trace"}:
        report = diff_traces(
            load_trace_document(ta, str(a_path)),
            load_trace_document(tb, str(b_path)),
            str(a_path),
            str(b_path),
        )
    elif kinds == {"recording"}:
        report = diff_recordings(
            recording.load(a_path, budget),
            recording.load(b_path, budget),
            a_label=str(a_path),
            b_label=str(b_path),
            checkpoint_every=args.checkpoint_every or 100,
            paths=paths,
        )
    elif kinds == {"recording", "golden"}:
        rec_path, gold_path = (a_path, b_path) if ka == "recording" else (b_path, a_path)
        golden = read_golden(gold_path)
        rec = recording.load(rec_path, budget)
        other = another_recording(golden, identity_of(rec))
        if other is not None:  # the two do not belong together: nothing to diff
            raise SkidpadError(f"{printable(gold_path)}: {other}")
        report = diff_against_golden(
            rec, golden, recording.file_sha256(rec_path), str(rec_path), here=_running_code()
        )
    elif kinds == {"recording", "trace"}:
        report = _trace_vs_recording(a_path, ka, ta, b_path, tb, budget)
    else:
        raise SkidpadError(f"cannot diff a {ka} with a {kb}")
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(printable_lines(report.text()), end="")
    return 0 if report.identical else 1


def _stats(args: argparse.Namespace, budget) -> int:
    """``--stats``: load both runs and check every option before any replay."""
    from skidpad.replay import recording
    from skidpad.replay.diff import describe_inputs
    from skidpad.replay.stats import (
        check_comparable,
        parse_tolerances,
        recording_series,
        state_stats,
        trace_series,
    )
    from skidpad.replay.trace import load_trace_document

    if args.b is None:
        raise SkidpadError("--stats: give two runs A and B (recordings or traces)")
    if args.hashes is not None or args.checkpoint_every is not None:
        used = "--hashes" if args.hashes is not None else "--checkpoint-every"
        raise SkidpadError(f"{used}: not used by --stats (it compares states, not hashes)")
    series, recs = [], []
    for name in (args.a, args.b):
        path = Path(name)
        if not _exists(path):
            raise SkidpadError(f"{path}: no such file")
        kind, text = _kind(path)
        if kind == "trace":
            series.append(trace_series(load_trace_document(text, str(path)), str(path)))
        elif kind == "recording":
            rec = recording.load(path, budget)
            recs.append(rec)
            series.append(recording_series(rec, f"{path} replayed here"))
        else:
            raise SkidpadError(
                f"{path}: a golden file holds hashes only; --stats needs recordings or traces"
            )
    a, b = series
    check_comparable(a, b)
    tolerances = parse_tolerances(args.tolerance or [], a.names)
    report = state_stats(a, b, tolerances)
    if len(recs) == 2:
        notes: list[str] = []
        describe_inputs(recs[0], recs[1], notes)
        report.notes[:0] = notes
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(printable_lines(report.text()), end="")
    return 1 if report.exceeded else 0


def _running_code() -> str:
    """Which code "replayed here" means: the checkout or installed copy, with its content hash."""
    from skidpad.parity.wheel import running_code

    return running_code().describe()


def _trace_vs_recording(a_path: Path, ka: str, ta: str, b_path: Path, tb: str, budget):
    """Replay the recording here with the trace's settings and compare the two traces."""
    from skidpad.replay import recording
    from skidpad.replay.diff import diff_traces
    from skidpad.replay.recorder import current_math_hash
    from skidpad.replay.replayer import replay
    from skidpad.replay.trace import load_trace_document, trace_document

    trace_path, trace_text, rec_path = (
        (a_path, ta, b_path) if ka == "trace" else (b_path, tb, a_path)
    )
    theirs = load_trace_document(trace_text, str(trace_path))
    rec = recording.load(rec_path, budget)
    sha = recording.file_sha256(rec_path)
    det = theirs.get("detail")
    window = range(det["from_step"], det["to_step"]) if det else None
    if window is not None and (window.stop > rec.steps or len(window) > 2000):
        raise SkidpadError(
            f"{printable(trace_path)}: /detail: steps {window.start}..{window.stop} are not "
            f"a window of at most 2000 of the recording's {rec.steps} host steps"
        )
    every = theirs.get("checkpoint_every") or 100
    result = replay(rec, every, trace=True, detail_steps=window)
    info = {"name": rec_path.name, "sha256": sha, "preset": rec.preset, "steps": rec.steps}
    here = f"{rec_path} replayed here ({_running_code()})"
    mine = load_trace_document(json.dumps(trace_document(result, info, current_math_hash())), here)
    if ka == "trace":
        return diff_traces(theirs, mine, str(trace_path), here)
    return diff_traces(mine, theirs, here, str(trace_path))
