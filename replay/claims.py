"""A recording's claims about its own replay, and whether a replay here bears them out.

A recording can say what replaying it must give. Format 1 (both the four-wheel
and the CommonRoad format) has one claim, the top-level ``final_hash``: the
state hash after the last host step at record time, or ``null`` for none. The
four-wheel format 2 carries a claims block: the final hash, the checkpoint
hashes every N host steps, and on a circuit the completed laps (number, time,
sectors, validity and why not). :func:`claims_of` is the one place that reads
them; :data:`REPLAYED` says, per claim kind, what a replay gives for it.

The claim check is separate from the golden comparison: the golden file says
what *this checkout's* physics produced when it was blessed; the claim says
what the recorder's physics produced. ``skidpad replay`` reports both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Claim:
    """One thing a recording claims: ``kind`` of value, where it is (JSON pointer), the value,
    and for a checkpoint or a lap which one (host step, lap index)."""

    kind: str
    where: str
    value: Any
    at: int | None = None


@dataclass(frozen=True)
class Replayed:
    """What a replay gave: the replayer's result and, on a circuit, the laps it timed (None
    where they were not timed)."""

    result: Any
    laps: list[dict] | None = None


def _checkpoint(run: Replayed, claim: Claim) -> str | None:
    return dict(run.result.checkpoints).get(claim.at)


def _lap(run: Replayed, claim: Claim) -> dict | None:
    if run.laps is None or claim.at >= len(run.laps):
        return None
    return run.laps[claim.at]


#: For each claim kind, what a replay gives for it (None: the replay did not compute it).
REPLAYED: dict[str, Callable[[Replayed, Claim], Any]] = {
    "final_hash": lambda run, claim: run.result.final_hash,
    "checkpoint": _checkpoint,
    "lap_count": lambda run, claim: None if run.laps is None else len(run.laps),
    "lap": _lap,
}


def claims_of(rec: Any) -> list[Claim]:
    """Every claim ``rec`` makes about its replay (any format, any version)."""
    v2 = rec.version >= 2
    claims = []
    if rec.final_hash is not None:
        where = "/claims/final_hash" if v2 else "/final_hash"
        claims.append(Claim("final_hash", where, rec.final_hash))
    for i, (step, value) in enumerate(rec.checkpoints):
        claims.append(Claim("checkpoint", f"/claims/checkpoints/{i}", value, step))
    laps = rec.laps
    if laps is not None:
        claims.append(Claim("lap_count", "/claims/laps", len(laps)))
        for i, lap in enumerate(laps):
            claims.append(Claim("lap", f"/claims/laps/{i}", dict(lap), i))
    return claims


@dataclass(frozen=True)
class ClaimCheck:
    """The verdict on a recording's claims.

    ``status`` is ``match`` (every claim holds), ``mismatch``, ``none`` (the
    recording claims nothing) or ``not checked`` (with ``reason``).
    """

    status: str
    problems: tuple[str, ...] = ()
    reason: str = ""
    details: tuple[dict, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status != "mismatch"

    @property
    def label(self) -> str:
        """What the table shows."""
        return "MISMATCH" if self.status == "mismatch" else self.status

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "reason": self.reason or None,
            "claims": list(self.details),
        }


def not_checked(reason: str) -> ClaimCheck:
    return ClaimCheck("not checked", reason=reason)


def check_claims(rec: Any, result: Any, laps: list[dict] | None = None) -> ClaimCheck:
    """Compare each claim of ``rec`` with what the replay ``result`` gave (and ``laps``, the
    laps it timed, if it timed them). A claim the replay did not compute (laps not timed, a
    checkpoint at another interval) is left out of the verdict."""
    claims = claims_of(rec)
    if not claims:
        return ClaimCheck("none", reason="the recording makes no claim (final_hash is null)")
    details = []
    problems = []
    run = Replayed(result, laps)
    for c in claims:
        here = REPLAYED[c.kind](run, c)
        if (
            here is None
            and c.kind in ("checkpoint", "lap", "lap_count")
            and (laps is None or c.kind == "checkpoint")
        ):
            continue
        details.append(
            {
                "kind": c.kind,
                "where": c.where,
                "claimed": c.value,
                "replayed": here,
                "ok": here == c.value,
            }
        )
        if here != c.value:
            problems.append(
                f"recording's own claim: MISMATCH: {c.where} claims {c.value}, "
                f"the replay here gives {here}"
            )
    status = "mismatch" if problems else "match"
    return ClaimCheck(status, tuple(problems), details=tuple(details))
