"""Power units: a combustion engine and an electric motor, as torque at the crank.

Units: speeds ω in rad/s (rpm only in the definition: ω = rpm·2π/60),
torques in N·m, positive driving the crank forward. The power unit's speed
``drivetrain.engine_omega`` is a state integrated by :mod:`engine.fourwheel.differential`
(it is coupled to the wheels through the clutch and gearbox); this module
only gives the torque for a speed and a delivered throttle θ ∈ [0, 1].

Delivered throttle (state ``drivetrain.throttle``) follows the commanded
throttle with a first-order lag τ, integrated implicitly:
``θ' = θ + (θ_cmd - θ)·h/(τ + h)``.

Combustion engine (``type: "engine"``):

    T(ω, θ) = θ_e·T_full(ω) + (1 - θ_e)·T_drag(ω)

* ``T_full`` the full-load curve: piecewise linear through the points
  (``torque_curve_rpm``, ``torque_curve_nm``), held flat beyond the ends.
* ``T_drag`` the closed-throttle drag (engine braking), negative, linear in
  speed from ``-drag_idle_nm`` at idle to ``-drag_redline_nm`` at the
  redline (pumping and friction losses grow with speed), fading linearly to
  0 below idle so a stopped engine has no drag.
* Idle controller: θ_e = max(θ, g_i·(ω_idle - ω)/ω_idle) clamped to [0, 1]
  (a proportional governor, gain ``idle_gain``); it holds the engine just
  below ω_idle, where idle throttle balances drag, so a launch clutch that
  starts to bite above idle never creeps the car.
* Rev limiter: a stateless fuel cut, θ_e scaled linearly from 1 at
  ``redline_rpm`` to 0 at ``redline_rpm·(1 + LIMITER_BAND)``.

Electric motor (``type: "motor"``): forward torque limited by
``max_torque_nm`` up to the base speed ω_b = P/T_max and by the constant
power ``max_power_w`` above it (T = P/ω), cut linearly to 0 over the last
5 % before ``max_rpm``. Regenerative braking on lift-off: at θ = 0 the
motor brakes with ``regen_torque_fraction``·T_max, limited by
``regen_max_power_w``/ω, faded to 0 below ``regen_fade_rpm`` (so it does
not reverse the car at a standstill); between, T = θ·T_drive + (1-θ)·T_regen.
In reverse (``direction = -1``) the motor drives the other way with the
same limits on |ω|.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_keys, require_object

RPM = 0.10471975511965977  # rad/s per rpm (2π/60)
LIMITER_BAND = 0.02  # fraction above the redline where the fuel cut reaches 0
MOTOR_CUT_BAND = 0.05  # fraction below max_rpm where the motor's torque fades to 0

ENGINE_KEYS = (
    "idle_rpm",
    "redline_rpm",
    "inertia_kgm2",
    "drag_idle_nm",
    "drag_redline_nm",
    "idle_gain",
    "response_time_s",
)
MOTOR_KEYS = (
    "max_torque_nm",
    "max_power_w",
    "max_rpm",
    "inertia_kgm2",
    "regen_torque_fraction",
    "regen_max_power_w",
    "regen_fade_rpm",
    "response_time_s",
)


def validate(p: object, path: str = "drivetrain.power_unit") -> dict:
    """A normalised copy of a power-unit block; DefinitionError names the bad parameter."""
    p = require_object(p, path)
    kind = p.get("type")
    if kind == "engine":
        keys = ENGINE_KEYS + ("torque_curve_rpm", "torque_curve_nm")
    elif kind == "motor":
        keys = MOTOR_KEYS
    else:
        raise DefinitionError(f"{path}.type: must be 'engine' or 'motor', got {kind!r}")
    out: dict = {"type": kind}
    refuse_unknown(p, path, ("type", *keys))
    require_keys(p, path, keys)
    if kind == "engine":
        for key in ENGINE_KEYS:
            nonneg = key in ("drag_idle_nm", "drag_redline_nm")
            out[key] = number(f"{path}.{key}", p[key], strict=not nonneg)
        if out["redline_rpm"] <= out["idle_rpm"]:
            raise DefinitionError(f"{path}.redline_rpm: must be > idle_rpm")
        rpm, nm = p["torque_curve_rpm"], p["torque_curve_nm"]
        if not isinstance(rpm, list) or len(rpm) < 2:
            raise DefinitionError(f"{path}.torque_curve_rpm: must be a list of >= 2 speeds")
        if not isinstance(nm, list) or len(nm) != len(rpm):
            raise DefinitionError(f"{path}.torque_curve_nm: must have one torque per speed")
        out["torque_curve_rpm"] = [
            number(f"{path}.torque_curve_rpm[{i}]", v) for i, v in enumerate(rpm)
        ]
        out["torque_curve_nm"] = [
            number(f"{path}.torque_curve_nm[{i}]", v, strict=False) for i, v in enumerate(nm)
        ]
        for i in range(1, len(rpm)):
            if out["torque_curve_rpm"][i] <= out["torque_curve_rpm"][i - 1]:
                raise DefinitionError(f"{path}.torque_curve_rpm[{i}]: speeds must increase")
    else:
        for key in MOTOR_KEYS:
            nonneg = key in ("regen_torque_fraction", "regen_max_power_w", "regen_fade_rpm")
            out[key] = number(f"{path}.{key}", p[key], strict=not nonneg)
        if out["regen_torque_fraction"] > 1.0:
            raise DefinitionError(f"{path}.regen_torque_fraction: must be <= 1")
    return out


class EngineConstants(NamedTuple):
    """A combustion engine's folded constants (see :func:`torque`)."""

    kind: str  # "engine"
    idle_omega: float  # ω_idle (rad/s)
    speed_limit: float  # the redline ω_red (rad/s), where the fuel cut starts
    inertia: float  # rotating inertia (kg·m²)
    response_time: float  # throttle lag τ (s)
    curve_omega: tuple  # full-load curve speeds (rad/s), increasing
    curve_torque: tuple  # full-load torque at each speed (N·m)
    curve_slopes: tuple  # slope of each curve segment (N·m·s/rad)
    drag_idle: float  # closed-throttle drag at idle (N·m, >= 0)
    drag_slope: float  # drag growth per speed above idle (N·m·s/rad)
    governor_gain: float  # idle governor g_i/ω_idle (s/rad)
    inv_limiter_band: float  # 1/(ω_red·LIMITER_BAND), the fuel cut's slope (s/rad)


