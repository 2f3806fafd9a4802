"""No tire force exceeds what friction allows, at any speed, forwards or backwards (physics 10).

The low-speed damper acts on the patch's deflection rate; before physics 10 it was
bounded by nothing, and a car sliding backwards after a spin, or a wheel spun up from
rest, got several times μ·F_z from it (6.9 kN on a 1.46 kN load was measured). Now a
patch whose damped force would leave the friction ellipse slides (``engine.fourwheel.tire.deflect``)
and is solved again undamped (``engine.fourwheel.wheel.solve``).

Each preset is driven through a spin, every assist off: 60 km/h with the car already
yawing at 3 rad/s, 1 s at full lock with the handbrake, 4 s with nothing braking while it
slides backwards (the drive asserts it does) and stops, then 2 s of full throttle. Every
substep's final patch forces are checked against the ellipse of the patch's own friction
limits ``(F_x/D_x)² + (F_y/D_y)² <= 1``. The mechanism is toggled: with the ellipse taken
out of the sliding test (the damper unbounded, as before physics 10), each preset's drive
must exceed it by half at least, so every drive reaches the case.
"""

from __future__ import annotations

import pytest
from skidpad.engine.fourwheel import tire, wheel
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.simulation import Simulation

HOST_HZ = 100
ASSISTS_OFF = (0, -1, -1, -1, -1)
SPIN = (0.0, 0.0, 1.0, 1.0) + ASSISTS_OFF  # full left lock, handbrake
COAST = (0.0, 0.0, 1.0, 0.0) + ASSISTS_OFF  # still at lock, nothing braking
LAUNCH = (1.0, 0.0, 0.0, 0.0) + ASSISTS_OFF
#: the ellipse's ratio allowed above 1: rounding of a force computed at the limit
ROUNDING = 1e-9


class PatchWatch:
    """Wraps ``tire.deflect`` and ``wheel.solve``: after each wheel solve, the worst ratio
    ``(F_x/D_x)² + (F_y/D_y)²`` over the patches it returned (the last deflection of each
    wheel is the one the solve used), and whether that patch's damper was acting."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.last: dict = {}
        self.worst = 0.0
        self.worst_damped = 0.0
        self.backwards = False
        deflect, solve = tire.deflect, wheel.solve

        def watched_deflect(w, t, omega_n, v_x, h, inv_h):
            pu = deflect(w, t, omega_n, v_x, h, inv_h)
            self.last[id(w)] = (t, pu, v_x)
            return pu

        def watched_solve(*args, **kwargs):
            self.last.clear()
            out = solve(*args, **kwargs)
            for t, pu, v_x in self.last.values():
                ratio = (pu.fx / t.dx) ** 2 + (pu.fy / t.dy) ** 2
                self.worst = max(self.worst, ratio)
                if t.damper_x != 0.0 or t.damper_y != 0.0:
                    self.worst_damped = max(self.worst_damped, ratio)
                self.backwards = self.backwards or v_x < -1.0
            return out

        monkeypatch.setattr(tire, "deflect", watched_deflect)
        monkeypatch.setattr(wheel, "solve", watched_solve)


def spin_slide_and_launch(preset: str, watch: PatchWatch) -> None:
    initial = {"speed_mps": 60 / 3.6, "yaw_rate_radps": 3.0}
    sim = Simulation(load_preset(preset), host_hz=HOST_HZ, initial=initial, path="readable")
    for _ in range(int(1.0 * HOST_HZ)):
        sim.step(SPIN)
    for _ in range(int(4.0 * HOST_HZ)):
        sim.step(COAST)
    for _ in range(int(2.0 * HOST_HZ)):
        sim.step(LAUNCH)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_no_tire_force_leaves_the_friction_ellipse_through_a_spin_and_a_launch(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    watch = PatchWatch(monkeypatch)
    spin_slide_and_launch(preset, watch)
    assert watch.backwards, f"{preset}: the drive never slid backwards"
    worst = watch.worst**0.5
    assert watch.worst <= 1.0 + ROUNDING, f"{preset}: a tire force at {worst:.3f} of its limit"


def test_the_unbounded_damper_leaves_the_ellipse_in_the_same_drives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mechanism toggled: the damper unbounded (the ellipse taken out of the sliding
    test, as before physics 10), the same drives push a damped force past the limit."""
    deflect = tire.deflect

    def unbounded(w, t, omega_n, v_x, h, inv_h):
        far = t._replace(dx=float("inf"), dy=float("inf"))  # no force is beyond infinity
        return deflect(w, far, omega_n, v_x, h, inv_h)

    monkeypatch.setattr(tire, "deflect", unbounded)
    beyond = {}
    for preset in PRESET_NAMES:
        with pytest.MonkeyPatch.context() as mp:
            watch = PatchWatch(mp)
            spin_slide_and_launch(preset, watch)
        beyond[preset] = watch.worst_damped ** 0.5
    assert all(ratio > 1.5 for ratio in beyond.values()), beyond
