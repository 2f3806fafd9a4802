"""The CommonRoad daemon: scheduler, clamp, reset-with-swap, safety stages,
drift toggle, SOC limits, telemetry and hashing (issue 8); given parameters and
the probe a replay uses (ADR 0090, ADR 0165)."""

from __future__ import annotations

import json
import math

import pytest
from skidpad.engine.commonroad import safety
from skidpad.engine.commonroad.daemon import (
    STAGES,
    CommonRoadDaemon,
    DaemonParameters,
    make_layout,
    validate_inputs,
)
from skidpad.engine.commonroad.models import MODELS
from skidpad.engine.commonroad.params import load_vehicle
from skidpad.engine.commonroad.powertrain import load_powertrain, longitudinal
from skidpad.engine.commonroad.scheduler import MIN_DT_US, plan_steps
from skidpad.engine.errors import DefinitionError, InputError

from tests.helpers import commonroad_checkpoints

CRUISE = {"steer": 0.0, "throttle": 0.3, "brake": 0.0, "drift_toggle": 0}


# --- scheduler --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dt_us", "max_us", "n", "dt_sim"),
    [
        (16_667, 1_000, 16, 16_667),  # ceil(16.667) = 17 would be thinner than 1 ms
        (20_000, 1_000, 20, 20_000),
        (2_500, 1_000, 2, 2_500),  # ceil 3 -> 833 us < minimum -> 2
        (1_000, 1_000, 1, 1_000),
        (20_000, 10_000, 2, 20_000),
        (25_000, 10_000, 3, 25_000),
        (10_000, 10_000, 1, 10_000),
        (500, 10_000, 1, 1_000),  # clamped up
        (0, 1_000, 1, 1_000),
    ],
)
def test_plan_steps_split(dt_us, max_us, n, dt_sim):
    plan = plan_steps(dt_us, max_us)
    assert (plan.substeps, plan.dt_us) == (n, dt_sim)
    assert plan.dt_us / plan.substeps <= max(max_us, plan.dt_us / plan.substeps)
    assert plan.dt_us / plan.substeps >= MIN_DT_US
    assert plan.clamped == (dt_us < MIN_DT_US)


def test_plan_steps_never_exceeds_max_when_it_can():
    for dt in range(1_000, 60_001, 997):
        for max_us in (1_000, 5_000, 10_000):
            plan = plan_steps(dt, max_us)
            assert plan.dt_us / plan.substeps <= max_us or plan.substeps == dt // MIN_DT_US
            assert plan.dt_us / plan.substeps >= MIN_DT_US


@pytest.mark.parametrize("bad", [-1, 1_000_001, 1.5, True])
def test_plan_steps_rejects(bad):
    with pytest.raises(InputError):
        plan_steps(bad, 1_000)


def test_daemon_splits_host_step_into_substeps():
    d = CommonRoadDaemon("st", 2, initial={"speed": 10.0})
    tel = d.step_us(CRUISE, 16_667)
    assert tel.substeps == 16
    assert d.state[d.layout.index["clock.substeps"]] == 16
    assert d.time_us == 16_667
    assert tel.substep_s == 16_667 / 16 / 1e6


def test_one_long_step_equals_many_short_ones():
    """A 10 ms host step of ST is ten 1 ms substeps: same bits as ten 1 ms host steps."""
    a = CommonRoadDaemon("st", 2, initial={"speed": 15.0})
    b = CommonRoadDaemon("st", 2, initial={"speed": 15.0})
    inp = {"steer": 0.05, "throttle": 0.4}
    a.step_us(inp, 10_000)
    for _ in range(10):
        b.step_us(inp, 1_000)
    skip = {a.layout.index["safety.toggle_prev"]}
    assert [v for k, v in enumerate(a.state) if k not in skip] == [
        v for k, v in enumerate(b.state) if k not in skip
    ]


def test_substeps_keep_an_unstable_stride_stable():
    """Without the split, one 50 ms RK4 stride of ST at low speed diverges; with it, not."""
    from skidpad.engine.commonroad import st
    from skidpad.engine.commonroad.integrator import rk4_step

    p = load_vehicle(2)
    x = [0.0, 0.0, 0.1, 0.5, 0.0, 0.3, 0.05]
    big = rk4_step(st.derivatives, x, (0.0, 0.0), p, 0.05)
    assert abs(big[5]) > 10 * abs(x[5])  # the yaw mode blew up
    d = CommonRoadDaemon(
        "st", 2, initial={"speed": 0.5, "yaw_rate": 0.3, "beta": 0.05, "steer_angle": 0.1}
    )
    d.step_us({"steer": 0.1 / 1.066}, 50_000)
    assert d.telemetry().substeps == 50
    assert abs(d.state[5]) < abs(x[5]) * 1.5


