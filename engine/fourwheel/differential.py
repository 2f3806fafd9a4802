"""Differentials and the coupled driveline solve: power unit, clutch, gearbox, diffs, wheels.

Wheel i obeys, inside one substep (:mod:`engine.fourwheel.wheel`):

    d_i·ω_i' = b_i + x_i - T_b,i,     |T_b,i| <= C_i (brake: a bounded constraint, target 0)

with ``b_i = I_i·ω_i/h + T_free,i`` (tire force at the start of the
substep), ``d_i = I_i/h + R·Q`` and ``x_i`` the drive torque this module
supplies. Sign convention: torques positive driving the wheel forward.

**Driveline tree.** A centre split s (``front_share``) and one differential
per axle give each driven wheel a weight k_i (k = s/2 per front wheel,
(1-s)/2 per rear wheel, Σk = 1): the output speed is ω_o = Σ k_i·ω_i and an
output torque T_o reaches wheel i as k_i·T_o — an open differential and an
open centre differential with a fixed torque split (virtual work:
T_o·ω_o = Σ k_i·T_o·ω_i). The gearbox gives engine speed ω_e = G·ω_o when the
clutch is locked, and ``x_i = η·k_i·G·T_c`` from the clutch torque T_c.

* ``open``: the two wheels of the axle are separate bodies sharing k.
* ``locked`` (solid axle / spool: the kart): the two wheels are merged
  into one body, d = d_L + d_R, b = b_L + b_R, C = C_L + C_R, k = k_L + k_R;
  the bounded solve of the merged body gives one speed for both, exactly.
  Each wheel's share of the shaft torque then follows from its own equation,
  ``x_i = d_i·ω' - b_i + T_b,i`` (brake torque shared in proportion to
  capacity): in a corner the inner wheel (slower ground speed) drives and the
  outer one brakes, a yaw moment against the turn.
* ``lsd`` (limited slip): after the open solve, an internal torque pair t
  between the two wheels is a bounded constraint on their speed difference,
  ``t_req = (ω_L' - ω_R')/(1/d_L + 1/d_R)`` (a wheel held by its brake
  counts as infinitely stiff), capacity ``preload_nm + ratio·|x_L + x_R|``
  with ``power_ratio`` when the axle is driven and ``coast_ratio`` when it
  is braked by the engine; ``x_L -= t, x_R += t``.

**Clutch solve** (the same bounded-constraint idea as the brake). The
torque T_c that keeps the clutch locked solves

    ω_e + h·(T_e - T_c)/J_e = G·Σ_free k_j·(b_j + η·k_j·G·T_c - T_b,j)/d_j

over the bodies j not held by their brakes (a held body's speed stays 0).
The brakes' modes (held, slipping forward, slipping backward) depend on
T_c: guess T_c = T_e, classify each body, solve the linear equation above,
reclassify, up to :data:`MAX_ITER` times (the constraint function is
monotonic in T_c, so this converges in one or two passes). Then the
clutch's bound: if ``|T_c| <= capacity`` it is locked and ω_e' = G·ω_o'
exactly; otherwise T_c = ±capacity and the power unit spins on its own,
ω_e' = ω_e + h·(T_e - T_c)/J_e. Every body is then solved with its final
drive torque by the ordinary bounded brake solve, so a wheel locks exactly.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.errors import DefinitionError
from skidpad.engine.fourwheel.blocks import number, refuse_unknown, require_keys, require_object
from skidpad.engine.fourwheel.constraint import bound, bounded_solve

DIFF_TYPES = ("open", "lsd", "locked")
MAX_ITER = 4


def validate_diff(d: object, path: str) -> dict:
    """A normalised copy of one differential block."""
    d = require_object(d, path)
    kind = d.get("type")
    if kind not in DIFF_TYPES:
        raise DefinitionError(f"{path}.type: must be one of {', '.join(DIFF_TYPES)}, got {kind!r}")
    keys = ("preload_nm", "power_ratio", "coast_ratio") if kind == "lsd" else ()
    refuse_unknown(d, path, ("type", *keys))
    out: dict = {"type": kind}
    for key in keys:
        if key not in d:
            raise DefinitionError(f"{path}.{key}: is missing")
        out[key] = number(f"{path}.{key}", d[key], strict=False)
    return out


def validate(layout: object, path: str = "drivetrain.layout") -> dict:
    """A normalised copy of the layout block (front share and the two axle differentials)."""
    keys = ("front_share", "front_diff", "rear_diff")
    layout = require_object(layout, path)
    refuse_unknown(layout, path, keys)
    require_keys(layout, path, keys)
    share = number(f"{path}.front_share", layout["front_share"], strict=False)
    if share > 1.0:
        raise DefinitionError(f"{path}.front_share: must be <= 1")
    return {
        "front_share": share,
        "front_diff": validate_diff(layout["front_diff"], f"{path}.front_diff"),
        "rear_diff": validate_diff(layout["rear_diff"], f"{path}.rear_diff"),
    }


class DiffBody(NamedTuple):
    """One body of the driveline tree: a wheel, or a locked axle's two wheels merged."""

    wheels: tuple[int, ...]  # wheel indices (FL, FR, RL, RR = 0..3): one, or the axle's two
    weight: float  # k, its share of the output torque (a locked axle's k_L + k_R)


