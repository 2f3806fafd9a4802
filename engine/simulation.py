"""The four-wheel simulation: state layout, integer-tick stepping, the substep, snapshots.

``Simulation(definition, substep_hz=None, host_hz=100, initial=None)``
advances in host steps; host step k runs ``(k+1)·S//H - k·S//H`` substeps
of ``h = 1/S`` (DESIGN §6: integer ticks, never accumulated float time).
Inputs change only at host steps; what depends only on them (steering
geometry, brake capacities, pedal) is computed once per host step.

One substep, in this fixed order (each stage reports to a probe, if any):

1. ``steering``: road-wheel angles = host-step angle (Ackermann + toe) rotated
   by the compliance-steer state (:mod:`engine.steering`).
2. ``load_transfer``: wheel loads from the static loads, the previous
   substep's specific force, roll/pitch states, jacking and downforce
   (:mod:`engine.load_transfer`, :mod:`engine.aero`).
3. ``tire_forces``: hub velocities in each wheel frame; the spring force of
   each deflected contact patch (:mod:`engine.tire`).
   Then ``assists`` (:mod:`engine.assists`, stateless): stability control
   adds a brake torque to one wheel's capacity and a throttle cut, ABS
   scales each brake capacity, traction control scales the throttle.
4. ``drivetrain`` + ``wheel_solve``: the gearbox (:mod:`engine.gearbox`),
   the power unit's torque (:mod:`engine.powertrain`), the clutch capacity
   (:mod:`engine.clutch`), then the coupled solve of power unit, clutch,
   differentials and the four wheels, each wheel with the implicit
   relaxation + damping of its patch and its bounded brake/rolling-resistance
   constraint (:mod:`engine.differential`, :mod:`engine.wheel`); then the
   deflection update and its saturation at the sliding slip.
5. ``body_integration``: Newton–Euler for the body (semi-implicit Euler,
   :mod:`engine.body`), roll and pitch (:mod:`engine.suspension`),
   compliance steer and the drivetrain state (:mod:`engine.drive`).

Why this scheme (ADR-0037): the stiff parts of the tire/wheel loop (the
relaxation term, the low-speed damper, the brake) are implicit or exact
constraints inside the substep; the contact-patch spring couples to the
wheel and body symplectically (force from the deflection at the start of the
substep, deflection updated with the new spin), which is stable for
ω_n·h well below 2 and loses no damping to a one-step delay.

A NaN or infinity in the state raises :class:`~engine.state.NonFiniteStateError`
at the substep where it appears, naming the first such field in layout order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from math import isfinite, sqrt

from engine import (
    aero,
    assists,
    body,
    brakes,
    clutch,
    differential,
    drive,
    gearbox,
    load_transfer,
    powertrain,
    smath,
    steering,
    suspension,
    tire,
)
from engine.definition import definition_hash, validate_definition
from engine.errors import DefinitionError, SkidpadError
from engine.inputs import CHANNELS, DEFAULTS, INPUT_VERSION, inputs_from_mapping, validate_inputs
from engine.state import NonFiniteStateError, StepArithmeticError, float_bits
from engine.telemetry import Telemetry, build_telemetry
from engine.vehicle_layout import (  # noqa: E402,F401  (re-exported for callers)
    I_AX,
    I_AY,
    I_DC_FL,
    I_DC_FR,
    I_ENGINE,
    I_GEAR,
    I_HC,
    I_HS,
    I_LAST_REQ,
    I_OMEGA,
    I_PITCH,
    I_PITCH_RATE,
    I_R,
    I_ROLL,
    I_ROLL_RATE,
    I_SHIFT,
    I_SHIFT_UP,
    I_THROTTLE,
    I_UX,
    I_UY,
    I_VX,
    I_VY,
    I_X,
    I_Y,
    I_YAW,
    LAYOUT,
    LAYOUT_VERSION,
    WHEELS,
)

G = load_transfer.G
BRAKING_PEDAL = 0.05  # brake pedal above which the automatic holds its gear (engine.gearbox)

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


class Simulation:
    """A four-wheel vehicle simulation; see the module docstring for the substep."""

    def __init__(
        self,
        definition: dict,
        substep_hz: int | None = None,
        host_hz: int = 100,
        initial: dict | None = None,
    ) -> None:
        d = validate_definition(definition)
        if substep_hz is None:
            substep_hz = d["substep_hz"]
        for name, value in (("substep_hz", substep_hz), ("host_hz", host_hz)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise SkidpadError(f"{name}: must be a positive integer, got {value!r}")
        if host_hz > substep_hz:
            raise SkidpadError(f"host_hz ({host_hz}) must not exceed substep_hz ({substep_hz})")
        self.definition = d
        self.definition_hash = definition_hash(d)
        self.substep_hz = substep_hz
        self.host_hz = host_hz
        self.initial = _initial(initial)
        self.layout = LAYOUT
        self.step_count = 0
        self.tick = 0
        self._build_constants()
        self.state = self._initial_state()
        self.inputs: tuple = DEFAULTS
        self._steer_in = 0.0
        self._steer_used = 0.0
        self._host_angles = None
        self._host_update(DEFAULTS)
        self._derived: list = self._derived_zero()
        LAYOUT.check_finite(self.state, "initial state")

    # ----------------------------------------------------------------- constants
    def _build_constants(self) -> None:
        d = self.definition
        ini = self.initial
        h = 1.0 / self.substep_hz
        self.h = h
        self.inv_h = float(self.substep_hz)
        lt = load_transfer.constants(d)
        self._lt = lt
        gx, gy, gn = body.road_gravity(G, ini["grade"], ini["cross_grade"])
        self.g_world = (gx, gy)
        self.g_normal = gn
        s_f, s_r = load_transfer.static_loads(lt, gn)
        self.static_loads = (s_f, s_f, s_r, s_r)
        self._s_f, self._s_r = s_f, s_r
        self._inv_m = 1.0 / lt["m"]
        self._inv_iz = 1.0 / lt["iz"]
        self._lt_k = load_transfer.folded(lt)
        self._sus_k = suspension.folded(lt, gn)
        self.surface = tire.SURFACES[ini["surface"]]
        tf, tr = d["tires"]["front"], d["tires"]["rear"]
        # Tire constants at the flat-ground static loads (damping sized once per car).
        s_f0, s_r0 = load_transfer.static_loads(lt, G)
        kf = tire.constants(tf, s_f0, G)
        kr = tire.constants(tr, s_r0, G)
        a, b = lt["a"], lt["b"]
        htf, htr = 0.5 * lt["tf"], 0.5 * lt["tr"]
        self.wheel_pos = ((a, htf), (a, -htf), (-b, htr), (-b, -htr))
        self._tire_k = (kf, kf, kr, kr)
        inertia_f, inertia_r = tf["wheel_inertia_kgm2"], tr["wheel_inertia_kgm2"]
        self._inertia = (inertia_f, inertia_f, inertia_r, inertia_r)
        self._brake_k = brakes.constants(d["brakes"])
        self._aero_k = aero.constants(d["aero"])
        self._drive_k = drive.constants(d["drivetrain"], self.substep_hz)
        self._j_e = powertrain.inertia(self._drive_k[0])
        wts = self._drive_k[3][2]
        self._driven = tuple(i for i in range(4) if wts[i] > 0.0)
        self._radii = tuple(self._tire_k[i][tire.K_R] for i in range(4))
        self._assist_k = assists.constants(d["assists"])
        self._abs_idle = (1.0, 1.0, 1.0, 1.0)
        self._wheelbase = lt["L"]
        toe_r = d["steering"]["toe_rear_deg"] * steering.DEG
        self._steer_k = steering.constants(d["steering"], lt["L"], lt["tf"], toe_r)
        # Per-wheel folded tuple for the hot loop.
        per_wheel = []
        for i in range(4):
            k = self._tire_k[i]
            x_i, y_i = self.wheel_pos[i]
            inertia = self._inertia[i]
            per_wheel.append(
                (
                    x_i,
                    y_i,
                    k,
                    k[tire.K_R],
                    inertia,
                    inertia / h,
                    h / k[tire.K_SIG_X],
                    h / k[tire.K_SIG_Y],
                    k[tire.K_RHO_CAP],
                    k[tire.K_C],
                    k[tire.K_CX],
                    k[tire.K_CY],
                    k[tire.K_INV_VFADE2],
                    k[tire.K_T0],
                    k[tire.K_INV_RHOT2],
                    k[tire.K_FRR] * k[tire.K_R],
                    1.0 / k[tire.K_SIG_X],
                    k[tire.K_E],
                )
            )
        self._per_wheel = tuple(per_wheel)

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
        roll, pitch = suspension.equilibrium(self._sus_k, fx, fy)
        st[I_ROLL], st[I_PITCH] = roll, pitch
        for i in range(4):
            x_i, y_i = self.wheel_pos[i]
            st[I_OMEGA[i]] = (v - r * y_i) / self._tire_k[i][tire.K_R]
        omega = tuple(st[I_OMEGA[i]] for i in range(4))
        st[I_THROTTLE], st[I_ENGINE], st[I_GEAR] = drive.initial(self._drive_k, omega, v)
        return st

    def _derived_zero(self) -> list:
        # Per wheel: fz, fx, fy, mz, brake torque, capacity, held(0/1), drive torque, vx, vsy;
        # then dvx, dvy, dr; then the drivetrain and assists (see telemetry): engine torque,
        # clutch torque, clutch locked, throttle burnt, ABS factor x4, TC factor, ESC yaw
        # error, ESC torque, ESC wheel, steering-assist factor.
        return [0.0] * 40 + [0.0, 0.0, 0.0] + [0.0] * 13

    # ------------------------------------------------------------------ stepping
    def _host_update(self, inputs: tuple) -> None:
        throttle, brake, steer, handbrake = inputs[0], inputs[1], inputs[2], inputs[3]
        self._steer_in = steer
        self._set_steer(steer)
        self._sa_scale = 1.0
        self._caps = brakes.capacities(self._brake_k, brake, handbrake)
        self._pedal = throttle
        self._braking = brake > BRAKING_PEDAL
        self._gear_req = inputs[4]
        ak = self._assist_k
        self._abs_on = assists.switch(ak[0], inputs[5])
        self._tc_on = assists.switch(ak[1], inputs[6])
        self._esc_on = assists.switch(ak[2], inputs[7])
        self._sa_on = assists.switch(ak[3], inputs[8])

    def _set_steer(self, steer: float) -> None:
        """Road-wheel angles (and what depends on them) for the steer fraction ``steer``."""
        # The steering geometry depends on the steer fraction only: recompute it when it
        # changes (compared bit for bit: -0.0 and 0.0 are different inputs).
        if self._host_angles is not None and float_bits(steer) == float_bits(self._steer_used):
            return
        delta, angles = steering.host_angles(self._steer_k, steer)
        self._steer_used = steer
        self._delta_ref = delta
        self._host_angles = angles
        self._jack = self._steer_k[7] * delta
        self._tan_d_l = smath.tan(delta) / self._wheelbase if delta != 0.0 else 0.0

    def substeps_in(self, k: int) -> int:
        """Substeps in host step ``k``: (k+1)·S//H - k·S//H."""
        s, hz = self.substep_hz, self.host_hz
        return (k + 1) * s // hz - k * s // hz

    def step(self, inputs: Sequence | Mapping, probe: object = None) -> Telemetry:
        """Advance one host step with ``inputs`` (CHANNELS order or a dict); return telemetry."""
        if isinstance(inputs, Mapping):
            values = inputs_from_mapping(inputs)
        else:
            values = validate_inputs(inputs)
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
        try:
            for _ in range(n):
                self._substep(probe)
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            raise StepArithmeticError(exc, f"tick {self.tick + 1}") from exc
        self.step_count += 1
        return self.telemetry()

    def _substep(self, probe: object) -> None:  # noqa: C901  (the hot path, kept flat on purpose)
        st = self.state
        h = self.h
        inv_h = self.inv_h
        vx = st[I_VX]
        vy = st[I_VY]
        r = st[I_R]
        hc = st[I_HC]
        hs = st[I_HS]
        # 1. steering: host-step angles rotated by the compliance states (series, no trig);
        #    the steering assist caps the angle at L·a_lim/V² (angles recomputed if it acts)
        if self._sa_on and self._steer_in != 0.0:
            sa = assists.steer_scale(
                self._wheelbase,
                self._assist_k[7],
                self._steer_in * self._steer_k[0],
                sqrt(vx * vx + vy * vy),
            )
            self._sa_scale = sa
            if self._steer_in * sa != self._steer_used:
                self._set_steer(self._steer_in * sa)
        dc_fl = st[I_DC_FL]
        dc_fr = st[I_DC_FR]
        (d_fl, c_fl, s_fl), (d_fr, c_fr, s_fr), rl, rr = self._host_angles
        cd, sd = steering.small_rotation(dc_fl)
        c0 = c_fl * cd - s_fl * sd
        s0 = s_fl * cd + c_fl * sd
        cd, sd = steering.small_rotation(dc_fr)
        c1 = c_fr * cd - s_fr * sd
        s1 = s_fr * cd + c_fr * sd
        cos_w = (c0, c1, rl[1], rr[1])
        sin_w = (s0, s1, rl[2], rr[2])
        if probe is not None:
            probe.stage("steering", (d_fl + dc_fl, d_fr + dc_fr, rl[0], rr[0]))
        # 2. load transfer
        drag, down_f, down_r = aero.forces(self._aero_k, vx)
        fz = load_transfer.wheel_loads(
            self._lt_k,
            self._s_f,
            self._s_r,
            st[I_AX],
            st[I_AY],
            st[I_ROLL],
            st[I_ROLL_RATE],
            st[I_PITCH],
            st[I_PITCH_RATE],
            self._jack,
            down_f,
            down_r,
        )
        if probe is not None:
            probe.stage("load_transfer", fz)
        # 3. tire terms per wheel: hub velocity in the wheel frame, the patch spring force,
        #    and the longitudinal force's dependence on the new spin, F_x' = P + Q·ω'
        w0, w1, w2, w3 = st[I_OMEGA[0]], st[I_OMEGA[1]], st[I_OMEGA[2]], st[I_OMEGA[3]]
        omega = (w0, w1, w2, w3)
        surface = self.surface
        caps = self._caps
        derived = self._derived
        spring = [0.0] * 8
        out = [0.0] * 12  # omega', ux', uy' per wheel
        forces = [0.0] * 12  # fx, fy, mz per wheel (wheel frame)
        terms: list = [None, None, None, None]
        b = [0.0, 0.0, 0.0, 0.0]
        dg = [0.0, 0.0, 0.0, 0.0]
        cap = [0.0, 0.0, 0.0, 0.0]
        vxs = [0.0, 0.0, 0.0, 0.0]
        vsys = [0.0, 0.0, 0.0, 0.0]
        load_terms = tire.load_terms
        shape = tire.shape
        per_wheel = self._per_wheel
        for i in range(4):
            (
                x_i,
                y_i,
                k,
                rad,
                _inertia,
                a_i,
                h_sx,
                h_sy,
                rho_cap,
                c_shape,
                c_x,
                c_y,
                inv_vf2,
                t0,
                inv_rt2,
                rr_arm,
                inv_sx,
                e_shape,
            ) = per_wheel[i]
            c = cos_w[i]
            s = sin_w[i]
            hvx = vx - r * y_i
            hvy = vy + r * x_i
            v_x = hvx * c + hvy * s
            v_sy = hvy * c - hvx * s
            vxs[i] = v_x
            vsys[i] = v_sy
            f_z = fz[i]
            if f_z > 0.0:
                ux = st[I_UX[i]]
                uy = st[I_UY[i]]
                dx, dy, kxs, kys = load_terms(k, f_z, surface)
                phx = kxs * ux
                phy = kys * uy
                rho = sqrt(phx * phx + phy * phy)
                shp = shape(c_shape, e_shape, rho)
                fx0 = dx * shp * phx
                fy0 = dy * shp * phy
                abs_v = v_x if v_x >= 0.0 else -v_x
                if rho >= rho_cap * (1.0 - 1e-12):
                    cxd = 0.0
                    cyd = 0.0
                else:
                    fade = 1.0 / (1.0 + v_x * v_x * inv_vf2)
                    cxd = c_x * fade
                    cyd = c_y * fade
                relax_x = 1.0 / (1.0 + abs_v * h_sx)
                relax_y = 1.0 / (1.0 + abs_v * h_sy)
                rate_x = -v_x - abs_v * ux * inv_sx
                q = cxd * relax_x * rad
                p = fx0 + cxd * relax_x * rate_x
                mzk = -t0 / (1.0 + rho * rho * inv_rt2)
                terms[i] = (
                    kxs,
                    kys,
                    relax_x,
                    relax_y * (uy - h * v_sy),
                    cxd,
                    cyd,
                    p,
                    q,
                    ux,
                    uy,
                    mzk,
                    fy0,
                    rad,
                    rho_cap,
                )
                b[i] = a_i * omega[i] - rad * p
                dg[i] = a_i + rad * q
                cap[i] = caps[i] + rr_arm * f_z
                spring[2 * i] = fx0
                spring[2 * i + 1] = fy0
            else:  # wheel off the ground: no force, the patch relaxes, the wheel spins freely
                b[i] = a_i * omega[i]
                dg[i] = a_i
                cap[i] = caps[i]
        if probe is not None:
            probe.stage("tire_forces", tuple(spring))
        # assists: stateless stages on this substep's brake capacities and throttle
        ak = self._assist_k
        speed = sqrt(vx * vx + vy * vy)
        esc_err = 0.0
        esc_t = 0.0
        esc_w = -1
        esc_f = 1.0
        tc_f = 1.0
        abs_sc = self._abs_idle
        if self._esc_on:
            esc_err, esc_t, esc_w, esc_f = assists.esc(ak[6], vx, r, self._tan_d_l)
            if esc_w >= 0:
                cap[esc_w] += esc_t
        if self._abs_on:
            abs_sc = assists.abs_scales(ak[4], self._radii, omega, vxs, speed)
            cap[0] *= abs_sc[0]
            cap[1] *= abs_sc[1]
            cap[2] *= abs_sc[2]
            cap[3] *= abs_sc[3]
        if self._tc_on:
            worst = assists.max_drive_slip(self._radii, omega, vxs, self._driven)
            tc_f = assists.tc_scale(ak[5], worst)
        if probe is not None:
            probe.stage("assists", tuple(abs_sc) + (tc_f, esc_err, esc_t, esc_f, self._sa_scale))
        # 4. the drivetrain (gearbox, power unit, clutch) and the coupled wheel solve
        pk, ck, gk, dfk, _motor = self._drive_k
        wts = dfk[2]
        w_out = wts[0] * w0 + wts[1] * w1 + wts[2] * w2 + wts[3] * w3
        gear, shift, shift_up, last_req = gearbox.update(
            gk,
            st[I_GEAR],
            st[I_SHIFT],
            st[I_SHIFT_UP],
            st[I_LAST_REQ],
            self._gear_req,
            w_out,
            self._pedal,
            self._braking,
        )
        command = self._pedal * tc_f * esc_f * gearbox.throttle_factor(gk, shift, shift_up)
        theta = powertrain.update_throttle(pk, st[I_THROTTLE], command, h)
        w_e = st[I_ENGINE]
        t_e, th_used = powertrain.torque(pk, w_e, theta)
        g = gearbox.ratio(gk, gear)
        c_cap = clutch.capacity(ck, w_e, gearbox.clutch_factor(gk, shift), theta)
        j_e = self._j_e
        eta = gk[3]
        solve = differential.solve
        om, t_b, held, t_d, w_e_n, t_c, c_locked, _w_o = solve(
            dfk, b, dg, cap, g, eta, w_e, t_e, j_e, c_cap, h
        )
        # deflection update; a patch that would deflect past its sliding cap slides: it is
        # solved again without the low-speed damper (a sliding patch does not deflect
        # further, so the damper sees no rate); still past the cap, it is scaled back to it
        redo = False
        for i in range(4):
            tm = terms[i]
            w_n = om[i]
            j = 3 * i
            if tm is None:
                fx = fy = mz = ux_n = uy_n = 0.0
            else:
                kxs, kys, relax_x, uy_n, cxd, cyd, p, q, ux, uy, mzk, fy0, rad, rho_cap = tm
                ux_n = relax_x * (ux + h * (rad * w_n - vxs[i]))
                px = kxs * ux_n
                py = kys * uy_n
                r2 = px * px + py * py
                if r2 > rho_cap * rho_cap:
                    if cxd != 0.0 or cyd != 0.0:
                        # the patch slides: solve again without this wheel's damper
                        p = spring[2 * i]
                        terms[i] = (
                            kxs,
                            kys,
                            relax_x,
                            uy_n,
                            0.0,
                            0.0,
                            p,
                            0.0,
                            ux,
                            uy,
                            mzk,
                            fy0,
                            rad,
                            rho_cap,
                        )
                        a_i = per_wheel[i][5]
                        b[i] = a_i * omega[i] - rad * p
                        dg[i] = a_i
                        redo = True
                    scale = rho_cap / sqrt(r2)
                    ux_n *= scale
                    uy_n *= scale
                fx = p + q * w_n
                fy = fy0 + cyd * (uy_n - uy) * inv_h
                mz = mzk * fy
            out[j] = w_n
            out[j + 1] = ux_n
            out[j + 2] = uy_n
            forces[j] = fx
            forces[j + 1] = fy
            forces[j + 2] = mz
        if redo:
            om, t_b, held, t_d, w_e_n, t_c, c_locked, _w_o = solve(
                dfk, b, dg, cap, g, eta, w_e, t_e, j_e, c_cap, h
            )
            for i in range(4):
                tm = terms[i]
                w_n = om[i]
                j = 3 * i
                out[j] = w_n
                if tm is None:
                    continue
                kxs, kys, relax_x, uy_n, cxd, cyd, p, q, ux, uy, mzk, fy0, rad, rho_cap = tm
                ux_n = relax_x * (ux + h * (rad * w_n - vxs[i]))
                px = kxs * ux_n
                py = kys * uy_n
                r2 = px * px + py * py
                if r2 > rho_cap * rho_cap:
                    scale = rho_cap / sqrt(r2)
                    ux_n *= scale
                    uy_n *= scale
                fy = fy0 + cyd * (uy_n - uy) * inv_h
                out[j + 1] = ux_n
                out[j + 2] = uy_n
                forces[j] = p + q * w_n
                forces[j + 1] = fy
                forces[j + 2] = mzk * fy
        if not _motor and w_e_n < 0.0:
            w_e_n = 0.0  # an engine does not turn backwards
        for i in range(4):
            j = 3 * i
            derived[10 * i : 10 * i + 10] = (
                fz[i],
                forces[j],
                forces[j + 1],
                forces[j + 2],
                t_b[i],
                cap[i],
                1.0 if held[i] else 0.0,
                t_d[i],
                vxs[i],
                vsys[i],
            )
        derived[43:56] = (
            t_e,
            t_c,
            1.0 if c_locked else 0.0,
            th_used,
            abs_sc[0],
            abs_sc[1],
            abs_sc[2],
            abs_sc[3],
            tc_f,
            esc_err,
            esc_t,
            float(esc_w),
            self._sa_scale,
        )
        if probe is not None:
            probe.stage("drivetrain", (w_e_n, t_e, t_c, g, float(gear)))
            probe.stage(
                "wheel_solve",
                tuple(out[0::3])
                + tuple(forces[0::3])
                + tuple(forces[1::3])
                + (derived[6], derived[16], derived[26], derived[36]),
            )
        # 5. body integration (semi-implicit Euler)
        fx_tot = drag
        fy_tot = 0.0
        m_z = 0.0
        pos = self.wheel_pos
        for i in range(4):
            c = cos_w[i]
            s = sin_w[i]
            j = 3 * i
            fx = forces[j]
            fy = forces[j + 1]
            fbx = fx * c - fy * s
            fby = fx * s + fy * c
            x_i, y_i = pos[i]
            fx_tot += fbx
            fy_tot += fby
            m_z += x_i * fby - y_i * fbx + forces[j + 2]
        gx, gy = self.g_world
        gxb = gx * hc + gy * hs
        gyb = gy * hc - gx * hs
        inv_m = self._inv_m
        fxs = fx_tot * inv_m
        fys = fy_tot * inv_m
        dvx = fxs + gxb + r * vy
        dvy = fys + gyb - r * vx
        dr = m_z * self._inv_iz
        vx_n = vx + h * dvx
        vy_n = vy + h * dvy
        r_n = r + h * dr
        hc_n, hs_n = body.rotate_heading(hc, hs, h * r_n)
        roll, roll_rate, pitch, pitch_rate = suspension.step(
            self._sus_k, h, fxs, fys, st[I_ROLL], st[I_ROLL_RATE], st[I_PITCH], st[I_PITCH_RATE]
        )
        sk = self._steer_k
        x_n = st[I_X] + h * (vx_n * hc_n - vy_n * hs_n)
        y_n = st[I_Y] + h * (vx_n * hs_n + vy_n * hc_n)
        yaw_n = st[I_YAW] + h * r_n
        dc_fl = steering.update_compliance(sk, dc_fl, forces[2], h)
        dc_fr = steering.update_compliance(sk, dc_fr, forces[5], h)
        st[I_X] = x_n
        st[I_Y] = y_n
        st[I_YAW] = yaw_n
        st[I_HC] = hc_n
        st[I_HS] = hs_n
        st[I_VX] = vx_n
        st[I_VY] = vy_n
        st[I_R] = r_n
        st[I_AX] = fxs
        st[I_AY] = fys
        st[I_ROLL] = roll
        st[I_ROLL_RATE] = roll_rate
        st[I_PITCH] = pitch
        st[I_PITCH_RATE] = pitch_rate
        st[I_DC_FL] = dc_fl
        st[I_DC_FR] = dc_fr
        chk = (
            x_n
            + y_n
            + yaw_n
            + hc_n
            + hs_n
            + vx_n
            + vy_n
            + r_n
            + fxs
            + fys
            + roll
            + roll_rate
            + pitch
            + pitch_rate
            + dc_fl
            + dc_fr
            + theta
            + w_e_n
        )
        for i in range(4):
            j = 3 * i
            w_n = out[j]
            ux_n = out[j + 1]
            uy_n = out[j + 2]
            st[I_OMEGA[i]] = w_n
            st[I_UX[i]] = ux_n
            st[I_UY[i]] = uy_n
            chk += w_n + ux_n + uy_n
        st[I_THROTTLE] = theta
        st[I_ENGINE] = w_e_n
        st[I_GEAR] = gear
        st[I_SHIFT] = shift
        st[I_SHIFT_UP] = shift_up
        st[I_LAST_REQ] = last_req
        derived[40] = dvx
        derived[41] = dvy
        derived[42] = dr
        self.tick += 1
        if probe is not None:
            probe.stage("body_integration", (fxs, fys, dr))
        # Any NaN/inf in the new state makes this sum non-finite (every field is in it).
        if not isfinite(chk):
            LAYOUT.check_finite(st, f"tick {self.tick}")
        if probe is not None:
            probe.substep(self.tick, st)

    # ------------------------------------------------------------------ queries
    def state_hash(self) -> str:
        """The state hash (DESIGN §5) after the last host step."""
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
            "derived": list(self._derived),
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
        if not isinstance(derived, list) or len(derived) != len(self._derived):
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
        self._derived[:] = [float(v) for v in derived]

    def snapshot_json(self) -> str:
        """:meth:`snapshot` as JSON text."""
        return json.dumps(self.snapshot(), sort_keys=True)


__all__ = ["Simulation", "LAYOUT", "LAYOUT_VERSION", "CHANNELS", "INITIAL_KEYS"]
