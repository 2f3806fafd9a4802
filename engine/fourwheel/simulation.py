"""The four-wheel simulation: state layout, integer-tick stepping, the substep, snapshots.

``Simulation(definition, substep_hz=None, host_hz=100, initial=None, path=None)``
advances in host steps; host step k runs ``(k+1)·S//H - k·S//H`` substeps
of ``h = 1/S`` (docs/architecture.md §2: integer ticks, never accumulated float time).
Inputs change only at host steps; what depends only on them (steering
geometry, brake capacities, pedal) is computed once per host step.

One substep is the stages (:data:`engine.fourwheel.stages.STAGES`) in this fixed order;
:meth:`Simulation._substep` is a loop over them. Each stage is a function ``(sim, s, out)``
over named records: the constants (the simulation's, built once), the state at the
substep's start (:class:`~engine.fourwheel.vehicle_layout.SubstepStart`) and what earlier
stages produced (:class:`~engine.fourwheel.stages.Produced`); it calls its subsystem's
module and returns the values the probe sees under its name:

0. ``ground``: each wheel's friction factor (the road condition's λ times its surface's) and
   the rolling-resistance coefficient its surface adds, from the surface under its contact
   point at the substep's start: on a circuit with runoff, the track or the runoff
   (:mod:`engine.fourwheel.ground`); elsewhere λ and 0 for every wheel.
1. ``kinematics``: each wheel's camber and kinematic steer (bump and roll steer) from the
   roll and pitch at the substep's start, where an axle has a ``kinematics`` section; upright
   and straight elsewhere (:mod:`engine.fourwheel.kinematics`).
2. ``steering``: road-wheel angles = host-step angle (Ackermann + toe, capped by the
   steering assist) rotated by the compliance-steer state and the kinematic steer
   (:mod:`engine.fourwheel.steering`).
3. ``load_transfer``: wheel loads from the static loads, the previous
   substep's specific force, roll/pitch states, jacking and downforce
   (:mod:`engine.fourwheel.load_transfer`, :mod:`engine.fourwheel.aero`).
4. ``tire_forces``: hub velocities in each wheel frame; the spring force of
   each deflected contact patch, with its camber thrust (:mod:`engine.fourwheel.tire`).
5. ``assists`` (:mod:`engine.fourwheel.assists`, stateless): stability control adds a brake
   torque to one wheel's capacity and a throttle cut, ABS scales each brake capacity,
   traction control scales the throttle.
6. ``drivetrain``: the gearbox (:mod:`engine.fourwheel.gearbox`), the power unit's torque
   (:mod:`engine.fourwheel.powertrain`), the clutch capacity (:mod:`engine.fourwheel.clutch`).
7. ``wheel_solve``: the coupled solve of power unit, clutch, differentials and the four
   wheels, each wheel with the implicit relaxation + damping of its patch and its bounded
   brake/rolling-resistance constraint (:mod:`engine.fourwheel.differential`,
   :mod:`engine.fourwheel.wheel`); then the deflection update and its saturation at the
   sliding slip.
8. ``steering_compliance``: the compliance steer of the front wheels under their aligning
   torques or kingpin moments (:mod:`engine.fourwheel.steering`), and of the rear wheels
   under their forces where the rear suspension has one (:mod:`engine.fourwheel.compliance`).
9. ``body_integration``: Newton–Euler for the body (semi-implicit Euler,
   :mod:`engine.fourwheel.body`).
10. ``suspension``: roll and pitch under the new specific force
    (:mod:`engine.fourwheel.suspension`).

Why this scheme (ADR-0037): the stiff parts of the tire/wheel loop (the
relaxation term, the low-speed damper, the brake) are implicit or exact
constraints inside the substep; the contact-patch spring couples to the
wheel and body symplectically (force from the deflection at the start of the
substep, deflection updated with the new spin), which is stable for
ω_n·h well below 2 and loses no damping to a one-step delay.

Two paths run it (ADR 0130): :meth:`Simulation._substep` calls the stages
(the readable path, the source of truth, which every probed step runs), and
:mod:`engine.fourwheel.fastpath` generates from them, per definition, one function that
runs a host step's substeps with the constants folded and the wheels
unrolled (the fast path, the default). Both give the same bits.

A NaN or infinity in the state raises :class:`~engine.state.NonFiniteStateError`
at the substep where it appears, naming the first such field in layout order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from skidpad.engine import smath
from skidpad.engine.errors import DefinitionError, SkidpadError
from skidpad.engine.fourwheel import (
    aero,
    assists,
    body,
    brakes,
    compliance,
    drive,
    fastpath,
    kinematics,
    load_transfer,
    powertrain,
    single_track,
    steering,
    suspension,
    tire,
    wheel,
)
from skidpad.engine.fourwheel import host as external
from skidpad.engine.fourwheel.definition import definition_hash, validate_definition
from skidpad.engine.fourwheel.ground import Ground
from skidpad.engine.fourwheel.inputs import (
    CHANNELS,
    DEFAULTS,
    INPUT_VERSION,
    normalise_inputs,
    validate_inputs,
)
from skidpad.engine.fourwheel.stages import STAGES, Produced, derived, write_state
from skidpad.engine.fourwheel.telemetry import (
    DERIVED_FLOATS,
    DERIVED_ZERO,
    Derived,
    LazyTelemetry,
    Telemetry,
    build_telemetry,
    capture,
)
from skidpad.engine.fourwheel.vehicle_layout import (
    I_AX,
    I_AY,
    I_ENGINE,
    I_GEAR,
    I_HC,
    I_HS,
    I_OMEGA,
    I_PITCH,
    I_R,
    I_ROLL,
    I_THROTTLE,
    I_VX,
    I_X,
    I_Y,
    I_YAW,
    LAYOUT,
    LAYOUT_VERSION,
    substep_start,
)
from skidpad.engine.state import NonFiniteStateError, StepArithmeticError
from skidpad.engine.ticks import substeps_in_step

G = load_transfer.G
#: brake pedal above which the automatic holds its gear (engine.fourwheel.gearbox)
BRAKING_PEDAL = 0.05

#: Initial-condition keys: name -> (default, meaning).
INITIAL_KEYS: dict[str, tuple[object, str]] = {
    "speed_mps": (0.0, "forward speed, m/s (wheels rolling at it)"),
    "yaw_rate_radps": (0.0, "initial yaw rate, rad/s"),
    "x_m": (0.0, "initial world X, m"),
    "y_m": (0.0, "initial world Y, m"),
    "yaw_rad": (0.0, "initial heading, rad"),
    "surface": ("dry", "road surface: " + ", ".join(tire.SURFACES)),
    "grade": (0.0, "road grade along world X, fraction (0.3 = 30 %, rising towards +X)"),
    "cross_grade": (0.0, "road grade along world Y, fraction"),
}

#: Ranges of the numeric initial conditions (beyond them the first substep overflows).
INITIAL_LIMITS: dict[str, tuple[float, float]] = {
    "speed_mps": (0.0, 150.0),
    "yaw_rate_radps": (-10.0, 10.0),
    "x_m": (-1e6, 1e6),
    "y_m": (-1e6, 1e6),
    "yaw_rad": (-1e4, 1e4),
}

SNAPSHOT_FORMAT = "skidpad-simulation-snapshot"
SNAPSHOT_VERSION = 1


def _initial(initial: Mapping | None) -> dict:
    out = {k: v[0] for k, v in INITIAL_KEYS.items()}
    if initial is None:
        return out
    if not isinstance(initial, Mapping):
        raise DefinitionError("initial: must be an object")
    for key, value in initial.items():
        if key not in INITIAL_KEYS:
            raise DefinitionError(f"initial.{key}: unknown initial condition")
        if key == "surface":
            if value not in tire.SURFACES:
                raise DefinitionError(
                    f"initial.surface: unknown surface {value!r}; known: {', '.join(tire.SURFACES)}"
                )
            out[key] = value
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise DefinitionError(f"initial.{key}: must be a finite number")
        out[key] = float(value)
    for key in ("grade", "cross_grade"):
        if abs(out[key]) > 1.0:
            raise DefinitionError(f"initial.{key}: must be within -1..1 (100 %)")
    for key, (lo, hi) in INITIAL_LIMITS.items():
        if not lo <= out[key] <= hi:
            raise DefinitionError(
                f"initial.{key}: must be within [{lo:g}, {hi:g}], not {out[key]!r}"
            )
    return out


#: The two implementations of the substep (ADR 0130): the stages, and the code generated
#: from them for one definition. Both give the same bits.
PATHS = ("fast", "readable")
#: The path of a Simulation that names none (a test that plants a broken stage function sets
#: "readable": the generated code does not call the stage functions it inlines).
DEFAULT_PATH = "fast"


class HostInputs(NamedTuple):
    """What the substeps of one host step read from its inputs (computed once per host step)."""

    steer: float  # the driver's steer fraction
    capacities: tuple  # brake capacities from the pedal and the handbrake (N·m)
    pedal: float  # throttle pedal
    braking: bool  # brake pedal above BRAKING_PEDAL (the automatic holds its gear)
    gear_request: int
    abs_on: bool
    tc_on: bool
    esc_on: bool
    steer_assist_on: bool


class SteerGeometry(NamedTuple):
    """The steering geometry for one steer fraction (recomputed only when it changes)."""

    steer: float  # the steer fraction it was computed for
    delta: float  # reference road-wheel angle (rad)
    angles: tuple  # (δ, cos δ, sin δ) per wheel, FL, FR, RL, RR (toe included)
    jack: float  # steering-jacking load transfer J·δ (N)
    tan_delta_over_l: float  # tan δ / L, for the stability control's reference yaw rate


class Simulation:
    """A four-wheel vehicle simulation; see the module docstring for the substep."""

    def __init__(
        self,
        definition: dict,
        substep_hz: int | None = None,
        host_hz: int = 100,
        initial: dict | None = None,
        path: str | None = None,
        host_wheels: object = None,
        tire_relaxation: bool = True,
    ) -> None:
        d = validate_definition(definition)
        if substep_hz is None:
            substep_hz = d["substep_hz"]
        for name, value in (("substep_hz", substep_hz), ("host_hz", host_hz)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise SkidpadError(f"{name}: must be a positive integer, got {value!r}")
        if host_hz > substep_hz:
            raise SkidpadError(f"host_hz ({host_hz}) must not exceed substep_hz ({substep_hz})")
        if path is None:
            path = DEFAULT_PATH
        if path not in PATHS:
            raise SkidpadError(f"path: must be one of {', '.join(PATHS)}, got {path!r}")
        self.definition = d
        self.definition_hash = definition_hash(d)
        self.substep_hz = substep_hz
        self.host_hz = host_hz
        self.initial = _initial(initial)
        self.layout = LAYOUT
        self.path = path
        #: called after every substep, on either path, as ``(tick, x, y, heading_c, heading_s)``
        #: (the CoG position in m and the heading unit vector): what a lap timer needs, without
        #: the per-stage reporting of a probe, so an observed drive keeps the fast path
        self.pose_observer: Callable[[int, float, float, float, float], None] | None = None
        self.step_count = 0
        self.tick = 0
        self._build_constants()
        self.state = self._initial_state()
        self.inputs: tuple = DEFAULTS
        self.geometry: SteerGeometry | None = None
        self.steer_assist_scale = 1.0
        self._host_update(DEFAULTS)
        self.derived: Derived = DERIVED_ZERO
        LAYOUT.check_finite(self.state, "initial state")
        #: The compiled fast path: built at the first unprobed step on the fast path.
        self.fast_run: Callable | None = None
        #: The path a probed step runs: "readable" (the stages themselves), or "fast" (the
        #: fast path's probed variant, which reports each stage from its own values, so a
        #: difference only the fast path has is named by its stage: ``skidpad diff``).
        self.probed_path = "readable"
        self.fast_probed_run: Callable | None = None
        #: The external host's link (engine.fourwheel.host), None when the engine owns every wheel.
        self.host_link: external.HostLink | None = self._host_link(host_wheels, tire_relaxation)
        #: The ground under the wheels (engine.fourwheel.ground), None: the road's λ under
        #: every wheel.
        self.ground: Ground | None = None
        #: the ground stage's values without a ground: λ and no added rolling resistance
        self.flat_ground = (self.surface,) * 4 + (0.0,) * 4

    def set_ground(self, ground: Ground | None) -> None:
        """Drive on ``ground`` (before the first step): each wheel's friction and rolling
        resistance from the surface under it. Its road condition must be this simulation's."""
        if self.step_count != 0:
            raise SkidpadError("set_ground: the simulation has already stepped")
        if ground is not None and ground.road != self.surface:
            raise SkidpadError("set_ground: the ground's road condition is not this drive's")
        self.ground = ground
        self.fast_run = None
        self.fast_probed_run = None

    def _host_link(self, wheels: object, relaxation: bool) -> external.HostLink | None:
        if wheels is None:
            if relaxation is not True:
                raise SkidpadError("tire_relaxation: the analysis switch needs host wheels")
            return None
        owned = external.owned_wheels(wheels)
        layout = external.driveline_without(self.drive_k.layout, owned)
        return external.HostLink(owned, layout, self.radii, relaxation is not False)

    def set_host_omega(self, omega: Sequence) -> None:
        """Write the host's ω[k] (after host step k) into the spins of the wheels it owns."""
        link = self.host_link
        if link is None:
            raise SkidpadError("set_host_omega: this simulation has no external host")
        values = external.checked_omega(link, omega, self.step_count - 1)
        for i, v in zip(link.owned, values, strict=True):
            self.state[I_OMEGA[i]] = v

    # ----------------------------------------------------------------- constants
    def _build_constants(self) -> None:
        d = self.definition
        ini = self.initial
        h = 1.0 / self.substep_hz
        self.h = h
        self.inv_h = float(self.substep_hz)
        lt = load_transfer.constants(d)
        gx, gy, gn = body.road_gravity(G, ini["grade"], ini["cross_grade"])
        self.g_world = (gx, gy)
        self.g_normal = gn
        s_f, s_r = load_transfer.static_loads(lt, gn)
        self.static_loads = (s_f, s_f, s_r, s_r)
        self.inv_m = 1.0 / lt["m"]
        self.inv_iz = 1.0 / lt["iz"]
        self.load_k = load_transfer.folded(lt)
        self.suspension_k = suspension.folded(lt, gn)
        self.surface = tire.SURFACES[ini["surface"]]
        tf, tr = d["tires"]["front"], d["tires"]["rear"]
        # Tire constants at the flat-ground static loads (damping sized once per car).
        s_f0, s_r0 = load_transfer.static_loads(lt, G)
        kf = tire.axle_constants(d, "front", s_f0, G)
        kr = tire.axle_constants(d, "rear", s_r0, G)
        a, b = lt["a"], lt["b"]
        self.kinematics_k = kinematics.constants(d, a, b, lt["tf"], lt["tr"])
        self.rear_compliance_k = compliance.constants(d)
        # the rear wheels turn in the substep (engine.fourwheel.stages._steering)
        self.rear_wheels_turn = self.kinematics_k is not None or self.rear_compliance_k is not None
        htf, htr = 0.5 * lt["tf"], 0.5 * lt["tr"]
        inertia_f, inertia_r = tf["wheel_inertia_kgm2"], tr["wheel_inertia_kgm2"]
        self.wheels = (
            wheel.constants(a, htf, kf, inertia_f, h),
            wheel.constants(a, -htf, kf, inertia_f, h),
            wheel.constants(-b, htr, kr, inertia_r, h),
            wheel.constants(-b, -htr, kr, inertia_r, h),
        )
        self.radii = tuple(w.radius for w in self.wheels)
        self.body_k = body.BodyConstants(self.wheels, self.g_world, self.inv_m, self.inv_iz, h)
        self.brake_k = brakes.constants(d["brakes"])
        self.aero_k = aero.constants(d["aero"])
        self.drive_k = drive.constants(d["drivetrain"], self.substep_hz)
        self.engine_inertia = powertrain.inertia(self.drive_k.power_unit)
        weights = self.drive_k.layout.weights
        self.driven = tuple(i for i in range(4) if weights[i] > 0.0)
        # The ESC's dead band is sized from the car's own understeer (engine.fourwheel.assists).
        kus = single_track.linear_understeer(d) * steering.DEG / G
        self.assist_k = assists.constants(d["assists"], lt["L"], kus)
        self.wheelbase = lt["L"]
        toe_r = d["steering"]["toe_rear_deg"] * steering.DEG
        self.steer_k = steering.constants(d["steering"], lt["L"], lt["tf"], toe_r)

    def _initial_state(self) -> list:
        ini = self.initial
        st = LAYOUT.zeros()
        v = ini["speed_mps"]
        r = ini["yaw_rate_radps"]
        yaw = ini["yaw_rad"]
        c, s = smath.cos(yaw), smath.sin(yaw)
        st[I_X], st[I_Y], st[I_YAW], st[I_HC], st[I_HS] = ini["x_m"], ini["y_m"], yaw, c, s
        st[I_VX], st[I_R] = v, r
        gx, gy = self.g_world
        gxb = gx * c + gy * s
        gyb = -gx * s + gy * c
        fx, fy = -gxb, -gyb + v * r
        st[I_AX], st[I_AY] = fx, fy
        roll, pitch = suspension.equilibrium(self.suspension_k, fx, fy)
        st[I_ROLL], st[I_PITCH] = roll, pitch
        for i, w in enumerate(self.wheels):
            st[I_OMEGA[i]] = (v - r * w.y) / w.radius
        omega = tuple(st[I_OMEGA[i]] for i in range(4))
        st[I_THROTTLE], st[I_ENGINE], st[I_GEAR] = drive.initial(self.drive_k, omega, v)
        return st

    # ------------------------------------------------------------------ stepping
    def _host_update(self, inputs: tuple) -> None:
        throttle, brake, steer, handbrake = inputs[0], inputs[1], inputs[2], inputs[3]
        ak = self.assist_k
        self.host = HostInputs(
            steer,
            brakes.capacities(self.brake_k, brake, handbrake),
            throttle,
            brake > BRAKING_PEDAL,
            inputs[4],
            assists.switch(ak.abs_on, inputs[5]),
            assists.switch(ak.tc_on, inputs[6]),
            assists.switch(ak.esc_on, inputs[7]),
            assists.switch(ak.steer_on, inputs[8]),
        )
        self.steer_assist_scale = 1.0
        self.steer_to(steer)

    def steer_to(self, steer: float) -> SteerGeometry:
        """The steering geometry for the steer fraction ``steer`` (kept until it changes)."""
        # The geometry depends on the steer fraction only: recompute it when it changes
        # (equal and, at zero, of the same sign: -0.0 and 0.0 are different inputs).
        g = self.geometry
        if g is not None and steer == g.steer:
            if steer != 0.0 or math.copysign(1.0, steer) == math.copysign(1.0, g.steer):
                return g
        delta, tan_d, angles = steering.host_angles(self.steer_k, steer)
        tan_d_l = tan_d / self.wheelbase if delta != 0.0 else 0.0
        self.geometry = SteerGeometry(steer, delta, angles, self.steer_k.jacking * delta, tan_d_l)
        return self.geometry

    def steering_assist(self, vx: float, vy: float) -> SteerGeometry:
        """The geometry this substep steers with: the steering assist caps the angle at
        L·a_lim/V² (the geometry is recomputed when it acts)."""
        host = self.host
        if host.steer_assist_on and host.steer != 0.0:
            sa, steer = assists.assisted_steer(
                self.wheelbase, self.assist_k.steer_lat_accel, self.steer_k.max_angle,
                host.steer, vx, vy,
            )  # fmt: skip
            self.steer_assist_scale = sa
            if steer != self.geometry.steer:
                return self.steer_to(steer)
        return self.geometry

    def substeps_in(self, k: int) -> int:
        """Substeps in host step ``k`` (:mod:`engine.ticks`)."""
        return substeps_in_step(k, self.host_hz, self.substep_hz)

    def step(self, inputs: Sequence | Mapping, probe: object = None) -> LazyTelemetry:
        """Advance one host step with ``inputs`` (CHANNELS order or a dict); return telemetry
        (assembled when first read: engine.fourwheel.telemetry.LazyTelemetry).

        A ``probe`` sees every stage's values and every substep's state; the stages
        report to it, so a probed step runs the readable path.
        """
        values = normalise_inputs(inputs)
        self.inputs = values
        self._host_update(values)
        # The state was finite after the last substep; a non-finite value here was put in
        # from outside (a restore or a direct write) and is named before anything uses it.
        chk = 0.0
        for v in self.state:
            chk += v
        if not math.isfinite(chk):
            LAYOUT.check_finite(self.state, f"the start of host step {self.step_count}")
        n = self.substeps_in(self.step_count)
        # A host-owned run takes the readable path (ADR 0200).
        fast = self.path == "fast" and probe is None and self.host_link is None
        if fast and self.fast_run is None:
            try:
                self.fast_run = fastpath.build(self)
            except fastpath.Unfoldable:
                self.fast_run = Simulation._run_stages  # a constant has no literal
        probed_fast = probe is not None and self.probed_path == "fast" and self.host_link is None
        if probed_fast and self.fast_probed_run is None:
            try:
                self.fast_probed_run = fastpath.build(self, probed=True)
            except fastpath.Unfoldable:
                self.fast_probed_run = Simulation._run_stages_probed
        try:
            if fast:
                self.fast_run(self, self.host, n)
            elif probed_fast:
                self.fast_probed_run(self, self.host, n, probe)
            else:
                for _ in range(n):
                    self._substep(probe)
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            raise StepArithmeticError(exc, f"tick {self.tick + 1}") from exc
        if self.host_link is not None:
            omega = tuple(self.state[i] for i in I_OMEGA)
            external.close_step(self.host_link, self.step_count, omega, 1.0 / self.host_hz)
        self.step_count += 1
        return LazyTelemetry(capture(self))

    def _run_stages(self, host: HostInputs, n: int) -> None:
        for _ in range(n):
            self._substep(None)

    def _run_stages_probed(self, host: HostInputs, n: int, probe: object) -> None:
        for _ in range(n):
            self._substep(probe)

    def _substep(self, probe: object) -> None:
        """One substep: the :data:`STAGES` in order, over the state at its start."""
        st = self.state
        start = substep_start(st)
        out = Produced()
        for stage in STAGES:
            values = stage.function(self, start, out)
            if probe is not None:
                probe.stage(stage.name, values)
        self.derived = derived(out, self.steer_assist_scale)
        write_state(st, out)
        self.tick += 1
        LAYOUT.check_finite(st, f"tick {self.tick}")
        if probe is not None:
            probe.substep(self.tick, st)
        if self.pose_observer is not None:
            self.pose_observer(self.tick, st[I_X], st[I_Y], st[I_HC], st[I_HS])

    # ------------------------------------------------------------------ queries
    def state_hash(self) -> str:
        """The state hash (docs/architecture.md §2) after the last host step."""
        return LAYOUT.hash(self.step_count, self.state)

    def telemetry(self) -> Telemetry:
        """A read-only snapshot of the vehicle after the last step."""
        return build_telemetry(self)

    def snapshot(self) -> dict:
        """The complete simulation state as JSON-serialisable data (exact round trip)."""
        return {
            "format": SNAPSHOT_FORMAT,
            "version": SNAPSHOT_VERSION,
            "layout_version": LAYOUT_VERSION,
            "input_version": INPUT_VERSION,
            "definition_hash": self.definition_hash,
            "substep_hz": self.substep_hz,
            "host_hz": self.host_hz,
            "initial": dict(self.initial),
            "step_count": self.step_count,
            "tick": self.tick,
            "state": list(self.state),
            "inputs": list(self.inputs),
            "derived": self.derived.flat(),
        }

    def restore(self, snap: dict) -> None:
        """Restore a :meth:`snapshot` of a simulation of the same definition and rates."""
        if not isinstance(snap, dict) or snap.get("format") != SNAPSHOT_FORMAT:
            raise SkidpadError("snapshot: not a simulation snapshot")
        checks = (
            ("version", SNAPSHOT_VERSION),
            ("layout_version", LAYOUT_VERSION),
            ("input_version", INPUT_VERSION),
            ("definition_hash", self.definition_hash),
            ("substep_hz", self.substep_hz),
            ("host_hz", self.host_hz),
            ("initial", self.initial),
        )
        for key, want in checks:
            if snap.get(key) != want:
                raise SkidpadError(f"snapshot.{key}: {snap.get(key)!r} does not match {want!r}")
        state = snap.get("state")
        if not isinstance(state, list) or len(state) != len(LAYOUT):
            raise SkidpadError(f"snapshot.state: must be a list of {len(LAYOUT)} values")
        try:
            new_state = LAYOUT.from_dict(dict(zip(LAYOUT.names, state, strict=True)))
            LAYOUT.check_finite(new_state, "snapshot")
        except (KeyError, TypeError, ValueError, NonFiniteStateError) as exc:
            raise SkidpadError(f"snapshot.state: {exc}") from None
        derived = snap.get("derived")
        if not isinstance(derived, list) or len(derived) != DERIVED_FLOATS:
            raise SkidpadError("snapshot.derived: wrong length")
        for key in ("step_count", "tick"):
            if (
                isinstance(snap.get(key), bool)
                or not isinstance(snap.get(key), int)
                or snap[key] < 0
            ):
                raise SkidpadError(f"snapshot.{key}: must be a non-negative integer")
        inputs = validate_inputs(list(snap.get("inputs", [])))
        self.state[:] = new_state
        self.step_count = snap["step_count"]
        self.tick = snap["tick"]
        self.inputs = inputs
        self._host_update(inputs)
        self.derived = Derived.from_flat([float(v) for v in derived])


__all__ = ["Simulation", "LAYOUT", "LAYOUT_VERSION", "CHANNELS", "INITIAL_KEYS"]
