"""The replayer: rebuild a simulation from a recording alone and hash its run (DESIGN §5, §7).

``replay(rec)`` builds ``Simulation(definition, substep_hz, host_hz, initial)``
from the recording (its embedded definition, or today's preset when
``use_preset=True`` is asked for explicitly), feeds every recorded host
step's inputs, and returns a :class:`ReplayResult`:

* ``checkpoints``: ``[(n, hash)]`` — the state hash after ``n`` host steps for
  ``n = 0, every, 2*every, ...`` (``n = 0`` is the initial state, so a changed
  initial condition shows up as the first checkpoint);
* ``final_hash``: the state hash after the last step (``Simulation.state_hash``);
* ``steps``, ``wall_s`` (wall-clock seconds of the stepping loop only) and the
  real-time factor (simulated seconds per wall second).

Trace mode (``trace=True``) also passes a :class:`replay.trace.TraceProbe`,
giving a hash per substep; ``state_at`` asks for the full named state after
chosen host steps, and ``detail_steps`` (a range of 0-based host steps) for
every stage's values and the state at each substep inside it. Wall time is
measured with ``time.perf_counter``: it is reported, never hashed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from replay.recording import Recording, RecordingError, definition_for_replay
from replay.trace import SubstepDetail, TraceProbe, ticks_of_step

#: engine tick numbering seen by probe.substep: tick of the first substep of a run.
#: (Set from the engine at first use; see _tick_base.)


@dataclass
class ReplayResult:
    checkpoints: list[tuple[int, str]]
    final_hash: str
    steps: int
    wall_s: float
    host_hz: int
    substep_hz: int
    ticks: int
    checkpoint_every: int
    layout: Any = None
    substep_hashes: list[tuple[int, str]] | None = None
    states: dict[int, dict] | None = None
    detail: list[SubstepDetail] | None = None
    detail_steps: range | None = None
    used_preset: bool = False

    @property
    def sim_s(self) -> float:
        return self.steps / self.host_hz

    @property
    def realtime_factor(self) -> float:
        return self.sim_s / self.wall_s if self.wall_s > 0 else float("inf")


def build_simulation(rec: Recording, use_preset: bool = False) -> Any:
    """The fresh simulation a replay of ``rec`` starts from."""
    from engine.errors import SkidpadError
    from engine.simulation import Simulation

    definition = definition_for_replay(rec, use_preset)
    try:
        return Simulation(
            definition, substep_hz=rec.substep_hz, host_hz=rec.host_hz, initial=rec.initial or None
        )
    except RecordingError:
        raise
    except SkidpadError as exc:
        raise RecordingError(
            f"/initial: the engine refused the recording's set-up: {exc}"
        ) from None


def tick_window(sim: Any, steps: range) -> range:
    """The ticks ``probe.substep`` reports for the substeps of host steps ``steps`` (0-based)."""
    base = getattr(sim, "TICK_BASE", 1)  # the engine reports the tick count after the substep
    first = ticks_of_step(steps.start, sim.host_hz, sim.substep_hz).start
    last = ticks_of_step(max(steps.stop - 1, steps.start), sim.host_hz, sim.substep_hz).stop
    if steps.stop <= steps.start:
        last = first
    return range(first + base, last + base)


def replay(
    rec: Recording,
    checkpoint_every: int = 100,
    use_preset: bool = False,
    trace: bool = False,
    progress: Callable[[int, int], None] | None = None,
    *,
    state_at: Iterable[int] = (),
    detail_steps: range | None = None,
    hook: Any = None,
    stop_after: int | None = None,
) -> ReplayResult:
    """Replay ``rec``; see the module docstring. ``hook`` (a probe) sees every stage and substep
    first (tests plant divergences with it); ``stop_after`` ends the replay after that many steps.
    """
    if not isinstance(checkpoint_every, int) or checkpoint_every <= 0:
        raise RecordingError(
            f"checkpoint interval must be a positive integer, not {checkpoint_every!r}"
        )
    if not isinstance(rec, Recording):  # a drive of the CommonRoad daemon (ADR 0090)
        from replay import commonroad

        return commonroad.replay(
            rec,
            checkpoint_every,
            use_preset,
            trace,
            progress,
            state_at=state_at,
            detail_steps=detail_steps,
            hook=hook,
            stop_after=stop_after,
        )
    sim = build_simulation(rec, use_preset)
    layout = sim.layout
    want_states = {int(s) for s in state_at}
    states: dict[int, dict] = {}
    probe = None
    if trace or hook is not None or detail_steps is not None:
        probe = TraceProbe(
            layout,
            hook=hook,
            detail_ticks=tick_window(sim, detail_steps) if detail_steps is not None else None,
            hash_substeps=trace,
        )
    total = rec.steps if stop_after is None else min(rec.steps, stop_after)
    checkpoints = [(0, sim.state_hash())]
    if 0 in want_states:
        states[0] = layout.as_dict(sim.state)
    step = sim.step
    n = 0
    report_every = max(1, rec.host_hz * 10)
    t0 = time.perf_counter()
    for values in rec.inputs():
        if n >= total:
            break
        step(values, probe)
        n += 1
        if n % checkpoint_every == 0:
            checkpoints.append((n, sim.state_hash()))
        if n in want_states:
            states[n] = layout.as_dict(sim.state)
        if progress is not None and n % report_every == 0:
            progress(n, total)
    wall = time.perf_counter() - t0
    return ReplayResult(
        checkpoints=checkpoints,
        final_hash=sim.state_hash(),
        steps=n,
        wall_s=wall,
        host_hz=sim.host_hz,
        substep_hz=sim.substep_hz,
        ticks=sim.tick,
        checkpoint_every=checkpoint_every,
        layout=layout,
        substep_hashes=probe.hashes if (probe is not None and trace) else None,
        states=states if (trace or want_states) else None,
        detail=probe.detail if (probe is not None and detail_steps is not None) else None,
        detail_steps=detail_steps,
        used_preset=use_preset,
    )
