"""The four-wheel family behind the model seam: ``engine.fourwheel.simulation.Simulation`` as a
:class:`replay.model.VehicleModel`.

The model factory of the four-wheel formats (``replay.recording.FORMATS``): a replay
builds ``Simulation(definition, substep_hz, host_hz, initial)`` from the recording's
embedded definition (or, asked for explicitly, today's preset of the same name) and feeds
each recorded frame, already in ``engine.fourwheel.inputs.CHANNELS`` order, to ``step``. A run whose
wheels an external host owned (the recording's ``host`` block, ADR 0202) replays without
the host: after host step k the speeds the host returned for it are handed back, by step
index, so a restored snapshot picks up the right ones. The
simulation's own probe argument serves the stage-level diff: a probed step runs the
readable path, whose stages (``engine.fourwheel.stages.STAGES``) report their values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skidpad.engine.errors import DefinitionError, SkidpadError
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel.simulation import STAGES, Simulation
from skidpad.engine.state import StateLayout
from skidpad.engine.ticks import ticks_of_step
from skidpad.engine.track import drive_ground
from skidpad.replay.document import RecordingError
from skidpad.replay.model import Probe

#: the stage names a probed four-wheel substep reports, in order
STAGE_NAMES = tuple(s.name for s in STAGES)


def definition_for_replay(rec: Any, use_preset: bool = False) -> dict:
    """The definition a replay runs with: the embedded one, or (explicitly) today's preset."""
    if not use_preset:
        return rec.definition
    if rec.preset is None:
        raise RecordingError(
            "/preset: the recording names no preset, so it cannot replay with today's preset"
        )
    try:
        return engine_definition.load_preset(rec.preset)
    except DefinitionError as exc:
        raise RecordingError(f"/preset: {exc}") from None


def build_simulation(rec: Any, use_preset: bool = False) -> Simulation:
    """The fresh simulation a replay of the four-wheel recording ``rec`` starts from."""
    definition = definition_for_replay(rec, use_preset)
    try:
        sim = Simulation(
            definition,
            substep_hz=rec.substep_hz,
            host_hz=rec.host_hz,
            initial=rec.initial or None,
            host_wheels=None if rec.host is None else list(rec.host.wheels),
        )
        # a drive on a circuit drives on its surfaces (engine.fourwheel.ground)
        sim.set_ground(drive_ground(rec.track, sim.definition, sim.surface))
        return sim
    except RecordingError:
        raise
    except SkidpadError as exc:
        raise RecordingError(
            f"/initial: the engine refused the recording's set-up: {exc}"
        ) from None


class FourWheelModel:
    """A four-wheel recording's replay: ``Simulation`` at the recording's fixed host rate."""

    stages = STAGE_NAMES

    def __init__(self, rec: Any, use_preset: bool = False) -> None:
        self.sim = build_simulation(rec, use_preset)
        self.layout: StateLayout = self.sim.layout
        self.host_hz = self.sim.host_hz
        self.substep_hz = self.sim.substep_hz
        self.report_every = max(1, rec.host_hz * 10)
        self.used_preset = use_preset
        self.probe: Probe | None = None
        #: a host run replays without its host: the speeds it returned, indexed by host step
        self.host_speeds = None if rec.host is None else list(rec.host.speeds())

    @property
    def state(self) -> list:
        return self.sim.state

    def step(self, values: tuple) -> Any:
        k = self.sim.step_count
        telemetry = self.sim.step(values, self.probe)
        if self.host_speeds is not None:
            self.sim.set_host_omega(self.host_speeds[k])
        return telemetry

    def state_hash(self) -> str:
        return self.sim.state_hash()

    def snapshot(self) -> dict:
        return self.sim.snapshot()

    def restore(self, snap: dict) -> None:
        self.sim.restore(snap)

    def telemetry(self) -> Any:
        return self.sim.telemetry()

    def attach(self, probe: Probe | None) -> None:
        self.probe = probe

    def choose_probed_path(self, path: str) -> None:
        """Which path a probed step runs: "readable" or "fast" (its probed variant)."""
        if path not in ("readable", "fast"):
            raise RecordingError(f"probed path: readable or fast, not {path!r}")
        self.sim.probed_path = path

    def observe_pose(self, observer: Callable[[int, float, float, float, float], None]) -> None:
        self.sim.pose_observer = observer

    def tick_window(self, steps: range) -> range:
        # the engine reports the tick count after the substep: the first substep is tick 1
        first = ticks_of_step(steps.start, self.host_hz, self.substep_hz).start
        last = ticks_of_step(max(steps.stop, steps.start), self.host_hz, self.substep_hz).start
        return range(first + 1, last + 1)

    def step_ticks(self, steps: int) -> list[int] | None:
        return None

    def ticks(self) -> int:
        return self.sim.tick

    def sim_us(self) -> int | None:
        return None


def build_model(rec: Any, use_preset: bool = False) -> FourWheelModel:
    """The model factory of the four-wheel formats."""
    return FourWheelModel(rec, use_preset)