# --- clamp flag -------------------------------------------------------------------------


def test_clamp_flag():
    d = CommonRoadDaemon("ks", 1, initial={"speed": 5.0})
    tel = d.step(CRUISE, 0.0004)
    assert tel.dt_clamped is True
    assert tel.dt_requested_us == 400 and tel.dt_us == 1_000
    assert d.time_us == 1_000
    tel = d.step(CRUISE, 0.002)
    assert tel.dt_clamped is False
    assert d.time_us == 3_000


def test_bad_dt_and_inputs_are_named():
    d = CommonRoadDaemon("ks", 1)
    with pytest.raises(InputError, match="dt"):
        d.step(CRUISE, float("nan"))
    with pytest.raises(InputError, match="throttle"):
        d.step({"throttle": 1.5}, 0.01)
    with pytest.raises(InputError, match="steer"):
        d.step({"steer": float("inf")}, 0.01)
    with pytest.raises(InputError, match="drift_toggle"):
        d.step({"drift_toggle": 2}, 0.01)
    with pytest.raises(InputError, match="wiper"):
        d.step({"wiper": 1.0}, 0.01)
    with pytest.raises(InputError, match="expected 4"):
        validate_inputs([0.0, 0.0])
    with pytest.raises(DefinitionError, match="unknown CommonRoad model"):
        CommonRoadDaemon("f1")
    with pytest.raises(DefinitionError, match="unknown CommonRoad vehicle"):
        CommonRoadDaemon("ks", 7)


# --- reset with swap --------------------------------------------------------------------


def test_reset_swaps_model_and_vehicle_keeping_configuration():
    d = CommonRoadDaemon(
        "st",
        2,
        initial={"speed": 12.0, "yaw": 0.3},
        powertrain={"battery_energy": 1.0e7},
        safety_overrides={"recover_speed": 2.0},
    )
    for _ in range(50):
        d.step({"throttle": 0.2, "steer": 0.02}, 0.01)
    before = d.telemetry()
    soc, steps, t = before.powertrain.soc, d.step_count, d.time_us
    d.reset(model="mb")
    assert d.model == "mb" and len(d.layout) == len(make_layout(MODELS["mb"]))
    assert d.layout.version == MODELS["mb"].layout_version
    ix = d.layout.index
    assert d.state[ix["model.x"]] == before.pose.x and d.state[ix["model.y"]] == before.pose.y
    assert d.state[ix["model.psi"]] == before.pose.yaw
    assert math.hypot(d.state[ix["model.vx"]], d.state[ix["model.vy"]]) == pytest.approx(
        before.velocity.speed, rel=1e-12
    )
    assert d.state[ix["battery.soc"]] == soc and d.step_count == steps and d.time_us == t
    assert d.powertrain.battery_energy == 1.0e7  # configured parameter kept
    assert d.safety.staging.recover_speed == 2.0
    tel = d.step({"throttle": 0.2}, 0.01)
    assert math.isfinite(tel.velocity.speed) and tel.velocity.speed > 5.0
    m_before = d.params.m
    d.reset(vehicle=3)
    assert d.params.m != m_before and d.params.name == "VW Vanagon"
    assert d.powertrain.battery_energy == 1.0e7
    d.reset(model="ks", vehicle="Ford Escort", initial={"speed": 3.0})
    assert d.step_count == 0 and d.time_us == 0 and d.state[3] == 3.0
    assert d.powertrain.battery_energy == 1.0e7


# --- safety -----------------------------------------------------------------------------


def _staging(**kw):
    return safety.load_safety("st", kw or None).staging


def test_stage_engages_blends_and_eases_out():
    st = _staging()
    stage, blend = safety.update_stage(st, safety.NORMAL, 0.0, 0.3, 20.0, 0.001)
    assert (stage, blend) == (safety.NORMAL, 0.0)
    stage, blend = safety.update_stage(st, stage, blend, 0.8, 20.0, 0.001)
    assert stage == safety.TRANSITION and blend == pytest.approx(0.5)
    stage, blend = safety.update_stage(st, stage, blend, 0.0, 20.0, 0.1)
    assert stage == safety.TRANSITION and blend == pytest.approx(0.4)  # eases at 1/release_time
    for _ in range(5):
        stage, blend = safety.update_stage(st, stage, blend, 0.0, 20.0, 0.1)
    assert (stage, blend) == (safety.NORMAL, 0.0)