class LsdAxle(NamedTuple):
    """A limited-slip axle: its two wheels and the capacity of the torque pair between them."""

    left: int  # wheel index
    right: int  # wheel index
    preload: float  # N·m
    power_ratio: float  # capacity per N·m of axle torque while the axle is driven
    coast_ratio: float  # the same while the engine brakes the axle


class DiffConstants(NamedTuple):
    """The driveline tree: its bodies, its limited-slip axles, each wheel's weight k_i
    (FL, FR, RL, RR) and the indices into ``bodies`` of the bodies with k > 0."""

    bodies: tuple[DiffBody, ...]
    lsds: tuple[LsdAxle, ...]
    weights: tuple[float, float, float, float]
    driven: tuple[int, ...]


def driven_bodies(bodies: tuple[DiffBody, ...]) -> tuple[int, ...]:
    """The indices of the bodies the power unit drives (weight k > 0)."""
    return tuple(n for n, body in enumerate(bodies) if body.weight > 0.0)


def constants(layout: dict) -> DiffConstants:
    """The driveline tree of ``layout`` (see :class:`DiffConstants`)."""
    s = layout["front_share"]
    weights = (0.5 * s, 0.5 * s, 0.5 * (1.0 - s), 0.5 * (1.0 - s))
    bodies = []
    lsds = []
    for axle, (left, right), share in (("front", (0, 1), s), ("rear", (2, 3), 1.0 - s)):
        diff = layout[f"{axle}_diff"]
        if diff["type"] == "locked":
            bodies.append(DiffBody((left, right), share))
            continue
        bodies.append(DiffBody((left,), 0.5 * share))
        bodies.append(DiffBody((right,), 0.5 * share))
        if diff["type"] == "lsd" and share > 0.0:
            lsds.append(
                LsdAxle(left, right, diff["preload_nm"], diff["power_ratio"], diff["coast_ratio"])
            )
    return DiffConstants(tuple(bodies), tuple(lsds), weights, driven_bodies(bodies))


