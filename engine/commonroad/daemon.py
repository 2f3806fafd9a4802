"""The CommonRoad simulation daemon: one object, ``step(inputs, dt) -> Telemetry``.

It owns the chosen model (``models``), the steering and longitudinal
controllers (``powertrain``), the safety system (``safety``), the step
scheduler (``scheduler``) and the RK4 integrator (``integrator``).

Inputs: ``steer``, ``throttle``, ``brake``, ``drift_toggle``, a dict by name or a
sequence in that order; their ranges and their one check are in ``inputs``
(:data:`~engine.commonroad.inputs.INPUTS`, :func:`~engine.commonroad.inputs.validate_inputs`).

One host step: the drift toggle is applied, the scheduler plans N equal
substeps for dt (integer microseconds, ADR 0063), and each substep runs
safety intervention -> steering controller -> longitudinal stack -> RK4 ->
projection (wheel spins >= 0) -> the guards outside forward driving
(``guards``: reverse, rest, MB's low speed, ADR 0125) -> battery/trip
integration -> detector and stage update -> finiteness check. The steering
controller is proportional: ``v_delta = clamp(k (delta_demand - delta), v_min, v_max)``.

State (``layout``, version per model): the model's states as ``model.*``
plus ``clock.*`` (integer time and substep count), ``battery.soc``,
``trip.*``, and ``safety.*`` (stage, blend, drift flag, last toggle level and
the previous detector metrics used for the rate thresholds). The hash is
``layout.hash(step_count, state)`` (docs/architecture.md §2).

``reset(model=, vehicle=)`` swaps model and/or vehicle in place, keeping the
configured parameters (powertrain and safety overrides, steering gain, drift
override) and the motion, SOC, trip, clock and step count; with
``initial=`` it restarts from those initial conditions instead. Motion is
carried as the CoG-referenced core (x, y, delta, v, psi, yaw rate, beta);
KS, referenced at the rear axle, is converted on the way in and out.

Two public seams serve a replay (``replay.commonroad``) without subclassing:
``parameters=`` (a :class:`DaemonParameters`) configures the daemon from
given parameter objects instead of the data files, so a recording replays
with the numbers it was made with; and the ``probe`` of :meth:`CommonRoadDaemon.step_us`,
the same protocol as the four-wheel simulation's: ``probe.stage(name, values)``
after each stage of a substep, in the order of :data:`STAGES`, and
``probe.substep(substeps_done, state)`` after every substep. That is how a diff names
the substep, the field and the stage where two runs parted. Neither changes the
physics or the state hash.

The stages of one substep and the values each reports:

* ``safety_intervention``: the steer, throttle and brake demands after the safety
  controller's blend;
* ``steering_controller``: the steering-angle demand (rad) and the steering rate (rad/s);
* ``longitudinal``: acceleration (m/s^2), drive, regenerative, friction-brake, aero and
  rolling forces (N), battery power (W);
* ``integration``: the model state after RK4, the projection and the guards;
* ``battery_trip``: state of charge, distance (m), net and recovered energy (J);
* ``safety``: the detector's four metrics, the severity, the metric that set it (its
  index in ``safety.METRICS``), the stage and the blend.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from skidpad.engine.errors import DefinitionError
from skidpad.engine.state import INT, Field, StateLayout, StepArithmeticError

from . import guards, models, safety
from .inputs import INPUT_NAMES, INPUTS, STAGES, validate_inputs  # noqa: F401  (re-exported)
from .integrator import rk4_step
from .models import ModelSpec, Observation
from .params import VehicleParams, load_vehicle, vehicle_id
from .powertrain import Longitudinal, PowertrainParams, load_powertrain, longitudinal, soc_after
from .scheduler import StepPlan, dt_to_us, plan_steps
from .telemetry import (
    Axle,
    Pose,
    PowertrainT,
    SafetyT,
    Slip,
    Steering,
    Telemetry,
    Totals,
    Velocity,
)

_INITIAL_KEYS = ("x", "y", "yaw", "speed", "steer_angle", "yaw_rate", "beta", "soc")
#: Ranges of the initial conditions (m, rad, m/s, rad/s; soc is checked on its own).
_INITIAL_LIMITS = {
    "x": (-1e6, 1e6),
    "y": (-1e6, 1e6),
    "yaw": (-1e4, 1e4),
    "speed": (-200.0, 200.0),
    "steer_angle": (-1.5, 1.5),
    "yaw_rate": (-10.0, 10.0),
    "beta": (-1.5707963267948966, 1.5707963267948966),
}

_DAEMON_FIELDS = (
    Field("clock.time_us", INT, "us", "simulated time"),
    Field("clock.substeps", INT, "", "substeps done"),
    Field("battery.soc", "f", "", "state of charge [0, 1]"),
    Field("trip.distance", "f", "m", "distance travelled"),
    Field("trip.energy", "f", "J", "net electrical energy drawn from the battery"),
    Field("trip.regen_energy", "f", "J", "electrical energy recovered"),
    Field("safety.stage", INT, "", "0 normal, 1 transition, 2 emergency"),
    Field("safety.blend", "f", "", "intervention blend [0, 1]"),
    Field("safety.drift", INT, "", "1 while the drift profile is active"),
    Field("safety.toggle_prev", INT, "", "drift_toggle level of the previous host step"),
    Field("safety.prev.yaw_rate", "f", "rad/s", "detector metric at the previous substep"),
    Field("safety.prev.slip_angle", "f", "rad", "detector metric at the previous substep"),
    Field("safety.prev.lat_accel", "f", "m/s^2", "detector metric at the previous substep"),
    Field("safety.prev.wheel_slip", "f", "", "detector metric at the previous substep"),
)


def make_layout(spec: ModelSpec) -> StateLayout:
    """The daemon's state layout for a model."""
    fields = [Field(f"model.{n}", "f", unit, doc) for n, unit, doc in spec.states]
    return StateLayout(spec.layout_version, fields + list(_DAEMON_FIELDS))