class MotorConstants(NamedTuple):
    """An electric motor's folded constants (see :func:`motor_torque`)."""

    kind: str  # "motor"
    idle_omega: float  # 0.0 (rad/s): a motor does not idle
    speed_limit: float  # ω at max_rpm (rad/s)
    inertia: float  # rotating inertia (kg·m²)
    response_time: float  # throttle lag τ (s)
    max_torque: float  # T_max (N·m)
    max_power: float  # P (W): T = P/ω above the base speed
    cut_omega: float  # where the torque starts to fade to 0 at max_rpm (rad/s)
    inv_cut_band: float  # 1/(ω_max·MOTOR_CUT_BAND), the fade's slope (s/rad)
    regen_torque: float  # regen_torque_fraction·T_max (N·m, >= 0)
    regen_max_power: float  # regen power limit (W)
    regen_fade_omega: float  # regen fades to 0 below this speed (rad/s)


PowerUnitConstants = EngineConstants | MotorConstants


def constants(p: dict) -> PowerUnitConstants:
    """The folded constants of a validated power-unit block."""
    if p["type"] == "engine":
        w = tuple(r * RPM for r in p["torque_curve_rpm"])
        t = tuple(p["torque_curve_nm"])
        slopes = tuple((t[i + 1] - t[i]) / (w[i + 1] - w[i]) for i in range(len(w) - 1))
        w_idle = p["idle_rpm"] * RPM
        w_red = p["redline_rpm"] * RPM
        drag_slope = (p["drag_redline_nm"] - p["drag_idle_nm"]) / (w_red - w_idle)
        return EngineConstants(
            kind="engine",
            idle_omega=w_idle,
            speed_limit=w_red,
            inertia=p["inertia_kgm2"],
            response_time=p["response_time_s"],
            curve_omega=w,
            curve_torque=t,
            curve_slopes=slopes,
            drag_idle=p["drag_idle_nm"],
            drag_slope=drag_slope,
            governor_gain=p["idle_gain"] / w_idle,
            inv_limiter_band=1.0 / (w_red * LIMITER_BAND),
        )
    t_max = p["max_torque_nm"]
    w_max = p["max_rpm"] * RPM
    return MotorConstants(
        kind="motor",
        idle_omega=0.0,
        speed_limit=w_max,
        inertia=p["inertia_kgm2"],
        response_time=p["response_time_s"],
        max_torque=t_max,
        max_power=p["max_power_w"],
        cut_omega=w_max * (1.0 - MOTOR_CUT_BAND),
        inv_cut_band=1.0 / (w_max * MOTOR_CUT_BAND),
        regen_torque=p["regen_torque_fraction"] * t_max,
        regen_max_power=p["regen_max_power_w"],
        regen_fade_omega=p["regen_fade_rpm"] * RPM,
    )


