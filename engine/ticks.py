"""Integer time: which substeps a host step runs (docs/architecture.md §2).

At host rate ``H`` and substep rate ``S`` (both in Hz, integers), host step ``k``
(0-based) runs the substeps numbered ``k·S//H`` up to ``(k+1)·S//H - 1`` (0-based),
that is ``(k+1)·S//H - k·S//H`` substeps of ``h = 1/S`` seconds. The floor
divisions spread the remainder of ``S/H`` over the host steps, so any pair of
rates works and, after ``k`` host steps, exactly ``k·S//H`` substeps have run:
time is counted in integer substeps, never accumulated as a float.
"""

from __future__ import annotations


def ticks_before(k: int, host_hz: int, substep_hz: int) -> int:
    """Substeps run before host step ``k`` (0-based): ``k·S//H``."""
    return k * substep_hz // host_hz


def substeps_in_step(k: int, host_hz: int, substep_hz: int) -> int:
    """Substeps host step ``k`` runs: ``(k+1)·S//H - k·S//H``."""
    return ticks_before(k + 1, host_hz, substep_hz) - ticks_before(k, host_hz, substep_hz)


def ticks_of_step(k: int, host_hz: int, substep_hz: int) -> range:
    """The substep indices (0-based) host step ``k`` (0-based) runs."""
    return range(ticks_before(k, host_hz, substep_hz), ticks_before(k + 1, host_hz, substep_hz))


def step_of_tick(index: int, host_hz: int, substep_hz: int) -> int:
    """The host step (0-based) whose substeps include substep ``index`` (0-based)."""
    # the smallest k with (k+1)·S//H > index: estimate, then correct with exact integer steps
    k = (index * host_hz) // substep_hz
    while ticks_before(k + 1, host_hz, substep_hz) <= index:
        k += 1
    while k > 0 and ticks_before(k, host_hz, substep_hz) > index:
        k -= 1
    return k
