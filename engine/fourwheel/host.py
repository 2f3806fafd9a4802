"""The external-host contract: a host outside the engine owns the spin of chosen wheels.

A co-simulation host (a hardware-in-the-loop axle dynamometer, another
simulator) integrates the wheel-spin degree of freedom of a set of wheels
itself. Per host step k (period T = 1/host_hz, n substeps of h):

1. the engine runs the step's substeps with each host-owned wheel's spin held
   at the host's ω[k−1] (the value the host returned after step k−1; before
   the first step, the initial state's rolling speed). The tire, the body
   and every wheel the engine still owns advance as usual; the contact patch
   of a host-owned wheel deflects with the held spin;
2. the engine returns, per host-owned wheel, the mean tire torque about the
   spin axis over the step,

       T_tire[k] = T_patch[k] − sgn(ω[k−1])·T_rr[k]                          (N·m)
       T_patch[k] = (1/T)·Σ_substeps h·(−R·F_x),  T_rr[k] = (1/T)·Σ_substeps h·f_rr·F_z·R

   i.e. the impulse the contact patch and the rolling resistance put on the
   wheel divided by the host period (sign: positive drives the wheel
   forward), both parts on their own (``patch_torque``, ``rolling_torque``),
   and the mean torque capacity of that wheel's brakes (service brake,
   handbrake, ABS and stability control acting on it; N·m, ≥ 0);
3. the host returns ω[k] (rad/s), which the engine writes into the wheel's
   spin state before the next step (so the state hash after step k contains it).

The only delay on the torque → host → ω path is the scheduling one: step
k's tire sees ω[k−1]. Nothing here stores a previous exchange.

**Brakes** stay active in the engine's sense: their capacity is reported,
and the host applies it as a bounded constraint on its own integration (the
reference hosts in :mod:`engine.fourwheel.hosts` do), because only the integrator of a
spin can lock it exactly. The rolling resistance is friction about the axle
too: a host that integrates T_tire as a plain torque gets it signed by the
held spin (zero at rest); the reference hosts, like the engine's own wheel
solve, add T_rr to the brake capacity and integrate T_patch, so a wheel at
rest stays exactly at rest instead of being pushed back and forth.

**Ownership rule.** The host owns a whole axle or all four wheels. The
engine's driveline drives only the wheels it still owns: a host-owned axle
is cut out of the driveline tree (with no driven wheel left, the clutch is
open and the power unit turns on its own). A set that would split a
coupling is refused: one wheel of an axle (its differential couples both),
and one axle of a car whose centre split drives both axles.

**Bad host input** (a non-finite or absurd speed, beyond a surface speed of
:data:`SURFACE_SPEED_LIMIT` m/s, or the wrong number of wheels) raises
:class:`HostError` naming the wheel and the step.

**Relaxation off** (``tire_relaxation=False``) is an analysis switch of the
loop study only: on a host-owned wheel the longitudinal patch deflection is
set each substep to its steady value σ_x·κ at the held spin
(κ = (R·ω − V_x)/|V_x|, |V_x| floored at :data:`KAPPA_SPEED_FLOOR`, the
deflection capped at the sliding slip) and its low-speed damper is not
applied, so F_x follows the slip without the contact-patch lag. Recordings
never use it.
"""

from __future__ import annotations

from math import isfinite
from typing import NamedTuple

from skidpad.engine.errors import SkidpadError
from skidpad.engine.fourwheel import differential, tire

WHEELS = ("FL", "FR", "RL", "RR")

#: The wheel sets a host may own, by name.
WHEEL_SETS: dict[str, tuple[int, ...]] = {
    "front": (0, 1),
    "rear": (2, 3),
    "all": (0, 1, 2, 3),
}

#: A host speed whose surface speed |ω|·R exceeds this (m/s) is refused as absurd
#: (twice the fastest initial speed a simulation accepts).
SURFACE_SPEED_LIMIT = 300.0

#: Relaxation off: the slip's denominator |V_x| is floored here (m/s).
KAPPA_SPEED_FLOOR = 0.1


class HostError(SkidpadError, ValueError):
    """A host set-up or a host-returned value is invalid; the message names wheel and step."""


