"""The external-host contract (engine.fourwheel.host), the reference hosts
(engine.fourwheel.hosts), host recordings and the loop analysis (scenarios.host_loop),
issue 18.

Every check can fail: the delay test plants an extra delay and sees it; the
alarm test has a quiet case; the torque-mode test switches the mode off and
sees the car go; the loop figures are compared with predictions computed from
the preset's data, never with numbers copied from a run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel import hosts
from skidpad.engine.fourwheel.host import SURFACE_SPEED_LIMIT, HostError
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.fourwheel.vehicle_layout import I_OMEGA
from skidpad.replay import recording
from skidpad.replay.golden import read_golden
from skidpad.replay.recorder import record_drive
from skidpad.replay.recording import RecordingError
from skidpad.replay.replayer import replay
from skidpad.scenarios import host_loop, random_drive

ROOT = Path(__file__).resolve().parents[1]
HOST_RECORDINGS = sorted((ROOT / "recordings").glob("*-host-*.json"))


def preset(name: str) -> dict:
    return engine_definition.load_preset(name)


# ------------------------------------------------------------------------ the contract


def response_delay(definition: dict, planted: int = 0) -> int:
    """Host steps between a jump in the host's speed and the first exchange it changes.

    Two runs, the host returning the held speed or, from step 20 on, that speed plus
    1 rad/s; ``planted`` holds the host's speeds back that many further steps (what
    the contract forbids)."""

    def run(jump: bool) -> list:
        sim = Simulation(definition, host_hz=1000, initial={"speed_mps": 10.0}, host_wheels="front")
        base = tuple(sim.state[I_OMEGA[i]] for i in (0, 1))
        queue: list = []
        out = []
        for k in range(40):
            sim.step(sim.inputs)
            out.append(sim.host_link.exchange.patch_torque)
            w = tuple(x + 1.0 for x in base) if jump and k >= 20 else base
            queue.append(w)
            if len(queue) > planted:
                sim.set_host_omega(queue.pop(0))
        return out

    a, b = run(False), run(True)
    first = next(k for k in range(40) if a[k] != b[k])
    return first - 20


def test_exactly_one_step_of_delay_and_a_planted_one_is_seen() -> None:
    d = preset("hatchbackFwd")
    assert response_delay(d) == 1
    assert response_delay(d, planted=1) == 2


def test_a_planted_delay_in_the_loop_is_seen_in_its_damping() -> None:
    """With exactly one step of delay the 10 m/s loop rings as the discrete loop predicts
    and the 20 m/s loop is stable; a second step of delay (each step costs about
    ω_n·T/2 = 0.14 of damping here) makes the 20 m/s loop diverge."""
    d = preset("hatchbackFwd")
    pred = host_loop.predict(d)
    _t, om, t0 = host_loop.step_response(d, 10.0)
    fit = host_loop.fit_ringing(om, t0, 1000)
    assert fit.zeta == pytest.approx(pred.discrete(10.0)[1], rel=0.2)
    steps = round((host_loop.SETTLE_S + host_loop.FIT_S) * 1000)
    _t, om, t0 = host_loop.step_response(d, 20.0)
    assert not host_loop.diverges(om, t0, steps)
    _t, om, t0 = host_loop.step_response(d, 20.0, extra_delay=1)
    assert host_loop.diverges(om, t0, steps)


def test_the_ringing_fit_recovers_a_known_second_order_response() -> None:
    """The AR(2) fit (pure Python least squares) finds the poles of a sampled damped
    oscillation it is given exactly: omega_n 40 rad/s, zeta 0.15, 1 kHz."""
    wn, zeta, rate = 40.0, 0.15, 1000
    wd = wn * math.sqrt(1.0 - zeta * zeta)
    omega = [0.0] + [
        1.0 - math.exp(-zeta * wn * k / rate) * math.cos(wd * k / rate) for k in range(1, 400)
    ]
    fit = host_loop.fit_ringing(omega, 1, rate, window_s=0.3)
    assert fit.rings
    assert fit.omega_n == pytest.approx(wn, rel=1e-6)
    assert fit.zeta == pytest.approx(zeta, rel=1e-6)


def test_least_squares_solves_an_exact_system_and_refuses_dependent_columns() -> None:
    c1 = [math.sin(0.37 * k) for k in range(50)]
    c2 = [math.cos(0.11 * k) for k in range(50)]
    y = [0.5 * a - 0.25 * b + 2.0 for a, b in zip(c1, c2, strict=True)]
    x = host_loop.least_squares([c1, c2, [1.0] * 50], y)
    assert x == pytest.approx([0.5, -0.25, 2.0], rel=1e-12)
    with pytest.raises(ValueError, match="linearly dependent"):
        host_loop.least_squares([c1, [2.0 * v for v in c1]], y)


def test_the_host_wheels_must_not_split_a_coupling() -> None:
    with pytest.raises(HostError, match="both wheels of the front axle"):
        Simulation(preset("hatchbackFwd"), host_wheels=["FL"])
    with pytest.raises(HostError, match="centre coupling"):
        Simulation(preset("pickup4x4"), host_wheels="front")
    with pytest.raises(HostError, match="unknown wheel set"):
        Simulation(preset("pickup4x4"), host_wheels="left")
    # an undriven axle, or all four wheels, are fine
    Simulation(preset("sportsRwd"), host_wheels="front")
    Simulation(preset("pickup4x4"), host_wheels="all")


def test_the_engine_drives_only_the_wheels_it_still_owns() -> None:
    """A rear-driven car whose front axle the host owns still accelerates under its own
    power; with the rear axle owned by a host returning the held speeds, full throttle
    moves nothing (the engine's clutch is open: it drives no wheel)."""
    d = preset("sportsRwd")
    throttle = (1.0, 0.0, 0.0, 0.0) + tuple(Simulation(d).inputs[4:])
    for wheels, accelerates in (("front", True), ("rear", False)):
        sim = Simulation(d, host_hz=100, initial={"speed_mps": 10.0}, host_wheels=wheels)
        for _ in range(50):
            sim.step(throttle)
            sim.set_host_omega(sim.host_link.exchange.omega_held)
        speed = sim.telemetry().speed
        assert speed > 10.5 if accelerates else speed < 10.1, (wheels, speed)


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ((math.nan, 0.0), "wheel FL: speed nan is not finite"),
        ((0.0, math.inf), "wheel FR: speed inf is not finite"),
        ((0.0, 2.0 * SURFACE_SPEED_LIMIT / 0.316), "wheel FR"),
        ((0.0,), "returned 1 wheel speeds for the 2 wheels"),
        ((0.0, 0.0, 0.0), "returned 3 wheel speeds"),
        ((0.0, "fast"), "wheel FR: speed 'fast' is not a number"),
        (5.0, "not speeds"),
    ],
)
def test_bad_host_input_names_the_wheel_and_the_step(values, needle) -> None:
    sim = Simulation(preset("hatchbackFwd"), host_hz=100, host_wheels="front")
    sim.step(sim.inputs)
    sim.step(sim.inputs)
    with pytest.raises(HostError) as err:
        sim.set_host_omega(values)
    assert needle in str(err.value)
    assert "host step 1" in str(err.value)


