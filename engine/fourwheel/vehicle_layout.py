"""The vehicle's state layout: one fixed, named layout for every preset (ADR 0039).

Built from each subsystem's ``FIELDS`` in this order: ``body``, ``suspension``,
``steer``, ``wheel``, ``tire``, ``drivetrain``. :class:`SubstepStart` is the state as
the stages read it, built from the layout alone (:data:`START`); the ``I_*`` constants are
slots some callers index; everything else speaks in names. Bump
:data:`LAYOUT_VERSION` when a change keeps the number of fields but changes their meaning,
kind or order (a field added or removed changes the length, which hashes and snapshots
already tell apart; ADR 0238). Version 2:
the drivetrain (:mod:`engine.fourwheel.drive`) replaced the provisional ``drive``
group with ``drivetrain.throttle``, ``drivetrain.engine_omega`` and the
gearbox's integer state (ADR 0070).
"""

from __future__ import annotations

from collections import namedtuple
from operator import itemgetter

from skidpad.engine.fourwheel import body, drive, steering, suspension, tire, wheel
from skidpad.engine.state import StateLayout

#: Bumped whenever the state layout (fields, order, meaning) changes.
LAYOUT_VERSION = 2

LAYOUT = StateLayout(
    LAYOUT_VERSION,
    body.FIELDS + suspension.FIELDS + steering.FIELDS + wheel.FIELDS + tire.FIELDS + drive.FIELDS,
)

WHEELS = ("FL", "FR", "RL", "RR")

_I = LAYOUT.index
I_X, I_Y, I_YAW, I_HC, I_HS = (
    _I["body.x"],
    _I["body.y"],
    _I["body.yaw"],
    _I["body.heading_c"],
    _I["body.heading_s"],
)
I_VX, I_VY, I_R, I_AX, I_AY = (
    _I["body.vx"],
    _I["body.vy"],
    _I["body.yaw_rate"],
    _I["body.ax"],
    _I["body.ay"],
)
I_ROLL, I_ROLL_RATE = _I["suspension.roll"], _I["suspension.roll_rate"]
I_PITCH, I_PITCH_RATE = _I["suspension.pitch"], _I["suspension.pitch_rate"]
I_DC = tuple(_I[f"steer.{w}.compliance"] for w in WHEELS)
I_OMEGA = tuple(_I[f"wheel.{w}.omega"] for w in WHEELS)
I_UX = tuple(_I[f"tire.{w}.ux"] for w in WHEELS)
I_UY = tuple(_I[f"tire.{w}.uy"] for w in WHEELS)
I_THROTTLE = _I["drivetrain.throttle"]
I_ENGINE = _I["drivetrain.engine_omega"]
I_GEAR = _I["drivetrain.gear"]
I_SHIFT = _I["drivetrain.shift_ticks"]
I_SHIFT_UP = _I["drivetrain.shift_up"]
I_LAST_REQ = _I["drivetrain.last_request"]


def _start_fields(names: tuple) -> tuple:
    """Each field of :class:`SubstepStart`: the last part of a layout name (``body.vx`` ->
    ``vx``), and its slot; a name per wheel (``tire.FL.ux``) is one field over the wheels it
    names (``ux``: a tuple of slots, FL FR RL RR from the first on)."""
    fields: dict = {}
    for index, name in enumerate(names):
        parts = name.split(".")
        if len(parts) == 3 and parts[1] in WHEELS:
            slots = fields.setdefault(parts[2], {})
            if not isinstance(slots, dict):
                raise ValueError(f"state field {name}: {parts[2]} is also a field of its own")
            slots[WHEELS.index(parts[1])] = index
        elif len(parts) == 2 and parts[1] not in fields:
            fields[parts[1]] = index
        else:
            raise ValueError(f"state field {name}: not group.name or group.wheel.name, or taken")
    out = []
    for field, slot in fields.items():
        if isinstance(slot, dict):
            if sorted(slot) != list(range(len(slot))):
                raise ValueError(f"state field {field}: its wheels are not FL, FR, ... in order")
            slot = tuple(slot[i] for i in range(len(slot)))
        out.append((field, slot))
    return tuple(out)


#: The fields of the state at a substep's start, each ``(name, slot)``: a slot of the layout,
#: or a tuple of them (one per wheel). A field a subsystem adds to its ``FIELDS`` is here.
START = _start_fields(LAYOUT.names)

SubstepStart = namedtuple("SubstepStart", [field for field, _ in START])
SubstepStart.__doc__ = """The state at a substep's start, by name: what every stage reads of it
(:data:`START`; a per-wheel field is a tuple, FL FR RL RR)."""


def _spans() -> list:
    """Each field's place among the slots read in the order of START: an index, or a slice
    for a field over the wheels."""
    spans, at = [], 0
    for _, slot in START:
        if isinstance(slot, int):
            spans.append(at)
            at += 1
        else:
            spans.append(slice(at, at + len(slot)))
            at += len(slot)
    return spans


# the slots in the order of START's fields, read at once; each field's place among them
_SLOTS = [i for _, slot in START for i in ((slot,) if isinstance(slot, int) else slot)]
_READ = itemgetter(*_SLOTS)
_SPANS = _spans()
_MAKE = SubstepStart._make
_ONE = [isinstance(slot, int) for _, slot in START]


def substep_start(st: list) -> SubstepStart:
    """The state ``st`` as the stages read it."""
    flat = _READ(st)
    return _MAKE([flat[span] for span in _SPANS])


def write_start(st: list, new: tuple) -> None:
    """Store ``new`` (the fields of :class:`SubstepStart`, in order) into the state ``st``."""
    flat: list = []
    for one, value in zip(_ONE, new, strict=True):
        if one:
            flat.append(value)
        else:
            flat += value
    for i, value in zip(_SLOTS, flat, strict=True):
        st[i] = value

__all__ = [
    "LAYOUT",
    "LAYOUT_VERSION",
    "START",
    "WHEELS",
    "SubstepStart",
    "substep_start",
    "write_start",
    *(name for name in dir() if name.startswith("I_")),
]
