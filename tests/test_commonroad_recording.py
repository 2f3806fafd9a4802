"""Recordings of the CommonRoad daemon (ADR 0090): record -> replay, round trip, bad input.

The scripted drive hash of ``engine.commonroad.scripted`` is computed by its
own run of the daemon; a recording of the same drive, written, read back and
replayed from its embedded parameters alone, must end on exactly that hash.
The slow models (STD, MB: about 2 s of wall time per simulated second) are
driven for 1 s here; the parity matrix replays the full 30 s drives.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skidpad.cli import main
from skidpad.engine.commonroad import scripted
from skidpad.engine.commonroad.daemon import CommonRoadDaemon
from skidpad.engine.floatbits import bits_float, float_bits
from skidpad.parity.worker import run_request
from skidpad.replay import commonroad, recording
from skidpad.replay.commonroad import CommonRoadRecorder, CommonRoadRecording, parameters_hash
from skidpad.replay.diff import diff_recordings
from skidpad.replay.recording import RecordingError
from skidpad.replay.replayer import replay

from tests.helpers import commonroad_checkpoints

SCHEMA_PATH = Path(commonroad.__file__).with_name("commonroad-recording.schema.json")

#: (model, simulated microseconds) driven by the hash tests
DRIVES = [("ks", scripted.DURATION_US), ("st", 5_000_000), ("std", 1_000_000), ("mb", 1_000_000)]


@pytest.fixture(scope="module")
def short_st() -> CommonRoadRecording:
    """ST, vehicle 2, the first 2 s of the scripted drive (covers the clamped 0.7 ms frame)."""
    return commonroad.record_scripted("st", 2, 2_000_000)[0]


def _doc(rec: CommonRoadRecording) -> dict:
    return json.loads(recording.dumps(rec))


def _rehash(doc: dict) -> dict:
    doc["parameters_hash"] = parameters_hash(doc["parameters"])
    return doc


# ----------------------------------------------------------------------------- record -> replay


@pytest.mark.parametrize(("model", "duration_us"), DRIVES, ids=[m for m, _ in DRIVES])
def test_replay_reproduces_the_scripted_drive_hash(model, duration_us, tmp_path) -> None:
    expected = scripted.drive_hash(model, 2, duration_us)
    rec, _ = commonroad.record_scripted(model, 2, duration_us)
    path = tmp_path / f"commonroad-{model}-v2.json"
    recording.save(rec, path)
    loaded = recording.load(path)
    result = replay(loaded)
    assert rec.final_hash == expected
    assert result.final_hash == expected
    assert result.steps == rec.steps
    assert result.sim_s * 1_000_000 == duration_us
    if model in ("ks", "st"):  # the fast ones: checkpoints as scripted computes them live
        live, final = commonroad_checkpoints(model, 2, 100, duration_us)
        assert result.checkpoints[1:] == live
        assert final == expected


def test_embedded_parameters_drive_the_replay() -> None:
    # a daemon configured away from the data files: the replay must use what was recorded
    daemon = CommonRoadDaemon(
        "st", 2, initial=dict(scripted.INITIAL), powertrain={"battery_energy": 1e8}
    )
    rec_live = CommonRoadRecorder(daemon, scripted.INITIAL, drive="weak")
    for _ in scripted.drive_steps(rec_live, 1_000_000):
        pass
    rec = rec_live.recording()
    assert rec.parameters["powertrain"]["battery_energy"] == 1e8
    built = commonroad.build_daemon(rec)
    assert type(built) is CommonRoadDaemon  # configured through parameters=, not a subclass
    assert built.powertrain.battery_energy == 1e8
    default = scripted.drive_hash("st", 2, 1_000_000)
    assert rec.final_hash != default  # the override mattered
    assert replay(recording.loads(recording.dumps(rec))).final_hash == rec.final_hash
    # and editing the embedded value (hash kept honest) changes the replay
    doc = _doc(rec)
    doc["parameters"]["powertrain"]["battery_energy"] = 2.16e8
    assert replay(recording.loads(json.dumps(_rehash(doc)))).final_hash == default


def test_round_trip_is_exact_and_matches_the_schema(short_st) -> None:
    text = recording.dumps(short_st)
    again = recording.loads(text)
    assert again == short_st
    assert recording.dumps(again) == text
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(json.loads(text))
    assert set(schema["required"]) == set(commonroad.CR_KEYS) == set(schema["properties"])
    # dt_us is the first channel and stays an integer
    assert again.channels[0] == "dt_us"
    assert {type(v[0]) for _, v in again.frames} == {int}
    assert 700 in {v[0] for _, v in again.frames}  # the clamped request is recorded as asked


def test_run_length_keeps_signed_zero_and_dt_apart() -> None:
    frames = [(10_000, 0.0, 0.1, 0.0, 0)] * 3 + [(10_000, -0.0, 0.1, 0.0, 0)] * 2
    frames += [(20_000, -0.0, 0.1, 0.0, 0)]
    runs = commonroad.run_length(frames)
    assert [c for c, _ in runs] == [3, 2, 1]
    base = commonroad.record_scripted("ks", 2, 100_000)[0]
    rec = dataclasses.replace(base, frames=runs, steps=6, final_hash=None)
    back = recording.loads(recording.dumps(rec))
    assert math.copysign(1.0, back.frames[1][1][1]) == -1.0
    assert back.frames == runs


# ----------------------------------------------------------------------------- trace and diff


def test_trace_hashes_every_substep(short_st) -> None:
    a = replay(short_st, trace=True)
    b = replay(short_st, trace=True)
    assert a.final_hash == replay(short_st).final_hash
    assert a.substep_hashes == b.substep_hashes
    assert [t for t, _ in a.substep_hashes] == list(range(1, a.ticks + 1))
    # the substep count is the daemon's own, step by step
    daemon = CommonRoadDaemon("st", 2, initial=dict(scripted.INITIAL))
    live = [
        daemon.state[daemon.layout.index["clock.substeps"]]
        for _ in scripted.drive_steps(daemon, 2_000_000)
    ]
    assert a.step_ticks == live


def test_planted_divergence_is_named(short_st) -> None:
    daemon = CommonRoadDaemon("st", 2, initial=dict(scripted.INITIAL))
    done = [
        daemon.state[daemon.layout.index["clock.substeps"]]
        for _ in scripted.drive_steps(daemon, 2_000_000)
    ]
    step = 53  # 0-based host step (a 33.333 ms frame); plant at its third substep
    tick = done[step - 1] + 3
    assert done[step] - done[step - 1] >= 3

    class Plant:
        def stage(self, name, values):
            pass

        def substep(self, t, state):
            if t == tick:
                state[4] = bits_float(float_bits(state[4]) + 1)  # model.psi, one ulp

    report = diff_recordings(short_st, short_st, hook_factory_b=Plant)
    assert not report.identical
    assert report.tick == tick
    assert report.step == step
    assert report.substep_in_step == 2
    assert report.substeps_in_step == done[step] - done[step - 1]
    assert [f.name for f in report.fields] == ["model.psi"]
    assert report.fields[0].ulps == 1


# ----------------------------------------------------------------------------- CLI and worker


def test_cli_record_bless_replay(tmp_path, capsys) -> None:
    out = tmp_path / "rec"
    out.mkdir()
    hashes = tmp_path / "hashes"
    hashes.mkdir()
    argv = ["record", "--drive", "commonroad:ks:2,commonroad:st:1", "--duration", "1"]
    assert main([*argv, "-o", str(out)]) == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["commonroad-ks-v2.json", "commonroad-st-v1.json"]
    assert recording.load(out / files[1]).final_hash == scripted.drive_hash("st", 1, 1_000_000)
    paths = [str(out / f) for f in files]
    assert main(["bless", "--hashes", str(hashes), *paths]) == 0
    capsys.readouterr()
    assert main(["replay", "--hashes", str(hashes), "--json", *paths]) == 0
    rows = json.loads(capsys.readouterr().out)["recordings"]
    assert [r["match"] for r in rows] == ["match", "match"]
    assert rows[0]["preset"] == "commonroad:ks:2"
    assert main(["diff", paths[0], str(hashes)]) == 0


@pytest.mark.parametrize(
    ("drive", "needle"),
    [
        ("commonroad:zz:2", "unknown CommonRoad model"),
        ("commonroad:st:9", "unknown CommonRoad vehicle"),
        ("commonroad:st", "commonroad:MODEL:VEHICLE"),
        ("scripted", "needs --preset"),
    ],
)
def test_cli_record_bad_drive(drive, needle, tmp_path, capsys) -> None:
    rc = main(["record", "--drive", drive, "-o", str(tmp_path / "x.json")])
    lines = capsys.readouterr().err.splitlines()
    assert rc == 2 and len(lines) == 1 and needle in lines[0], lines
    assert list(tmp_path.iterdir()) == []


def test_worker_replays_a_commonroad_recording(short_st) -> None:
    text = recording.dumps(short_st)
    res = run_request({"selftest": False, "recordings": [{"name": "cr", "text": text}]})
    out = res["recordings"]["cr"]
    assert out["final"] == scripted.drive_hash("st", 2, 2_000_000)
    assert out["checkpoints"] == [[s, h] for s, h in replay(short_st).checkpoints]


# ----------------------------------------------------------------------------- bad input


def _set(path: str, value):
    def edit(doc: dict) -> None:
        keys = path.split("/")
        target = doc
        for k in keys[:-1]:
            target = target[int(k)] if isinstance(target, list) else target[k]
        last = keys[-1]
        if value is _DELETE:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return edit


_DELETE = object()

BAD = [
    ("model", _set("model", "xx"), False, "/model: 'xx' is not a CommonRoad model"),
    ("model-type", _set("model", 3), False, "/model: must be a string"),
    ("vehicle", _set("vehicle", 4), False, "/vehicle: 4 is not a CommonRoad vehicle"),
    ("vehicle-string", _set("vehicle", "2"), False, "/vehicle: must be an integer"),
    ("vehicle-bool", _set("vehicle", True), False, "/vehicle: must be an integer"),
    ("vehicle-mismatch", _set("vehicle", 1), False, "/parameters/vehicle/vehicle_id"),
    ("dt-float", _set("frames/0/1", 16666.5), False, "/frames/0/1: dt_us must be an integer"),
    (
        "dt-int-as-float",
        _set("frames/0/1", 16667.0),
        False,
        "/frames/0/1: dt_us must be an integer",
    ),
    ("dt-negative", _set("frames/0/1", -1), False, "/frames/0/1: dt_us = -1 is outside"),
    ("dt-too-long", _set("frames/0/1", 1_000_001), False, "/frames/0/1: dt_us = 1000001"),
    ("steer-range", _set("frames/3/2", 1.5), False, "/frames/3/2: steer = 1.5 is outside"),
    ("toggle-float", _set("frames/3/5", 1.0), False, "/frames/3/5: drift_toggle must be an int"),
    ("toggle-range", _set("frames/3/5", 2), False, "/frames/3/5: drift_toggle = 2 is outside"),
    ("throttle-type", _set("frames/3/3", "0.4"), False, "/frames/3/3: throttle must be a number"),
    ("frame-width", _set("frames/2", [1, 10000, 0.0, 0.1, 0.0]), False, "/frames/2: has 5"),
    ("count-zero", _set("frames/0/0", 0), False, "/frames/0/0: run-length count must be positive"),
    ("count-lies", _set("steps", 5), False, "/frames/5/0: run-length counts add up to more"),
    ("count-short", _set("steps", 10_000), False, "/frames: run-length counts add up to"),
    (
        "channels",
        _set("channels", ["steer", "throttle", "brake", "drift_toggle"]),
        False,
        "/channels",
    ),
    ("missing", _set("drift", _DELETE), False, "/drift: missing required field"),
    ("extra", _set("host_hz", 100), False, "/host_hz: unknown field"),
    ("version", _set("version", 3), False, "/version: CommonRoad recording version 3"),
    ("drift-type", _set("drift", "yes"), False, "/drift: must be true, false or null"),
    ("initial-key", _set("initial/warp", 1.0), False, "/initial"),
    ("initial-soc", _set("initial/soc", 1.5), False, "/initial"),
    ("hash-mismatch", _set("parameters/vehicle/m", 1500.0), False, "/parameters_hash: "),
    ("hash-format", _set("parameters_hash", "XYZ"), False, "/parameters_hash: must be 16"),
    (
        "param-missing",
        _set("parameters/vehicle/m", _DELETE),
        True,
        "/parameters/vehicle/m: missing",
    ),
    (
        "param-extra",
        _set("parameters/powertrain/turbo", 1.0),
        True,
        "/parameters/powertrain/turbo: unknown field",
    ),
    (
        "param-type",
        _set("parameters/vehicle/tire/p_dy1", "1.0"),
        True,
        "/parameters/vehicle/tire/p_dy1: must be a number",
    ),
    (
        "param-invalid",
        _set("parameters/powertrain/battery_energy", 0.0),
        True,
        "/parameters/powertrain: powertrain parameter battery_energy must be > 0, not 0.0",
    ),
    (
        "param-threshold",
        _set("parameters/safety/normal/yaw_rate", [1.0, -5.0]),
        True,
        "safety parameter normal/yaw_rate rate threshold must be > 0, not -5.0",
    ),
    ("param-gain", _set("parameters/steer_gain", 0.0), True, "/parameters/steer_gain: must be > 0"),
    (
        "param-drift-default",
        _set("parameters/safety/drift_default", 1),
        True,
        "/parameters/safety/drift_default: must be true or false",
    ),
]


@pytest.mark.parametrize(("case", "edit", "rehash", "needle"), BAD, ids=[b[0] for b in BAD])
def test_bad_field_is_named(case, edit, rehash, needle, short_st, tmp_path, capsys) -> None:
    doc = copy.deepcopy(_doc(short_st))
    edit(doc)
    if rehash:
        _rehash(doc)
    with pytest.raises(RecordingError) as info:
        recording.loads(json.dumps(doc))
    assert needle in str(info.value), str(info.value)
    # through the command line: one line, exit 2, nothing written
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc = main(
        [
            "replay",
            str(path),
            "--trace",
            "-o",
            str(tmp_path / "t.json"),
            "--hashes",
            str(tmp_path / "h"),
        ]
    )
    lines = capsys.readouterr().err.splitlines()
    assert rc == 2 and len(lines) == 1 and "Traceback" not in lines[0], lines
    assert needle in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_nan_and_use_preset_are_refused(short_st, tmp_path, capsys) -> None:
    text = recording.dumps(short_st).replace('"steer_gain": 8.0', '"steer_gain": NaN')
    with pytest.raises(RecordingError, match="NaN is not allowed"):
        recording.loads(text)
    path = tmp_path / "cr.json"
    recording.save(short_st, path)
    (tmp_path / "h").mkdir()
    rc = main(["replay", str(path), "--use-preset", "--hashes", str(tmp_path / "h")])
    lines = capsys.readouterr().err.splitlines()
    assert rc == 2 and len(lines) == 1 and "has no preset" in lines[0], lines


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzzed_documents_load_or_raise_recording_error(data, short_st) -> None:
    doc = _doc(short_st)
    doc["frames"] = doc["frames"][:12]
    doc["steps"] = sum(f[0] for f in doc["frames"])
    leaves = []

    def walk(v, path):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, (*path, k))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, (*path, i))
        leaves.append(path)

    walk(doc, ())
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(leaves[:-1]))
        value = data.draw(
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-(10**6), 10**7),
                st.floats(allow_nan=False, allow_infinity=False),
                st.text(max_size=5),
                st.lists(st.integers(0, 3), max_size=3),
            )
        )
        target = doc
        try:
            for k in path[:-1]:
                target = target[k]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    if data.draw(st.booleans()) and isinstance(doc.get("parameters"), dict):
        _rehash(doc)  # get past the hash check to the field checks
    try:
        text = json.dumps(doc)
    except (TypeError, ValueError):
        return
    try:
        rec = recording.loads(text)
    except RecordingError:
        return
    assert isinstance(rec, CommonRoadRecording)
