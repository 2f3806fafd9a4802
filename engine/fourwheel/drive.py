"""The drivetrain: power unit, clutch, gearbox and differentials, composed per definition.

This replaces the provisional per-axle throttle map of the four-wheel issue
(ADR 0038) and keeps its seam: per-wheel drive torques and brake capacities
go into the bounded wheel solve and the wheel speeds come back — except
that the driven wheels are now solved *together* with the power unit
through the clutch, gearbox and differentials (:func:`engine.fourwheel.differential.solve`),
so the engine's inertia, its drag and a locked axle act inside the substep.

Definition block ``drivetrain`` (ADR 0070):

* ``power_unit``: :mod:`engine.fourwheel.powertrain` (``engine`` or ``motor``);
* ``clutch``: :mod:`engine.fourwheel.clutch` (required with an engine; ``null`` for a
  motor, whose reduction gear is rigid);
* ``gearbox``: :mod:`engine.fourwheel.gearbox` (``manual``, ``automatic``, ``single``);
* ``layout``: :mod:`engine.fourwheel.differential` (front share, axle diffs).

State (group ``drivetrain``): ``drivetrain.throttle`` (1, delivered
throttle), ``drivetrain.engine_omega`` (rad/s, power-unit speed), and the
gearbox's integers (:data:`engine.fourwheel.gearbox.FIELDS`).

One substep (called by :mod:`engine.fourwheel.simulation` after the tire terms and
the assists): the gearbox acts on a request edge or its schedule (from the
output speed at the start of the substep); commanded throttle = pedal ×
assist factors × the upshift's throttle lift; the delivered throttle lags
it; the power unit's torque at its speed; the clutch capacity from the
power unit's speed and the shift; then the coupled solve.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel import clutch, differential, gearbox, powertrain
from skidpad.engine.fourwheel.blocks import refuse_unknown, require_keys, require_object
from skidpad.engine.state import Field

FIELDS = (
    Field("drivetrain.throttle", "f", "1", "throttle the power unit delivers (lagged)"),
    Field("drivetrain.engine_omega", "f", "rad/s", "power-unit (engine or motor) speed"),
) + gearbox.FIELDS

KEYS = ("power_unit", "clutch", "gearbox", "layout")


def validate(dt: object, path: str = "drivetrain") -> dict:
    """A normalised copy of the ``drivetrain`` block; DefinitionError names the bad parameter."""
    dt = require_object(dt, path)
    refuse_unknown(dt, path, KEYS)
    require_keys(dt, path, KEYS)
    pu = powertrain.validate(dt["power_unit"], f"{path}.power_unit")
    if pu["type"] == "engine":
        if dt["clutch"] is None:
            raise DefinitionError(f"{path}.clutch: an engine needs a clutch")
        cl = clutch.validate(dt["clutch"], f"{path}.clutch")
    else:
        if dt["clutch"] is not None:
            raise DefinitionError(f"{path}.clutch: must be null for a motor (rigid reduction)")
        cl = None
    return {
        "power_unit": pu,
        "clutch": cl,
        "gearbox": gearbox.validate(dt["gearbox"], f"{path}.gearbox"),
        "layout": differential.validate(dt["layout"], f"{path}.layout"),
    }


class DriveConstants(NamedTuple):
    """The drivetrain's parts, folded: power unit, clutch, gearbox, driveline tree."""

    power_unit: powertrain.PowerUnitConstants
    clutch: clutch.ClutchConstants
    gearbox: gearbox.GearboxConstants
    layout: differential.DiffConstants
    motor: bool


class DriveTerms(NamedTuple):
    """The ``drivetrain`` stage: gearbox state, throttle and what the wheel solve needs."""

    gear: int
    shift_ticks: int
    shift_up: int
    last_request: int
    throttle: float  # delivered throttle (the new state)
    engine_torque: float  # crank torque at the power unit's speed (N·m)
    throttle_used: float  # after the idle governor and the rev limiter
    ratio: float  # signed overall ratio G of the gear
    efficiency: float
    clutch_capacity: float  # (N·m)


def constants(dt: dict, substep_hz: int) -> DriveConstants:
    """The folded drivetrain of definition block ``dt`` at ``substep_hz``."""
    return DriveConstants(
        powertrain.constants(dt["power_unit"]),
        clutch.constants(dt["clutch"]),
        gearbox.constants(dt["gearbox"], substep_hz),
        differential.constants(dt["layout"]),
        dt["power_unit"]["type"] == "motor",
    )


def output_speed(k: DriveConstants, omega: tuple) -> float:
    """Output speed ω_o = Σ k_i·ω_i of the driven wheels (rad/s)."""
    wt = k.layout.weights
    return wt[0] * omega[0] + wt[1] * omega[1] + wt[2] * omega[2] + wt[3] * omega[3]


