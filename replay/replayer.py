"""The replayer: rebuild a vehicle model from a recording alone and hash its run.

See docs/architecture.md §2, §4.

``replay(rec)`` asks the recording's format entry (``replay.recording.FORMATS``) for a
fresh :class:`replay.model.VehicleModel` — built from the embedded definition, or from
today's preset when ``use_preset=True`` is asked for explicitly — feeds it every recorded
host step's frame, and returns a :class:`ReplayResult`:

* ``checkpoints``: ``[(n, hash)]`` — the state hash after ``n`` host steps for
  ``n = 0, every, 2*every, ...`` (``n = 0`` is the initial state, so a changed
  initial condition shows up as the first checkpoint);
* ``final_hash``: the state hash after the last step;
* ``steps``, ``wall_s`` (wall-clock seconds of the stepping loop only) and the
  real-time factor (simulated seconds per wall second).

Trace mode (``trace=True``) also attaches a :class:`replay.trace.TraceProbe` to the
model, giving a hash per substep; ``state_at`` asks for the full named state after
chosen host steps, and ``detail_steps`` (a range of 0-based host steps) for
every stage's values and the state at each substep inside it. Wall time is
measured with ``time.perf_counter``: it is reported, never hashed. The loop is the
same for every family; it never asks which one it has.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from skidpad.replay.model import VehicleModel
from skidpad.replay.recording import RecordingError, build_model
from skidpad.replay.trace import SubstepDetail, TraceProbe


@dataclass
class ReplayResult:
    """What one replay gave. ``host_hz`` and ``substep_hz`` are 0 for a family whose host
    steps vary in length; then ``sim_us`` is the simulated time and ``step_ticks[k]`` the
    number of substeps done after host step ``k + 1``."""

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
    sim_us: int | None = None
    step_ticks: list[int] | None = None

    @property
    def sim_s(self) -> float:
        if self.sim_us is not None:
            return self.sim_us / 1_000_000
        return self.steps / self.host_hz

    @property
    def realtime_factor(self) -> float:
        return self.sim_s / self.wall_s if self.wall_s > 0 else float("inf")


def start_model(rec: Any, use_preset: bool = False) -> VehicleModel:
    """The fresh model a replay of ``rec`` starts from (its format entry's factory)."""
    return build_model(rec, use_preset)


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
    probed_path: str = "readable",
) -> ReplayResult:
    """Replay ``rec`` (any format); see the module docstring. ``hook`` (a probe) sees every
    stage and substep first (tests plant divergences with it); ``stop_after`` ends the replay
    after that many steps; ``observer`` sees the pose after every substep without the
    probe's per-stage reporting (a lap timer), for a family on a circuit; ``probed_path``
    "fast" runs the probed steps on the fast path's probed variant (a four-wheel run), so
    a difference only the fast path has is seen by stage.
    """
    if not isinstance(checkpoint_every, int) or checkpoint_every <= 0:
        raise RecordingError(
            f"checkpoint interval must be a positive integer, not {checkpoint_every!r}"
        )
    model = start_model(rec, use_preset)
    if probed_path != "readable":
        choose = getattr(model, "choose_probed_path", None)
        if choose is None:
            raise RecordingError(f"this model has one path: no {probed_path} path to probe")
        choose(probed_path)
    if observer is not None:
        model.observe_pose(observer)
    layout = model.layout
    want_states = {int(s) for s in state_at}
    states: dict[int, dict] = {}
    probe = None
    if trace or hook is not None or detail_steps is not None:
        probe = TraceProbe(
            layout,
            hook=hook,
            detail_ticks=model.tick_window(detail_steps) if detail_steps is not None else None,
            hash_substeps=trace,
        )
        model.attach(probe)
    total = rec.steps if stop_after is None else min(rec.steps, stop_after)
    checkpoints = [(0, model.state_hash())]
    if 0 in want_states:
        states[0] = layout.as_dict(model.state)
    step = model.step
    n = 0
    report_every = model.report_every
    t0 = time.perf_counter()
    for values in rec.inputs():
        if n >= total:
            break
        step(values)
        n += 1
        if n % checkpoint_every == 0:
            checkpoints.append((n, model.state_hash()))
        if n in want_states:
            states[n] = layout.as_dict(model.state)
        if progress is not None and n % report_every == 0:
            progress(n, total)
    wall = time.perf_counter() - t0
    return ReplayResult(
        checkpoints=checkpoints,
        final_hash=model.state_hash(),
        steps=n,
        wall_s=wall,
        host_hz=model.host_hz,
        substep_hz=model.substep_hz,
        ticks=model.ticks(),
        checkpoint_every=checkpoint_every,
        layout=layout,
        substep_hashes=probe.hashes if (probe is not None and trace) else None,
        states=states if (trace or want_states) else None,
        detail=probe.detail if (probe is not None and detail_steps is not None) else None,
        detail_steps=detail_steps,
        used_preset=model.used_preset,
        sim_us=model.sim_us(),
        step_ticks=model.step_ticks(n),
    )
