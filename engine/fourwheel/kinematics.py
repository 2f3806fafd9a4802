"""Suspension kinematics: each wheel's travel, its camber against the road and its steer.

No state of its own: the kinematics are read from the body's roll and pitch at the start of
the substep (:mod:`engine.fourwheel.suspension`) and feed the tire's camber thrust
(:mod:`engine.fourwheel.tire`). An axle without a ``suspension.<axle>.kinematics`` section has
none: its wheels stand upright and the substep is today's, operation for operation.

Wheel travel (m, positive in bump, the wheel moving up towards the body), with φ the roll
(rad, positive right side down), θ the pitch (rad, positive nose down), t the axle's track
and l the wheel's distance ahead of the centre of gravity (a front wheel's ``a``, a rear's
``-b``):

    z = side·(t/2)·φ + l·θ          side = +1 for a right wheel, -1 for a left one

so in a left-hand corner (φ > 0) the right wheels go into bump, and under braking (θ > 0)
the front ones do. Heave is quasi-static and not a state (it is not in z).

Camber against the road (rad, SAE: positive with the wheel's top leaning away from the car):

    γ = γ_0 + Γ(z) + side·s_φ·φ

γ_0 the static camber, Γ(z) the camber-gain table (camber relative to the body against
travel, 0 at z = 0), s_φ the share of the body's roll the wheel follows: 1 for an
independent suspension, whose wheel tilts with the body, 0 for a solid axle, whose wheels
stay square to the road. The table is piecewise linear over strictly increasing travels;
past its ends its end values hold, and :func:`outside` says so (the telemetry's
``travel_outside``).

What the tire is given is the inclination towards the car's left (+y), ``ι = -side·γ``: a
wheel leaning left pushes left. In a left-hand corner roll gives both wheels of an axle an
inclination to the right (the outer one leans out, the inner one in), ι = -s_φ·φ, and a
camber gain that is negative in bump takes some of it back on the outer wheel.

Kinematic steer (rad, positive left, added to the road-wheel angle by
:func:`engine.fourwheel.steering.wheel_frames`):

    Δδ = side·T(z) + ε·φ

T(z) the bump-steer table (toe-in against travel, 0 at z = 0: toe-in on a right wheel steers
it left), ε the axle's roll steer (rad of steer per rad of roll: a solid axle's, or what an
independent suspension adds beyond its bump steer). Front toe-out in bump steers the outer
wheel out of a corner (understeer); at the rear, toe-in in bump steers the outer wheel into
the corner, with the front wheels (understeer too).
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_keys, require_object

#: The least and most points of a table, and the bounds of its values.
TABLE_POINTS = (2, 32)
TRAVEL_LIMIT_M = 0.5  # |travel| a table may name (m): past any road car's bump stops
CAMBER_LIMIT_RAD = 0.2  # |camber| a table or the static camber may name (rad, about 11.5°)
TOE_LIMIT_RAD = 0.05  # |toe| a bump-steer table may name (rad, about 2.9°)
ROLL_STEER_LIMIT = 0.5  # |roll steer| (rad/rad)
ZERO_AT_REST = 1e-12  # |a table's value at zero travel| allowed (rad): its rounding


class Table(NamedTuple):
    """A piecewise-linear table: strictly increasing ``xs``, the ``ys`` at them, and each
    segment's slope (folded once, so a lookup is one multiply-add)."""

    xs: tuple
    ys: tuple
    slopes: tuple  # (ys[i] - ys[i-1])/(xs[i] - xs[i-1]) for i = 1..n-1


def table(xs: tuple, ys: tuple) -> Table:
    """The table through the points ``(xs[i], ys[i])`` (already validated)."""
    slopes = tuple((ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1]) for i in range(1, len(xs)))
    return Table(tuple(xs), tuple(ys), slopes)


def table_at(t: Table, x: float) -> float:
    """The table's value at ``x``: linear between its points (measured from the point on the
    right, so at a point it is that point's value exactly), its end values past its ends."""
    xs = t.xs
    last = len(xs) - 1
    if x <= xs[0]:
        return t.ys[0]
    if x >= xs[last]:
        return t.ys[last]
    i = 1
    while i < last and x > xs[i]:  # (the fast path writes the search as a chain of tests)
        i += 1
    return t.ys[i] - t.slopes[i - 1] * (xs[i] - x)


