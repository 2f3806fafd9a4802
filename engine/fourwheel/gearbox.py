"""Gearboxes: manual, automatic and single-speed; gear and shift state in integer ticks.

State (all integers, hashed): ``drivetrain.gear`` (-1 reverse, 0 neutral,
1..n forward), ``drivetrain.shift_ticks`` (substeps left in the current
shift, 0 when none), ``drivetrain.shift_up`` (1 while an upshift runs, else
0), ``drivetrain.last_request`` (the gear request seen at the previous
substep, so a held request acts once, on its edge).

Overall signed ratio G = ratio[gear]·final_drive (reverse: -reverse_ratio·final,
neutral 0): engine speed ω_e = G·ω_o when the clutch is locked, ω_o the
output (driven-wheel) speed of :mod:`engine.fourwheel.differential`; wheel torque =
η·G·T_clutch with the efficiency η.

Gear requests (input channel ``gear_request``): 0 none, 1 up, 2 down,
3 neutral, 4 reverse, 5 drive. ``manual``: up/down move one gear (up from
neutral or reverse to 1st, down from 1st to neutral), neutral and reverse
select them (reverse only below :data:`REVERSE_MAX_MPS`-equivalent output
speed), drive selects 1st. ``automatic`` and ``single``: neutral, reverse and
drive select the mode; up/down are ignored (the schedule chooses).

A shift lasts ``shift_time_s`` (N ticks). The new gear is engaged at its
start; the clutch is open for the first :data:`OPEN_FRACTION` of it and
re-engages linearly over the rest (:func:`clutch_factor`, which scales the
clutch capacity of :mod:`engine.fourwheel.clutch`). During an **upshift** the
automatic also lifts the throttle by the same factor — the torque
interruption (:func:`throttle_factor`) — so the engine falls towards the new
gear's speed instead of flaring.

Automatic schedule, from the engine speed the output speed implies in the
current gear, n_g = |G_g|·ω_o (rpm in the definition), and the driver's
throttle pedal θ (not the throttle delivered after traction control or the
shift's own lift, which would make the box hunt):

* upshift when n_g > up(θ) = up_light + θ·(up_full - up_light) (gear < n);
* downshift when n_g < down(θ) likewise (gear > 1);
* kickdown: θ >= ``kickdown_throttle`` and the next lower gear would turn
  the engine below ``kickdown_rpm``: shift down now.

While the driver brakes (``braking``), the automatic holds its gear — a
shift would open the clutch and drop the engine's inertia off the driven
wheels in the middle of a stop — except that once 1st gear itself would
turn the engine below ``downshift_rpm_light`` (the car is nearly stopped,
or its wheels are locked) it drops straight to 1st, ready to pull away.
No new shift starts while one runs. The definition must keep down(θ) below
the speed an upshift lands on (up(θ)·ratio[g+1]/ratio[g]), or the box would
hunt; :func:`validate` checks it.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_keys, require_object
from skidpad.engine.fourwheel.powertrain import RPM
from skidpad.engine.state import Field

FIELDS = (
    Field("drivetrain.gear", "i", "1", "selected gear: -1 reverse, 0 neutral, 1..n forward"),
    Field("drivetrain.shift_ticks", "i", "substep", "substeps left in the running shift"),
    Field("drivetrain.shift_up", "i", "1", "1 while an upshift runs (torque interruption)"),
    Field("drivetrain.last_request", "i", "1", "gear request seen at the previous substep"),
)

REQ_NONE, REQ_UP, REQ_DOWN, REQ_NEUTRAL, REQ_REVERSE, REQ_DRIVE = 0, 1, 2, 3, 4, 5
OPEN_FRACTION = 0.5
REVERSE_MAX_OMEGA = 2.0  # rad/s of output speed: reverse is refused above it (moving forward)

TYPES = ("manual", "automatic", "single")
_COMMON = ("ratios", "reverse_ratio", "final_drive", "efficiency", "shift_time_s")
#: the parameters only an automatic gearbox has (shift points, kickdown)
AUTOMATIC_KEYS = (
    "upshift_rpm_light",
    "upshift_rpm_full",
    "downshift_rpm_light",
    "downshift_rpm_full",
    "kickdown_throttle",
    "kickdown_rpm",
)


def validate(g: object, path: str = "drivetrain.gearbox") -> dict:
    """A normalised copy of a gearbox block; DefinitionError names the bad parameter."""
    g = require_object(g, path)
    kind = g.get("type")
    if kind not in TYPES:
        raise DefinitionError(f"{path}.type: must be one of {', '.join(TYPES)}, got {kind!r}")
    keys = _COMMON + (AUTOMATIC_KEYS if kind == "automatic" else ())
    refuse_unknown(g, path, ("type", *keys))
    require_keys(g, path, keys)
    out: dict = {"type": kind}
    ratios = g["ratios"]
    if not isinstance(ratios, list) or not ratios:
        raise DefinitionError(f"{path}.ratios: must be a non-empty list")
    if kind == "single" and len(ratios) != 1:
        raise DefinitionError(f"{path}.ratios: a single-speed box has exactly one ratio")
    out["ratios"] = [number(f"{path}.ratios[{i}]", r) for i, r in enumerate(ratios)]
    for i in range(1, len(ratios)):
        if out["ratios"][i] >= out["ratios"][i - 1]:
            raise DefinitionError(f"{path}.ratios[{i}]: ratios must decrease")
    for key in _COMMON[1:]:
        out[key] = number(f"{path}.{key}", g[key])
    if out["efficiency"] > 1.0:
        raise DefinitionError(f"{path}.efficiency: must be <= 1")
    if kind == "automatic":
        for key in AUTOMATIC_KEYS:
            out[key] = number(f"{path}.{key}", g[key])
        if out["kickdown_throttle"] > 1.0:
            raise DefinitionError(f"{path}.kickdown_throttle: must be <= 1")
        r = out["ratios"]
        for lo, hi in (
            ("downshift_rpm_light", "upshift_rpm_light"),
            ("downshift_rpm_full", "upshift_rpm_full"),
        ):
            for i in range(len(r) - 1):
                if out[lo] >= out[hi] * r[i + 1] / r[i]:
                    raise DefinitionError(
                        f"{path}.{lo}: must be below {hi} x ratios[{i + 1}]/ratios[{i}] "
                        "(the box would hunt between those gears)"
                    )
    return out


class ShiftSchedule(NamedTuple):
    """The automatic's shift points, folded to engine speeds in rad/s (see the module docstring)."""

    up_light: float  # rad/s: upshift above it at closed throttle
    up_full: float  # rad/s: upshift above it at full throttle
    down_light: float  # rad/s: downshift below it at closed throttle
    down_full: float  # rad/s: downshift below it at full throttle
    kickdown_throttle: float  # pedal fraction (0..1) from which kickdown acts
    kickdown_speed: float  # rad/s: kick down while the next lower gear stays below it