def solve(
    k: DiffConstants,
    b: list,
    d: list,
    cap: list,
    g: float,
    eta: float,
    omega_e: float,
    t_e: float,
    inertia_e: float,
    clutch_cap: float,
    h: float,
) -> tuple:
    """The coupled driveline + brake solve of one substep.

    Returns ``(omega', t_brake, held, x_drive, omega_e', t_clutch, clutch_locked, omega_out')``
    with the first four per wheel (lists, order FL, FR, RL, RR).
    """
    bodies = k.bodies
    weights = k.weights
    h_over_j = h / inertia_e
    if g == 0.0 or clutch_cap <= 0.0:
        t_c = 0.0
        locked = False
    else:
        # per driven body: (weight k, b, d, C); a merged (locked) axle sums its two wheels
        dterms = []
        for n in k.driven:
            body = bodies[n]
            idx, kj = body.wheels, body.weight
            if len(idx) == 1:
                i = idx[0]
                dterms.append((kj, b[i], d[i], cap[i]))
            else:
                i, j = idx
                dterms.append((kj, b[i] + b[j], d[i] + d[j], cap[i] + cap[j]))
        # the torque that keeps the clutch locked, the brakes' modes iterated from T_c = T_e
        t, _ = bound(t_e, clutch_cap)
        eg = eta * g
        egg = eg * g
        prev = -1
        for _ in range(MAX_ITER):
            modes = 0
            bit = 1
            num = omega_e + h_over_j * t_e
            den = h_over_j
            for kj, bj, dj, cj in dterms:
                bit *= 4
                req = bj + eg * kj * t
                tb, held = bound(req, cj)
                if held:
                    continue  # held by its brake: its speed stays 0
                modes += bit if req > 0.0 else 2 * bit
                inv = kj / dj
                num -= g * (bj - tb) * inv
                den += egg * kj * inv
            t = num / den
            if modes == prev:
                break
            prev = modes
        t_c, locked = bound(t, clutch_cap)
    t_out = eta * g * t_c
    x = [weights[0] * t_out, weights[1] * t_out, weights[2] * t_out, weights[3] * t_out]
    for lsd in k.lsds:
        left, right = lsd.left, lsd.right
        # each wheel's free response to its open-diff torque (the bounded brake solve)
        xl = x[left]
        xr = x[right]
        wl, _, held_l = bounded_solve(b[left] + xl, d[left], cap[left])
        wr, _, held_r = bounded_solve(b[right] + xr, d[right], cap[right])
        gl = 0.0 if held_l else 1.0 / d[left]  # a held wheel counts as infinitely stiff
        gr = 0.0 if held_r else 1.0 / d[right]
        if gl + gr == 0.0:
            continue
        t_req = (wl - wr) / (gl + gr)
        axle_in = xl + xr
        ratio = lsd.power_ratio if axle_in >= 0.0 else lsd.coast_ratio
        lim = lsd.preload + ratio * (axle_in if axle_in >= 0.0 else -axle_in)
        t, _ = bound(t_req, lim)
        x[left] = xl - t
        x[right] = xr + t
    omega = [0.0, 0.0, 0.0, 0.0]
    t_b = [0.0, 0.0, 0.0, 0.0]
    held = [False, False, False, False]
    omega_out = 0.0
    for body in bodies:
        idx, kj = body.wheels, body.weight
        if len(idx) == 1:
            i = idx[0]
            w, t_b[i], held[i] = bounded_solve(b[i] + x[i], d[i], cap[i])
            if held[i]:
                continue  # held by its brake: its speed stays 0
            omega[i] = w
            omega_out += kj * w
            continue
        i, j = idx
        cj = cap[i] + cap[j]
        w, tb, hd = bounded_solve((b[i] + b[j]) + (x[i] + x[j]), d[i] + d[j], cj)
        share_i = cap[i] / cj if cj > 0.0 else 0.5
        tb_i = tb * share_i
        tb_j = tb - tb_i
        omega[i] = omega[j] = w
        t_b[i], t_b[j] = tb_i, tb_j
        held[i] = held[j] = hd
        x[i] = d[i] * w - b[i] + tb_i
        x[j] = d[j] * w - b[j] + tb_j
        omega_out += kj * w
    if locked:
        omega_e_n = g * omega_out
    else:
        omega_e_n = omega_e + h_over_j * (t_e - t_c)
    return omega, t_b, held, x, omega_e_n, t_c, locked, omega_out
