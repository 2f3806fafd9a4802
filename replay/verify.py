"""Verify recordings on their own: every claim a recording carries, checked by replay.

No ``hashes/`` folder and no current directory play a part (ADR 0142): a recording is
checked against what it says about itself. :func:`verify_one` is the check of one loaded
recording (what ``skidpad verify`` prints). :func:`verify_file` is the same check for a
file from a stranger at scale (ADR 0163): it never raises for a bad file, it returns one
report line — the path, the SHA-256 of the bytes it verified, each claim with its verdict,
the overall verdict and the seconds it took — and a file that cannot be read, breaks the
format or exceeds the budgets is a ``REFUSED`` line, a run whose physics fails a ``FAILED``
line. :func:`verify_files` is one task of a batch: it runs in this process or in a worker
of a cluster, so it takes and returns plain data.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.engine.state import NonFiniteStateError

#: overall verdicts of one file; only ``verified`` (and ``nothing claimed`` when the caller
#: allows unclaimed recordings) pass
VERIFIED = "verified"
UNCLAIMED = "nothing claimed"
MISMATCH = "MISMATCH"
FAILED = "FAILED"
REFUSED = "REFUSED"
ERROR = "ERROR"

#: the fields of a report line, in the order they are written
REPORT_KEYS = (
    "path",
    "sha256",
    "verdict",
    "driven",
    "claims",
    "problems",
    "steps",
    "final_hash",
    "seconds",
)


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


def verify_one(path: Path, rec: Any, observer: Any = None, progress: Any = None) -> dict:
    """Every claim of the loaded ``rec`` checked by replay: the row ``skidpad verify`` prints
    (:func:`format_rows`). ``observer`` sees the pose after every substep and
    ``progress(n, total)`` the replay's progress (the sandbox page draws the ghost and a
    progress bar from them); neither changes the verdict."""
    from skidpad.replay.claims import check_claims, claims_of
    from skidpad.replay.recorder import current_math_hash
    from skidpad.replay.replayer import replay

    row: dict[str, Any] = {
        "file": str(path),
        "preset": rec.preset,
        "steps": rec.steps,
        "problems": [],
    }
    if getattr(rec, "driven", None) is not None:
        row["driven"] = rec.driven
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
        from skidpad.replay.laps import replay_laps

        laps, result = replay_laps(rec, observer=observer, progress=progress)
    else:
        result = replay(
            rec, rec.checkpoint_every or 100, progress=progress, observer=observer
        )
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


def counted(n: int, noun: str) -> str:
    """``1 claim``, ``2 claims``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


#: how :func:`format_rows` names a recording's ``driven`` field
DRIVEN_WORDS = {"stepped": "driven in stepping mode: a test, not the clock, paced it"}


def format_rows(rows: list[dict]) -> str:
    """The rows of :func:`verify_one` as ``skidpad verify`` prints them (and the sandbox page
    shows them): per file the verdict, the laps and every problem."""
    from skidpad.replay.terminal import printable

    lines = []
    for r in rows:
        name = printable(Path(r["file"]).name)
        head = f"{name}: {r['verdict']}"
        if r["verdict"] in ("verified", "MISMATCH"):
            claims = counted(r["claims"], "claim")
            head += f" ({claims}, {r['steps']} steps, final {r['final_hash']})"
        if r.get("upgraded"):
            head += ", rewritten as version 2"
        lines.append(head)
        if r.get("driven"):
            lines.append(f"  {DRIVEN_WORDS.get(r['driven'], printable(r['driven']))}")
        for lap in r.get("laps") or []:
            mark = "valid" if lap["valid"] else f"invalid: {printable(lap['reason'])}"
            lines.append(f"  lap {lap['lap']}: {lap['time_s']:.3f} s ({mark})")
        for problem in r["problems"]:
            lines.append(f"  {printable(problem)}")
    return "\n".join(lines)