def test_emergency_latches_until_speed_recovers():
    st = _staging()
    stage, blend = safety.update_stage(st, safety.TRANSITION, 0.5, 1.2, 20.0, 0.001)
    assert (stage, blend) == (safety.EMERGENCY, 1.0)
    # severity gone but still fast: latched
    stage, blend = safety.update_stage(st, stage, blend, 0.0, 20.0, 0.001)
    assert (stage, blend) == (safety.EMERGENCY, 1.0)
    # slow but severity still above the release band: latched
    stage, blend = safety.update_stage(st, stage, blend, 0.55, 1.0, 0.001)
    assert stage == safety.EMERGENCY
    # slow and calm: released into transition, easing out
    stage, blend = safety.update_stage(st, stage, blend, 0.0, 1.0, 0.25)
    assert stage == safety.TRANSITION and blend == pytest.approx(0.75)


def test_daemon_emergency_latch_and_release():
    d = CommonRoadDaemon("st", 2, initial={"speed": 22.0})
    stages = []
    for k in range(600):
        steer = 0.35 if k < 60 else 0.0
        tel = d.step({"steer": steer}, 0.01)
        stages.append((tel.safety.stage, tel.velocity.speed, tel.safety.severity))
    first = next(i for i, s in enumerate(stages) if s[0] == "emergency")
    assert first < 60
    released = next(i for i, s in enumerate(stages) if i > first and s[0] != "emergency")
    # latched while the car was still faster than the recovery speed
    assert all(s[1] > 3.0 or s[2] >= 0.5 for s in stages[first:released])
    assert any(s[2] < 0.5 for s in stages[first:released])  # calm but latched
    assert stages[released][0] == "transition"
    assert stages[-1][0] == "normal"
    # the emergency brake brought the speed down
    assert stages[released][1] <= 3.0


def test_intervention_cuts_throttle_and_brakes():
    st = _staging()
    assert safety.intervene(st, safety.NORMAL, 0.0, 0.5, 1.0, 0.0) == (0.5, 1.0, 0.0)
    s, t, b = safety.intervene(st, safety.TRANSITION, 0.5, 0.5, 1.0, 0.0)
    assert (s, t, b) == (0.5 * 0.75, 0.5, 0.0)
    s, t, b = safety.intervene(st, safety.EMERGENCY, 1.0, 0.5, 1.0, 0.0)
    assert t == 0.0 and b == st.emergency_brake and s == 0.25


def test_severity_is_worst_normalised_score():
    prof = safety.load_safety("st").normal
    sev, which = safety.severity(prof, (0.4, 0.075, 2.0, 0.0), (0.4, 0.075, 2.0, 0.0), 0.001)
    assert which == 1 and sev == pytest.approx(0.5)  # slip angle 0.075 / 0.15
    # a fast change trips the rate threshold although the magnitude is small
    sev, which = safety.severity(prof, (0.1, 0.0, 0.0, 0.0), (0.09, 0.0, 0.0, 0.0), 0.001)
    assert which == 0 and sev == pytest.approx(0.01 / 0.001 / 5.0)


# --- drift toggle -----------------------------------------------------------------------


def test_drift_toggle_flips_on_rising_edge():
    d = CommonRoadDaemon("std", 2, initial={"speed": 5.0})
    assert d.telemetry().safety.drift is True  # drift-capable model: drift by default
    assert d.step({"drift_toggle": 1}, 0.01).safety.drift is False
    assert d.step({"drift_toggle": 1}, 0.01).safety.drift is False  # held: no flip
    assert d.step({"drift_toggle": 0}, 0.01).safety.drift is False
    assert d.step({"drift_toggle": 1}, 0.01).safety.drift is True
    st = CommonRoadDaemon("st", 2)
    assert st.telemetry().safety.drift is False
    assert CommonRoadDaemon("st", 2, drift=True).telemetry().safety.drift is True
    st.reset(drift=True)  # opt in at reset
    assert st.telemetry().safety.drift is True
    st.reset(model="mb")  # a swap keeps the flag
    assert st.telemetry().safety.drift is True
    st.reset(model="st", initial={})  # a restart applies the configured override
    assert st.telemetry().safety.drift is True


