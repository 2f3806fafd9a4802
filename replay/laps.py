"""Lap timing of a drive on a circuit: the probe that feeds a lap timer, and laps by replay.

A :class:`engine.track.LapTimer` observes the CoG pose after every substep (the
simulation's ``pose_observer``, which keeps the fast path). The recorder attaches one to
every drive on a circuit, so a recording claims the laps its drive completed, and
:func:`replay_laps` recomputes them from the recording alone (what ``skidpad verify``
compares with the claims).
"""

from __future__ import annotations

from typing import Any

from skidpad.engine.track import LapTimer, load_circuit, wheel_offsets
from skidpad.replay.recording import CHECKPOINT_EVERY
from skidpad.replay.replayer import replay


def replay_laps(
    rec: Any, observer: Any = None, progress: Any = None
) -> tuple[list[dict], Any]:
    """Replay a circuit recording with a lap timer: its laps and the replay result.
    ``observer`` (a pose observer, as the lap timer's) sees every substep after the timer;
    ``progress(n, total)`` is passed to the replay."""
    circuit = load_circuit(rec.track)
    timer = LapTimer(circuit, wheel_offsets(rec.definition), rec.substep_hz)
    every = rec.checkpoint_every or CHECKPOINT_EVERY
    observe = timer.observe
    if observer is not None:
        timed = timer.observe

        def observe(tick: int, x: float, y: float, c: float, s: float) -> None:
            timed(tick, x, y, c, s)
            observer(tick, x, y, c, s)

    result = replay(rec, checkpoint_every=every, observer=observe, progress=progress)
    return [lap.to_json() for lap in timer.laps], result
