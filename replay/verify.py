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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.engine.state import NonFiniteStateError

#: overall verdicts of one file; only ``verified`` (and ``nothing claimed`` when the caller
#: allows unclaimed recordings) pass
VERIFIED = "verified"
UNCLAIMED = "nothing claimed"
MISMATCH = "MISMATCH"
FAILED = "FAILED"
REFUSED = "REFUSED"
ERROR = "ERROR"
#: a recording stamped with a physics version this installation does not have
UNKNOWN = "UNKNOWN PHYSICS"

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
    "physics",
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


@dataclass(frozen=True)
class PhysicsRun:
    """What one physics version's replay of a recording gave, and its claims' verdict."""

    version: int
    result: Any
    laps: list[dict] | None
    check: Any
    #: the archived version's loader refused the file (it predates the file's format)
    refused: str | None = None

    @property
    def holds(self) -> bool:
        """Every claim the recording makes is reproduced (a claim not computed fails)."""
        return self.refused is None and self.check.status == "match" and not self.unchecked

    @property
    def unchecked(self) -> int:
        return sum(1 for d in self.check.details if d["replayed"] is None) + (
            self.claims - len(self.check.details)
        )

    @property
    def claims(self) -> int:
        return self.check.claims

    def reach(self, rec: Any) -> tuple[int, int]:
        """How far this run agrees with the claims: (leading checkpoints that hold, claims
        that hold) — the larger, the closer this physics is to the recording's."""
        if self.refused is not None:
            return (-1, -1)
        got = dict(self.result.checkpoints)
        leading = 0
        for step, value in rec.checkpoints:
            if got.get(step) != value:
                break
            leading += 1
        held = sum(1 for d in self.check.details if d["ok"])
        return (leading, held)


@dataclass(frozen=True)
class _Checked:
    """A claim check with the number of claims it judged."""

    status: str
    problems: tuple[str, ...]
    details: tuple[dict, ...]
    claims: int


def _checked(rec: Any, result: Any, laps: list[dict] | None) -> _Checked:
    from skidpad.replay.claims import check_claims, claims_of

    check = check_claims(rec, result, laps)
    return _Checked(check.status, check.problems, check.details, len(claims_of(rec)))


def _replay_here(
    rec: Any, observer: Any = None, progress: Any = None
) -> tuple[Any, list[dict] | None]:
    """Today's physics, in this process (laps timed on a circuit); ``observer`` sees the pose
    after every substep and ``progress(n, total)`` the replay's progress."""
    from skidpad.replay.replayer import replay

    if rec.laps is not None:
        from skidpad.replay.laps import replay_laps

        laps, result = replay_laps(rec, observer=observer, progress=progress)
        return result, laps
    every = rec.checkpoint_every or 100
    return replay(rec, every, progress=progress, observer=observer), None


def run_under(
    version: int, path: Path, rec: Any, observer: Any = None, progress: Any = None,
    trial: bool = False,
) -> PhysicsRun:
    """Replay ``rec`` (read from ``path``) under physics ``version``: today's in this
    process, an archived one in a process of its own (ADR 0205). ``observer`` sees the pose
    after every substep under today's physics, and after every host step under an archived
    one (what its run reports: :func:`_observe_host_steps`), so a caller's ghost is the
    same whichever physics drew it; ``progress`` sees today's physics only. An archived
    version, and today's in a ``trial`` (identifying an unstamped file, nothing observed),
    replays the file's opening first and stops there if its checkpoints already differ."""
    today = version == PHYSICS_VERSION
    if not today or (trial and observer is None):
        early = _early_departure(version, path, rec)
        if early is not None:
            return early
    if today:
        result, laps = _replay_here(rec, observer, progress)
        return PhysicsRun(version, result, laps, _checked(rec, result, laps))
    from skidpad.replay.archive import run_archived

    answer = run_archived(version, path, poses=observer is not None)
    _observe_host_steps(rec, answer.poses, observer)
    if answer.error is not None:
        empty = _Checked("mismatch", (), (), 0)
        return PhysicsRun(version, answer, None, empty, refused=answer.error)
    return PhysicsRun(version, answer, answer.laps, _checked(rec, answer, answer.laps))


def _early_departure(version: int, path: Path, rec: Any) -> PhysicsRun | None:
    """Physics ``version`` over the file's opening (:func:`_opening`; today's in this process,
    an archived one in its own): the run when its checkpoints already differ there (most
    other physics depart there), else None: the whole file must be replayed."""
    head = _opening(path, rec)
    if head is None:
        return None
    try:
        if version == PHYSICS_VERSION:
            from skidpad.replay.recording import load

            answer, _laps = _replay_here(load(head))
        else:
            from skidpad.replay.archive import run_archived

            answer = run_archived(version, head)
    finally:
        head.unlink(missing_ok=True)
    early = _opening_check(rec, answer)
    if getattr(answer, "error", None) is None and early.status == "mismatch":
        return PhysicsRun(version, answer, None, early)
    return None