def test_drift_profile_tolerates_what_normal_does_not():
    """The same slide: emergency under the normal profile, not under drift."""

    def run(drift):
        d = CommonRoadDaemon(
            "std", 2, initial={"speed": 12.0, "beta": -0.25, "yaw_rate": 0.5}, drift=drift
        )
        return d.step({"steer": 0.0}, 0.002).safety

    normal, drift = run(False), run(True)
    assert normal.stage == "emergency" and normal.severity > 1.0
    assert drift.stage != "emergency" and drift.severity < normal.severity


# --- SOC limits -------------------------------------------------------------------------


def test_soc_drive_limit():
    pt = load_powertrain(2)
    p = load_vehicle(2)
    full = longitudinal(pt, p, 5.0, 0.5, 1.0, 0.0)
    taper = longitudinal(pt, p, 5.0, pt.soc_min + pt.soc_drive_taper / 2, 1.0, 0.0)
    empty = longitudinal(pt, p, 5.0, pt.soc_min, 1.0, 0.0)
    assert not full.soc_drive_limited and taper.soc_drive_limited and empty.soc_drive_limited
    assert taper.drive_force == pytest.approx(full.drive_force / 2)
    assert empty.drive_force == 0.0


def test_soc_regen_limit_hands_braking_to_friction():
    pt = load_powertrain(2)
    p = load_vehicle(2)
    ok = longitudinal(pt, p, 10.0, 0.5, 0.0, 0.3)
    full = longitudinal(pt, p, 10.0, pt.soc_max, 0.0, 0.3)
    assert ok.regen_force > 0.0 and full.regen_force == 0.0 and full.soc_regen_limited
    assert ok.regen_force + ok.friction_force == pytest.approx(full.friction_force)
    assert ok.accel == pytest.approx(full.accel)


def test_soc_never_crosses_its_limits_in_a_drive():
    pt = load_powertrain(2)
    d = CommonRoadDaemon(
        "ks",
        2,
        initial={"speed": 0.0, "soc": pt.soc_min + 0.002},
        # small: the traction limit keeps the drive force low at walking pace
        powertrain={"battery_energy": 2.0e5, "aux_power": 0.0},
    )
    for _ in range(300):
        tel = d.step({"throttle": 1.0}, 0.02)
    assert tel.powertrain.soc_drive_limited
    # traction drains the battery towards soc_min but never below it
    assert pt.soc_min <= tel.powertrain.soc < pt.soc_min + 0.0015
    full = load_powertrain(2).power_max / tel.velocity.speed
    assert tel.powertrain.drive_force < 0.1 * full
    d = CommonRoadDaemon(
        "ks",
        2,
        initial={"speed": 30.0, "soc": pt.soc_max - 0.002},
        powertrain={"battery_energy": 2.0e6, "aux_power": 0.0},
    )
    for _ in range(300):
        tel = d.step({"brake": 0.5}, 0.02)
    assert tel.powertrain.soc <= pt.soc_max
    assert tel.powertrain.soc_regen_limited


def test_energy_account_matches_soc():
    d = CommonRoadDaemon("st", 1, initial={"speed": 5.0})
    soc0 = d.state[d.layout.index["battery.soc"]]
    for k in range(200):
        d.step({"throttle": 0.6 if k < 120 else 0.0, "brake": 0.3 if k >= 150 else 0.0}, 0.01)
    tel = d.telemetry()
    assert tel.totals.energy_j == pytest.approx(
        (soc0 - tel.powertrain.soc) * d.powertrain.battery_energy, rel=1e-9
    )
    assert tel.totals.regen_energy_j > 0.0
    assert tel.totals.distance_m > 10.0


# --- telemetry and hashing --------------------------------------------------------------


@pytest.mark.parametrize("model", ["ks", "st", "std", "mb"])
def test_telemetry_json_and_fields(model):
    d = CommonRoadDaemon(model, 2, initial={"speed": 10.0})
    tel = d.step({"throttle": 0.5, "steer": 0.05}, 0.005)
    doc = json.loads(tel.to_json())
    for key in (
        "pose",
        "velocity",
        "slip",
        "steering",
        "powertrain",
        "front",
        "rear",
        "totals",
        "safety",
    ):
        assert key in doc
    assert doc["model"] == model and doc["substeps"] == tel.substeps
    assert doc["steering"]["desired"] == pytest.approx(0.05 * d.params.steering.max)
    assert doc["powertrain"]["drive_force"] > 0.0
    assert doc["rear"]["drive_torque"] > 0.0  # vehicle 2 (T_se = 0) drives the rear axle
    assert doc["front"]["drive_torque"] == 0.0
    assert 0.0 < doc["rear"]["friction_use"] < 1.0
    assert len(doc["slip"]["wheel"]) == {"ks": 0, "st": 0, "std": 2, "mb": 4}[model]
    assert doc["tire_forces"] == (model in ("std", "mb"))