def inertia(k: PowerUnitConstants) -> float:
    """Rotating inertia of the power unit (kg·m²)."""
    return k.inertia


def speed_limit(k: PowerUnitConstants) -> float:
    """Highest speed (rad/s) the power unit turns at: an engine's redline, a motor's max_rpm."""
    return k.speed_limit


def idle_omega(k: PowerUnitConstants) -> float:
    """Idle speed (rad/s); 0 for a motor."""
    return k.idle_omega


def update_throttle(k: PowerUnitConstants, theta: float, command: float, h: float) -> float:
    """Delivered throttle after one substep ``h`` following ``command`` with the lag τ."""
    return theta + (command - theta) * h / (k.response_time + h)


def full_load(k: EngineConstants, omega: float) -> float:
    """The engine's full-load torque (N·m) at ``omega`` (piecewise linear, flat beyond the ends)."""
    w, t, sl = k.curve_omega, k.curve_torque, k.curve_slopes
    if omega <= w[0]:
        return t[0]
    n = len(w) - 1
    if omega >= w[n]:
        return t[n]
    i = 0
    while omega > w[i + 1]:
        i += 1
    return t[i] + sl[i] * (omega - w[i])


def engine_drag(k: EngineConstants, omega: float) -> float:
    """Closed-throttle drag torque (N·m, <= 0) at ``omega``."""
    w_idle = k.idle_omega
    if omega <= 0.0:
        return 0.0
    if omega < w_idle:
        return -k.drag_idle * omega / w_idle
    return -(k.drag_idle + k.drag_slope * (omega - w_idle))


def engine_throttle(k: EngineConstants, omega: float, theta: float) -> float:
    """Throttle the engine actually burns: idle governor and rev-limiter fuel cut applied."""
    gov = k.governor_gain * (k.idle_omega - omega)
    th = theta if theta >= gov else gov
    if th > 1.0:
        th = 1.0
    if omega > k.speed_limit:
        cut = 1.0 - (omega - k.speed_limit) * k.inv_limiter_band
        if cut < 0.0:
            cut = 0.0
        th *= cut
    return th


def motor_torque(k: MotorConstants, omega: float, theta: float, direction: float) -> float:
    """Electric motor torque (N·m) at signed ``omega`` for throttle θ; ``direction`` ±1."""
    t_max, p_max, w_cut, inv_band = k.max_torque, k.max_power, k.cut_omega, k.inv_cut_band
    t_regen, p_regen, w_fade = k.regen_torque, k.regen_max_power, k.regen_fade_omega
    speed = direction * omega  # speed in the commanded sense
    a = speed if speed >= 0.0 else -speed
    drive = t_max
    if a * drive > p_max:
        drive = p_max / a
    if a > w_cut:
        f = 1.0 - (a - w_cut) * inv_band
        drive *= f if f > 0.0 else 0.0
    if speed < 0.0:
        drive = t_max  # rolling against the command: full torque to stop it
    regen = 0.0
    if omega != 0.0 and t_regen > 0.0:
        regen = t_regen
        if a * regen > p_regen:
            regen = p_regen / a
        if a < w_fade:
            regen *= a / w_fade
        regen = -regen if omega > 0.0 else regen  # opposes the spin
    return theta * direction * drive + (1.0 - theta) * regen


def torque(
    k: PowerUnitConstants, omega: float, theta: float, direction: float = 1.0
) -> tuple[float, float]:
    """(crank torque N·m, throttle actually used) of the power unit at ``omega``."""
    if k.kind != "engine":
        return motor_torque(k, omega, theta, direction), theta
    # engine_throttle, full_load and engine_drag, inlined (the hot path)
    w_idle = k.idle_omega
    gov = k.governor_gain * (w_idle - omega)
    th = theta if theta >= gov else gov
    if th > 1.0:
        th = 1.0
    if omega > k.speed_limit:
        cut = 1.0 - (omega - k.speed_limit) * k.inv_limiter_band
        th *= cut if cut > 0.0 else 0.0
    w, t = k.curve_omega, k.curve_torque
    if omega <= w[0]:
        full = t[0]
    else:
        n = len(w) - 1
        if omega >= w[n]:
            full = t[n]
        else:
            i = 0
            while omega > w[i + 1]:
                i += 1
            full = t[i] + k.curve_slopes[i] * (omega - w[i])
    if omega <= 0.0:
        drag = 0.0
    elif omega < w_idle:
        drag = -k.drag_idle * omega / w_idle
    else:
        drag = -(k.drag_idle + k.drag_slope * (omega - w_idle))
    return th * full + (1.0 - th) * drag, th
