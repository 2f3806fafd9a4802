"""Driving assists: ABS, traction control, stability control, steering assist.

Each is a stateless stage between the input and the wheel solve, run every
substep from the current state (wheel spins, hub velocities, speed, yaw
rate); none keeps memory, so a replay reproduces it and the state hash sees
its effect. All are off unless the definition's ``assists`` block (or the
input switch) turns them on.

Slips, with the wheel's forward hub speed V_x and V = max(|V_x|, 0.5 m/s):
braking slip s_b = (V_x - R·ω)/V, drive slip s_d = (R·ω - V_x)/V.

* **ABS** (:func:`abs_scale`): a wheel's brake capacity is scaled by
  f(s_b) = 1 for s_b <= s_t (slip target, default 0.12), falling linearly to
  the floor f_min (> 0: never releases the brake completely) at the release
  slip s_r (0.3) and held there beyond; f = 1 when the car is slower than
  ``abs_min_speed_mps`` (2 m/s), so the wheels can lock to a stop.
* **Traction control** (:func:`tc_scale`): the same shape on the largest
  driven-wheel drive slip, scaling the throttle to the power unit
  (floor ``tc_floor``, may be 0).
* **Stability control** (:func:`esc`): reference yaw rate
  r_ref = V_x·tan δ/L (neutral steer), capped at μ·g/|V_x|; error
  e = r - r_ref. The car's own steady yaw rate with its linear understeer
  gradient K (rad per m/s², from the definition),
  r_car = V_x·tan δ/(L + K·V_x²), capped alike, lies |r_ref| - |r_car| on
  the understeer side of the reference (the oversteer side when K < 0): the
  dead band on that side is d + ||r_ref| - |r_car||, on the other side d, so
  a steady corner within the tires' limit gets no action and an
  understeering car is not "corrected" towards neutral steer. The
  understeer side's band also grows by the car's headroom to the friction
  limit, μ·g/|V_x| - |r_car|: below the limit the car reaches its own
  steady state unaided (braking the inner rear there only hastens the
  transient and overshoots), so understeer is braked only near the limit,
  continuously in the steer and the speed. Past its dead band b: oversteer
  (the car yaws more than the reference, in the reference's sense) brakes
  the outer front wheel, understeer the inner rear, with torque
  min(K_esc·(|e| - b), T_max) added to that wheel's brake capacity (so it
  goes through the ordinary bounded brake constraint and the wheel can
  still lock exactly), and the throttle is cut by max(0, 1 - c·(|e| - b)).
  The turn sense is the reference's, or the yaw
  rate's when the reference is below :data:`ESC_REF_MIN`.
* **Steering assist** (:func:`steer_scale`): caps the reference road-wheel
  angle at δ_cap = L·a_lim/V² (V = max(speed, 0.1 m/s), rounded *up* to a
  multiple of :data:`V_STEER_STEP` so the steering geometry, whose strict
  trigonometry is the costly part, is recomputed only when the cap moves by
  a step: the cap still holds, and lies within 2·step/V of the exact one);
  the scale min(1, δ_cap/|δ|) multiplies the steer input.
"""

from __future__ import annotations

from math import ceil, sqrt
from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_object

V_REG = 0.5  # m/s, regularisation speed of the slips (as the telemetry's)
ESC_REF_MIN = 0.02  # rad/s: below it the turn sense comes from the yaw rate
V_STEER_MIN = 0.1  # m/s, speed floor of the steering assist's cap
V_STEER_STEP = 0.02  # m/s, the steering assist's speed is rounded up to this step

SWITCHES = ("abs", "traction_control", "stability_control", "steering_assist")
PARAMS = {
    "abs_slip_target": 0.12,
    "abs_release_slip": 0.3,
    "abs_floor": 0.1,
    "abs_min_speed_mps": 2.0,
    "tc_slip_target": 0.12,
    "tc_release_slip": 0.3,
    "tc_floor": 0.0,
    "esc_dead_band_radps": 0.03,
    "esc_gain_nm_per_radps": 6000.0,
    "esc_max_torque_nm": 2000.0,
    "esc_throttle_cut_per_radps": 4.0,
    "esc_mu": 1.0,
    "steer_assist_lat_accel_mps2": 8.0,
}


