"""The seam between replay/ and a vehicle family: the model protocol and the format entry.

See docs/architecture.md §2 (the data path of one replay) and ADR 0165.

Everything in replay/ (replayer, trace, diff, golden, bless, claims, verify) works on a
recording and a :class:`VehicleModel` and never asks which family it has. A family brings
two things, both declared once:

* a :class:`Format` per recording format version: its name and version, the loader (a
  parsed document to a validated recording), the dumper (a recording to JSON text) and
  the model factory (a recording to a fresh model). The one table of them is
  ``replay.recording.FORMATS``;
* a model adapter fulfilling :class:`VehicleModel` over the family's engine object:
  ``replay.fourwheel.FourWheelModel`` over ``engine.fourwheel.simulation.Simulation``,
  ``replay.commonroad.CommonRoadModel`` over ``engine.commonroad.daemon.CommonRoadDaemon``.

A recording of any format is an object with the attributes of :class:`RecordingLike`.

The probe a model reports to (:meth:`VehicleModel.attach`) has two methods, called by
the engine: ``stage(name, values)`` after each stage of a substep, in the family's fixed
stage order (:attr:`VehicleModel.stages`), and ``substep(tick, state)`` at the end of
every substep, where ``tick`` counts the run's substeps from 1. A probe changes no bit of
the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from skidpad.replay.budget import Budget


class Probe(Protocol):
    """What a model reports each substep to (``replay.trace.TraceProbe``, a test's hook)."""

    def stage(self, name: str, values: tuple) -> None: ...

    def substep(self, tick: int, state: list) -> None: ...


class VehicleModel(Protocol):
    """One vehicle family's engine object, as replay/ drives, hashes and diffs it.

    ``layout`` is the named state layout (``names``, ``kinds``, ``version``,
    ``hash(counter, state)``, ``as_dict(state)``); ``state`` the flat state list in that
    layout; ``stages`` the names the probe reports, in the order a substep runs them.
    ``host_hz`` and ``substep_hz`` are the fixed rates, or 0 for a family whose host
    steps vary in length (then :meth:`step_ticks` says how many substeps each ran).
    """

    layout: Any
    stages: tuple[str, ...]
    host_hz: int
    substep_hz: int
    #: progress is reported every this many host steps
    report_every: int
    #: the model was built from today's preset instead of the embedded definition
    used_preset: bool

    @property
    def state(self) -> list: ...

    def step(self, values: tuple) -> Any:
        """Advance one host step with one recorded frame's values; returns its telemetry."""
        ...

    def state_hash(self) -> str:
        """The 16-hex state hash after the last host step (docs/architecture.md §2)."""
        ...

    def snapshot(self) -> dict:
        """The complete state as JSON-serialisable data (an exact round trip)."""
        ...

    def restore(self, snap: dict) -> None:
        """Back to a :meth:`snapshot` of a model of the same recording."""
        ...

    def telemetry(self) -> Any:
        """The read-only telemetry of the last host step (derived values, never hashed)."""
        ...

    def attach(self, probe: Probe | None) -> None:
        """Have every later step report its stages and substeps to ``probe`` (None: stop)."""
        ...

    def observe_pose(self, observer: Callable[[int, float, float, float, float], None]) -> None:
        """Call ``observer(tick, x, y, heading_cos, heading_sin)`` after every substep."""
        ...

    def tick_window(self, steps: range) -> range:
        """The ticks ``probe.substep`` reports during host steps ``steps`` (0-based)."""
        ...

    def step_ticks(self, steps: int) -> list[int] | None:
        """Substeps done after each of the first ``steps`` host steps, for a family whose
        host steps vary in length; None where the rates decide it."""
        ...

    def ticks(self) -> int:
        """Substeps done so far."""
        ...

    def sim_us(self) -> int | None:
        """Simulated microseconds so far for a variable host step; None: steps / host_hz."""
        ...


class RecordingLike(Protocol):
    """What replay/ reads from a recording of any format."""

    #: the registry entry the recording was read from (or is written as)
    format: Format
    version: int
    steps: int
    channels: tuple[str, ...]
    frames: tuple[tuple[int, tuple], ...]
    #: a short label of what was driven (a preset name, ``commonroad:st:2``), or None
    preset: str | None
    #: the hash of the embedded vehicle definition or parameters
    embedded_hash: str
    engine_version: str
    math_hash: str | None
    final_hash: str | None
    checkpoint_every: int | None
    checkpoints: tuple[tuple[int, str], ...]
    laps: tuple[dict, ...] | None
    sim_s: float

    def inputs(self) -> Iterator[tuple]: ...


@dataclass(frozen=True)
class Format:
    """One recording format version: the registry's entry (``replay.recording.FORMATS``).

    ``load(doc, budget, consume)`` validates a parsed document (its ``format`` and
    ``version`` already matched this entry) into a recording; ``dump(recording)`` writes
    it as JSON text, in the version ``writes`` names (an older version is read, and
    written as the current one); ``model(recording, use_preset)`` builds the fresh model a
    replay starts from. ``family`` names the vehicle family for people (tables, notes);
    ``embedded`` says what ``embedded_hash`` covers and ``setup`` lists the recording
    attributes that, when two recordings differ in them, a diff names first.
    """

    name: str
    version: int
    load: Callable[[dict, Budget, bool], Any]
    dump: Callable[[Any], str]
    model: Callable[[Any, bool], VehicleModel]
    family: str
    embedded: str
    setup: tuple[str, ...]
    writes: int

    @property
    def current(self) -> bool:
        """Whether this is the version the family writes (an older one can be upgraded)."""
        return self.version == self.writes
