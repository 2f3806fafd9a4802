"""Lap timing of a drive on a circuit: the probe that feeds a lap timer, and laps by replay.

:class:`TimingProbe` hands the CoG pose after every substep to an
:class:`engine.track.LapTimer`; the recorder attaches one to every drive on a circuit, so a
recording claims the laps its drive completed, and :func:`replay_laps` recomputes them from
the recording alone (what ``skidpad verify`` compares with the claims).
"""

from __future__ import annotations

from typing import Any

from engine.simulation import LAYOUT
from engine.track import LapTimer, load_circuit, wheel_offsets
from replay.recording import CHECKPOINT_EVERY


class TimingProbe:
    """A probe that feeds the CoG pose after every substep to a lap timer (no stage detail)."""

    def __init__(self, timer: LapTimer) -> None:
        self.timer = timer
        self.ix = LAYOUT.index["body.x"]
        self.iy = LAYOUT.index["body.y"]
        self.ic = LAYOUT.index["body.heading_c"]
        self.is_ = LAYOUT.index["body.heading_s"]

    def stage(self, name: str, values: Any) -> None:
        pass

    def substep(self, tick: int, state: list) -> None:
        self.timer.observe(tick, state[self.ix], state[self.iy], state[self.ic], state[self.is_])


def replay_laps(rec: Any) -> tuple[list[dict], Any]:
    """Replay a circuit recording with a lap timer: its laps and the replay result."""
    from replay.replayer import replay

    circuit = load_circuit(rec.track)
    timer = LapTimer(circuit, wheel_offsets(rec.definition), rec.substep_hz)
    every = rec.checkpoint_every or CHECKPOINT_EVERY
    result = replay(rec, checkpoint_every=every, hook=TimingProbe(timer))
    return [lap.to_json() for lap in timer.laps], result