class GearboxConstants(NamedTuple):
    """Folded gearbox constants (see the module docstring)."""

    kind: str  # manual, automatic, single
    overall: tuple[float, ...]  # ratio·final drive per forward gear
    reverse: float  # signed overall reverse ratio
    efficiency: float
    shift_ticks: int
    ramp_ticks: int  # ticks of the clutch's re-engagement ramp
    schedule: ShiftSchedule | None  # the automatic's only
    n_gears: int


def constants(g: dict, substep_hz: int) -> GearboxConstants:
    """Folded constants (see the module docstring)."""
    fd = g["final_drive"]
    overall = tuple(r * fd for r in g["ratios"])
    ticks = int(g["shift_time_s"] * substep_hz + 0.5)
    if ticks < 1:
        ticks = 1
    open_ticks = int(ticks * OPEN_FRACTION)
    sched = None
    if g["type"] == "automatic":
        sched = ShiftSchedule(
            up_light=g["upshift_rpm_light"] * RPM,
            up_full=g["upshift_rpm_full"] * RPM,
            down_light=g["downshift_rpm_light"] * RPM,
            down_full=g["downshift_rpm_full"] * RPM,
            kickdown_throttle=g["kickdown_throttle"],
            kickdown_speed=g["kickdown_rpm"] * RPM,
        )
    return GearboxConstants(
        kind=g["type"],
        overall=overall,
        reverse=-g["reverse_ratio"] * fd,
        efficiency=g["efficiency"],
        shift_ticks=ticks,
        ramp_ticks=ticks - open_ticks,
        schedule=sched,
        n_gears=len(overall),
    )


