"""The CommonRoad daemon's host-step inputs and the stages of its substep: names, ranges,
validation.

Inputs (``INPUTS``, a dict by name or a sequence in this order):

* ``steer`` [-1, 1]: steering demand as a fraction of the steering limit;
* ``throttle`` [0, 1], ``brake`` [0, 1]: pedals;
* ``drift_toggle`` {0, 1}: a rising edge flips the drift profile.

:func:`validate_inputs` is the family's one check of a host step's inputs
(``CommonRoadDaemon.step_us`` calls it before anything moves); a recording's
frames are checked against the same table when it is loaded. This module imports
no model, so reading the table costs nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from skidpad.engine.errors import InputError

#: (name, lo, hi, kind) of every input channel, in sequence order.
INPUTS: tuple[tuple[str, float, float, str], ...] = (
    ("steer", -1.0, 1.0, "f"),
    ("throttle", 0.0, 1.0, "f"),
    ("brake", 0.0, 1.0, "f"),
    ("drift_toggle", 0, 1, "i"),
)
INPUT_NAMES = tuple(c[0] for c in INPUTS)

#: The stages of one substep, in order (a probe sees each under its name).
STAGES: tuple[str, ...] = (
    "safety_intervention",
    "steering_controller",
    "longitudinal",
    "integration",
    "battery_trip",
    "safety",
)


def validate_inputs(values: Mapping | Sequence) -> tuple:
    """(steer, throttle, brake, drift_toggle), or an InputError naming the channel."""
    if isinstance(values, Mapping):
        unknown = [k for k in values if k not in INPUT_NAMES]
        if unknown:
            raise InputError(
                f"{unknown[0]}: unknown input channel; known: {', '.join(INPUT_NAMES)}"
            )
        defaults = {"steer": 0.0, "throttle": 0.0, "brake": 0.0, "drift_toggle": 0}
        seq = [values.get(n, defaults[n]) for n in INPUT_NAMES]
    else:
        seq = list(values)
        if len(seq) != len(INPUTS):
            raise InputError(
                f"inputs: expected {len(INPUTS)} values ({', '.join(INPUT_NAMES)}), got {len(seq)}"
            )
    out = []
    for (name, lo, hi, kind), v in zip(INPUTS, seq, strict=True):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError(f"{name}: must be a number, got {type(v).__name__}")
        if kind == "i":
            if v not in (0, 1):
                raise InputError(f"{name}: must be 0 or 1, got {v!r}")
            out.append(int(v))
            continue
        v = float(v)
        if not math.isfinite(v):
            raise InputError(f"{name}: must be finite, got {v!r}")
        if not lo <= v <= hi:
            raise InputError(f"{name}: {v!r} is outside [{lo}, {hi}]")
        out.append(v)
    return tuple(out)