def test_mb_state_fields_are_named():
    names = make_layout(MODELS["mb"]).names
    assert "model.wheel.LF.omega" in names and "model.rear.z" in names
    assert "model.compliance.front.dy" in names
    assert not any(n.split(".")[-1].isdigit() for n in names)


def test_hash_is_reproducible_and_sensitive():
    def run(steer):
        d = CommonRoadDaemon("std", 1, initial={"speed": 8.0})
        for k in range(30):
            d.step({"throttle": 0.4, "steer": steer}, 0.012 if k % 2 else 0.008)
        return d

    a, b, c = run(0.05), run(0.05), run(0.0500001)
    assert a.state_hash() == b.state_hash() != c.state_hash()


def test_snapshot_restore_continues_identically():
    a = CommonRoadDaemon("mb", 2, initial={"speed": 10.0})
    for _ in range(5):
        a.step({"throttle": 0.3, "steer": 0.05}, 0.01)
    snap = json.loads(json.dumps(a.snapshot()))
    b = CommonRoadDaemon("ks", 1)
    b.restore(snap)
    assert b.state_hash() == a.state_hash()
    for _ in range(5):
        a.step({"throttle": 0.3, "steer": 0.05}, 0.01)
        b.step({"throttle": 0.3, "steer": 0.05}, 0.01)
    assert b.state_hash() == a.state_hash()


# --- given parameters and the substep hook ------------------------------------------------


def _drive(daemon: CommonRoadDaemon, probe: object = None) -> str:
    for k in range(40):
        daemon.step_us({"throttle": 0.5, "steer": 0.2 if k > 10 else 0.0}, 16_667, probe)
    return daemon.state_hash()


def test_given_parameters_replace_the_data_files():
    same = DaemonParameters(load_vehicle(2), load_powertrain(2), safety.load_safety("st"))
    init = {"speed": 5.0}
    reference = _drive(CommonRoadDaemon("st", 2, initial=init))
    assert _drive(CommonRoadDaemon("st", 2, initial=init, parameters=same)) == reference
    weak = DaemonParameters(
        load_vehicle(2), load_powertrain(2, {"power_max": 20_000.0}), safety.load_safety("st")
    )
    daemon = CommonRoadDaemon("st", 2, initial=init, parameters=weak)
    assert daemon.powertrain is weak.powertrain
    assert _drive(daemon) != reference


def test_given_parameters_are_refused_where_they_do_not_fit():
    given = DaemonParameters(load_vehicle(2), load_powertrain(2), safety.load_safety("st"))
    with pytest.raises(DefinitionError, match="vehicle_id: 2 is not the daemon's vehicle 1"):
        CommonRoadDaemon("st", 1, parameters=given)
    with pytest.raises(DefinitionError, match="cannot be given with them"):
        CommonRoadDaemon("st", 2, powertrain={"power_max": 1.0}, parameters=given)
    daemon = CommonRoadDaemon("st", 2, initial={"speed": 5.0}, parameters=given)
    before = daemon.state_hash()
    for swap in ({"model": "ks"}, {"vehicle": 1}):
        with pytest.raises(DefinitionError, match="cannot swap"):
            daemon.reset(**swap)
    assert daemon.model == "st" and daemon.state_hash() == before
    daemon.reset(initial={"speed": 1.0})  # a restart on the same model and vehicle is fine
    assert daemon.params is given.vehicle


class _Recorder:
    """A probe that keeps what it is told: stage names and values, then the substep."""

    def __init__(self) -> None:
        self.stages: list[tuple[str, tuple]] = []
        self.substeps: list[tuple[int, list[tuple[str, tuple]], tuple]] = []

    def stage(self, name: str, values: tuple) -> None:
        self.stages.append((name, tuple(values)))

    def substep(self, tick: int, state: list) -> None:
        self.substeps.append((tick, self.stages, tuple(state)))
        self.stages = []


