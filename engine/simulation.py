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
4. ``wheel_solve``: per wheel, the implicit relaxation + damping of the
   patch with the wheel's spin and the bounded brake/rolling-resistance
   constraint (:mod:`engine.wheel`), drive torque from :mod:`engine.drive`;
   then the deflection update and its saturation at the sliding slip.
5. ``body_integration``: Newton–Euler for the body (semi-implicit Euler,
   :mod:`engine.body`), roll and pitch (:mod:`engine.suspension`),
   compliance steer and the provisional drive state.

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
from math import sqrt

from engine import (
    aero,
    body,
    brakes,
    drive,
    load_transfer,
    smath,
    steering,
    suspension,
    tire,
    wheel,
)
from engine.definition import definition_hash, validate_definition
from engine.errors import DefinitionError, SkidpadError
from engine.inputs import CHANNELS, DEFAULTS, INPUT_VERSION, inputs_from_mapping, validate_inputs
from engine.state import NonFiniteStateError, StateLayout
from engine.telemetry import Telemetry, build_telemetry

#: Bumped whenever the state layout (fields, order, meaning) changes.
LAYOUT_VERSION = 1

LAYOUT = StateLayout(
    LAYOUT_VERSION,
    body.FIELDS + suspension.FIELDS + steering.FIELDS + wheel.FIELDS + tire.FIELDS + drive.FIELDS,
)

G = load_transfer.G
WHEELS = ("FL", "FR", "RL", "RR")

