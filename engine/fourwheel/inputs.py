"""The host-step input channels: names, ranges, defaults, and their validation.

Inputs change only at host steps (docs/architecture.md §2). A step's inputs are a sequence
in :data:`CHANNELS` order (or a dict name -> value, see
:func:`inputs_from_mapping`). The set of channels is data: adding a channel
(the drivetrain issue adds gear requests and assist switches) appends a
:class:`Channel` and bumps :data:`INPUT_VERSION`, which recordings carry.

Channels of version 2 (version 1 had the first four):

* ``throttle`` 0..1: driver's throttle pedal (fraction of full).
* ``brake`` 0..1: service brake pedal (fraction of the brake's capacity).
* ``steer`` -1..1: the hand-wheel's position as a fraction of its lock; positive steers
  left (ISO 8855, yaw positive counter-clockwise seen from above). The reference road-wheel
  angle is that fraction of ``steering.max_angle_deg``: without a steering system the
  hand-wheel turns the road wheels directly, with one (``steering.system``, a constant
  ratio i) its lock is i times the maximum road-wheel angle (ADR 0268), so a recorded value
  means the same in every file.
* ``handbrake`` 0..1: handbrake lever (fraction of its capacity, rear wheels).
* ``gear_request`` 0..5 (integer): 0 none, 1 up, 2 down, 3 neutral,
  4 reverse, 5 drive (:mod:`engine.fourwheel.gearbox`; acts on the edge, once).
* ``abs``, ``traction_control``, ``stability_control``, ``steering_assist``
  -1..1 (integer): -1 off, 0 as the definition's ``assists`` block says,
  1 on (:mod:`engine.fourwheel.assists`).

A sequence holds the channels in order; it may stop after the
:data:`DRIVER_CHANNELS` driver channels (throttle, brake, steer, handbrake),
and the channels it leaves out take their defaults.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skidpad.engine.errors import InputError

#: Version of the channel set; bumped whenever a channel is added, removed or changed.
INPUT_VERSION: int = 2


@dataclass(frozen=True)
class Channel:
    """One input channel: ``kind`` "f" (float) or "i" (integer), inclusive range lo..hi."""

    name: str
    lo: float
    hi: float
    kind: str
    default: float
    unit: str
    doc: str


CHANNELS: tuple[Channel, ...] = (
    Channel("throttle", 0.0, 1.0, "f", 0.0, "1", "throttle pedal, fraction of full"),
    Channel("brake", 0.0, 1.0, "f", 0.0, "1", "service brake pedal, fraction of capacity"),
    Channel("steer", -1.0, 1.0, "f", 0.0, "1", "hand-wheel angle / its lock, positive left"),
    Channel("handbrake", 0.0, 1.0, "f", 0.0, "1", "handbrake, fraction of its capacity (rear)"),
    Channel(
        "gear_request", 0, 5, "i", 0, "1", "0 none, 1 up, 2 down, 3 neutral, 4 reverse, 5 drive"
    ),
    Channel("abs", -1, 1, "i", 0, "1", "ABS: -1 off, 0 as defined, 1 on"),
    Channel("traction_control", -1, 1, "i", 0, "1", "traction control: -1 off, 0 as defined, 1 on"),
    Channel("stability_control", -1, 1, "i", 0, "1", "stability control: -1 off, 0 defined, 1 on"),
    Channel("steering_assist", -1, 1, "i", 0, "1", "steering assist: -1 off, 0 as defined, 1 on"),
)

#: How many leading channels a sequence must hold (the driver's controls).
DRIVER_CHANNELS: int = 4

CHANNEL_NAMES: tuple[str, ...] = tuple(c.name for c in CHANNELS)
CHANNEL_INDEX: dict[str, int] = {c.name: i for i, c in enumerate(CHANNELS)}
DEFAULTS: tuple = tuple(c.default for c in CHANNELS)


def _check(ch: Channel, value: object) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"input {ch.name}: must be a number, not {type(value).__name__}")
    if ch.kind == "i":
        if isinstance(value, float) and not (math.isfinite(value) and value == int(value)):
            raise InputError(f"input {ch.name}: must be an integer, got {value!r}")
        v: float | int = int(value)
    else:
        v = float(value)
        if not math.isfinite(v):
            raise InputError(f"input {ch.name}: must be finite, got {v!r}")
    if not ch.lo <= v <= ch.hi:
        raise InputError(f"input {ch.name}: {v!r} outside {ch.lo:g}..{ch.hi:g}")
    return v


# (type, lo, hi) per channel: a value of exactly that type inside the range (so finite) is
# already what _check returns, and the common case costs two comparisons (every host step
# validates its inputs; in a browser that was a tenth of the step outside the substeps).
_PLAIN: tuple[tuple[type, float, float], ...] = tuple(
    (int if c.kind == "i" else float, c.lo, c.hi) for c in CHANNELS
)


def validate_inputs(values: Sequence) -> tuple:
    """The validated inputs as a tuple in CHANNELS order; InputError names the bad channel."""
    kind = type(values)
    if kind is not tuple and kind is not list:
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise InputError(f"inputs: must be a sequence of {len(CHANNELS)} values")
    n = len(values)
    if not DRIVER_CHANNELS <= n <= len(CHANNELS):
        raise InputError(
            f"inputs: expected {DRIVER_CHANNELS} to {len(CHANNELS)} values "
            f"({', '.join(CHANNEL_NAMES)}), got {n}"
        )
    out = []
    for (plain, lo, hi), ch, v in zip(_PLAIN[:n], CHANNELS[:n], values, strict=True):
        out.append(v if type(v) is plain and lo <= v <= hi else _check(ch, v))
    return tuple(out) + DEFAULTS[n:]


def inputs_from_mapping(values: Mapping) -> tuple:
    """A dict name -> value as a validated tuple; missing channels take their default."""
    for key in values:
        if key not in CHANNEL_INDEX:
            raise InputError(f"unknown input channel {key!r}")
    return validate_inputs([values.get(c.name, c.default) for c in CHANNELS])


def normalise_inputs(values: Sequence | Mapping) -> tuple:
    """One host step's inputs (a sequence in CHANNELS order, or a dict by name) as the
    validated tuple the simulation steps with and a recording holds: the one place the
    four-wheel family checks its inputs."""
    if type(values) is not tuple and isinstance(values, Mapping):
        return inputs_from_mapping(values)
    return validate_inputs(values)