@pytest.mark.parametrize("model", sorted(MODELS))
def test_probe_sees_every_stage_and_substep_and_changes_nothing(model):
    probe = _Recorder()
    probed = CommonRoadDaemon(model, 2, initial={"speed": 5.0})
    plain = CommonRoadDaemon(model, 2, initial={"speed": 5.0})
    assert _drive(probed, probe) == _drive(plain)
    assert probed.state == plain.state
    substeps = probed.state[probed.layout.index["clock.substeps"]]
    assert [t for t, _, _ in probe.substeps] == list(range(1, substeps + 1))
    n = len(MODELS[model].states)
    # the state after the substep (the clock's time advances once the host step is done)
    assert probe.substeps[-1][2][:n] == tuple(probed.state[:n])
    for _, stages, state in probe.substeps:
        assert tuple(name for name, _ in stages) == STAGES
        values = dict(stages)
        # the integration stage reports the model state the substep ends with
        assert values["integration"] == state[:n]
        assert all(isinstance(v, float) and math.isfinite(v) for _, vs in stages for v in vs)


def test_probe_values_follow_the_inputs():
    """The stage values are the substep's own: another steer moves the steering stage."""
    a, b = _Recorder(), _Recorder()
    for probe, steer in ((a, 0.1), (b, -0.1)):
        d = CommonRoadDaemon("st", 2, initial={"speed": 5.0})
        d.step_us({"throttle": 0.2, "steer": steer}, 10_000, probe)
    first = dict(a.substeps[0][1]), dict(b.substeps[0][1])
    assert first[0]["safety_intervention"][0] == 0.1 and first[1]["safety_intervention"][0] == -0.1
    assert first[0]["steering_controller"][0] > 0.0 > first[1]["steering_controller"][0]


def test_daemon_keeps_the_inputs_it_applied():
    d = CommonRoadDaemon("st", 2)
    d.step_us({"throttle": 1, "drift_toggle": 1}, 10_000)
    assert d.inputs == (0.0, 1.0, 0.0, 1) and isinstance(d.inputs[1], float)
    with pytest.raises(InputError, match="dt_us"):
        d.step_us({"throttle": 0.5}, 2_000_000)
    assert d.inputs == (0.0, 1.0, 0.0, 1)  # a refused step applies nothing


# --- scripted drive -----------------------------------------------------------------------


def test_scripted_drive_lands_on_30_s_with_clamped_frames():
    from skidpad.engine.commonroad import scripted

    d = CommonRoadDaemon("ks", 1, initial=dict(scripted.INITIAL))
    clamped = 0
    toggles = 0
    dts = []
    for inputs, dt, tel in scripted.drive_steps(d):
        clamped += tel.dt_clamped
        toggles += inputs["drift_toggle"]
        dts.append(dt)
    assert d.time_us == scripted.DURATION_US
    assert clamped > 100 and toggles > 0
    assert min(dts[:-1]) == 700 and max(dts) == 33_333
    assert d.telemetry().totals.distance_m > 100.0
    assert d.telemetry().safety.drift is True  # KS starts in normal; the toggle press flipped it
    checkpoints, final = commonroad_checkpoints("ks", 1, every=500)
    assert final == d.state_hash()
    assert [c[0] for c in checkpoints] == [500, 1000, 1500, 2000]
    assert len({c[1] for c in checkpoints}) == 4


def test_swap_to_and_from_ks_keeps_the_cog_pose_and_speed():
    """KS is referenced at the rear axle: a swap moves the reference point, not the car."""
    d = CommonRoadDaemon("st", 2, initial={"speed": 10.0, "yaw": 0.7, "steer_angle": 0.05})
    before = d.telemetry()
    d.reset(model="ks")
    after = d.telemetry()
    assert after.pose.x == pytest.approx(before.pose.x, abs=1e-12)
    assert after.pose.y == pytest.approx(before.pose.y, abs=1e-12)
    assert after.velocity.speed == pytest.approx(before.velocity.speed, rel=1e-12)
    ix = d.layout.index
    assert d.state[ix["model.x"]] == pytest.approx(before.pose.x - d.params.b * math.cos(0.7))
    d.reset(model="st")
    back = d.telemetry()
    assert back.pose.x == pytest.approx(before.pose.x, abs=1e-12)
    assert back.velocity.speed == pytest.approx(10.0, rel=1e-12)


@pytest.mark.parametrize("model", ["st", "std", "mb"])
def test_rolling_backwards_does_not_crash(model):
    """Reverse (ADR 0062): the reference MB raises here; the daemon brakes the car to rest."""
    d = CommonRoadDaemon(model, 2, initial={"speed": -3.0})
    for _ in range(150):
        tel = d.step({"brake": 0.5}, 0.01)
        assert math.isfinite(tel.velocity.speed)
    assert tel.velocity.speed < 0.2