def validate(a: object, path: str = "assists") -> dict:
    """A normalised copy of an assists block: switches 0/1 and optional parameters."""
    if a is None:
        a = {}
    a = require_object(a, path)
    out: dict = {}
    refuse_unknown(a, path, (*SWITCHES, *PARAMS))
    for key in SWITCHES:
        v = a.get(key, 0)
        if isinstance(v, bool) or v not in (0, 1):
            raise DefinitionError(f"{path}.{key}: must be 0 (off) or 1 (on)")
        out[key] = int(v)
    for key, default in PARAMS.items():
        out[key] = number(f"{path}.{key}", a.get(key, default), strict=key not in ("tc_floor",))
    for kind in ("abs", "tc"):
        if out[f"{kind}_release_slip"] <= out[f"{kind}_slip_target"]:
            raise DefinitionError(f"{path}.{kind}_release_slip: must be > {kind}_slip_target")
        if out[f"{kind}_floor"] >= 1.0:
            raise DefinitionError(f"{path}.{kind}_floor: must be < 1")
    return out


class AbsConstants(NamedTuple):
    """ABS, folded (see :func:`abs_scales`)."""

    slip_target: float  # braking slip where the release starts
    floor: float  # the lowest factor on the brake capacity
    slope: float  # (1 - floor)/(release - target)
    min_speed: float  # m/s: below it the ABS stands down


class TcConstants(NamedTuple):
    """Traction control, folded (see :func:`tc_scale`)."""

    slip_target: float  # drive slip where the throttle cut starts
    floor: float  # the lowest factor on the throttle
    slope: float  # (1 - floor)/(release - target)


class EscConstants(NamedTuple):
    """Stability control, folded (see :func:`esc`)."""

    dead_band: float  # rad/s
    gain: float  # N·m per rad/s past the band
    max_torque: float  # N·m
    throttle_cut: float  # throttle fraction per rad/s past the band
    mu_g: float  # m/s², the friction limit of the lateral acceleration
    wheelbase: float  # m
    understeer: float  # the car's linear understeer gradient, rad per m/s²


class AssistConstants(NamedTuple):
    """The definition's switches (0/1) and each assist's folded constants."""

    abs_on: int
    tc_on: int
    esc_on: int
    steer_on: int
    abs: AbsConstants
    tc: TcConstants
    esc: EscConstants
    steer_lat_accel: float  # m/s², the steering assist's lateral-acceleration limit


class AssistActions(NamedTuple):
    """The ``assists`` stage: the brake capacities after ESC and ABS, and each factor."""

    capacity: tuple
    abs_scale: tuple  # per wheel
    tc_scale: float
    esc_yaw_error: float
    esc_torque: float
    esc_wheel: int  # -1 for none
    esc_throttle: float


def constants(a: dict, wheelbase: float = 1.0, understeer: float = 0.0) -> AssistConstants:
    """Folded constants for the stages (switch flags first); ``understeer`` is the car's
    linear understeer gradient (rad per m/s²) that sizes the ESC's dead band (0: neutral)."""
    return AssistConstants(
        abs_on=a["abs"],
        tc_on=a["traction_control"],
        esc_on=a["stability_control"],
        steer_on=a["steering_assist"],
        abs=AbsConstants(
            slip_target=a["abs_slip_target"],
            floor=a["abs_floor"],
            slope=(1.0 - a["abs_floor"]) / (a["abs_release_slip"] - a["abs_slip_target"]),
            min_speed=a["abs_min_speed_mps"],
        ),
        tc=TcConstants(
            slip_target=a["tc_slip_target"],
            floor=a["tc_floor"],
            slope=(1.0 - a["tc_floor"]) / (a["tc_release_slip"] - a["tc_slip_target"]),
        ),
        esc=EscConstants(
            dead_band=a["esc_dead_band_radps"],
            gain=a["esc_gain_nm_per_radps"],
            max_torque=a["esc_max_torque_nm"],
            throttle_cut=a["esc_throttle_cut_per_radps"],
            mu_g=a["esc_mu"] * 9.80665,
            wheelbase=wheelbase,
            understeer=understeer,
        ),
        steer_lat_accel=a["steer_assist_lat_accel_mps2"],
    )


