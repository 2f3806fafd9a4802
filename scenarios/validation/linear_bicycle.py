"""The ISO 7401 step steer of the linear bicycle model built from a definition.

The yardstick for :mod:`scenarios.validation.step_steer`: what linear
single-track theory says the step-steer response of the same car data is.
Two rigid-body states (lateral velocity v_y, yaw rate r, body frame, left and
counter-clockwise positive, ISO 8855) at constant forward speed V, and the
two axles' lateral forces with the tires' first-order lag over their lateral
relaxation length σ (the four-wheel model's tire deflection, linearised):

    α_f = δ - (v_y + a·r)/V          α_r = -(v_y - b·r)/V
    dF_f/dt = (V/σ_f)·(C_f·α_f - F_f)     dF_r/dt = (V/σ_r)·(C_r·α_r - F_r)
    m·(dv_y/dt + V·r) = F_f + F_r
    I_z·dr/dt = a'·F_f - b'·F_r

a, b are the axle distances from the centre of gravity; a' = a - t_f and
b' = b + t_r the moment arms with the pneumatic trail; C_f (compliance
corrected) and C_r the axle cornering stiffnesses at the static loads, all
as :func:`engine.fourwheel.single_track.linear_understeer` defines them, so the steady
yaw rate is V·δ/(L + K_us·V²) with the same K_us. The steering compliance's
lag and every load transfer, roll, drivetrain and aerodynamic effect are left
out: that is what "linear theory" means here.

The input is the step steer's road-wheel angle, a continuous ramp over
``RAMP_S`` to δ; the response is measured as the four-wheel scenario measures
it: time zero at 50 % of the ramp, the response time is the first reach of
90 % of the steady yaw rate (interpolated between integration steps), the
overshoot is the peak past it in % of it. Integration: classical Runge-Kutta
at ``dt`` (10 kHz by default; the response time converges to 1e-5 s).

This module reports a yardstick; nothing in it feeds a hash.
"""

from __future__ import annotations

from typing import NamedTuple

from skidpad.engine.fourwheel import tire
from skidpad.engine.fourwheel.single_track import axles, front_stiffness
from skidpad.scenarios.validation.step_steer import AY_TARGET, RAMP_S, SPEED_MPS, linear_angle


class BicycleData(NamedTuple):
    """The linear bicycle's parameters (SI)."""

    m: float  # kg
    yaw_inertia: float  # kg·m²
    a: float  # m, CoG to front axle
    b: float  # m, CoG to rear axle
    arm_f: float  # m, a - t_f
    arm_r: float  # m, b + t_r
    c_f: float  # N/rad, front axle, compliance corrected
    c_r: float  # N/rad, rear axle
    sigma_f: float  # m, lateral relaxation length
    sigma_r: float  # m


class StepResponse(NamedTuple):
    """The linear bicycle's step-steer figures."""

    yaw_rate_response_s: float
    yaw_rate_overshoot_pct: float
    steady_yaw_rate_radps: float  # V·δ/(L + K_us·V²)
    final_yaw_rate_radps: float  # the integrated yaw rate at the end of the hold
    trace_t_s: tuple  # time from 50 % of the ramp, every ``trace_dt`` (s)
    trace_yaw_rate_radps: tuple


def bicycle_data(definition: dict) -> BicycleData:
    """The linear bicycle of ``definition`` (the axles of the linear-theory K_us)."""
    ax = axles(definition)
    c_f = front_stiffness(ax)
    return BicycleData(
        m=ax.m,
        yaw_inertia=definition["mass"]["yaw_inertia_kgm2"],
        a=ax.a,
        b=ax.b,
        arm_f=ax.a - ax.trail_f,
        arm_r=ax.b + ax.trail_r,
        c_f=c_f,
        c_r=2.0 * ax.c_alpha_r,
        sigma_f=tire.relaxation_y(ax.k_f, ax.fz_f),
        sigma_r=tire.relaxation_y(ax.k_r, ax.fz_r),
    )


def _derivative(p: BicycleData, v: float, delta: float, x: tuple) -> tuple:
    vy, r, f_f, f_r = x
    alpha_f = delta - (vy + p.a * r) / v
    alpha_r = -(vy - p.b * r) / v
    return (
        (f_f + f_r) / p.m - v * r,
        (p.arm_f * f_f - p.arm_r * f_r) / p.yaw_inertia,
        v / p.sigma_f * (p.c_f * alpha_f - f_f),
        v / p.sigma_r * (p.c_r * alpha_r - f_r),
    )


def _rk4(p: BicycleData, v: float, d0: float, d1: float, x: tuple, h: float) -> tuple:
    dm = 0.5 * (d0 + d1)
    k1 = _derivative(p, v, d0, x)
    k2 = _derivative(p, v, dm, tuple(xi + 0.5 * h * ki for xi, ki in zip(x, k1, strict=True)))
    k3 = _derivative(p, v, dm, tuple(xi + 0.5 * h * ki for xi, ki in zip(x, k2, strict=True)))
    k4 = _derivative(p, v, d1, tuple(xi + h * ki for xi, ki in zip(x, k3, strict=True)))
    return tuple(
        xi + h / 6.0 * (a + 2.0 * b + 2.0 * c + d)
        for xi, a, b, c, d in zip(x, k1, k2, k3, k4, strict=True)
    )


def steady_yaw_rate(p: BicycleData, v: float, delta: float) -> float:
    """V·δ/(L + K·V²) with K = (m/L')·(b'/C_f - a'/C_r)."""
    arm_sum = p.arm_f + p.arm_r
    k = p.m / arm_sum * (p.arm_r / p.c_f - p.arm_f / p.c_r)
    return v * delta / (p.a + p.b + k * v * v)


def step_response(
    definition: dict,
    speed: float = SPEED_MPS,
    ramp_s: float = RAMP_S,
    hold_s: float = 3.0,
    dt: float = 1e-4,
    trace_dt: float = 0.01,
) -> StepResponse:
    """The linear bicycle's ISO 7401 step steer, measured as the four-wheel scenario is."""
    p = bicycle_data(definition)
    delta = linear_angle(definition, speed, AY_TARGET)
    r_ss = steady_yaw_rate(p, speed, delta)
    n = int((ramp_s + hold_s) / dt + 0.5)
    x = (0.0, 0.0, 0.0, 0.0)
    t90 = None
    peak = 0.0
    every = max(1, int(trace_dt / dt + 0.5))
    trace_t = [-0.5 * ramp_s]
    trace_r = [0.0]
    for i in range(n):
        t0, t1 = i * dt, (i + 1) * dt
        d0 = delta * min(t0 / ramp_s, 1.0)
        d1 = delta * min(t1 / ramp_s, 1.0)
        r0 = x[1]
        x = _rk4(p, speed, d0, d1, x, dt)
        r1 = x[1]
        if t90 is None and r1 >= 0.9 * r_ss:
            t90 = t0 + dt * (0.9 * r_ss - r0) / (r1 - r0)
        if t90 is not None and r1 > peak:
            peak = r1
        if (i + 1) % every == 0:
            trace_t.append(t1 - 0.5 * ramp_s)
            trace_r.append(r1)
    over = 100.0 * (peak - r_ss) / r_ss if t90 is not None else 0.0
    return StepResponse(
        yaw_rate_response_s=(t90 - 0.5 * ramp_s) if t90 is not None else float("nan"),
        yaw_rate_overshoot_pct=over if over > 0.0 else 0.0,
        steady_yaw_rate_radps=r_ss,
        final_yaw_rate_radps=x[1],
        trace_t_s=tuple(trace_t),
        trace_yaw_rate_radps=tuple(trace_r),
    )