def _observe_host_steps(rec: Any, poses: list | None, observer: Any) -> None:
    """Hand an archived run's poses (one per host step) to ``observer`` at the substep tick
    each was taken at, the last substep of its host step (an observer that keeps one pose
    per host step, as the page's ghost does, sees the same ticks under any physics)."""
    if observer is None or not poses:
        return
    host_hz, substep_hz = getattr(rec, "host_hz", 0), getattr(rec, "substep_hz", 0)
    every = max(1, substep_hz // host_hz) if host_hz and substep_hz else 1
    for k, (x, y, c, s) in enumerate(poses):
        observer((k + 1) * every, x, y, c, s)


#: host steps of the opening an archived version replays first (:func:`_opening`)
OPENING_STEPS = 300


def _opening(path: Path, rec: Any) -> Path | None:
    """A copy of a four-wheel recording cut after its first :data:`OPENING_STEPS` host steps,
    claiming only the checkpoints in them (None when there is nothing to gain): a physics
    that departs early is told apart in a fraction of the full replay."""
    import json
    import tempfile

    every = rec.checkpoint_every or 0
    if rec.version < 2 or not rec.checkpoints or rec.steps <= 2 * OPENING_STEPS or every <= 0:
        return None
    if OPENING_STEPS // every < 1:
        return None
    from skidpad.replay.recording import FORMAT_NAME

    doc = json.loads(path.read_text("utf-8"))
    if doc.get("format") != FORMAT_NAME:
        return None
    doc["steps"] = OPENING_STEPS
    doc["frames"] = _cut(doc["frames"], OPENING_STEPS)
    if "host" in doc:
        doc["host"]["omega"] = _cut(doc["host"]["omega"], OPENING_STEPS)
    claims = doc["claims"]
    claims["checkpoints"] = [c for c in claims["checkpoints"] if c[0] <= OPENING_STEPS]
    claims["final_hash"] = None
    claims["laps"] = None
    handle, name = tempfile.mkstemp(prefix="skidpad-opening-", suffix=".json")
    with open(handle, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return Path(name)


def _opening_check(rec: Any, answer: Any) -> _Checked:
    """The claimed checkpoints of the opening against what a replay of it gave."""
    from skidpad.replay.claims import claims_of

    got = dict(answer.checkpoints)
    details, problems = [], []
    for claim in claims_of(rec):
        if claim.kind != "checkpoint" or claim.at > OPENING_STEPS:
            continue
        here = got.get(claim.at)
        details.append({"kind": claim.kind, "where": claim.where, "claimed": claim.value,
                        "replayed": here, "ok": here == claim.value})
        if here != claim.value:
            problems.append(f"{claim.where} claims {claim.value}, the replay gives {here}")
    status = "mismatch" if problems else "match"
    return _Checked(status, tuple(problems), tuple(details), len(claims_of(rec)))


def _cut(runs: list, steps: int) -> list:
    """Run-length encoded rows cut after ``steps`` expanded rows."""
    out, done = [], 0
    for row in runs:
        if done >= steps:
            break
        take = min(row[0], steps - done)
        out.append([take, *row[1:]])
        done += take
    return out


def installed_versions() -> list[int]:
    """The physics versions this installation runs, newest first: today's and the archive's."""
    from skidpad.replay.archive import archived_versions

    return [PHYSICS_VERSION, *(v for v in archived_versions() if v != PHYSICS_VERSION)]


def candidates(rec: Any, sha256: str | None) -> list[int]:
    """The versions to try on an unstamped recording, in order: the one the manifest of
    committed recordings names for these exact bytes first, then newest first."""
    from skidpad.replay.archive import known_recordings

    order = installed_versions()
    known = known_recordings().get(sha256 or "", {}).get("version")
    if known in order:
        order.remove(known)
        order.insert(0, known)
    return order


class UnknownPhysics(SkidpadError):
    """A recording names a physics version this installation does not have."""


def physics_of(rec: Any, asked: str | None) -> tuple[list[int], str]:
    """The physics versions a recording is replayed under, in order, and how they were
    chosen: ``asked`` (``--physics``), ``stamped`` (format 3) or ``identified`` (trial)."""
    stamp = getattr(rec, "physics_version", None)
    if asked is not None:
        number = PHYSICS_VERSION if asked == "current" else int(asked)
        if number not in installed_versions():
            raise UnknownPhysics(f"--physics {asked}: this installation runs physics "
                                 f"{_span()}")
        return [number], "asked"
    if stamp is not None:
        if stamp not in installed_versions():
            newer = "a newer" if stamp > PHYSICS_VERSION else "an installation with"
            raise UnknownPhysics(
                f"made with physics {stamp}; this installation runs physics {_span()}: "
                f"install {newer} skidpad (physics {stamp}) to verify it"
            )
        return [stamp], "stamped"
    return [], "identified"


def _span() -> str:
    versions = sorted(installed_versions())
    return f"{versions[0]}-{versions[-1]}" if len(versions) > 1 else str(versions[0])


def verify_one(
    path: Path,
    rec: Any,
    *,
    physics: str | None = None,
    min_physics: int | None = None,
    sha256: str | None = None,
    observer: Any = None,
    progress: Any = None,
    memo: dict[int, PhysicsRun] | None = None,
) -> dict:
    """Check every claim of ``rec`` by replaying it under its own physics (ADR 0205).

    A stamped recording (format 3) is replayed under the version it names; an unstamped one
    is identified by trial: a version counts only if it reproduces *every* claim, tried in
    the order :func:`candidates` gives, and the first that does is the recording's physics.
    ``physics="current"`` (or a number) replays under that version alone; ``min_physics``
    refuses recordings of an older physics. Raises :class:`UnknownPhysics` for a stamped
    version this installation lacks, and :class:`SkidpadError` for one under
    ``min_physics``. ``observer`` sees the pose after every substep and ``progress(n,
    total)`` the replay's progress (the sandbox page draws the ghost and a progress bar from
    them); neither changes the verdict. ``memo`` (version -> run) keeps the runs of this
    file between calls: the page calls again after fetching an archived version a run
    needed (:class:`replay.archive.ArchiveMissing`), and the runs already made count."""
    from skidpad.replay.claims import claims_of
    from skidpad.replay.recorder import current_math_hash

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
    order, how = physics_of(rec, physics)
    if min_physics is not None and how == "stamped" and order[0] < min_physics:
        raise SkidpadError(_too_old(path, order[0], min_physics))
    t0 = time.perf_counter()
    runs: list[PhysicsRun] = []
    for version in order or candidates(rec, sha256):
        run = memo.get(version) if memo is not None else None
        if run is None:
            run = run_under(version, path, rec, observer, progress, trial=how == "identified")
        if memo is not None:
            memo[version] = run
        runs.append(run)
        if runs[-1].holds or not claims:
            break
    row["wall_s"] = time.perf_counter() - t0
    chosen = runs[-1] if runs[-1].holds or not claims else _closest(rec, runs)
    if min_physics is not None and chosen.holds and chosen.version < min_physics:
        raise SkidpadError(_too_old(path, chosen.version, min_physics))
    row["physics"] = {"version": chosen.version, "how": how, "tried": [r.version for r in runs]}
    row["final_hash"] = chosen.result.final_hash
    row["replayed"] = (chosen.result, chosen.laps)
    row["laps"] = chosen.laps
    row["claims"] = len(claims)
    row["claim_details"] = list(chosen.check.details)
    failing = [d for d in chosen.check.details if not d["ok"]]
    row["failed"] = len(failing) + (0 if chosen.refused is None else len(claims))
    if chosen.refused is not None:
        row["problems"].append(f"physics {chosen.version} cannot read this file: {chosen.refused}")
    elif failing:
        first = failing[0]
        row["problems"].append(
            f"first: {first['where']} claims {first['claimed']}, the replay gives "
            f"{first['replayed']}"
        )
    if not chosen.holds and chosen.refused is None:
        if any(c.kind == "checkpoint" for c in claims):
            marks = list(rec.checkpoints)
            if dict(chosen.result.checkpoints) != dict(marks):
                row["problems"].append(departure(marks, chosen.result.checkpoints))
        if how == "identified" and len(runs) > 1:
            row["problems"].append(
                f"no physics of this installation ({_span()}) reproduces every claim; "
                f"the closest is physics {chosen.version}"
            )
    if not claims:
        row["verdict"] = UNCLAIMED
    else:
        row["verdict"] = VERIFIED if chosen.holds and not row["problems"] else MISMATCH
    return row


def _too_old(path: Path, version: int, minimum: int) -> str:
    return f"{path}: physics {version} is older than --min-physics {minimum}; refused"


def _closest(rec: Any, runs: list[PhysicsRun]) -> PhysicsRun:
    """The run that went furthest (first the most leading checkpoints, then the most claims
    held); the newest wins a tie (runs are in trial order)."""
    best = runs[0]
    for run in runs[1:]:
        if run.reach(rec) > best.reach(rec):
            best = run
    return best
def counted(n: int, noun: str) -> str:
    """``1 claim``, ``2 claims``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


#: how :func:`format_rows` names a recording's ``driven`` field
DRIVEN_WORDS = {"stepped": "driven in stepping mode: a test, not the clock, paced it"}


def physics_label(physics: dict | None) -> str:
    """``physics 7, stamped``: which physics a verdict was reached under, and how."""
    if not physics:
        return ""
    return f"physics {physics['version']}, {physics['how']}"


def format_rows(rows: list[dict], verbose: bool = False) -> str:
    """The rows of :func:`verify_one` as ``skidpad verify`` prints them (and the sandbox page
    shows them): per file the verdict and the physics it was reached under, the laps, the
    count of failed claims, the first one and where the replay departs; ``verbose`` adds
    every claim."""
    from skidpad.replay.terminal import printable

    lines = []
    for r in rows:
        name = printable(Path(r["file"]).name)
        verdict = r["verdict"]
        physics = physics_label(r.get("physics"))
        if verdict == UNKNOWN:
            lines.append(f"{name}: {UNKNOWN}: {printable(r['problems'][0])}")
            continue
        if verdict == VERIFIED:
            head = f"{name}: VERIFIED ({physics})"
        elif verdict == MISMATCH:
            head = f"{name}: MISMATCH under {physics}: {r['failed']} of {r['claims']} claims fail"
        else:
            head = f"{name}: {verdict}"
        if verdict in (VERIFIED, MISMATCH):
            claims = counted(r["claims"], "claim")
            head += f" ({claims}, {r['steps']} steps, final {r['final_hash']})"
        if r.get("upgraded"):
            head += ", rewritten in the current format"
        lines.append(head)
        if r.get("driven"):
            lines.append(f"  {DRIVEN_WORDS.get(r['driven'], printable(r['driven']))}")
        for lap in r.get("laps") or []:
            mark = "valid" if lap["valid"] else f"invalid: {printable(lap['reason'])}"
            lines.append(f"  lap {lap['lap']}: {lap['time_s']:.3f} s ({mark})")
        for problem in r["problems"]:
            lines.append(f"  {printable(problem)}")
        if verbose:
            for d in r.get("claim_details", []):
                mark = "ok" if d["ok"] else "MISMATCH"
                lines.append(
                    f"    {d['where']}: {mark}: claims {printable(str(d['claimed']))}, "
                    f"replay {printable(str(d['replayed']))}"
                )
    return "\n".join(lines)


def verify_as_the_command(
    path: Path,
    max_sim_seconds: float,
    observer: Any = None,
    progress: Any = None,
    memo: dict[int, PhysicsRun] | None = None,
) -> tuple[int, str, dict | None]:
    """What ``skidpad verify PATH`` does for one file: its exit code (0 verified, 1 not, 2
    bad input, 3 a physics this installation lacks), the text it prints (on stdout, or for
    bad input on stderr) and the row (None for bad input). The sandbox page runs this on a
    loaded file, so its verdict is the command's, in the same words; ``observer`` and
    ``progress`` and ``memo`` as for :func:`verify_one`."""
    from skidpad.replay import recording
    from skidpad.replay.budget import from_seconds
    from skidpad.replay.terminal import printable

    try:
        rec = recording.load(path, from_seconds(max_sim_seconds))
        sha256 = recording.file_sha256(path)
    except SkidpadError as exc:
        return 2, f"skidpad verify: {printable(exc)}", None
    try:
        row = verify_one(
            path, rec, sha256=sha256, observer=observer, progress=progress, memo=memo
        )
    except UnknownPhysics as exc:
        row = {"file": str(path), "verdict": UNKNOWN, "problems": [str(exc)]}
        return 3, format_rows([row]), row
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


def verify_file(
    path: str | Path,
    max_sim_seconds: float,
    physics: str | None = None,
    min_physics: int | None = None,
) -> dict[str, Any]:
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
        row = verify_one(
            Path(path), rec, physics=physics, min_physics=min_physics, sha256=line["sha256"]
        )
    except UnknownPhysics as exc:
        line.update(verdict=UNKNOWN, problems=[str(exc)])
    except SkidpadError as exc:  # --min-physics
        line.update(verdict=REFUSED, problems=[_without_path(str(exc), path)])
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
            physics=row["physics"],
        )
        if "driven" in row:
            line["driven"] = row["driven"]
    line["seconds"] = time.perf_counter() - t0
    return {key: line[key] for key in REPORT_KEYS if key in line}


def verify_files(
    paths: Sequence[str],
    max_sim_seconds: float,
    physics: str | None = None,
    min_physics: int | None = None,
) -> list[dict[str, Any]]:
    """:func:`verify_file` of each path, in order: one task of a batch."""
    return [verify_file(p, max_sim_seconds, physics, min_physics) for p in paths]


def _without_path(message: str, path: str | Path) -> str:
    """The loader names the file first; the report line has it in ``path`` already."""
    prefix = f"{path}: "
    return message[len(prefix) :] if message.startswith(prefix) else message