def initial(
    k: DriveConstants, omega: tuple, speed_mps: float | None = None
) -> tuple[float, float, int]:
    """(delivered throttle, power-unit speed, gear) for wheels already turning at ``omega``.

    The automatic starts in the gear its closed-throttle schedule picks at that
    speed, the others in 1st; the power unit turns with the wheels if that is
    above its clutch's disengage speed, else it idles. A box whose starting gear
    would turn the power unit past its limit (an engine's redline, a motor's
    ``max_rpm``) starts in the lowest gear within it; if even its top gear is
    beyond, the initial speed is refused (ADR 0129). ``speed_mps`` (the initial
    speed the wheels turn at) only words that refusal.
    """
    pk, ck, gk = k.power_unit, k.clutch, k.gearbox
    w_out = output_speed(k, omega)
    gear = 1
    if gk.kind == "automatic":
        for _ in range(gk.n_gears):
            nxt = gearbox.schedule(gk, gear, w_out, 0.0)
            if nxt <= gear:
                break
            gear = nxt
    limit = powertrain.speed_limit(pk)
    while gear < gk.n_gears and gearbox.ratio(gk, gear) * w_out > limit:
        gear += 1
    w_e = gearbox.ratio(gk, gear) * w_out
    if w_e > limit:
        raise DefinitionError(_over_limit(pk, gear, w_e, limit, speed_mps))
    if clutch.engagement(ck, w_e) <= 0.0 or w_e < powertrain.idle_omega(pk):
        w_e = powertrain.idle_omega(pk) if w_e < powertrain.idle_omega(pk) else w_e
    return 0.0, w_e, gear


def top_start_speed(definition: dict) -> float:
    """The highest initial speed (m/s) :func:`initial` accepts for a validated definition:
    the wheels rolling at it turn the power unit at its limit in the box's top gear."""
    k = constants(definition["drivetrain"], int(definition["substep_hz"]))
    front = definition["tires"]["front"]["radius_m"]
    rear = definition["tires"]["rear"]["radius_m"]
    per_mps = output_speed(k, (1.0 / front, 1.0 / front, 1.0 / rear, 1.0 / rear))
    top = gearbox.ratio(k.gearbox, k.gearbox.n_gears)
    return powertrain.speed_limit(k.power_unit) / abs(top * per_mps)


def _over_limit(
    pk: powertrain.PowerUnitConstants, gear: int, w_e: float, limit: float, speed_mps: float | None
) -> str:
    unit = pk.kind
    what = "redline" if pk.kind == "engine" else "max_rpm"
    rpm = 1.0 / powertrain.RPM
    msg = (
        f"initial.speed_mps: the wheels would turn the {unit} at {w_e * rpm:,.0f} rpm in "
        f"gear {gear}, its top gear, beyond its {what} of {limit * rpm:,.0f} rpm"
    )
    if speed_mps is not None and speed_mps > 0.0:
        msg += f"; this vehicle starts at up to {speed_mps * limit / w_e:.1f} m/s"
    return msg


def drivetrain(
    k: DriveConstants,
    gear: int,
    shift_ticks: int,
    shift_up: int,
    last_request: int,
    request: int,
    omega: tuple,
    pedal: float,
    braking: bool,
    tc_factor: float,
    esc_factor: float,
    throttle: float,
    omega_e: float,
    h: float,
) -> DriveTerms:
    """The ``drivetrain`` stage: the gearbox on the request or its schedule, the delivered
    throttle (pedal × the traction- and stability-control factors × the upshift's
    lift, lagged), the power unit's
    torque and the clutch capacity, all from the state at the start of the substep."""
    gk = k.gearbox
    new_gear, new_shift, new_up, new_request = gearbox.update(
        gk,
        gear,
        shift_ticks,
        shift_up,
        last_request,
        request,
        output_speed(k, omega),
        pedal,
        braking,
    )
    command = pedal * tc_factor * esc_factor * gearbox.throttle_factor(gk, new_shift, new_up)
    theta = powertrain.update_throttle(k.power_unit, throttle, command, h)
    t_e, th_used = powertrain.torque(k.power_unit, omega_e, theta)
    c_cap = clutch.capacity(k.clutch, omega_e, gearbox.clutch_factor(gk, new_shift), theta)
    return DriveTerms(
        new_gear,
        new_shift,
        new_up,
        new_request,
        theta,
        t_e,
        th_used,
        gearbox.ratio(gk, new_gear),
        gk.efficiency,
        c_cap,
    )