@dataclass(frozen=True)
class DaemonParameters:
    """Every parameter object the daemon runs with, given instead of loaded from the data files.

    A recording embeds these so that retuning a data file cannot change its replay
    (ADR 0090). They belong to one vehicle (``vehicle.vehicle_id``) and, through the
    safety profiles, to one model, so a daemon built with them cannot swap either.
    """

    vehicle: VehicleParams
    powertrain: PowertrainParams
    safety: safety.SafetyConfig


class Probe(Protocol):
    """What :meth:`CommonRoadDaemon.step_us` reports each stage and substep to."""

    def stage(self, name: str, values: tuple) -> None: ...

    def substep(self, tick: int, state: list) -> None: ...


def _check_given(parameters: DaemonParameters, vid: int, overrides: bool) -> None:
    """Given parameters replace the data files, so they must fit the vehicle and stand alone."""
    if overrides:
        raise DefinitionError(
            "parameters: replace the data files, so powertrain= and safety_overrides= "
            "cannot be given with them"
        )
    if parameters.vehicle.vehicle_id != vid:
        raise DefinitionError(
            f"parameters.vehicle.vehicle_id: {parameters.vehicle.vehicle_id} is not the "
            f"daemon's vehicle {vid}"
        )


def _model_spec(name: str) -> ModelSpec:
    key = str(name).lower()
    if key not in models.MODELS:
        raise DefinitionError(
            f"unknown CommonRoad model {name!r}; known: {', '.join(models.MODELS)}"
        )
    return models.MODELS[key]