def test_relaxation_off_needs_host_wheels() -> None:
    with pytest.raises(Exception, match="needs host wheels"):
        Simulation(preset("kart"), tire_relaxation=False)


# ------------------------------------------------------------------------ the bench


def bench_run(torque: float, limit: float, steps: int = 300) -> hosts.BenchHost:
    d = preset("sportsRwd")
    sim = Simulation(d, host_hz=1000, initial={"speed_mps": 10.0}, host_wheels="rear")
    t0 = 100

    def script(k: int) -> tuple:
        return (torque, torque) if k >= t0 else (0.0, 0.0)

    bench = hosts.BenchHost(sim, hosts.ScriptedTorque(script), torque_limit=limit)
    for _ in range(steps):
        hosts.run_step(sim, bench, sim.inputs)
    return bench


def test_the_bench_alarm_fires_when_the_servo_saturates_and_is_quiet_otherwise() -> None:
    assert bench_run(600.0, limit=3000.0).alarms == 0  # the servo keeps up
    assert bench_run(100.0, limit=150.0).alarms == 0  # within its torque limit
    saturated = bench_run(600.0, limit=150.0)  # a hard tip-in beyond the limit
    assert saturated.alarms > 0
    assert max(saturated.health.error) > saturated.threshold


def test_the_standstill_torque_mode_holds_the_car_and_is_load_bearing() -> None:
    """The kart brakes the rear axle only; its light front wheels, owned by the host,
    ring at standstill through the delayed loop unless the bench holds them in torque
    mode."""
    d = preset("kart")
    held = host_loop.rest_jitter(d, seconds=2.0)
    assert held["torque_mode_throughout"]
    assert held["final_speed_mps"] < 1e-4 and held["drift_m"] < 1e-3
    free = host_loop.rest_jitter(d, seconds=2.0, standstill_mps=0.0)
    assert not free["torque_mode_throughout"]
    assert free["drift_m"] > 1e-3 or free["final_speed_mps"] > 1e-4


