"""What the daemon adds around the models outside forward driving (ADR 0125, 0128).

The derivative functions stay the reference's, term by term. Three regimes
are the daemon's own, chosen once per substep from the model's speed state
``v0`` (ST/STD ``v``, MB ``vx``, KS its rear-axle speed) at the substep start:

* **Reverse** (``v0 < 0``; ST, STD, MB). The reference's tire equations
  assume forward travel (ST's yaw mode turns unstable, STD/MB clamp wheel
  spins and ground speeds at zero), so reverse is integrated as the kinematic
  single-track about the CoG (:func:`kinematic_core`) with the steering's
  effect limited to what the tires can hold: with ``t = tan(delta)``,
  ``beta = atan(t b / l)`` and yaw rate ``v cos(beta) t / l``, the lateral
  acceleration ``v^2 t cos(beta) / l`` is kept at or below ``mu g``
  (``mu = p_dy1``) by capping ``|t|`` (:func:`grip_limited_tan`). The other
  states follow the kinematic motion (:func:`project_kinematic`): yaw rate
  and slip angle take their kinematic values, wheel spins roll with the
  ground (zero in reverse: the models' spins are never negative), MB's
  lateral velocities (sprung and unsprung) follow the same motion; MB's
  suspension keeps its own dynamics.
* **MB below its switch speed** (``0 <= vx < 0.1``). The reference moves the
  car kinematically there but keeps integrating the lateral velocities, the
  yaw-rate state and the wheel spins with zero slip, which fills them with
  motion the car does not have (2 m/s of lateral velocity at rest with the
  wheels steered); they are projected onto the kinematic motion after the
  substep, as in reverse.
* **No reverse gear** (every model). Nothing drives the car backwards and
  the brakes only oppose motion, so a substep that starts at rest or moving
  forwards never ends moving backwards, and one that starts in reverse ends
  no faster than rest unless the throttle pushed it: the speed state is
  clamped at zero (:func:`stop_at_rest`). This is what keeps STD parked: the
  reference's slip floor gives a stopped wheel a locked-wheel force which,
  weighted by its low-speed blend, rolls the car backwards at 5 mm/s.

* **Sliding backwards** (ST, STD at a slip angle past 90 degrees, moving):
  the reference's tire kinematics turn a braking force into a driving one
  there, so every tire slides as Coulomb friction against its contact patch
  velocity (:func:`sliding`); below 0.1 m/s the motion is re-expressed as
  reverse (:func:`turn_to_reverse`) and follows the kinematic motion.

And one for the integrator: where STD's or MB's wheel-spin mode is faster
than the substep (below about 3 m/s), the substep is integrated as several
equal RK4 steps (:func:`wheel_mode_split`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skidpad.engine import smath

from . import mb, mb_fast
from .constraints import acceleration_constraints, steering_constraints
from .params import VehicleParams

G = 9.81
PI = 3.141592653589793
#: MB's own switch between its kinematic and tire branches [m/s].
MB_LOW_SPEED = mb.LOW_SPEED

Derivatives = Callable[[Sequence[float], Sequence[float], VehicleParams], list]


def grip_limited_tan(t: float, v: float, p: VehicleParams) -> float:
    """``tan(delta)`` limited so that kinematic motion at ``v`` stays within ``mu g``.

    With ``c = mu g l / v^2`` and ``k = c b / l`` the lateral acceleration
    ``v^2 t cos(atan(t b / l)) / l`` reaches ``mu g`` at
    ``|t| = c / sqrt(1 - k^2)``; for ``k >= 1`` no steering angle reaches it.
    """
    v2 = v * v
    if v2 == 0.0:
        return t
    l_wb = p.a + p.b
    c = p.tire.p_dy1 * G * l_wb / v2
    k = c * p.b / l_wb
    if k >= 1.0:
        return t
    t_max = c / smath.sqrt(1.0 - k * k)
    if t > t_max:
        return t_max
    if t < -t_max:
        return -t_max
    return t


def kinematic_motion(delta: float, v: float, p: VehicleParams) -> tuple[float, float, float]:
    """(``tan`` of the effective steering angle, CoG slip angle, yaw rate) of kinematic motion."""
    l_wb = p.a + p.b
    t = grip_limited_tan(smath.tan(delta), v, p)
    beta = smath.atan(t * p.b / l_wb)
    return t, beta, v * smath.cos(beta) * t / l_wb


def kinematic_core(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Derivatives of (x, y, delta, v, psi): the grip-limited kinematic single-track."""
    u0 = steering_constraints(x[2], u[0], p.steering)
    u1 = acceleration_constraints(x[3], u[1], p.longitudinal)
    v = x[3]
    t, beta, yaw_rate = kinematic_motion(x[2], v, p)
    return [
        v * smath.cos(beta + x[4]),
        v * smath.sin(beta + x[4]),
        u0,
        u1,
        yaw_rate,
    ]


