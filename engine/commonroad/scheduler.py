"""Step scheduler: how one host step of ``dt`` becomes N equal substeps.

Host time is counted in integer microseconds (ADR 0063). For a requested
``dt_us`` and a model whose largest stable substep is ``max_dt_us``:

* a request below ``MIN_DT_US`` (1 ms) is clamped up to it, and the clamp is
  reported (telemetry flag ``dt_clamped``); simulated time advances by the
  clamped value;
* N = ceil(dt / max_dt) equal substeps, but never so many that a substep is
  thinner than ``MIN_DT_US``: N <= floor(dt / MIN_DT_US);
* requests above ``MAX_HOST_DT_US`` (1 s), negative, or not integers are
  refused with an :class:`~engine.errors.InputError`.

Every substep has the same length ``dt / N`` (a float computed once from the
two integers, so it is correctly rounded and identical in every runtime).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from skidpad.engine.errors import InputError

MIN_DT_US = 1_000
MAX_HOST_DT_US = 1_000_000


@dataclass(frozen=True)
class StepPlan:
    """The scheduler's decision for one host step."""

    requested_us: int  # dt asked for [us]
    dt_us: int  # dt simulated [us] (>= MIN_DT_US)
    substeps: int  # N
    clamped: bool  # the request was below MIN_DT_US

    @property
    def substep_s(self) -> float:
        """Length of one substep [s]."""
        return self.dt_us / (self.substeps * 1_000_000)


def dt_to_us(dt_s: float) -> int:
    """Seconds -> whole microseconds (round half to even), validated."""
    if isinstance(dt_s, bool) or not isinstance(dt_s, (int, float)):
        raise InputError(f"dt: must be a number of seconds, got {type(dt_s).__name__}")
    if not math.isfinite(dt_s):
        raise InputError(f"dt: must be finite, got {dt_s!r}")
    return round(dt_s * 1_000_000)


def plan_steps(dt_us: int, max_dt_us: int, min_dt_us: int = MIN_DT_US) -> StepPlan:
    """Split a host step of ``dt_us`` microseconds into equal substeps."""
    if isinstance(dt_us, bool) or not isinstance(dt_us, int):
        raise InputError(f"dt_us: must be an integer number of microseconds, got {dt_us!r}")
    if dt_us < 0:
        raise InputError(f"dt_us: must be >= 0, got {dt_us}")
    if dt_us > MAX_HOST_DT_US:
        raise InputError(f"dt_us: must be <= {MAX_HOST_DT_US} (1 s), got {dt_us}")
    if max_dt_us < min_dt_us:
        raise ValueError(f"model max_dt_us {max_dt_us} is below the minimum {min_dt_us}")
    clamped = dt_us < min_dt_us
    dt = min_dt_us if clamped else dt_us
    n = -(-dt // max_dt_us)  # ceil
    n = max(1, min(n, dt // min_dt_us))
    return StepPlan(requested_us=dt_us, dt_us=dt, substeps=n, clamped=clamped)