class HostExchange(NamedTuple):
    """What the engine hands the host after host step ``step`` (0-based)."""

    step: int
    wheels: tuple  # the host-owned wheel names, in FL, FR, RL, RR order
    patch_torque: tuple  # mean −R·F_x of the contact patch per owned wheel (N·m)
    rolling_torque: tuple  # mean rolling-resistance torque magnitude f_rr·F_z·R (N·m)
    brake_capacity: tuple  # mean brake torque capacity per owned wheel (N·m, >= 0)
    omega_held: tuple  # the spins the engine held over the step (rad/s)
    period: float  # the host period T (s)

    @property
    def tire_torque(self) -> tuple:
        """Mean tire torque about the spin axis, rolling resistance included (N·m)."""
        return tuple(
            p - r if w > 0.0 else p + r if w < 0.0 else p
            for p, r, w in zip(self.patch_torque, self.rolling_torque, self.omega_held, strict=True)
        )


class HostLink:
    """The engine's side of the contract for one simulation (built by ``Simulation``)."""

    def __init__(
        self,
        wheels: tuple,
        layout: differential.DiffConstants,
        radii: tuple,
        relaxation: bool = True,
    ) -> None:
        self.owned = wheels
        self.names = tuple(WHEELS[i] for i in wheels)
        self.layout = layout
        self.engine_drives = len(layout.driven) > 0
        self.relaxation = relaxation
        self.limits = tuple(SURFACE_SPEED_LIMIT / radii[i] for i in wheels)
        self.impulse = [0.0, 0.0, 0.0, 0.0]
        self.rolling = [0.0, 0.0, 0.0, 0.0]
        self.capacity = [0.0, 0.0, 0.0, 0.0]
        self.elapsed = 0.0
        self.exchange: HostExchange | None = None


def owned_wheels(spec: object) -> tuple[int, ...]:
    """The wheel indices of a host wheel set: a name of :data:`WHEEL_SETS` or wheel names."""
    if isinstance(spec, str):
        if spec in WHEEL_SETS:
            return WHEEL_SETS[spec]
        raise HostError(f"host wheels: unknown wheel set {spec!r}; known: {', '.join(WHEEL_SETS)}")
    if not isinstance(spec, (tuple, list)) or not spec:
        raise HostError("host wheels: must be a wheel set name or a non-empty list of wheels")
    idx = []
    for w in spec:
        if w not in WHEELS:
            raise HostError(f"host wheels: unknown wheel {w!r}; wheels are {', '.join(WHEELS)}")
        if WHEELS.index(w) in idx:
            raise HostError(f"host wheels: wheel {w} is named twice")
        idx.append(WHEELS.index(w))
    return tuple(sorted(idx))


def driveline_without(
    layout: differential.DiffConstants, owned: tuple
) -> differential.DiffConstants:
    """The driveline tree the engine keeps when the host owns ``owned``; refuses a split.

    Raises :class:`HostError` when ``owned`` holds one wheel of an axle, or one
    axle of a car whose centre split drives both axles.
    """
    for left, right in ((0, 1), (2, 3)):
        if (left in owned) != (right in owned):
            axle = "front" if left == 0 else "rear"
            raise HostError(
                f"host wheels: the host must own both wheels of the {axle} axle or neither "
                f"(its differential couples {WHEELS[left]} and {WHEELS[right]})"
            )
    w = layout.weights
    front_driven = w[0] > 0.0
    rear_driven = w[2] > 0.0
    if front_driven and rear_driven and len(owned) == 2:
        raise HostError(
            "host wheels: this car drives both axles through a centre coupling; "
            "the host must own all four wheels or none of the driven ones"
        )
    bodies = tuple(b for b in layout.bodies if not any(i in owned for i in b.wheels))
    lsds = tuple(s for s in layout.lsds if s.left not in owned)
    weights = tuple(0.0 if i in owned else w[i] for i in range(4))
    return differential.DiffConstants(bodies, lsds, weights, differential.driven_bodies(bodies))


def pinned(link: HostLink, omega: tuple) -> tuple:
    """``((wheel, ω_held), ...)``: the spins the wheel solve keeps for the host-owned wheels."""
    return tuple((i, omega[i]) for i in link.owned)