def test_rest_jitter_on_a_20_percent_grade() -> None:
    r = host_loop.rest_jitter(preset("hatchbackFwd"), grade=0.2, seconds=10.0)
    assert r["final_speed_mps"] < host_loop.REST_SPEED  # 0.1 mm/s
    assert r["drift_m"] < host_loop.REST_DRIFT  # 1 mm over 10 s
    assert r["alarms"] == 0


# ------------------------------------------------------------------------ recordings


def test_there_is_a_host_recording_per_drivetrain_layout() -> None:
    layouts = set()
    for path in HOST_RECORDINGS:
        rec = recording.load(path)
        assert rec.host is not None
        layouts.add(host_loop.host_wheels(rec.definition))
        assert rec.host.wheels  # the set the host owned
    assert layouts == {"front", "rear", "all"}


@pytest.mark.parametrize("path", HOST_RECORDINGS, ids=lambda p: p.stem)
def test_host_recordings_replay_bit_exact_without_the_host(path: Path) -> None:
    rec = recording.load(path)
    result = replay(rec, checkpoint_every=rec.checkpoint_every)
    golden = read_golden(ROOT / "hashes" / path.name)
    assert result.final_hash == rec.final_hash == golden["final"]
    assert [list(c) for c in result.checkpoints] == [list(c) for c in rec.checkpoints]


def test_a_host_run_round_trips_and_changes_if_a_host_speed_changes(tmp_path: Path) -> None:
    d = preset("crossoverEv")
    driver = random_drive.make_driver(d, 500, 3, duration_s=0.6)
    rec, sim = record_drive(d, driver, preset="crossoverEv", host=("bench", "all"))
    text = recording.dumps(rec)
    again = recording.loads(text)
    assert again.host == rec.host
    assert replay(again).final_hash == rec.final_hash == sim.state_hash()
    doc = json.loads(text)
    doc["host"]["omega"][-1][1] += 1e-9
    changed = recording.loads(json.dumps(doc))
    assert replay(changed).final_hash != rec.final_hash


def _host_doc() -> dict:
    return json.loads(HOST_RECORDINGS[0].read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda h: h.__setitem__("wheels", ["FL"]), "/host/wheels"),
        (lambda h: h.__setitem__("wheels", ["FR", "FL"]), "/host/wheels"),
        (lambda h: h.__setitem__("signals", ["omega.FL"]), "/host/signals"),
        (lambda h: h["omega"][0].append(0.0), "/host/omega/0"),
        (lambda h: h["omega"][0].__setitem__(0, h["omega"][0][0] + 1), "more than the declared"),
        (lambda h: h["omega"].pop(), "add up to"),
        (lambda h: h["omega"][0].__setitem__(1, 1e9), "outside its range"),
        (lambda h: h["omega"][0].__setitem__(1, "x"), "must be a number"),
        (lambda h: h.__setitem__("extra", 1), "/host/extra"),
        (lambda h: h.__setitem__("host", ""), "/host/host"),
    ],
)
def test_a_hostile_host_block_is_refused_naming_the_field(mutate, needle) -> None:
    doc = _host_doc()
    mutate(doc["host"])
    with pytest.raises(RecordingError) as err:
        recording.loads(json.dumps(doc))
    assert needle in str(err.value)


def test_a_non_finite_host_speed_is_refused() -> None:
    text = HOST_RECORDINGS[0].read_text(encoding="utf-8")
    doc = json.loads(text)
    first = json.dumps(doc["host"]["omega"][0])
    bad = json.dumps([doc["host"]["omega"][0][0], "NaN_", *doc["host"]["omega"][0][2:]])
    text = text.replace(first, bad.replace('"NaN_"', "NaN"), 1)
    with pytest.raises(RecordingError):
        recording.loads(text)