class CornerKinematics(NamedTuple):
    """One wheel's kinematics, folded from its axle's section."""

    side: float  # +1 right wheel, -1 left wheel
    half_track: float  # t/2 (m)
    arm: float  # l: the wheel's distance ahead of the centre of gravity (m)
    static_camber: float  # γ_0 (rad)
    roll_share: float  # s_φ
    camber_gain: Table  # Γ(z): camber relative to the body against travel (rad against m)
    bump_steer: Table  # T(z): toe-in against travel (rad against m)
    roll_steer: float  # ε: rad of steer (positive left) per rad of roll


class Attitude(NamedTuple):
    """The ``kinematics`` stage: per wheel (FL, FR, RL, RR) its inclination towards the car's
    left ι and its kinematic steer Δδ (rad)."""

    lean: tuple
    turn: tuple


def travel(c: CornerKinematics, roll: float, pitch: float) -> float:
    """The wheel's travel z (m, positive in bump) at roll φ and pitch θ."""
    return c.side * c.half_track * roll + c.arm * pitch


def camber(c: CornerKinematics, roll: float, pitch: float) -> float:
    """The wheel's camber against the road, γ (rad, SAE: positive with its top leaning out)."""
    return camber_at(c, travel(c, roll, pitch), roll)


def camber_at(c: CornerKinematics, z: float, roll: float) -> float:
    """:func:`camber` at travel ``z``."""
    return c.static_camber + table_at(c.camber_gain, z) + c.side * c.roll_share * roll


def steer(c: CornerKinematics, roll: float, pitch: float) -> float:
    """The wheel's kinematic steer Δδ (rad, positive left): bump steer and roll steer."""
    return steer_at(c, travel(c, roll, pitch), roll)


def steer_at(c: CornerKinematics, z: float, roll: float) -> float:
    """:func:`steer` at travel ``z``."""
    return c.side * table_at(c.bump_steer, z) + c.roll_steer * roll


def attitude(k: tuple | None, roll: float, pitch: float) -> Attitude:
    """The ``kinematics`` stage: each wheel's inclination towards the car's left,
    ``ι = -side·γ``, and its kinematic steer (rad; FL, FR, RL, RR), 0 and 0 for a wheel of an
    axle without kinematics."""
    lean = [0.0, 0.0, 0.0, 0.0]
    turn = [0.0, 0.0, 0.0, 0.0]
    if k is not None:
        for i in range(4):
            c = k[i]
            if c is not None:
                z = travel(c, roll, pitch)
                lean[i] = -c.side * camber_at(c, z, roll)
                turn[i] = steer_at(c, z, roll)
    return Attitude(tuple(lean), tuple(turn))


def outside(c: CornerKinematics, roll: float, pitch: float) -> bool:
    """Whether the wheel's travel lies past the ends of its camber-gain or bump-steer table
    (where the table's end value holds, an extrapolation the data does not support)."""
    z = travel(c, roll, pitch)
    return any(z < t.xs[0] or z > t.xs[len(t.xs) - 1] for t in (c.camber_gain, c.bump_steer))


def constants(d: dict, a: float, b: float, track_f: float, track_r: float) -> tuple | None:
    """Each wheel's :class:`CornerKinematics` (FL, FR, RL, RR), None for a wheel of an axle
    without a ``kinematics`` section; None when neither axle has one."""
    sections = tuple(d["suspension"][axle].get("kinematics") for axle in ("front", "rear"))
    if sections == (None, None):
        return None
    corners = []
    for axle, arm, track in ((0, a, track_f), (1, -b, track_r)):
        s = sections[axle]
        for side in (-1.0, 1.0):
            if s is None:
                corners.append(None)
                continue
            gain, bump = s["camber_gain"], s["bump_steer"]
            corners.append(
                CornerKinematics(
                    side, 0.5 * track, arm, s["static_camber_rad"], s["roll_camber_share"],
                    table(tuple(gain["travel_m"]), tuple(gain["camber_rad"])),
                    table(tuple(bump["travel_m"]), tuple(bump["toe_rad"])), s["roll_steer"],
                )
            )  # fmt: skip
    return tuple(corners)