def ratio(k: GearboxConstants, gear: int) -> float:
    """Signed overall ratio G (engine speed per output speed) of ``gear``; 0 in neutral."""
    if gear > 0:
        return k.overall[gear - 1]
    if gear < 0:
        return k.reverse
    return 0.0


def clutch_factor(k: GearboxConstants, shift_ticks: int) -> float:
    """Scale on the clutch capacity during a shift: 0 while open, then a linear ramp to 1."""
    if shift_ticks <= 0:
        return 1.0
    ramp = k.ramp_ticks
    if shift_ticks >= ramp:
        return 0.0
    return (ramp - shift_ticks) / ramp


def throttle_factor(k: GearboxConstants, shift_ticks: int, shift_up: int) -> float:
    """Throttle lift of the automatic's upshift (torque interruption); 1 otherwise."""
    if shift_up == 0 or shift_ticks <= 0:
        return 1.0
    return clutch_factor(k, shift_ticks)


def _start(k: GearboxConstants, gear: int, new_gear: int) -> tuple[int, int, int]:
    up = 1 if (new_gear > gear and gear > 0) else 0
    return new_gear, k.shift_ticks, up


def request(k: GearboxConstants, gear: int, req: int, omega_out: float) -> int:
    """The gear a driver's request (on its edge) selects from ``gear``."""
    if req == REQ_NEUTRAL:
        return 0
    if req == REQ_REVERSE:
        return -1 if omega_out < REVERSE_MAX_OMEGA else gear
    if req == REQ_DRIVE:
        return 1 if gear <= 0 else gear
    if k.kind != "manual":
        return gear
    if req == REQ_UP:
        if gear <= 0:
            return 1 if gear == 0 else 0
        return gear + 1 if gear < k.n_gears else gear
    if req == REQ_DOWN:
        if gear > 0:
            return gear - 1
        if gear == 0 and omega_out < REVERSE_MAX_OMEGA:
            return -1
    return gear


def schedule(k: GearboxConstants, gear: int, omega_out: float, theta: float) -> int:
    """The automatic's choice of gear at output speed ``omega_out`` and throttle ``theta``."""
    s = k.schedule
    overall = k.overall
    w_out = omega_out if omega_out >= 0.0 else -omega_out
    n = overall[gear - 1] * w_out
    if gear < k.n_gears and n > s.up_light + theta * (s.up_full - s.up_light):
        return gear + 1
    if gear > 1:
        if n < s.down_light + theta * (s.down_full - s.down_light):
            return gear - 1
        if theta >= s.kickdown_throttle and overall[gear - 2] * w_out < s.kickdown_speed:
            return gear - 1
    return gear


def update(
    k: GearboxConstants,
    gear: int,
    shift_ticks: int,
    shift_up: int,
    last_req: int,
    req: int,
    omega_out: float,
    theta: float,
    braking: bool = False,
) -> tuple[int, int, int, int]:
    """One substep of the gearbox: (gear, shift_ticks, shift_up, last_request)."""
    if shift_ticks == 0 and req == last_req and (gear <= 0 or k.kind != "automatic"):
        return gear, 0, shift_up, req  # nothing to do (the common case of a manual or single)
    if shift_ticks > 0:
        shift_ticks -= 1
        if shift_ticks == 0:
            shift_up = 0
    new_gear = gear
    if req != last_req and req != REQ_NONE:
        new_gear = request(k, gear, req, omega_out)
    elif shift_ticks == 0 and k.kind == "automatic" and gear > 0:
        if not braking:
            new_gear = schedule(k, gear, omega_out, theta)
        elif gear > 1:
            w_out = omega_out if omega_out >= 0.0 else -omega_out
            if k.overall[0] * w_out < k.schedule.down_light:
                new_gear = 1
    if new_gear != gear:
        gear, shift_ticks, shift_up = _start(k, gear, new_gear)
        if k.kind != "automatic":
            shift_up = 0
    return gear, shift_ticks, shift_up, req
