"""The recorder: wraps a ``Simulation`` and captures every host step's inputs.

The recorder normalises each step's inputs once with ``engine.fourwheel.inputs.normalise_inputs``
(the four-wheel family's one home for input checks: a dict becomes a tuple in
``engine.fourwheel.inputs.CHANNELS`` order, missing channels take their default), feeds that exact
tuple to ``Simulation.step`` and keeps it. A replay therefore feeds the engine
the very same values, bit for bit, whatever the driver handed over.

:func:`record_drive` runs a driver (``scenarios``: scripted, lap, random) to
the end under a recorder and returns the :class:`Recording`; the recording
carries the final state hash of the live run, which a replay must reproduce.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import inputs as engine_inputs
from skidpad.engine.fourwheel.inputs import normalise_inputs
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_OMEGA
from skidpad.engine.physics import PHYSICS_VERSION
from skidpad.engine.track import drive_ground
from skidpad.replay.document import current_math_hash
from skidpad.replay.recording import CHECKPOINT_EVERY, HostBlock, Recording, run_length

from skidpad import engine

__all__ = ["Recorder", "current_math_hash", "normalise_inputs", "record_drive"]


class Driver(Protocol):
    """What :func:`record_drive` needs from a scenario's driver (built for one host rate).

    ``inputs(step, telemetry)`` returns host step ``step``'s inputs (a sequence
    in channel order or a dict); ``telemetry`` is the telemetry after the
    previous step (``None`` before the first). ``finished(step, telemetry)``
    ends a closed-loop drive early (after ``step`` steps); ``max_steps()``
    bounds it. Everything a driver computes feeds the state hash, so drivers
    obey the strict-float contract.
    """

    drive: str
    track: str | None
    host_hz: int

    def initial(self) -> dict: ...

    def max_steps(self) -> int: ...

    def inputs(self, step: int, telemetry: Any) -> Sequence | Mapping: ...

    def finished(self, step: int, telemetry: Any) -> bool: ...


class Recorder:
    """Wraps a fresh ``Simulation``: :meth:`step` feeds and records, :meth:`recording` builds one.

    ``definition`` and ``initial`` must be the ones the simulation was built
    with (they are embedded so the recording replays alone).
    """

    def __init__(
        self,
        sim: Any,
        definition: dict,
        *,
        preset: str | None = None,
        initial: dict | None = None,
        track: str | None = None,
        drive: str | None = None,
        host: Any = None,
    ) -> None:
        if sim.step_count != 0:
            raise ValueError("a Recorder must wrap a simulation that has not stepped yet")
        self.sim = sim
        self.definition = definition
        self.preset = preset
        self.initial = dict(initial or {})
        self.track = track
        self.drive = drive
        self._frames: list[tuple] = []
        #: the external host (``engine.fourwheel.hosts``) of a host run, and the speeds it returned
        self.host = host
        self._omega: list[tuple] = []
        self.checkpoints: list[tuple[int, str]] = [(0, sim.state_hash())]
        # a drive on a circuit drives on its surfaces (engine.fourwheel.ground), as its replay will
        sim.set_ground(drive_ground(track, sim.definition, sim.surface))
        self.lap_timer = circuit_timer(track, definition, sim.substep_hz)
        if self.lap_timer is not None:
            sim.pose_observer = self.lap_timer.observe  # sees every substep, on either path

    def step(self, inputs: Sequence | Mapping, probe: Any = None) -> Any:
        """Normalise, record and feed one host step's inputs; returns the step's telemetry.
        On a circuit the recorder's lap timer sees every substep."""
        values = normalise_inputs(inputs)
        self._frames.append(values)
        telemetry = self.sim.step(values, probe)
        if self.host is not None:
            sim = self.sim
            sim.set_host_omega(self.host.step(sim.host_link.exchange, values))
            self._omega.append(tuple(sim.state[I_OMEGA[i]] for i in sim.host_link.owned))
        if len(self._frames) % CHECKPOINT_EVERY == 0:
            self.checkpoints.append((len(self._frames), self.sim.state_hash()))
        return telemetry

    @property
    def steps(self) -> int:
        return len(self._frames)

    def recording(self, with_final_hash: bool = True) -> Recording:
        return Recording(
            definition=self.definition,
            definition_hash=engine_definition.definition_hash(self.definition),
            host_hz=int(self.sim.host_hz),
            substep_hz=int(self.sim.substep_hz),
            input_version=engine_inputs.INPUT_VERSION,
            channels=tuple(c.name for c in engine_inputs.CHANNELS),
            frames=run_length(self._frames),
            steps=len(self._frames),
            preset=self.preset,
            initial=self.initial,
            track=self.track,
            drive=self.drive,
            engine_version=engine.__version__,
            math_hash=current_math_hash(),
            final_hash=self.sim.state_hash() if with_final_hash else None,
            checkpoint_every=CHECKPOINT_EVERY,
            checkpoints=tuple(self.checkpoints) if with_final_hash else (),
            laps=self.laps() if with_final_hash else None,
            host=self.host_block(),
            physics_version=PHYSICS_VERSION,
        )

    def host_block(self) -> HostBlock | None:
        """The ``host`` block of a host run (None when the engine owned every wheel)."""
        if self.host is None:
            return None
        return HostBlock(self.sim.host_link.names, self.host.name, run_length(self._omega))

    def laps(self) -> tuple[dict, ...] | None:
        """The completed laps so far (None when the drive is not on a circuit)."""
        if self.lap_timer is None:
            return None
        return tuple(lap.to_json() for lap in self.lap_timer.laps)


def circuit_timer(track: str | None, definition: dict, substep_hz: int) -> Any:
    """A lap timer for a drive on ``track`` if that track is a circuit, else None."""
    from skidpad.engine.track import LapTimer, drive_circuit, wheel_offsets

    circuit = drive_circuit(track)
    return None if circuit is None else LapTimer(circuit, wheel_offsets(definition), substep_hz)


def make_simulation(
    definition: dict,
    host_hz: int,
    substep_hz: int | None,
    initial: dict | None,
    host_wheels: Any = None,
) -> Simulation:
    return Simulation(
        definition,
        substep_hz=substep_hz,
        host_hz=host_hz,
        initial=initial or None,
        host_wheels=host_wheels,
    )


def record_drive(
    definition: dict,
    driver: Driver,
    *,
    preset: str | None = None,
    substep_hz: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    host: tuple[str, Any] | None = None,
) -> tuple[Recording, Any]:
    """Drive ``definition`` with ``driver`` to its end; return the recording and the simulation.

    ``host`` = (reference host name, wheel set) makes it a host run (``engine.fourwheel.hosts``)."""
    initial = driver.initial()
    sim = make_simulation(
        definition, driver.host_hz, substep_hz, initial, None if host is None else host[1]
    )
    ext = None
    if host is not None:
        from skidpad.engine.fourwheel import hosts

        ext = hosts.make_host(host[0], sim)
    rec = Recorder(
        sim,
        definition,
        preset=preset,
        initial=initial,
        track=driver.track,
        drive=driver.drive,
        host=ext,
    )
    total = driver.max_steps()
    telemetry = None
    for k in range(total):
        telemetry = rec.step(driver.inputs(k, telemetry))
        if progress is not None and (k + 1) % 500 == 0:
            progress(k + 1, total)
        if driver.finished(k + 1, telemetry):
            break
    return rec.recording(), sim