def _bounded(path: str, value: object, limit: float) -> float:
    """A number in [-limit, limit]."""
    return number(path, value, -limit, strict=False, hi=limit)


def _table(path: str, value: object, x_key: str, y_key: str, x_limit: float, y_limit: float):
    block = require_object(value, path)
    refuse_unknown(block, path, (x_key, y_key))
    columns = []
    for key, limit in ((x_key, x_limit), (y_key, y_limit)):
        items = block.get(key)
        if not isinstance(items, list):
            what = "missing" if items is None else f"a {type(items).__name__}"
            raise DefinitionError(f"{path}.{key}: must be a list of numbers, is {what}")
        columns.append([_bounded(f"{path}.{key}[{i}]", v, limit) for i, v in enumerate(items)])
    xs, ys = columns
    lo, hi = TABLE_POINTS
    if not lo <= len(xs) <= hi:
        raise DefinitionError(f"{path}.{x_key}: must have {lo} to {hi} points, has {len(xs)}")
    if len(ys) != len(xs):
        raise DefinitionError(f"{path}.{y_key}: has {len(ys)} values for {len(xs)} points")
    for i in range(1, len(xs)):
        if not xs[i] > xs[i - 1]:
            raise DefinitionError(f"{path}.{x_key}[{i}]: must be greater than the one before")
    return {x_key: xs, y_key: ys}


def validate(value: object, path: str) -> dict:
    """A ``suspension.<axle>.kinematics`` section, checked and normalised (every number a
    float); DefinitionError names the first bad entry.

    ``static_camber_rad`` (γ_0, rad, SAE), ``roll_camber_share`` (s_φ: 1 independent, 0 a
    solid axle), ``camber_gain``: ``travel_m`` (strictly increasing, m, bump positive) and
    ``camber_rad`` (camber relative to the body at each travel, rad; 0 at zero travel),
    ``bump_steer``: ``travel_m`` and ``toe_rad`` (toe-in, rad; 0 at zero travel), and
    ``roll_steer`` (ε, rad of steer, positive left, per rad of roll)."""
    known = ("static_camber_rad", "roll_camber_share", "camber_gain", "bump_steer", "roll_steer")
    value = require_object(value, path)
    refuse_unknown(value, path, known)
    require_keys(value, path, known)
    gain = _table(
        f"{path}.camber_gain", value["camber_gain"], "travel_m", "camber_rad", TRAVEL_LIMIT_M,
        CAMBER_LIMIT_RAD,
    )  # fmt: skip
    bump = _table(
        f"{path}.bump_steer", value["bump_steer"], "travel_m", "toe_rad", TRAVEL_LIMIT_M,
        TOE_LIMIT_RAD,
    )  # fmt: skip
    for name, t, column in (("camber_gain", gain, "camber_rad"), ("bump_steer", bump, "toe_rad")):
        at_zero = table_at(table(tuple(t["travel_m"]), tuple(t[column])), 0.0)
        if abs(at_zero) > ZERO_AT_REST:
            raise DefinitionError(
                f"{path}.{name}.{column}: must be 0 at zero travel (the static values are "
                f"the definition's own), is {at_zero!r}"
            )
    return {
        "static_camber_rad": _bounded(
            f"{path}.static_camber_rad", value["static_camber_rad"], CAMBER_LIMIT_RAD
        ),
        "roll_camber_share": number(
            f"{path}.roll_camber_share", value["roll_camber_share"], 0.0, strict=False, hi=1.0
        ),
        "camber_gain": gain,
        "bump_steer": bump,
        "roll_steer": _bounded(f"{path}.roll_steer", value["roll_steer"], ROLL_STEER_LIMIT),
    }


__all__ = [
    "Attitude",
    "CornerKinematics",
    "Table",
    "attitude",
    "camber",
    "camber_at",
    "constants",
    "outside",
    "steer",
    "steer_at",
    "table",
    "table_at",
    "travel",
    "validate",
]