_I = LAYOUT.index
I_X, I_Y, I_YAW, I_HC, I_HS = (
    _I["body.x"],
    _I["body.y"],
    _I["body.yaw"],
    _I["body.heading_c"],
    _I["body.heading_s"],
)
I_VX, I_VY, I_R, I_AX, I_AY = (
    _I["body.vx"],
    _I["body.vy"],
    _I["body.yaw_rate"],
    _I["body.ax"],
    _I["body.ay"],
)
I_ROLL, I_ROLL_RATE = _I["suspension.roll"], _I["suspension.roll_rate"]
I_PITCH, I_PITCH_RATE = _I["suspension.pitch"], _I["suspension.pitch_rate"]
I_DC_FL, I_DC_FR = _I["steer.FL.compliance"], _I["steer.FR.compliance"]
I_OMEGA = tuple(_I[f"wheel.{w}.omega"] for w in WHEELS)
I_UX = tuple(_I[f"tire.{w}.ux"] for w in WHEELS)
I_UY = tuple(_I[f"tire.{w}.uy"] for w in WHEELS)
I_THROTTLE = _I["drive.throttle"]

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
    if out["speed_mps"] < 0.0:
        raise DefinitionError("initial.speed_mps: must be >= 0")
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
        self._host_update(DEFAULTS)
        self._derived: list = self._derived_zero()
        LAYOUT.check_finite(self.state, "initial state")

    # ----------------------------------------------------------------- constants
    def _build_constants(self) -> None:
        d = self.definition
        ini = self.initial
        h = 1.0 / self.substep_hz
        self.h = h
        lt = load_transfer.constants(d)
        self._lt = lt
        gx, gy, gn = body.road_gravity(G, ini["grade"], ini["cross_grade"])
        self.g_world = (gx, gy)
        self.g_normal = gn
        s_f, s_r = load_transfer.static_loads(lt, gn)
        self.static_loads = (s_f, s_f, s_r, s_r)
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
        self._drive_k = drive.constants(d["drive"])
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
        return st

    def _derived_zero(self) -> list:
        # Per wheel: fz, fx, fy, mz, brake torque, capacity, held(0/1), drive torque, vx, vsy.
        return [0.0] * 40 + [0.0, 0.0, 0.0]

    # ------------------------------------------------------------------ stepping
    def _host_update(self, inputs: tuple) -> None:
        throttle, brake, steer, handbrake = inputs[0], inputs[1], inputs[2], inputs[3]
        delta, angles = steering.host_angles(self._steer_k, steer)
        self._delta_ref = delta
        self._host_angles = angles
        self._caps = brakes.capacities(self._brake_k, brake, handbrake)
        self._pedal = throttle
        self._jack = self._steer_k[7] * delta

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
        for _ in range(n):
            self._substep(probe)
        self.step_count += 1
        return self.telemetry()

    def _substep(self, probe: object) -> None:  # noqa: C901  (the hot path, kept flat on purpose)
        st = self.state
        h = self.h
        vx, vy, r = st[I_VX], st[I_VY], st[I_R]
        hc, hs = st[I_HC], st[I_HS]
        lt = self._lt
        mass = lt["m"]
        # 1. steering
        dc_fl, dc_fr = st[I_DC_FL], st[I_DC_FR]
        (d_fl, c_fl, s_fl), (d_fr, c_fr, s_fr), rl, rr = self._host_angles
        cd, sd = steering.small_rotation(dc_fl)
        c0, s0 = c_fl * cd - s_fl * sd, s_fl * cd + c_fl * sd
        cd, sd = steering.small_rotation(dc_fr)
        c1, s1 = c_fr * cd - s_fr * sd, s_fr * cd + c_fr * sd
        cos_w = (c0, c1, rl[1], rr[1])
        sin_w = (s0, s1, rl[2], rr[2])
        if probe is not None:
            probe.stage("steering", (d_fl + dc_fl, d_fr + dc_fr, rl[0], rr[0]))
        # 2. load transfer
        drag, down_f, down_r = aero.forces(self._aero_k, vx)
        s_f, _, s_r, _ = self.static_loads
        fz = load_transfer.wheel_loads(
            self._lt_k,
            s_f,
            s_r,
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
        # 3. tire spring forces and hub velocities
        surface = self.surface
        omega = [st[I_OMEGA[0]], st[I_OMEGA[1]], st[I_OMEGA[2]], st[I_OMEGA[3]]]
        theta = drive.update_throttle(self._drive_k, st[I_THROTTLE], self._pedal, h)
        t_drive = drive.wheel_torques(self._drive_k, theta, omega[0], omega[1], omega[2], omega[3])
        pre = []
        for i in range(4):
            pw = self._per_wheel[i]
            x_i, y_i, k = pw[0], pw[1], pw[2]
            c, s = cos_w[i], sin_w[i]
            hvx = vx - r * y_i
            hvy = vy + r * x_i
            v_x = hvx * c + hvy * s
            v_sy = -hvx * s + hvy * c
            ux, uy = st[I_UX[i]], st[I_UY[i]]
            f_z = fz[i]
            if f_z > 0.0:
                dx, dy, kxs, kys = tire.load_terms(k, f_z, surface)
                phx = kxs * ux
                phy = kys * uy
                rho = sqrt(phx * phx + phy * phy)
                shp = tire.shape(pw[9], pw[17], rho)
                pre.append((v_x, v_sy, dx * shp * phx, dy * shp * phy, kxs, kys, rho))
            else:
                pre.append((v_x, v_sy, 0.0, 0.0, 0.0, 0.0, -1.0))
        if probe is not None:
            probe.stage("tire_forces", tuple(v for p in pre for v in p[2:4]))
        # 4. wheel solve
        caps = self._caps
        new_omega = [0.0, 0.0, 0.0, 0.0]
        new_ux = [0.0, 0.0, 0.0, 0.0]
        new_uy = [0.0, 0.0, 0.0, 0.0]
        fx_w = [0.0, 0.0, 0.0, 0.0]
        fy_w = [0.0, 0.0, 0.0, 0.0]
        mz_w = [0.0, 0.0, 0.0, 0.0]
        derived = self._derived
        for i in range(4):
            pw = self._per_wheel[i]
            v_x, v_sy, fx0, fy0, kxs, kys, rho = pre[i]
            rad, a_i = pw[3], pw[5]
            ux, uy = st[I_UX[i]], st[I_UY[i]]
            f_z = fz[i]
            abs_v = abs(v_x)
            if rho >= 0.0:
                rho_cap = pw[8]
                if rho >= rho_cap * (1.0 - 1e-12):
                    cxd = 0.0
                    cyd = 0.0
                else:
                    fade = 1.0 / (1.0 + v_x * v_x * pw[12])
                    cxd = pw[10] * fade
                    cyd = pw[11] * fade
                relax_x = 1.0 / (1.0 + abs_v * pw[6])
                relax_y = 1.0 / (1.0 + abs_v * pw[7])
                uy_n = relax_y * (uy - h * v_sy)
                cap = caps[i] + pw[15] * f_z
                w_i = omega[i]
                t_d = t_drive[i]
                rate_x = -v_x - abs_v * ux * pw[16]
                while True:
                    # Pass 1 with the low-speed damper; if the patch turns out to slide
                    # (deflection past the cap), pass 2 without it: a sliding patch does
                    # not deflect further, so the damper sees no rate and adds no force.
                    q = cxd * relax_x * rad
                    p = fx0 + cxd * relax_x * rate_x
                    w_n, t_b, held = wheel.bounded_solve(
                        a_i, w_i, t_d - rad * p, a_i + rad * q, cap
                    )
                    ux_n = relax_x * (ux + h * (rad * w_n - v_x))
                    px = kxs * ux_n
                    py = kys * uy_n
                    r2 = px * px + py * py
                    if r2 <= rho_cap * rho_cap:
                        break
                    if cxd == 0.0 and cyd == 0.0:
                        scale = rho_cap / sqrt(r2)
                        ux_n *= scale
                        uy_n *= scale
                        break
                    cxd = 0.0
                    cyd = 0.0
                fx = p + q * w_n
                fy = fy0 + cyd * (uy_n - uy) / h
                mz = -pw[13] / (1.0 + rho * rho * pw[14]) * fy
            else:  # wheel off the ground: no force, the patch relaxes, the wheel spins freely
                cap = caps[i]
                w_n, t_b, held = wheel.bounded_solve(a_i, omega[i], t_drive[i], a_i, cap)
                fx = fy = mz = ux_n = uy_n = 0.0
            new_omega[i] = w_n
            new_ux[i] = ux_n
            new_uy[i] = uy_n
            fx_w[i] = fx
            fy_w[i] = fy
            mz_w[i] = mz
            j = 10 * i
            derived[j : j + 10] = [
                f_z,
                fx,
                fy,
                mz,
                t_b,
                cap,
                1.0 if held else 0.0,
                t_drive[i],
                v_x,
                v_sy,
            ]
        if probe is not None:
            probe.stage(
                "wheel_solve",
                tuple(new_omega) + tuple(fx_w) + tuple(fy_w) + tuple(derived[6::10][:4]),
            )
        # 5. body integration
        fx_tot = drag
        fy_tot = 0.0
        m_z = 0.0
        for i in range(4):
            c, s = cos_w[i], sin_w[i]
            fbx = fx_w[i] * c - fy_w[i] * s
            fby = fx_w[i] * s + fy_w[i] * c
            x_i, y_i = self._per_wheel[i][0], self._per_wheel[i][1]
            fx_tot += fbx
            fy_tot += fby
            m_z += x_i * fby - y_i * fbx + mz_w[i]
        gx, gy = self.g_world
        gxb = gx * hc + gy * hs
        gyb = -gx * hs + gy * hc
        fxs = fx_tot / mass
        fys = fy_tot / mass
        vx_n = vx + h * (fxs + gxb + r * vy)
        vy_n = vy + h * (fys + gyb - r * vx)
        r_n = r + h * m_z / lt["iz"]
        hc_n, hs_n = body.rotate_heading(hc, hs, h * r_n)
        roll, roll_rate, pitch, pitch_rate = suspension.step(
            self._sus_k, h, fxs, fys, st[I_ROLL], st[I_ROLL_RATE], st[I_PITCH], st[I_PITCH_RATE]
        )
        sk = self._steer_k
        st[I_X] = st[I_X] + h * (vx_n * hc_n - vy_n * hs_n)
        st[I_Y] = st[I_Y] + h * (vx_n * hs_n + vy_n * hc_n)
        st[I_YAW] = st[I_YAW] + h * r_n
        st[I_HC], st[I_HS] = hc_n, hs_n
        st[I_VX], st[I_VY], st[I_R] = vx_n, vy_n, r_n
        st[I_AX], st[I_AY] = fxs, fys
        st[I_ROLL], st[I_ROLL_RATE], st[I_PITCH], st[I_PITCH_RATE] = (
            roll,
            roll_rate,
            pitch,
            pitch_rate,
        )
        st[I_DC_FL] = steering.update_compliance(sk, dc_fl, mz_w[0], h)
        st[I_DC_FR] = steering.update_compliance(sk, dc_fr, mz_w[1], h)
        for i in range(4):
            st[I_OMEGA[i]] = new_omega[i]
            st[I_UX[i]] = new_ux[i]
            st[I_UY[i]] = new_uy[i]
        st[I_THROTTLE] = theta
        derived[40], derived[41], derived[42] = (
            fxs + gxb + r * vy,
            fys + gyb - r * vx,
            m_z / lt["iz"],
        )
        self.tick += 1
        if probe is not None:
            probe.stage("body_integration", (fxs, fys, derived[42]))
        # Any NaN/inf anywhere in the state makes this sum non-finite.
        chk = 0.0
        for v in st:
            chk += v
        if not math.isfinite(chk):
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
