"""A recording's claims about its own replay, and whether a replay here bears them out.

A recording can say what replaying it must give. Format 1 (both the four-wheel
and the CommonRoad format) has one claim, the top-level ``final_hash``: the
state hash after the last host step at record time, or ``null`` for none. A
recording that carries more claims (a later format's claims block) adds them
in :func:`claims_of`, the one place that reads them, and, for a new kind, one
entry in :data:`REPLAYED`, which says what the replay gives for that kind.

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
    """One thing a recording claims: ``kind`` of value, where it is (JSON pointer), the value."""

    kind: str
    where: str
    value: str


#: For each claim kind, what a replay gives for it (from :class:`replay.replayer.ReplayResult`).
REPLAYED: dict[str, Callable[[Any], str]] = {
    "final_hash": lambda result: result.final_hash,
}


def claims_of(rec: Any) -> list[Claim]:
    """Every claim ``rec`` makes about its replay (either recording kind)."""
    claims = []
    if rec.final_hash is not None:
        claims.append(Claim("final_hash", "/final_hash", rec.final_hash))
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


def check_claims(rec: Any, result: Any) -> ClaimCheck:
    """Compare each claim of ``rec`` with what the replay ``result`` gave."""
    claims = claims_of(rec)
    if not claims:
        return ClaimCheck("none", reason="the recording makes no claim (final_hash is null)")
    details = []
    problems = []
    for c in claims:
        here = REPLAYED[c.kind](result)
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