def switch(preset_on: int, request: int) -> bool:
    """An assist's state from the preset's switch and the input channel (-1 off, 0 preset, 1 on)."""
    if request == 0:
        return preset_on == 1
    return request > 0


def _ramp(slip: float, target: float, floor: float, slope: float) -> float:
    if slip <= target:
        return 1.0
    f = 1.0 - (slip - target) * slope
    return f if f > floor else floor


def abs_scales(k: AbsConstants, rads: tuple, omegas: tuple, vxs: list, speed: float) -> list:
    """ABS factors on the brake capacities of the wheels (1 = untouched, never below the floor)."""
    target, floor, slope = k.slip_target, k.floor, k.slope
    n = len(rads)
    out = [1.0] * n
    if not speed < k.min_speed:  # below it the wheels may lock to a stop: no action
        for i in range(n):
            v_x = vxs[i]
            av = v_x if v_x >= 0.0 else -v_x
            den = av if av > V_REG else V_REG
            slip = (v_x - rads[i] * omegas[i]) / den
            if v_x < 0.0:
                slip = -slip
            if slip > target:
                f = 1.0 - (slip - target) * slope
                out[i] = f if f > floor else floor
    return out


def abs_scale(k: AbsConstants, rad: float, omega: float, v_x: float, speed: float) -> float:
    """ABS factor on one wheel's brake capacity (see :func:`abs_scales`)."""
    return abs_scales(k, (rad,), (omega,), (v_x,), speed)[0]


def max_drive_slip(rads: tuple, omegas: tuple, vxs: list, wheels: tuple) -> float:
    """The largest drive slip over ``wheels`` (indices), see :func:`drive_slip`."""
    worst = -1.0e30
    for i in wheels:
        v_x = vxs[i]
        av = v_x if v_x >= 0.0 else -v_x
        den = av if av > V_REG else V_REG
        s = (rads[i] * omegas[i] - v_x) / den
        if v_x < 0.0:
            s = -s
        if s > worst:
            worst = s
    return worst


def drive_slip(rad: float, omega: float, v_x: float) -> float:
    """Drive slip (R·ω - V_x)/max(|V_x|, 0.5 m/s) of one wheel, signed with the travel."""
    return max_drive_slip((rad,), (omega,), (v_x,), (0,))


def tc_scale(k: TcConstants, max_drive_slip: float) -> float:
    """Traction-control factor on the throttle from the largest driven-wheel drive slip."""
    return _ramp(max_drive_slip, k.slip_target, k.floor, k.slope)


