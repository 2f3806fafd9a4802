"""The replayer: rebuild a simulation from a recording alone and hash its run.

See docs/architecture.md §2, §4.

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

A CommonRoad recording (ADR 0090) goes through the same loop: a
:class:`ReplayRun` supplies what differs between the two kinds (what is
stepped, how a step is fed, the result), :class:`SimulationRun` for the
four-wheel model and ``replay.commonroad.CommonRoadRun`` for the daemon.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.ticks import ticks_of_step
from replay.recording import Recording, RecordingError, definition_for_replay
from replay.trace import SubstepDetail, TraceProbe


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
            definition,
            substep_hz=rec.substep_hz,
            host_hz=rec.host_hz,
            initial=rec.initial or None,
            host_wheels=None if rec.host is None else list(rec.host.wheels),
        )
    except RecordingError:
        raise
    except SkidpadError as exc:
        raise RecordingError(
            f"/initial: the engine refused the recording's set-up: {exc}"
        ) from None


def tick_window(sim: Any, steps: range) -> range:
    """The ticks ``probe.substep`` reports for the substeps of host steps ``steps`` (0-based).

    A probe is told the tick count after the substep, so substep index ``i`` is tick ``i + 1``.
    """
    first = ticks_of_step(steps.start, sim.host_hz, sim.substep_hz).start
    last = ticks_of_step(max(steps.stop - 1, steps.start), sim.host_hz, sim.substep_hz).stop
    if steps.stop <= steps.start:
        last = first
    return range(first + 1, last + 1)


class ReplayRun(Protocol):
    """What one kind of recording brings to :func:`replay`; the loop itself is shared.

    ``sim`` is what is stepped and hashed (``layout``, ``state``, ``state_hash()``).
    :class:`SimulationRun` is the four-wheel kind; ``replay.commonroad.CommonRoadRun``
    is the CommonRoad daemon's (ADR 0090).
    """

    sim: Any
    #: progress is reported every this many host steps
    report_every: int

    def tick_window(self, steps: range) -> range:
        """The ticks ``probe.substep`` reports during host steps ``steps`` (0-based)."""
        ...

    def attach(self, probe: TraceProbe) -> None:
        """Have every later step report its stages and substeps to ``probe``."""
        ...

    def step(self, values: tuple) -> None:
        """Feed one recorded host step."""
        ...

    def result(self, common: dict[str, Any]) -> ReplayResult:
        """The result: ``common`` holds the fields every kind of run fills the same way."""
        ...


class SimulationRun:
    """A four-wheel recording's replay: ``Simulation`` at the recording's fixed host rate."""

    def __init__(self, rec: Recording, use_preset: bool = False) -> None:
        self.sim = build_simulation(rec, use_preset)
        self.report_every = max(1, rec.host_hz * 10)
        self.use_preset = use_preset
        self.probe: TraceProbe | None = None
        #: a host run replays without its host: the speeds it returned, step by step
        self.host_speeds = None if rec.host is None else rec.host.speeds()

    def tick_window(self, steps: range) -> range:
        return tick_window(self.sim, steps)

    def attach(self, probe: TraceProbe) -> None:
        self.probe = probe

    def step(self, values: tuple) -> None:
        self.sim.step(values, self.probe)
        if self.host_speeds is not None:
            self.sim.set_host_omega(next(self.host_speeds))

    def result(self, common: dict[str, Any]) -> ReplayResult:
        sim = self.sim
        return ReplayResult(
            **common,
            host_hz=sim.host_hz,
            substep_hz=sim.substep_hz,
            ticks=sim.tick,
            used_preset=self.use_preset,
        )


def start_run(rec: Any, use_preset: bool = False) -> ReplayRun:
    """The run that replays ``rec``, whichever kind of recording it is."""
    if isinstance(rec, Recording):
        return SimulationRun(rec, use_preset)
    from replay import commonroad  # a drive of the CommonRoad daemon (ADR 0090)

    return commonroad.CommonRoadRun(rec, use_preset)


def replay(
    rec: Any,
    checkpoint_every: int = 100,
    use_preset: bool = False,
    trace: bool = False,
    progress: Callable[[int, int], None] | None = None,
    *,
    state_at: Iterable[int] = (),
    detail_steps: range | None = None,
    hook: Any = None,
    stop_after: int | None = None,
    observer: Any = None,
) -> ReplayResult:
    """Replay ``rec`` (either kind); see the module docstring. ``hook`` (a probe) sees every
    stage and substep first (tests plant divergences with it); ``stop_after`` ends the replay
    after that many steps; ``observer`` sees the pose after every substep without the
    probe's per-stage reporting (a lap timer: ``engine.simulation.Simulation.pose_observer``).
    """
    if not isinstance(checkpoint_every, int) or checkpoint_every <= 0:
        raise RecordingError(
            f"checkpoint interval must be a positive integer, not {checkpoint_every!r}"
        )
    run = start_run(rec, use_preset)
    sim = run.sim
    if observer is not None:  # a pose observer (a lap timer): four-wheel runs only
        sim.pose_observer = observer
    layout = sim.layout
    want_states = {int(s) for s in state_at}
    states: dict[int, dict] = {}
    probe = None
    if trace or hook is not None or detail_steps is not None:
        probe = TraceProbe(
            layout,
            hook=hook,
            detail_ticks=run.tick_window(detail_steps) if detail_steps is not None else None,
            hash_substeps=trace,
        )
        run.attach(probe)
    total = rec.steps if stop_after is None else min(rec.steps, stop_after)
    checkpoints = [(0, sim.state_hash())]
    if 0 in want_states:
        states[0] = layout.as_dict(sim.state)
    step = run.step
    n = 0
    report_every = run.report_every
    t0 = time.perf_counter()
    for values in rec.inputs():
        if n >= total:
            break
        step(values)
        n += 1
        if n % checkpoint_every == 0:
            checkpoints.append((n, sim.state_hash()))
        if n in want_states:
            states[n] = layout.as_dict(sim.state)
        if progress is not None and n % report_every == 0:
            progress(n, total)
    wall = time.perf_counter() - t0
    return run.result(
        {
            "checkpoints": checkpoints,
            "final_hash": sim.state_hash(),
            "steps": n,
            "wall_s": wall,
            "checkpoint_every": checkpoint_every,
            "layout": layout,
            "substep_hashes": probe.hashes if (probe is not None and trace) else None,
            "states": states if (trace or want_states) else None,
            "detail": probe.detail if (probe is not None and detail_steps is not None) else None,
            "detail_steps": detail_steps,
        }
    )
