"""Each validation scenario's pass/fail criteria catch a deliberately broken model (issue 7).

The breaks are monkeypatched into the engine for one test only (on the readable path:
the generated fast path does not call the stage functions it inlines):

* the brake as an explicit torque (no bounded constraint): it overshoots
  through zero spin, and the locked-wheel check must see chatter;
* a brake that slips when it should hold (the "held" wheel keeps a creep
  spin): the parks must fail on creep/drift;
* the same explicit brake in the timestep sweep: chatter in the cells;
* a changed car (softer front tyres, heavier yaw inertia, weaker tyres,
  rear-only brakes, one more kilogram): the ISO 4138, step steer, lane
  change, surfaces and scripted-hash figures must leave their golden tolerance.
"""

from __future__ import annotations

import copy

import pytest
from skidpad.engine.fourwheel import differential, simulation
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.scenarios.validation import (
    iso4138,
    lane_change,
    locked_wheels,
    parking,
    scripted_hash,
    step_steer,
    straight_line,
    surfaces,
    timestep_sweep,
)
from skidpad.scenarios.validation import run as vrun

GOLDEN = vrun.load_golden()
PRESET = "hatchbackFwd"


_REAL = differential.solve


def _explicit_brake():
    """The brake as a torque applied against the wheel's previous spin (no bounded constraint).

    The wheels are solved free (zero brake capacity), then each gets its full brake
    torque opposing the spin it had: a wheel that would cross zero is clamped to 0
    and called locked, and at 0 there is no torque at all, so the tire spins it up
    again the next substep — the naive brake that chatters.
    """
    prev = [None, None, None, None]

    def solve(k, b, d, cap, *rest):
        om, _tb, _held, x, *tail = _REAL(k, b, d, [0.0, 0.0, 0.0, 0.0], *rest)
        out = [0.0, 0.0, 0.0, 0.0]
        tb = [0.0, 0.0, 0.0, 0.0]
        held = [False, False, False, False]
        for i in range(4):
            w_old = om[i] if prev[i] is None else prev[i]
            sign = 1.0 if w_old > 0.0 else -1.0 if w_old < 0.0 else 0.0
            w = om[i] - sign * cap[i] / d[i]
            if sign != 0.0 and w * sign < 0.0:
                w = 0.0
                held[i] = True
            out[i] = w
            tb[i] = sign * cap[i]
        prev[:] = out
        return (out, tb, held, x, *tail)

    return solve


def _creeping_hold(k, b, d, cap, *rest):
    """A brake that slips when it should hold: a held wheel keeps turning at 2 mrad/s."""
    om, tb, held, *tail = _REAL(k, b, d, cap, *rest)
    om = [0.002 if held[i] and cap[i] > 100.0 else om[i] for i in range(4)]
    return (om, tb, held, *tail)


def _golden(name):
    g = vrun.golden_for(GOLDEN, PRESET, name)
    if g is None:
        pytest.skip("no golden figures yet (skidpad validate --bless)")
    return g


def test_real_brake_passes_the_locked_wheel_check():
    s = straight_line.stop(load_preset(PRESET), abs_on=False)
    assert locked_wheels.failures(locked_wheels.metrics(s)) == []


def test_explicit_brake_chatters_and_fails_the_locked_wheel_check(monkeypatch):
    monkeypatch.setattr(simulation, "DEFAULT_PATH", "readable")
    monkeypatch.setattr(differential, "solve", _explicit_brake())
    s = straight_line.stop(load_preset(PRESET), abs_on=False)
    m = locked_wheels.metrics(s)
    fails = locked_wheels.failures(m)
    assert any("chatter" in f for f in fails), fails


def test_creeping_hold_fails_the_park(monkeypatch):
    d = load_preset(PRESET)
    assert parking.case_failures("service_30", parking.park(d, "service_30")) == []
    monkeypatch.setattr(simulation, "DEFAULT_PATH", "readable")
    monkeypatch.setattr(differential, "solve", _creeping_hold)
    fails = parking.case_failures("service_30", parking.park(d, "service_30"))
    assert fails and any("drift" in f or "moving" in f for f in fails), fails


def test_explicit_brake_fails_the_timestep_sweep(monkeypatch):
    monkeypatch.setattr(simulation, "DEFAULT_PATH", "readable")
    monkeypatch.setattr(differential, "solve", _explicit_brake())
    r = timestep_sweep.run(load_preset(PRESET), substeps=(250,), hosts=(30,))
    assert timestep_sweep.failures(r)


def test_sweep_criteria_flag_a_cell_off_the_reference():
    ok = {
        "finite": True,
        "releases_moving": 0,
        "rest_speed_mps": 0.0,
        "park_failures": [],
        "kus_deg_per_g": 1.0,
        "distance_m": 40.0,
    }
    bad = dict(ok, dkus_deg_per_g=0.06, ddistance=0.0)
    far = dict(ok, dkus_deg_per_g=0.0, ddistance=-0.011)
    nan = {"finite": False, "error": "NonFiniteStateError"}
    assert (
        timestep_sweep.failures(
            {"reference": ok, "cells": {"a": dict(ok, dkus_deg_per_g=0.0, ddistance=0.0)}}
        )
        == []
    )
    for cell in (bad, far, nan):
        assert timestep_sweep.failures({"reference": ok, "cells": {"c": cell}})


def _broken(mutate):
    d = copy.deepcopy(load_preset(PRESET))
    mutate(d)
    return d


def test_softer_front_tyres_leave_the_iso4138_tolerance():
    g = _golden("iso4138")

    def softer(d):
        d["tires"]["front"]["cornering_stiffness_coef"] *= 0.9

    r = iso4138.run(_broken(softer))
    assert vrun.compare("iso4138", vrun.figures("iso4138", r), g)


def test_heavier_yaw_inertia_leaves_the_step_steer_tolerance():
    g = _golden("step_steer")

    def heavy(d):
        d["mass"]["yaw_inertia_kgm2"] *= 2.0

    bad = [
        p
        for p in vrun.compare(
            "step_steer", vrun.figures("step_steer", step_steer.run(_broken(heavy))), g
        )
        if "response" in p
    ]
    assert bad


def test_weaker_tyres_fail_the_lane_change_at_the_golden_speed():
    g = _golden("lane_change")
    kmh = g["pass_speed_kmh"]["value"]

    def slippery(d):
        for axle in ("front", "rear"):
            d["tires"][axle]["mu_y"] *= 0.6
            d["tires"][axle]["mu_x"] *= 0.6

    r = lane_change.run(_broken(slippery), speeds_kmh=(kmh,))
    assert r["pass_speed_kmh"] is None


def test_rear_only_brakes_spin_on_snow():
    def rear_only(d):
        d["brakes"]["front_bias"] = 0.0

    r = surfaces.run(_broken(rear_only), surfaces=("snow",), modes=("locked",))
    assert r["snow"]["locked"]["spins"]
    ok = surfaces.run(load_preset(PRESET), surfaces=("snow",), modes=("locked",))
    assert not ok["snow"]["locked"]["spins"]


def test_one_kilogram_changes_the_scripted_hash():
    g = _golden("scripted")

    def heavier(d):
        d["mass"]["total_kg"] += 1.0

    r = scripted_hash.run(_broken(heavier))
    assert vrun.compare("scripted", vrun.figures("scripted", r), g)
