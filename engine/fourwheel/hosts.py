"""Reference external hosts (:mod:`engine.fourwheel.host` is the contract they plug into).

**Backward-Euler wheel host** (:class:`BackwardEulerHost`): one integrator per
host-owned wheel, the only one for that spin,

    ω[k] = ω[k−1] + (T/I)·(T_axle[k] + T_tire[k])                      (rad/s)

with T the host period, I the wheel's inertia from the definition (counted
once: the engine no longer integrates that spin) plus, for the powertrain
torque source, the power unit's inertia reflected through the gear,
T_tire[k] the engine's mean tire torque of step k (computed with ω[k−1]: the
one step of delay) and T_axle[k] from a torque source. The engine's brakes
and the rolling resistance act through the host: their capacity (brake
capacity + rolling-resistance torque) is a bounded constraint on the update,
integrating the patch torque (as :func:`engine.fourwheel.constraint.bounded_solve` does
inside the engine), so a braked wheel stops and holds exactly at 0.

Torque sources: :class:`ScriptedTorque` (a function of the step) and
:class:`PowertrainTorque`, the preset's own power unit at a fixed gear,
rigidly coupled (clutch closed, engine speed G·ω_out floored at idle), its
crank torque T_e from :func:`engine.fourwheel.powertrain.torque` at the driver's
throttle, reaching wheel i as η·k_i·G·T_e with the driveline weights k_i
(an open differential's equal split).

**Bench host** (:class:`BenchHost`): the same integrator gives the command
ω_cmd = ω[k]; a dynamometer shaft (inertia J) follows it through a speed servo
of bandwidth ω_b and torque limit T_lim, loaded by the real axle torque,

    T_dyno = clip(J·(ω_cmd[k] − ω_cmd[k−1])/T + J·ω_b·(ω_cmd[k] − ω_act[k−1]) − T_axle, ±T_lim)
    ω_act[k] = ω_act[k−1] + (T/J)·(T_axle + T_dyno)

(the command's acceleration fed forward, the speed error fed back). The
actual speed never enters the engine (it cannot perturb the tire slip);
its health signal |ω_act − ω_cmd| is logged per wheel and raises the alarm
above a threshold: a saturated servo means the measured axle torque belongs
to another operating point. **Torque mode at standstill**: below a surface
speed ``standstill_mps``, while the brake constraint holds the wheel, the bench
holds that wheel's shaft in torque mode while the axle torque stays within
the wheel's friction bound (brake capacity + rolling resistance): ω = 0
exactly, the tire torque is not fed back (the speed loop, whose one step of
delay leaves it least damped, or unstable, at standstill, is not active),
and the health alarm is not evaluated. An axle torque beyond the bound
(driving away) returns the wheel to speed mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from skidpad.engine.fourwheel import drive, gearbox, powertrain
from skidpad.engine.fourwheel.constraint import bounded_solve
from skidpad.engine.fourwheel.host import HostExchange
from skidpad.engine.fourwheel.inputs import CHANNELS
from skidpad.engine.fourwheel.vehicle_layout import I_OMEGA

#: the position of the driver's throttle in a host step's inputs
THROTTLE = tuple(c.name for c in CHANNELS).index("throttle")


class ScriptedTorque:
    """Axle torque per host-owned wheel from ``torque(step) -> sequence`` (N·m)."""

    def __init__(self, torque: Callable[[int], Sequence[float]]) -> None:
        self.torque = torque

    def reflected_inertia(self, n: int) -> tuple:
        return (0.0,) * n

    def axle_torque(self, ex: HostExchange, inputs: Sequence) -> tuple:
        return tuple(self.torque(ex.step))


class PowertrainTorque:
    """The definition's power unit at its starting gear, rigidly coupled to the owned wheels."""

    def __init__(self, sim: object) -> None:
        dk = sim.drive_k
        link = sim.host_link
        w = dk.layout.weights
        total = 0.0
        for i in link.owned:
            total += w[i]
        if total <= 0.0:
            raise ValueError("powertrain torque: the host owns no driven wheel")
        self.k = tuple(w[i] / total for i in link.owned)
        omega = tuple(sim.state[i] for i in I_OMEGA)
        _throttle, _w_e, gear = drive.initial(dk, omega)
        self.gear = gear
        self.ratio = gearbox.ratio(dk.gearbox, gear)
        self.efficiency = dk.gearbox.efficiency
        self.unit = dk.power_unit
        self.idle = 0.0 if dk.motor else powertrain.idle_omega(dk.power_unit)
        self.j_e = powertrain.inertia(dk.power_unit)

    def reflected_inertia(self, n: int) -> tuple:
        g = self.ratio
        return tuple(self.j_e * g * g * k for k in self.k)

    def axle_torque(self, ex: HostExchange, inputs: Sequence) -> tuple:
        w_out = 0.0
        for k, w in zip(self.k, ex.omega_held, strict=True):
            w_out += k * w
        w_e = self.ratio * w_out
        if w_e < self.idle:
            w_e = self.idle
        t_e, _used = powertrain.torque(self.unit, w_e, inputs[THROTTLE])
        out = self.efficiency * self.ratio * t_e
        return tuple(out * k for k in self.k)


