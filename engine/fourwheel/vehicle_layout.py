"""The vehicle's state layout: one fixed, named layout for every preset (ADR 0039).

Built from each subsystem's ``FIELDS`` in this order: ``body``, ``suspension``,
``steer``, ``wheel``, ``tire``, ``drivetrain``. The ``I_*`` constants are the
slots the hot path indexes; everything else speaks in names. Bump
:data:`LAYOUT_VERSION` whenever fields, order or meaning change. Version 2:
the drivetrain (:mod:`engine.fourwheel.drive`) replaced the provisional ``drive``
group with ``drivetrain.throttle``, ``drivetrain.engine_omega`` and the
gearbox's integer state (ADR 0070).
"""

from __future__ import annotations

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
I_DC_FL, I_DC_FR = _I["steer.FL.compliance"], _I["steer.FR.compliance"]
I_OMEGA = tuple(_I[f"wheel.{w}.omega"] for w in WHEELS)
I_UX = tuple(_I[f"tire.{w}.ux"] for w in WHEELS)
I_UY = tuple(_I[f"tire.{w}.uy"] for w in WHEELS)
I_THROTTLE = _I["drivetrain.throttle"]
I_ENGINE = _I["drivetrain.engine_omega"]
I_GEAR = _I["drivetrain.gear"]
I_SHIFT = _I["drivetrain.shift_ticks"]
I_SHIFT_UP = _I["drivetrain.shift_up"]
I_LAST_REQ = _I["drivetrain.last_request"]
