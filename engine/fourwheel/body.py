"""Body: planar rigid-body motion (x, y, yaw) of the whole vehicle on the road plane.

State: ``body.x``, ``body.y`` (m, road-plane world coordinates), ``body.yaw``
(rad, unwrapped, positive counter-clockwise), ``body.heading_c``,
``body.heading_s`` (cos and sin of the yaw, the same angle as a unit vector,
rotated each substep by the same increment so that the kinematics need no
trigonometric call), ``body.vx``, ``body.vy`` (m/s, body frame: x forward,
y left), ``body.yaw_rate`` (rad/s), ``body.ax``, ``body.ay`` (m/s², the
accelerometer reading of the last substep: tire + aero force over the mass,
gravity excluded; load transfer reads it).

Equations (body frame, Newton–Euler; g_x, g_y the gravity along the road
plane in the body frame; forces at the contact patches at (x_i, y_i)):

    v_x' = F_x/m + g_x + r·v_y
    v_y' = F_y/m + g_y - r·v_x
    r'   = [Σ (x_i·F_yi - y_i·F_xi) + Σ M_zi] / I_z

Integration is semi-implicit (symplectic) Euler: velocities first, then
the pose with the new velocities:

    ψ' = ψ + h·r',  (c, s)' = rotate((c, s), h·r') (series to 7th order, renormalised)
    X' = X + h·(v_x'·c' - v_y'·s'),  Y' = Y + h·(v_x'·s' + v_y'·c')

The road is a plane z = G_X·X + G_Y·Y (grades as fractions); gravity along it
is ``-g·(G_X, G_Y)/sqrt(1 + G_X² + G_Y²)`` (exact for a grade in one
direction), normal to it ``g/sqrt(1 + G_X² + G_Y²)``.
"""

from __future__ import annotations

from math import sqrt
from typing import NamedTuple

from skidpad.engine.state import Field

FIELDS = (
    Field("body.x", "f", "m", "CoG position, world X"),
    Field("body.y", "f", "m", "CoG position, world Y"),
    Field("body.yaw", "f", "rad", "yaw angle, positive counter-clockwise (unwrapped)"),
    Field("body.heading_c", "f", "1", "cos(yaw), kept as a unit vector"),
    Field("body.heading_s", "f", "1", "sin(yaw), kept as a unit vector"),
    Field("body.vx", "f", "m/s", "longitudinal velocity, body frame"),
    Field("body.vy", "f", "m/s", "lateral velocity, body frame, positive left"),
    Field("body.yaw_rate", "f", "rad/s", "yaw rate, positive counter-clockwise"),
    Field("body.ax", "f", "m/s^2", "accelerometer longitudinal specific force (last substep)"),
    Field("body.ay", "f", "m/s^2", "accelerometer lateral specific force (last substep)"),
)


def road_gravity(g: float, grade_x: float, grade_y: float) -> tuple[float, float, float]:
    """(g_X, g_Y along the road plane in world axes, g normal to it), m/s²."""
    inv = 1.0 / sqrt(1.0 + grade_x * grade_x + grade_y * grade_y)
    return (-g * grade_x * inv, -g * grade_y * inv, g * inv)


def rotate_heading(c: float, s: float, d: float) -> tuple[float, float]:
    """(c, s) rotated by the small angle ``d`` (series to 7th order), renormalised."""
    d2 = d * d
    cd = 1.0 - d2 * (0.5 - d2 * (1.0 / 24.0 - d2 * (1.0 / 720.0)))
    sd = d * (1.0 - d2 * (1.0 / 6.0 - d2 * (1.0 / 120.0 - d2 * (1.0 / 5040.0))))
    nc = c * cd - s * sd
    ns = s * cd + c * sd
    inv = 1.0 / sqrt(nc * nc + ns * ns)
    return nc * inv, ns * inv


class BodyConstants(NamedTuple):
    """What a definition fixes for :func:`integrate`."""

    wheels: tuple  # WheelConstants FL, FR, RL, RR (the patch positions x, y, m)
    g_world: tuple  # gravity along the road plane, world X and Y (m/s²)
    inv_m: float  # 1/m (1/kg)
    inv_iz: float  # 1/I_z (1/(kg·m²))
    h: float  # substep (s)


class BodyState(NamedTuple):
    """The body at a substep's start: pose (m, rad, unit heading) and velocities (body frame)."""

    x: float
    y: float
    yaw: float
    heading_c: float
    heading_s: float
    vx: float
    vy: float
    r: float  # yaw rate (rad/s)


class PatchForces(NamedTuple):
    """Each wheel's patch forces in its wheel frame (N) and aligning torque (N·m), FL FR RL RR."""

    fx: tuple
    fy: tuple
    mz: tuple


class BodyUpdate(NamedTuple):
    """The rigid body after one substep, and its accelerations over it."""

    x: float
    y: float
    yaw: float
    heading_c: float
    heading_s: float
    vx: float
    vy: float
    yaw_rate: float
    ax: float  # specific force (tire + aero over the mass), the accelerometer
    ay: float
    dvx: float  # d(v)/dt in the body frame, gravity and ω×v included
    dvy: float
    dr: float


def integrate(
    k: BodyConstants,
    cos_w: tuple,
    sin_w: tuple,
    patch: PatchForces,
    drag: float,
    body: BodyState,
) -> BodyUpdate:
    """Newton–Euler over one substep: wheel-frame tire forces (wheel frames at angles whose
    cosines and sines are ``cos_w``, ``sin_w``) rotated into the body frame and summed at the
    patches, plus the aero ``drag`` (N), then semi-implicit Euler."""
    wheels, fx, fy, mz, h = k.wheels, patch.fx, patch.fy, patch.mz, k.h
    fx_tot = drag
    fy_tot = 0.0
    m_z = 0.0
    for i in range(4):
        c = cos_w[i]
        s = sin_w[i]
        fbx = fx[i] * c - fy[i] * s
        fby = fx[i] * s + fy[i] * c
        fx_tot += fbx
        fy_tot += fby
        m_z += wheels[i].x * fby - wheels[i].y * fbx + mz[i]
    hc, hs, vx, vy, r = body.heading_c, body.heading_s, body.vx, body.vy, body.r
    gx, gy = k.g_world
    gxb = gx * hc + gy * hs
    gyb = gy * hc - gx * hs
    fxs = fx_tot * k.inv_m
    fys = fy_tot * k.inv_m
    dvx = fxs + gxb + r * vy
    dvy = fys + gyb - r * vx
    dr = m_z * k.inv_iz
    vx_n = vx + h * dvx
    vy_n = vy + h * dvy
    r_n = r + h * dr
    hc_n, hs_n = rotate_heading(hc, hs, h * r_n)
    x_n = body.x + h * (vx_n * hc_n - vy_n * hs_n)
    y_n = body.y + h * (vx_n * hs_n + vy_n * hc_n)
    yaw_n = body.yaw + h * r_n
    return BodyUpdate(x_n, y_n, yaw_n, hc_n, hs_n, vx_n, vy_n, r_n, fxs, fys, dvx, dvy, dr)