class BackwardEulerHost:
    """The backward-Euler wheel host of the module docstring, for one simulation."""

    name = "backward-euler"

    def __init__(self, sim: object, source: object) -> None:
        link = sim.host_link
        if link is None:
            raise ValueError("a host needs a simulation built with host wheels")
        self.source = source
        extra = source.reflected_inertia(len(link.owned))
        self.inertia = tuple(
            sim.wheels[i].inertia + e for i, e in zip(link.owned, extra, strict=True)
        )
        self.axle = (0.0,) * len(link.owned)

    def integrate(self, ex: HostExchange, inputs: Sequence) -> tuple:
        """ω[k] per owned wheel from the exchange of step k (the axle torques in ``axle``)."""
        self.axle = self.source.axle_torque(ex, inputs)
        return tuple(self.wheel(ex, j) for j in range(len(ex.omega_held)))

    def friction(self, ex: HostExchange, j: int) -> float:
        """Owned wheel ``j``'s friction bound: brake capacity + rolling resistance (N·m)."""
        return ex.brake_capacity[j] + ex.rolling_torque[j]

    def wheel(self, ex: HostExchange, j: int) -> float:
        """The backward-Euler update of owned wheel ``j`` with its friction bound."""
        a = self.inertia[j] / ex.period
        t_free = self.axle[j] + ex.patch_torque[j]
        w_new, _tb, _held = bounded_solve(a * ex.omega_held[j] + t_free, a, self.friction(ex, j))
        return w_new

    def step(self, ex: HostExchange, inputs: Sequence) -> tuple:
        return self.integrate(ex, inputs)


class BenchHealth(NamedTuple):
    """The bench's health after one host step, per owned wheel."""

    error: tuple  # |ω_act − ω_cmd| (rad/s)
    torque_mode: tuple  # the wheel is in torque mode (standstill)
    alarm: bool  # some wheel's error exceeds the threshold in speed mode


class BenchHost(BackwardEulerHost):
    """A dynamometer bench: the backward-Euler host plus the speed servo of each wheel."""

    name = "bench"

    def __init__(
        self,
        sim: object,
        source: object,
        *,
        shaft_inertia: float = 0.5,
        bandwidth: float = 200.0,
        torque_limit: float = 3000.0,
        alarm_threshold: float = 0.5,
        standstill_mps: float = 0.3,
    ) -> None:
        super().__init__(sim, source)
        link = sim.host_link
        n = len(link.owned)
        self.j = shaft_inertia
        self.bandwidth = bandwidth
        self.limit = torque_limit
        self.threshold = alarm_threshold
        self.standstill = tuple(standstill_mps / sim.wheels[i].radius for i in link.owned)
        self.actual = tuple(sim.state[I_OMEGA[i]] for i in link.owned)
        self.torque_mode = (False,) * n
        self.health = BenchHealth((0.0,) * n, self.torque_mode, False)
        self.alarms = 0

    def step(self, ex: HostExchange, inputs: Sequence) -> tuple:
        self.axle = self.source.axle_torque(ex, inputs)
        dt = ex.period
        cmd, actual, errors, modes = [], [], [], []
        alarm = False
        for j in range(len(ex.omega_held)):
            w_prev = ex.omega_held[j]
            t_axle = self.axle[j]
            bound = self.friction(ex, j)
            still = -self.standstill[j] < w_prev < self.standstill[j]
            if still and -bound <= t_axle <= bound:
                # torque mode: the shaft is held, the tire torque is not fed back
                cmd.append(0.0)
                actual.append(0.0)
                errors.append(0.0)
                modes.append(True)
                continue
            w_cmd = self.wheel(ex, j)
            w_act = self.actual[j]
            t_dyno = self.j * ((w_cmd - w_prev) / dt + self.bandwidth * (w_cmd - w_act)) - t_axle
            if t_dyno > self.limit:
                t_dyno = self.limit
            elif t_dyno < -self.limit:
                t_dyno = -self.limit
            w_act = w_act + dt / self.j * (t_axle + t_dyno)
            err = w_act - w_cmd if w_act >= w_cmd else w_cmd - w_act
            if err > self.threshold:
                alarm = True
            cmd.append(w_cmd)
            actual.append(w_act)
            errors.append(err)
            modes.append(False)
        self.actual = tuple(actual)
        self.torque_mode = tuple(modes)
        self.health = BenchHealth(tuple(errors), self.torque_mode, alarm)
        if alarm:
            self.alarms += 1
        return tuple(cmd)


def run_step(sim: object, host: object, inputs: Sequence) -> object:
    """One host step of the loop: the engine steps with ω[k−1], the host returns ω[k]."""
    telemetry = sim.step(inputs)
    sim.set_host_omega(host.step(sim.host_link.exchange, sim.inputs))
    return telemetry


#: The reference hosts by the name a recording's ``host`` block and ``skidpad record --host``
#: give them.
HOST_NAMES = ("backward-euler", "bench")


def make_host(name: str, sim: object) -> BackwardEulerHost:
    """The reference host ``name`` for ``sim``, its axle torque from the definition's own
    drivetrain when it owns a driven wheel (else no axle torque)."""
    link = sim.host_link
    weights = sim.drive_k.layout.weights
    if any(weights[i] > 0.0 for i in link.owned):
        source = PowertrainTorque(sim)
    else:
        zero = (0.0,) * len(link.owned)
        source = ScriptedTorque(lambda k: zero)
    if name == "backward-euler":
        return BackwardEulerHost(sim, source)
    if name == "bench":
        return BenchHost(sim, source)
    raise ValueError(f"unknown host {name!r}; known: {', '.join(HOST_NAMES)}")