def test_record_refuses_host_options_that_do_not_apply(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.json"
    cases = [
        (["--drive", "scripted", "--preset", "kart", "--host-wheels", "rear"], "only with --host"),
        (["--drive", "scripted", "--preset", "kart", "--host", "magic"], "unknown host"),
        (["--drive", "commonroad:st:1", "--host", "bench"], "does not apply"),
        (
            ["--drive", "scripted", "--preset", "pickup4x4", "--host", "bench"]
            + ["--host-wheels", "rear"],
            "centre coupling",
        ),
    ]
    for argv, needle in cases:
        rc = main(["record", *argv, "-o", str(out)])
        err = capsys.readouterr().err.strip().splitlines()
        assert rc == 2 and len(err) == 1 and needle in err[0], (argv, err)
        assert not out.exists()
    rc = main(["host-loop", "--preset", "nope"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and "unknown preset" in err[0]


# ------------------------------------------------------------------------ the loop figures


@pytest.mark.parametrize("name", ["hatchbackFwd", "kart"])
def test_loop_figures_meet_their_predictions(name: str) -> None:
    """ω_n and ζ at a few speeds against the prediction from the preset's own data (the
    formula where h·V/σ is small, the discrete loop everywhere), and the divergence speed
    with the relaxation off, within the tolerances of ADR 0203."""
    d = preset(name)
    pred = host_loop.predict(d)
    for v in (5.0, 10.0, 20.0):
        _t, om, t0 = host_loop.step_response(d, v)
        fit = host_loop.fit_ringing(om, t0, 1000)
        if not fit.rings:
            continue
        wn_d, z_d = pred.discrete(v)
        assert fit.omega_n == pytest.approx(wn_d, rel=host_loop.TOL_OMEGA_N)
        assert fit.zeta == pytest.approx(z_d, rel=host_loop.TOL_ZETA)
        if v / 1000.0 / pred.sigma <= host_loop.TEXTBOOK_RANGE + 1e-9:
            assert fit.omega_n == pytest.approx(pred.omega_n, rel=host_loop.TOL_OMEGA_N)
            assert fit.zeta == pytest.approx(pred.zeta(v), rel=host_loop.TOL_ZETA)
    measured = host_loop.divergence_speed(d)
    assert measured == pytest.approx(pred.divergence_speed, rel=host_loop.TOL_DIVERGENCE)


def test_a_slow_host_is_unstable_where_the_loop_predicts() -> None:
    """At 10 m/s the 1 kHz loop is stable and a 120 Hz host (ω_n·T/2 > ζ) is not, as
    predicted, in the discrete loop and by the ζ − Δζ rule."""
    d = preset("hatchbackFwd")
    pred = host_loop.predict(d)
    smap = host_loop.stability_map(d, rates=(120, 1000), speeds=(10.0,))
    cells = {c["host_hz"]: c for c in smap["cells"]}
    assert pred.zeta(10.0, 1 / 120) < 0.0 < pred.zeta(10.0, 1 / 1000)
    assert not cells[120]["stable_measured"] and not cells[120]["stable_discrete"]
    assert cells[1000]["stable_measured"] and cells[1000]["stable_discrete"]


def test_the_reference_host_reproduces_its_committed_recording() -> None:
    """Driving the committed bench recording again with its host gives its claimed hash: the
    reference hosts are as deterministic as the engine."""
    path = ROOT / "recordings" / "sportsRwd-random-12-host-bench.json"
    rec = recording.load(path)
    driver = random_drive.make_driver(rec.definition, rec.host_hz, 12, duration_s=4.0)
    again, _sim = record_drive(
        rec.definition, driver, preset=rec.preset, host=(rec.host.host, "rear")
    )
    assert again.host == rec.host
    assert again.final_hash == rec.final_hash


def test_record_says_when_the_host_loop_is_predicted_unstable(tmp_path: Path, capsys) -> None:
    out = tmp_path / "r.json"
    base = ["record", "--preset", "hatchbackFwd", "--drive", "random:1", "--duration", "0.2"]
    assert main([*base, "--host", "backward-euler", "-o", str(out)]) == 0  # 100 Hz
    err = capsys.readouterr().err
    assert "predicted unstable" in err and "100 Hz" in err
    assert main([*base, "--host", "backward-euler", "--host-hz", "1000", "-o", str(out)]) == 0
    assert "predicted unstable" not in capsys.readouterr().err
    assert recording.load(out).host.wheels == ("FL", "FR")