def esc(
    k: EscConstants, vx: float, r: float, tan_delta_over_l: float
) -> tuple[float, float, int, float]:
    """ESC: (yaw error rad/s, brake torque N·m, wheel index or -1, throttle factor)."""
    dead = k.dead_band
    wb = k.wheelbase
    r_ref = vx * tan_delta_over_l
    den = wb + k.understeer * vx * vx
    r_car = r_ref * wb / den if den > 0.0 else r_ref * 1.0e30
    avx = vx if vx >= 0.0 else -vx
    headroom = 0.0
    if avx > 0.1:
        lim = k.mu_g / avx
        if r_ref > lim:
            r_ref = lim
        elif r_ref < -lim:
            r_ref = -lim
        if r_car > lim:
            r_car = lim
        elif r_car < -lim:
            r_car = -lim
        headroom = lim - r_car if r_car >= 0.0 else lim + r_car
    err = r - r_ref
    if r_ref > ESC_REF_MIN or (r_ref >= -ESC_REF_MIN and r > 0.0):
        sense = 1.0  # turning left
    elif r_ref < -ESC_REF_MIN or r < 0.0:
        sense = -1.0
    else:
        return err, 0.0, -1, 1.0
    excess = sense * err
    # the car's own steady yaw rate lies this far past the reference (< 0: understeer side)
    own = sense * (r_car - r_ref)
    if excess > 0.0:
        band = dead + own if own > 0.0 else dead
        mag = excess
    else:  # understeer: far from the limit the car reaches its own steady state unaided
        band = (dead - own if own < 0.0 else dead) + headroom
        mag = -excess
    if mag <= band:
        return err, 0.0, -1, 1.0
    over = mag - band
    torque = k.gain * over
    if torque > k.max_torque:
        torque = k.max_torque
    if excess > 0.0:  # oversteer: outer front (FR in a left turn, FL in a right)
        wheel = 1 if sense > 0.0 else 0
    else:  # understeer: inner rear (RL in a left turn, RR in a right)
        wheel = 2 if sense > 0.0 else 3
    f = 1.0 - k.throttle_cut * over
    return err, torque, wheel, (f if f > 0.0 else 0.0)


def steer_scale(wheelbase: float, a_lim: float, delta: float, speed: float) -> float:
    """Steering-assist factor on the steer input: min(1, L·a_lim/V² / |δ|)."""
    ad = delta if delta >= 0.0 else -delta
    if ad == 0.0:
        return 1.0
    v = speed if speed > V_STEER_MIN else V_STEER_MIN
    v = ceil(v / V_STEER_STEP) * V_STEER_STEP
    cap = wheelbase * a_lim / (v * v)
    return 1.0 if cap >= ad else cap / ad


def assisted_steer(
    wheelbase: float, a_lim: float, max_angle: float, steer: float, vx: float, vy: float
) -> tuple[float, float]:
    """(the steering assist's factor, the steer fraction it leaves) for the steer input
    ``steer`` at body velocity (vx, vy): :func:`steer_scale` of the reference angle
    ``steer·max_angle`` at the speed ``√(vx² + vy²)``."""
    sa = steer_scale(wheelbase, a_lim, steer * max_angle, sqrt(vx * vx + vy * vy))
    return sa, steer * sa


IDLE_ABS = (1.0, 1.0, 1.0, 1.0)


def apply(
    k: AssistConstants,
    abs_on: bool,
    tc_on: bool,
    esc_on: bool,
    vx: float,
    vy: float,
    r: float,
    tan_delta_over_l: float,
    radii: tuple,
    omega: tuple,
    v_x: tuple,
    driven: tuple,
    capacity: list,
) -> AssistActions:
    """The ``assists`` stage: ESC adds its torque to one wheel's capacity, ABS scales each
    capacity, traction control gives the throttle factor from the driven wheels' slips."""
    cap = list(capacity)
    speed = sqrt(vx * vx + vy * vy)
    esc_err = 0.0
    esc_t = 0.0
    esc_w = -1
    esc_f = 1.0
    tc_f = 1.0
    abs_sc = IDLE_ABS
    if esc_on:
        esc_err, esc_t, esc_w, esc_f = esc(k.esc, vx, r, tan_delta_over_l)
        if esc_w >= 0:
            cap[esc_w] += esc_t
    if abs_on:
        abs_sc = tuple(abs_scales(k.abs, radii, omega, v_x, speed))
        for i in range(4):
            cap[i] *= abs_sc[i]
    if tc_on:
        tc_f = tc_scale(k.tc, max_drive_slip(radii, omega, v_x, driven))
    return AssistActions(tuple(cap), abs_sc, tc_f, esc_err, esc_t, esc_w, esc_f)