def _reverse_st(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    # yaw rate and slip angle are set after the substep (project_kinematic)
    return kinematic_core(x, u, p) + [0.0] * (len(x) - 5)


def _reverse_mb(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    # the suspension keeps MB's own dynamics; the planar motion, the lateral
    # velocities and the wheel spins follow the kinematic motion
    f = mb_fast.derivatives(x, u, p)
    core = kinematic_core(x, u, p)
    v = x[3]
    t, beta, yaw_rate = kinematic_motion(x[2], v, p)
    vy = v * smath.sin(beta) / smath.cos(beta)
    # the CoG velocity is (vx, vy) in the body frame
    c = smath.cos(x[4])
    s = smath.sin(x[4])
    f[0] = v * c - vy * s
    f[1] = v * s + vy * c
    f[2] = core[2]
    f[3] = core[3]
    f[4] = yaw_rate
    for i in (5, 10, 15, 20) + mb.WHEEL_SLOTS:
        f[i] = 0.0
    return f


#: Below this speed [m/s] a car sliding backwards is taken as reversing (kinematic).
SLIDE_MIN_SPEED = 0.1
#: Sliding speed [m/s] below which a tire's friction force fades linearly (no chatter at rest).
SLIDE_SOFT_SPEED = 0.1


def sliding_backwards(model: str, x: Sequence[float]) -> bool:
    """ST/STD moving forwards at a slip angle past 90 degrees: the car slides backwards."""
    return model in ("st", "std") and x[3] > 0.0 and smath.cos(x[6]) < 0.0


def turn_to_reverse(x: list) -> None:
    """The same motion expressed as reverse: speed negated, slip angle turned by pi."""
    x[3] = -x[3]
    x[6] = x[6] - PI if x[6] > 0.0 else x[6] + PI


def _axle_slide_force(vx: float, vy: float, fz: float, mu: float) -> tuple[float, float]:
    # Coulomb friction against the contact patch's sliding velocity
    speed = smath.sqrt(vx * vx + vy * vy)
    scale = mu * fz / (speed if speed > SLIDE_SOFT_SPEED else SLIDE_SOFT_SPEED)
    return -scale * vx, -scale * vy


def sliding(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """ST/STD sliding backwards (slip angle past 90 degrees): every tire slides.

    The reference's tire kinematics assume the body moves forwards: past 90
    degrees of slip their slip angle flips sign and a braking car speeds up
    (ADR 0063). Here each axle's force is Coulomb friction ``mu F_z`` (static
    axle loads, ``mu = p_dy1``) against its contact patch's velocity, so the
    motion only loses energy; steering and pedals have no grip to act through.
    """
    u0 = steering_constraints(x[2], u[0], p.steering)
    v = x[3]
    r = x[5]
    beta = x[6]
    vx = v * smath.cos(beta)
    vy = v * smath.sin(beta)
    l_wb = p.a + p.b
    mu = p.tire.p_dy1
    fxf, fyf = _axle_slide_force(vx, vy + p.a * r, p.m * G * p.b / l_wb, mu)
    fxr, fyr = _axle_slide_force(vx, vy - p.b * r, p.m * G * p.a / l_wb, mu)
    fx = fxf + fxr
    fy = fyf + fyr
    f = [
        v * smath.cos(beta + x[4]),
        v * smath.sin(beta + x[4]),
        u0,
        (vx * fx + vy * fy) / (p.m * v),
        r,
        (p.a * fyf - p.b * fyr) / p.I_z,
        (vx * fy - vy * fx) / (p.m * v * v) - r,
    ]
    return f + [0.0] * (len(x) - 7)


def reverse_derivatives(model: str) -> Derivatives | None:
    """The derivative function the daemon integrates in reverse, or None (KS: its own)."""
    if model in ("st", "std"):
        return _reverse_st
    if model == "mb":
        return _reverse_mb
    return None


def kinematic_regime(model: str, v0: float) -> bool:
    """Whether a substep starting at speed state ``v0`` follows the kinematic motion."""
    if model in ("st", "std"):
        return v0 < 0.0
    if model == "mb":
        return v0 < MB_LOW_SPEED
    return False


def project_kinematic(model: str, x: list, p: VehicleParams) -> None:
    """Set the states that follow the kinematic motion from (delta, v) after a substep."""
    delta = x[2]
    v = x[3]
    t, beta, yaw_rate = kinematic_motion(delta, v, p)
    if model in ("st", "std"):
        x[5] = yaw_rate
        x[6] = beta
        if model == "std":
            cb = smath.cos(beta)
            u_wf = v * cb * smath.cos(delta) + (v * smath.sin(beta) + p.a * yaw_rate) * smath.sin(
                delta
            )
            x[7] = max(0.0, u_wf) / p.R_w
            x[8] = max(0.0, v * cb) / p.R_w
        return
    vy = v * smath.sin(beta) / smath.cos(beta)
    x[5] = yaw_rate
    x[10] = vy
    x[15] = vy + p.a * yaw_rate
    x[20] = vy - p.b * yaw_rate
    cd = smath.cos(delta)
    sd = smath.sin(delta)
    half_f = 0.5 * p.T_f * yaw_rate
    half_r = 0.5 * p.T_r * yaw_rate
    ground = (
        (v + half_f) * cd + (vy + p.a * yaw_rate) * sd,
        (v - half_f) * cd + (vy + p.a * yaw_rate) * sd,
        v + half_r,
        v - half_r,
    )
    for slot, u_w in zip(mb.WHEEL_SLOTS, ground, strict=True):
        x[slot] = max(0.0, u_w) / p.R_w


#: RK4's stability limit on the negative real axis is 2.785; the split keeps |lambda h| below this.
STIFF_STEP = 2.5
#: Most RK4 steps one substep is split into.
MAX_SPLIT = 64
#: STD's blend centre and width [m/s] (its dynamic weight scales the wheel mode).
_STD_V_S = 0.2
_STD_V_B = 0.05


def wheel_mode_split(model: str, v0: float, h: float, p: VehicleParams) -> int:
    """How many equal RK4 steps resolve the wheel-spin mode over a substep of ``h`` seconds.

    A wheel's spin mode is ``lambda = R_w^2 C_k / (I_y_w u)`` at ground speed ``u``
    with the tire's slip stiffness ``C_k = p_kx1 F_z`` (static load: STD one axle,
    MB one wheel), scaled in STD by the weight of its dynamic branch. Below about
    3 m/s it is faster than the 1 ms substep; the substep is then split so that
    each step has ``|lambda| h / n <= STIFF_STEP`` (ADR 0128).
    """
    if model == "std":
        weight = 0.5 * (smath.tanh((v0 - _STD_V_S) / _STD_V_B) + 1.0)
        load = p.m * G * (p.a if p.a > p.b else p.b) / (p.a + p.b)
    elif model == "mb" and v0 >= MB_LOW_SPEED:
        weight = 1.0
        load = 0.5 * p.m * G * (p.a if p.a > p.b else p.b) / (p.a + p.b)
    else:
        return 1
    u = v0 if v0 > MB_LOW_SPEED else MB_LOW_SPEED
    lam = weight * p.R_w * p.R_w * p.tire.p_kx1 * load / (p.I_y_w * u)
    n = lam * h / STIFF_STEP
    if n <= 1.0:
        return 1
    if n >= MAX_SPLIT:
        return MAX_SPLIT
    return int(n) + (0 if n == int(n) else 1)


def stop_at_rest(v0: float, x: list, pushed_forward: bool) -> bool:
    """No reverse gear: clamp the speed state at zero where only resistance acted on it.

    True when it clamped: the car is at rest, and its other states are then set to rest
    too (:func:`project_kinematic` at zero speed).
    """
    v1 = x[3]
    if v1 < 0.0 <= v0 or (v0 < 0.0 < v1 and not pushed_forward):
        x[3] = 0.0
        return True
    return False