class CommonRoadDaemon:
    """A CommonRoad model with its controllers, safety system and integrator.

    ``parameters`` replaces the data files (and so cannot be combined with the
    ``powertrain`` or ``safety_overrides`` overrides of them); the probe of
    :meth:`step_us` is described in the module docstring.
    """

    def __init__(
        self,
        model: str = "st",
        vehicle: int | str = 2,
        initial: dict | None = None,
        powertrain: dict | None = None,
        safety_overrides: dict | None = None,
        drift: bool | None = None,
        steer_gain: float = 8.0,
        parameters: DaemonParameters | None = None,
    ) -> None:
        if (
            isinstance(steer_gain, bool)
            or not isinstance(steer_gain, (int, float))
            or not steer_gain > 0.0
            or not math.isfinite(steer_gain)
        ):
            raise DefinitionError("steer_gain: must be a finite number > 0")
        spec, vid = _model_spec(model), vehicle_id(vehicle)
        # configured parameters: kept across reset
        self.powertrain_overrides = dict(powertrain or {})
        self.safety_overrides = dict(safety_overrides or {})
        self.drift_override = drift
        self.steer_gain = float(steer_gain)
        if parameters is not None:
            _check_given(parameters, vid, bool(powertrain or safety_overrides))
        self.given_parameters = parameters
        #: the (model, vehicle) the given parameters belong to: a swap away is refused
        self._given_for = (spec.name, vid)
        #: the inputs of the last host step, validated (channel order)
        self.inputs: tuple = (0.0, 0.0, 0.0, 0)
        self.step_count = 0
        self._configure(spec, vid)
        self._start(initial or {})

    # --- configuration ----------------------------------------------------------------------

    def _configure(self, spec: ModelSpec, vid: int) -> None:
        given = self.given_parameters
        if given is not None and (spec.name, vid) != self._given_for:
            model, vehicle = self._given_for
            raise DefinitionError(
                f"parameters: given for model {model}, vehicle {vehicle}; a daemon built with "
                f"them cannot swap to model {spec.name}, vehicle {vid}"
            )
        self.spec = spec
        self.vehicle_id = vid
        if given is None:
            self.params: VehicleParams = load_vehicle(vid)
            self.powertrain = load_powertrain(vid, self.powertrain_overrides)
            self.safety = safety.load_safety(spec.name, self.safety_overrides)
        else:
            self.params = given.vehicle
            self.powertrain = given.powertrain
            self.safety = given.safety
        self.layout = make_layout(spec)
        self._i = self.layout.index
        self._n_model = spec.n
        self._reverse = guards.reverse_derivatives(spec.name)

    def _start(self, initial: dict) -> None:
        unknown = [k for k in initial if k not in _INITIAL_KEYS]
        if unknown:
            raise DefinitionError(
                f"initial.{unknown[0]}: unknown; known: {', '.join(_INITIAL_KEYS)}"
            )
        for k, v in initial.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise DefinitionError(f"initial.{k}: must be a finite number")
            if k in _INITIAL_LIMITS:
                lo, hi = _INITIAL_LIMITS[k]
                if not lo <= v <= hi:
                    raise DefinitionError(
                        f"initial.{k}: must be within [{lo:g}, {hi:g}], not {v!r}"
                    )
        self._check_speed_range(initial.get("speed", 0.0))
        g = initial.get
        core = (
            g("x", 0.0),
            g("y", 0.0),
            g("steer_angle", 0.0),
            g("speed", 0.0),
            g("yaw", 0.0),
            g("yaw_rate", 0.0),
            g("beta", 0.0),
        )
        soc = float(g("soc", self.powertrain.soc_initial))
        if not 0.0 <= soc <= 1.0:
            raise DefinitionError("initial.soc: must be in [0, 1]")
        drift = self.safety.drift_default if self.drift_override is None else self.drift_override
        self.step_count = 0
        daemon = {
            "clock.time_us": 0,
            "clock.substeps": 0,
            "battery.soc": soc,
            "trip.distance": 0.0,
            "trip.energy": 0.0,
            "trip.regen_energy": 0.0,
            "safety.stage": safety.NORMAL,
            "safety.blend": 0.0,
            "safety.drift": 1 if drift else 0,
            "safety.toggle_prev": 0,
        }
        self._build_state(core, daemon)

    def _check_speed_range(self, speed: float) -> None:
        # beyond its own speed range a vehicle's acceleration constraint stops
        # acting in one direction (ADR 0125)
        lon = self.params.longitudinal
        if not lon.v_min <= speed <= lon.v_max:
            raise DefinitionError(
                f"initial.speed: {speed!r} m/s is outside vehicle {self.vehicle_id}'s speed "
                f"range [{lon.v_min:g}, {lon.v_max:g}] m/s"
            )

    def _build_state(self, core: Sequence[float], daemon: dict) -> None:
        x = models.init_state(self.spec, core, self.params)
        self.state = [float(v) for v in x] + [0.0] * len(_DAEMON_FIELDS)
        for f in _DAEMON_FIELDS:
            if f.name in daemon:
                self.state[self._i[f.name]] = daemon[f.name]
            elif f.kind == INT:
                self.state[self._i[f.name]] = 0
        self.layout.check_finite(self.state, "initial state")
        zero_cmd = (0.0, 0.0)
        obs = models.observe(self.spec, x, zero_cmd, self.params, (0.0, 0.0))
        self._set_prev_metrics(self._metrics(obs, x[3] >= 0.0))
        self._last: dict = {}
        self._telemetry = self._make_telemetry(
            StepPlan(0, 0, 0, False), obs, None, 0.0, 0.0, 0.0, 0
        )

    def reset(
        self,
        model: str | None = None,
        vehicle: int | str | None = None,
        initial: dict | None = None,
        drift: bool | None = None,
    ) -> None:
        """Swap model and/or vehicle (keeping motion and configured parameters), or restart.

        ``drift`` opts in or out of the drift profile from now on (it becomes the
        configured override); without it a swap keeps the current profile flag.
        """
        spec = self.spec if model is None else _model_spec(model)
        vid = self.vehicle_id if vehicle is None else vehicle_id(vehicle)
        if drift is not None:
            self.drift_override = bool(drift)
        if initial is not None:
            self._configure(spec, vid)
            self._start(initial)
            return
        core = models.core_of(self.spec, self.state[: self._n_model], self.params)
        keep = {f.name: self.state[self._i[f.name]] for f in _DAEMON_FIELDS[:10]}
        if drift is not None:
            keep["safety.drift"] = 1 if drift else 0
        self._configure(spec, vid)
        self._build_state(core, keep)

    # --- stepping -----------------------------------------------------------------------------

    def step(self, inputs: Mapping | Sequence, dt: float, probe: Probe | None = None) -> Telemetry:
        """Advance by ``dt`` seconds (rounded to whole microseconds)."""
        return self.step_us(inputs, dt_to_us(dt), probe)

    def step_us(
        self, inputs: Mapping | Sequence, dt_us: int, probe: Probe | None = None
    ) -> Telemetry:
        """Advance by ``dt_us`` microseconds: the exact, recorded form of a host step.

        The inputs (a dict by name or a sequence in :data:`INPUTS` order) and ``dt_us``
        are validated here, before anything moves; :attr:`inputs` keeps the values applied.
        A ``probe`` sees every stage's values and every substep's state.
        """
        values = validate_inputs(inputs)
        steer, throttle, brake, toggle = values
        plan = plan_steps(dt_us, self.spec.max_dt_us)
        self.inputs = values
        s = self.state
        i = self._i
        if toggle == 1 and s[i["safety.toggle_prev"]] == 0:
            s[i["safety.drift"]] = 1 - s[i["safety.drift"]]
        s[i["safety.toggle_prev"]] = toggle
        h = plan.substep_s
        try:
            for _ in range(plan.substeps):
                last = self._substep(steer, throttle, brake, h, probe)
                if probe is not None:
                    probe.substep(s[i["clock.substeps"]], s)
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            raise StepArithmeticError(exc, f"substep {s[i['clock.substeps']] + 1}") from exc
        s[i["clock.time_us"]] += plan.dt_us
        self.step_count += 1
        self._telemetry = self._make_telemetry(plan, None, *last)
        return self._telemetry

    def _substep(self, steer: float, throttle: float, brake: float, h: float, probe: Probe | None):
        spec = self.spec
        p = self.params
        s = self.state
        i = self._i
        n = self._n_model
        st = self.safety.staging
        x = s[:n]
        stage = s[i["safety.stage"]]
        blend = s[i["safety.blend"]]
        steer_i, throttle_i, brake_i = safety.intervene(st, stage, blend, steer, throttle, brake)
        if probe is not None:
            probe.stage("safety_intervention", (steer_i, throttle_i, brake_i))

        # steering controller
        delta = x[2]
        demand = steer_i * p.steering.max if steer_i >= 0.0 else -steer_i * p.steering.min
        rate = self.steer_gain * (demand - delta)
        rate = max(p.steering.v_min, min(p.steering.v_max, rate))
        if probe is not None:
            probe.stage("steering_controller", (demand, rate))

        # longitudinal stack
        v0 = x[3]
        soc = s[i["battery.soc"]]
        lon = longitudinal(self.powertrain, p, v0, soc, throttle_i, brake_i)
        u = (rate, lon.accel)
        if probe is not None:
            probe.stage("longitudinal", _longitudinal_values(lon))

        x1 = self._integrate(x, u, h, lon.drive_force > 0.0)
        s[:n] = x1
        if probe is not None:
            probe.stage("integration", tuple(x1))

        # battery and trip
        s[i["battery.soc"]] = soc_after(self.powertrain, soc, lon.battery_power, h)
        fx_axle = self._fx_axle(lon, v0)
        obs = models.observe(spec, x1, u, p, fx_axle)
        speed0 = models.speed(spec, x, p)
        s[i["trip.distance"]] += h * (speed0 + obs.speed) / 2.0
        s[i["trip.energy"]] += lon.battery_power * h
        s[i["trip.regen_energy"]] += lon.regen_power * self.powertrain.eta_regen * h
        if probe is not None:
            probe.stage("battery_trip", tuple(s[i[k]] for k in _BATTERY_TRIP_KEYS))

        # safety: detector and staged controller
        metrics = self._metrics(obs, x1[3] >= 0.0)
        prev = tuple(s[i[k]] for k in _PREV_KEYS)
        if not self._slip_scored(speed0, v0 >= 0.0):
            # a slip metric entering its scoring band has no rate yet
            prev = (prev[0], metrics[1], prev[2], metrics[3])
        sev, which = safety.severity(self._profile(), metrics, prev, h)
        stage, blend = safety.update_stage(st, stage, blend, sev, obs.speed, h)
        s[i["safety.stage"]] = stage
        s[i["safety.blend"]] = blend
        self._set_prev_metrics(metrics)
        if probe is not None:
            probe.stage("safety", (*metrics, sev, float(which), float(stage), blend))
        s[i["clock.substeps"]] += 1
        self.layout.check_finite(s, f"substep {s[i['clock.substeps']]}")
        return lon, demand, rate, sev, which

    def _integrate(self, x: list, u: tuple, h: float, pushed_forward: bool) -> list:
        """One RK4 substep with the daemon's regimes outside forward driving (ADR 0125)."""
        spec = self.spec
        p = self.params
        f = spec.derivatives
        slide = guards.sliding_backwards(spec.name, x)
        if slide and x[3] <= guards.SLIDE_MIN_SPEED:
            x = list(x)
            guards.turn_to_reverse(x)
            slide = False
        v0 = x[3]
        if slide:
            f = guards.sliding
        elif v0 < 0.0 and self._reverse is not None:
            f = self._reverse
        split = 1 if slide else guards.wheel_mode_split(spec.name, v0, h, p)
        if split == 1:
            x1 = rk4_step(f, x, u, p, h)
        else:
            hs = h / split
            x1 = x
            for _ in range(split):
                x1 = rk4_step(f, x1, u, p, hs)
                models.project(spec, x1)
        models.project(spec, x1)
        stopped = guards.stop_at_rest(v0, x1, pushed_forward)
        if (stopped and spec.name != "ks") or guards.kinematic_regime(spec.name, v0):
            guards.project_kinematic(spec.name, x1, p)
        elif slide and spec.name == "std":
            x1[7] = x1[8] = 0.0  # sliding: the wheels are not rolling
        return x1

    def _profile(self) -> safety.Profile:
        return self.safety.drift if self.state[self._i["safety.drift"]] else self.safety.normal

    def _slip_scored(self, speed: float, forward: bool) -> bool:
        # slip angle and wheel slip mean nothing at walking pace, nor in reverse, where the
        # motion is kinematic (ADR 0127)
        return forward and speed > self.safety.staging.slip_min_speed

    def _metrics(self, obs: Observation, forward: bool) -> tuple[float, float, float, float]:
        slip = 0.0
        beta = 0.0
        if self._slip_scored(obs.speed, forward):
            beta = abs(obs.beta)
            for w in obs.wheel_slip:
                if abs(w) > slip:
                    slip = abs(w)
        return (abs(obs.yaw_rate), beta, abs(obs.speed * obs.yaw_rate), slip)

    def _set_prev_metrics(self, metrics: Sequence[float]) -> None:
        for k, v in zip(_PREV_KEYS, metrics, strict=True):
            self.state[self._i[k]] = float(v)

    def _fx_axle(self, lon: Longitudinal, v: float) -> tuple[float, float]:
        p = self.params
        dirn = max(-1.0, min(1.0, v / self.powertrain.hold_speed))
        front = (
            lon.drive_force * p.T_se
            - (lon.regen_force * p.T_se + lon.friction_force * p.T_sb) * dirn
        )
        rear = (
            lon.drive_force * (1.0 - p.T_se)
            - (lon.regen_force * (1.0 - p.T_se) + lon.friction_force * (1.0 - p.T_sb)) * dirn
        )
        return front, rear

    # --- read-only views ------------------------------------------------------------------------

    def state_hash(self) -> str:
        """The 16-hex state hash at the current host step (docs/architecture.md §2)."""
        return self.layout.hash(self.step_count, self.state)

    def telemetry(self) -> Telemetry:
        """The telemetry snapshot of the last host step."""
        return self._telemetry

    @property
    def time_us(self) -> int:
        return self.state[self._i["clock.time_us"]]

    @property
    def model(self) -> str:
        return self.spec.name

    def snapshot(self) -> dict:
        """Exact, JSON-serialisable: model, vehicle, step count and state (floats as hex)."""
        vals = [
            v.hex() if k == "f" else v for k, v in zip(self.layout.kinds, self.state, strict=True)
        ]
        return {
            "model": self.spec.name,
            "vehicle": self.vehicle_id,
            "step_count": self.step_count,
            "layout_version": self.layout.version,
            "state": vals,
        }

    def restore(self, snap: dict) -> None:
        """Back to a :meth:`snapshot` (configured parameters are this daemon's own)."""
        self._configure(_model_spec(snap["model"]), vehicle_id(int(snap["vehicle"])))
        if snap.get("layout_version") != self.layout.version or len(snap["state"]) != len(
            self.layout
        ):
            raise DefinitionError("snapshot: layout does not match the model")
        self.state = [
            float.fromhex(v) if k == "f" else int(v)
            for k, v in zip(self.layout.kinds, snap["state"], strict=True)
        ]
        self.step_count = int(snap["step_count"])

    def _make_telemetry(
        self,
        plan: StepPlan,
        obs: Observation | None,
        lon: Longitudinal | None,
        demand: float,
        rate: float,
        sev: float,
        which: int,
    ) -> Telemetry:
        p = self.params
        s = self.state
        i = self._i
        x = s[: self._n_model]
        v = x[3]
        if lon is None:
            lon = longitudinal(self.powertrain, p, v, s[i["battery.soc"]], 0.0, 0.0)
            lon = Longitudinal(
                0.0, 0.0, 0.0, 0.0, lon.aero_force, lon.rolling_force, 0.0, 0.0, 0.0, False, False
            )
        fx_axle = self._fx_axle(lon, v)
        if obs is None or not obs.tire_forces:
            obs = models.observe(self.spec, x, (rate, lon.accel), p, fx_axle, forces=True)
        mu = p.tire.p_dy1
        axles = []
        shares_e = (p.T_se, 1.0 - p.T_se)
        shares_b = (p.T_sb, 1.0 - p.T_sb)
        for k in (0, 1):
            fz = obs.fz[k]
            fx, fy = obs.fx[k], obs.fy[k]
            use = math.sqrt(fx * fx + fy * fy) / (mu * fz) if fz > 0.0 else 0.0
            axles.append(
                Axle(
                    drive_torque=lon.drive_force * shares_e[k] * p.R_w,
                    brake_torque=(lon.regen_force * shares_e[k] + lon.friction_force * shares_b[k])
                    * p.R_w,
                    fx=fx,
                    fy=fy,
                    fz=fz,
                    friction_use=use,
                )
            )
        sat = [abs(obs.fy[k]) / (mu * obs.fz[k]) if obs.fz[k] > 0.0 else 0.0 for k in (0, 1)]
        stage = s[i["safety.stage"]]
        return Telemetry(
            step=self.step_count,
            time_us=s[i["clock.time_us"]],
            model=self.spec.name,
            vehicle_id=self.vehicle_id,
            dt_requested_us=plan.requested_us,
            dt_us=plan.dt_us,
            substeps=plan.substeps,
            substep_s=plan.substep_s if plan.substeps else 0.0,
            dt_clamped=plan.clamped,
            tire_forces=obs.tire_forces,
            pose=Pose(obs.x, obs.y, obs.psi),
            velocity=Velocity(obs.vx, obs.vy, obs.speed, obs.yaw_rate),
            slip=Slip(obs.beta, obs.alpha_f, obs.alpha_r, obs.wheel_slip, sat[0], sat[1]),
            steering=Steering(demand, obs.delta, rate),
            powertrain=PowertrainT(
                lon.accel,
                lon.drive_force,
                lon.regen_force,
                lon.friction_force,
                lon.aero_force,
                lon.rolling_force,
                lon.drive_power,
                lon.regen_power,
                lon.battery_power,
                s[i["battery.soc"]],
                lon.soc_drive_limited,
                lon.soc_regen_limited,
            ),
            front=axles[0],
            rear=axles[1],
            totals=Totals(s[i["trip.distance"]], s[i["trip.energy"]], s[i["trip.regen_energy"]]),
            safety=SafetyT(
                safety.STAGE_NAMES[stage],
                sev,
                safety.METRICS[which],
                s[i["safety.blend"]],
                bool(s[i["safety.drift"]]),
            ),
        )


_PREV_KEYS = (
    "safety.prev.yaw_rate",
    "safety.prev.slip_angle",
    "safety.prev.lat_accel",
    "safety.prev.wheel_slip",
)
_BATTERY_TRIP_KEYS = ("battery.soc", "trip.distance", "trip.energy", "trip.regen_energy")


def _longitudinal_values(lon: Longitudinal) -> tuple:
    """What the ``longitudinal`` stage reports (module docstring)."""
    return (
        lon.accel,
        lon.drive_force,
        lon.regen_force,
        lon.friction_force,
        lon.aero_force,
        lon.rolling_force,
        lon.battery_power,
    )