def memoryless(
    link: HostLink,
    wheels: tuple,
    tf: tire.TireForces,
    omega: tuple,
    fz: tuple,
    friction: tuple,
    h: float,
    lean: tuple,
) -> tire.TireForces:
    """Relaxation off (an analysis switch): the host-owned patches at their steady slip.

    Each owned, loaded patch's longitudinal deflection is replaced by σ_x·κ at
    the held spin (capped at the sliding slip) and its damper is removed; the
    wheel equation's terms follow. With relaxation on this returns ``tf``.
    """
    if link.relaxation:
        return tf
    terms = list(tf.terms)
    rhs = list(tf.rhs)
    diag = list(tf.diag)
    for i in link.owned:
        t = terms[i]
        if t is None:
            continue
        w = wheels[i]
        v = tf.v_x[i]
        speed = v if v >= 0.0 else -v
        if speed < KAPPA_SPEED_FLOOR:
            speed = KAPPA_SPEED_FLOOR
        ux = w.tire.sigma_x * (w.radius * omega[i] - v) / speed
        cap = w.tire.rho_cap / t.kxs
        if ux > cap:
            ux = cap
        elif ux < -cap:
            ux = -cap
        t = tire.sliding(
            tire.patch_terms(w, fz[i], v, tf.v_sy[i], ux, t.uy, friction[i], h, lean[i])
        )
        terms[i] = t
        rhs[i] = w.a * omega[i] - w.radius * t.p
        diag[i] = w.a
    return tf._replace(terms=tuple(terms), rhs=rhs, diag=diag)


def accumulate(
    link: HostLink,
    wheels: tuple,
    fx: tuple,
    fz: tuple,
    capacity: tuple,
    rolling_added: tuple,
    h: float,
) -> None:
    """Add one substep's patch and rolling-resistance impulses and brake capacity of each
    host-owned wheel (``capacity``: the wheel solve's bound, rolling resistance included)."""
    for i in link.owned:
        w = wheels[i]
        cap = capacity[i]
        load = fz[i]
        rolling = 0.0
        if load > 0.0:
            rolling = (w.rolling_arm + w.radius * rolling_added[i]) * load
            cap -= rolling
        link.impulse[i] += -w.radius * fx[i] * h
        link.rolling[i] += rolling * h
        link.capacity[i] += (cap if cap > 0.0 else 0.0) * h
    link.elapsed += h


def close_step(link: HostLink, step: int, omega: tuple, period: float) -> HostExchange:
    """The exchange of host step ``step``: the means over the step; the sums start again."""
    inv = 1.0 / link.elapsed
    ex = HostExchange(
        step,
        link.names,
        tuple(link.impulse[i] * inv for i in link.owned),
        tuple(link.rolling[i] * inv for i in link.owned),
        tuple(link.capacity[i] * inv for i in link.owned),
        tuple(omega[i] for i in link.owned),
        period,
    )
    link.impulse = [0.0, 0.0, 0.0, 0.0]
    link.rolling = [0.0, 0.0, 0.0, 0.0]
    link.capacity = [0.0, 0.0, 0.0, 0.0]
    link.elapsed = 0.0
    link.exchange = ex
    return ex


def checked_omega(link: HostLink, values: object, step: int) -> tuple:
    """The host's ω[step] as floats, or :class:`HostError` naming the wheel and the step."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise HostError(f"host step {step}: the host returned {type(values).__name__}, not speeds")
    n = len(link.owned)
    if len(values) != n:
        raise HostError(
            f"host step {step}: the host returned {len(values)} wheel speeds for the "
            f"{n} wheels it owns ({', '.join(link.names)})"
        )
    out = []
    for name, limit, v in zip(link.names, link.limits, values, strict=True):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise HostError(f"host step {step}: wheel {name}: speed {v!r} is not a number")
        v = float(v)
        if not isfinite(v):
            raise HostError(f"host step {step}: wheel {name}: speed {v!r} is not finite")
        if not -limit <= v <= limit:
            raise HostError(
                f"host step {step}: wheel {name}: speed {v!r} rad/s is absurd (beyond "
                f"{limit:.0f} rad/s, a surface speed of {SURFACE_SPEED_LIMIT:.0f} m/s)"
            )
        out.append(v)
    return tuple(out)