def verify_as_the_command(
    path: Path, max_sim_seconds: float, observer: Any = None, progress: Any = None
) -> tuple[int, str, dict | None]:
    """What ``skidpad verify PATH`` does for one file: its exit code (0 verified, 1 not, 2
    bad input), the text it prints (on stdout, or for bad input on stderr) and the row (None
    for bad input). The sandbox page runs this on a loaded file, so its verdict is the
    command's, in the same words; ``observer`` and ``progress`` as for :func:`verify_one`."""
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds
    from skidpad.replay.terminal import printable

    try:
        rec = recording.load(path, from_seconds(max_sim_seconds))
    except SkidpadError as exc:
        return 2, f"skidpad verify: {printable(exc)}", None
    try:
        row = verify_one(path, rec, observer=observer, progress=progress)
    except NonFiniteStateError as exc:
        row = {"file": str(path), "verdict": FAILED, "problems": [f"the physics failed: {exc}"]}
    row.pop("replayed", None)
    return (0 if passed(row["verdict"]) else 1), format_rows([row]), row


def passed(verdict: str, allow_unclaimed: bool = False) -> bool:
    """Whether a file with this overall verdict counts as verified."""
    return verdict == VERIFIED or (verdict == UNCLAIMED and allow_unclaimed)


def walk(paths: Iterable[str | Path]) -> list[Path]:
    """The recordings under ``paths``: a folder contributes every ``*.json`` below it, at any
    depth, sorted; a file is taken as given. SkidpadError when there is none."""
    out: list[Path] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.json") if not q.is_dir()))
        else:
            out.append(p)
    if not out:
        raise SkidpadError("no recordings to verify")
    return out


def claim_verdicts(rec: Any, replayed: Any, laps: list[dict] | None) -> list[dict]:
    """Every claim of ``rec`` with its verdict against the replay: ``verified``,
    ``MISMATCH``, or ``not checked`` (a value the replay did not compute)."""
    from skidpad.replay.claims import check_claims, claims_of

    checked = {d["where"]: d for d in check_claims(rec, replayed, laps).details}
    out = []
    for claim in claims_of(rec):
        detail = checked.get(claim.where)
        line: dict[str, Any] = {"kind": claim.kind, "where": claim.where, "claimed": claim.value}
        if detail is None:
            line["verdict"] = "not checked"
        else:
            line["replayed"] = detail["replayed"]
            line["verdict"] = VERIFIED if detail["ok"] else MISMATCH
        out.append(line)
    return out


def verify_file(path: str | Path, max_sim_seconds: float) -> dict[str, Any]:
    """One report line for the recording at ``path`` (never raises for a bad file)."""
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds

    t0 = time.perf_counter()
    line: dict[str, Any] = {"path": str(path), "sha256": None, "claims": [], "problems": []}
    try:
        budget = from_seconds(max_sim_seconds)
        data = recording.read_bytes_limited(path, budget.max_file_bytes)
        line["sha256"] = hashlib.sha256(data).hexdigest()
        rec = recording.loads(recording.decode_utf8(data, str(path)), budget)
        del data
    except SkidpadError as exc:
        line.update(verdict=REFUSED, problems=[_without_path(str(exc), path)])
        line["seconds"] = time.perf_counter() - t0
        return {key: line[key] for key in REPORT_KEYS if key in line}
    try:
        row = verify_one(Path(path), rec)
    except NonFiniteStateError as exc:
        line.update(verdict=FAILED, problems=[f"the physics failed: {exc}"])
    except Exception as exc:  # a fault of this program on this file: reported, not hidden
        line.update(verdict=ERROR, problems=[f"{type(exc).__name__}: {exc}"])
    else:
        result, laps = row["replayed"]
        line.update(
            steps=row["steps"],
            final_hash=row["final_hash"],
            claims=claim_verdicts(rec, result, laps),
            verdict=row["verdict"],
            problems=row["problems"],
        )
        if "driven" in row:
            line["driven"] = row["driven"]
    line["seconds"] = time.perf_counter() - t0
    return {key: line[key] for key in REPORT_KEYS if key in line}


def verify_files(paths: Sequence[str], max_sim_seconds: float) -> list[dict[str, Any]]:
    """:func:`verify_file` of each path, in order: one task of a batch."""
    return [verify_file(p, max_sim_seconds) for p in paths]


def _without_path(message: str, path: str | Path) -> str:
    """The loader names the file first; the report line has it in ``path`` already."""
    prefix = f"{path}: "
    return message[len(prefix) :] if message.startswith(prefix) else message
