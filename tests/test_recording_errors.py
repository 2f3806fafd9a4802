"""Bad recordings and bad options: one line naming the problem, exit 2, nothing written (issue 5).

Every case goes through the real command line (``cli.main``) and
checks: exit code 2, exactly one line on stderr, no traceback, the line
names the problem, and the command wrote nothing (no trace file, no
recording, no hashes). The loader is also fuzzed with hypothesis: a
mutated recording either loads or raises ``RecordingError``, never
anything else.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skidpad.cli import main
from skidpad.engine.fourwheel import inputs as engine_inputs
from skidpad.replay import recording
from skidpad.replay.recording import RecordingError
from test_recording_format import make_recording


def _valid_doc() -> dict:
    frames = [tuple(c.default for c in engine_inputs.CHANNELS)] * 5
    frames += [(0.5, 0.0, 0.1, 0.0) + tuple(c.default for c in engine_inputs.CHANNELS[4:])] * 3
    return json.loads(recording.dumps(make_recording(frames, "kart")))


VALID = _valid_doc()


def run_cli(argv: list[str], capsys) -> tuple[int, list[str]]:
    rc = main(argv)
    err = capsys.readouterr().err
    return rc, err.splitlines()


def check_one_line(rc: int, lines: list[str], *needles: str) -> str:
    assert rc == 2, lines
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def replay_bad_text(tmp_path: Path, capsys, text: str | bytes, *needles: str) -> str:
    path = tmp_path / "bad.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    out = tmp_path / "trace.json"
    rc, lines = run_cli(
        ["replay", str(path), "--trace", "-o", str(out), "--hashes", str(tmp_path / "h")], capsys
    )
    line = check_one_line(rc, lines, "bad.json", *needles)
    assert not out.exists(), "a trace was written for a bad recording"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"], "something was written"
    return line


def mutated(fn) -> str:
    doc = copy.deepcopy(VALID)
    fn(doc)
    return json.dumps(doc)


# ----------------------------------------------------------------------------- one test per case


def test_valid_document_loads() -> None:
    # the baseline every case below mutates must itself be valid
    assert recording.loads(json.dumps(VALID)).steps == 8


def test_truncated_file(tmp_path, capsys) -> None:
    text = recording.dumps(recording.loads(json.dumps(VALID)))
    replay_bad_text(tmp_path, capsys, text[: len(text) // 2], "truncated")


def test_not_json(tmp_path, capsys) -> None:
    replay_bad_text(tmp_path, capsys, "format = skidpad-recording\n", "not valid JSON")


def test_not_utf8(tmp_path, capsys) -> None:
    data = json.dumps(VALID).replace('"test"', '"t\\u00e9st"').encode("utf-8")
    data = data.replace(b"t\\u00e9st", b"t\xe9st")  # a latin-1 byte: invalid UTF-8
    replay_bad_text(tmp_path, capsys, data, "not UTF-8")


def test_not_an_object(tmp_path, capsys) -> None:
    replay_bad_text(tmp_path, capsys, "[1, 2, 3]", "JSON object")


def test_wrong_format_name(tmp_path, capsys) -> None:
    replay_bad_text(tmp_path, capsys, mutated(lambda d: d.update(format="other-format")), "/format")


def test_wrong_version(tmp_path, capsys) -> None:
    replay_bad_text(
        tmp_path, capsys, mutated(lambda d: d.update(version=4)), "/version", "not supported"
    )


def test_missing_field(tmp_path, capsys) -> None:
    replay_bad_text(tmp_path, capsys, mutated(lambda d: d.pop("host_hz")), "/host_hz", "missing")


def test_extra_field(tmp_path, capsys) -> None:
    replay_bad_text(
        tmp_path, capsys, mutated(lambda d: d.update(colour="red")), "/colour", "unknown field"
    )


def test_wrong_type(tmp_path, capsys) -> None:
    replay_bad_text(
        tmp_path, capsys, mutated(lambda d: d.update(host_hz="100")), "/host_hz", "integer"
    )


def test_nan_input(tmp_path, capsys) -> None:
    text = json.dumps(VALID).replace("[3, 0.5,", "[3, NaN,")
    assert "NaN" in text
    replay_bad_text(tmp_path, capsys, text, "NaN")


def test_infinity_input(tmp_path, capsys) -> None:
    text = json.dumps(VALID).replace("[3, 0.5,", "[3, Infinity,")
    replay_bad_text(tmp_path, capsys, text, "Infinity")


def test_overflowing_number(tmp_path, capsys) -> None:
    text = json.dumps(VALID).replace("[3, 0.5,", "[3, 1e400,")
    replay_bad_text(tmp_path, capsys, text, "infinity")


def test_input_out_of_range(tmp_path, capsys) -> None:
    def bump(d):
        d["frames"][-1][1] = 1.5  # throttle

    replay_bad_text(tmp_path, capsys, mutated(bump), "/frames/1/1", "outside")


def test_input_wrong_type(tmp_path, capsys) -> None:
    def s(d):
        d["frames"][0][2] = "full"

    replay_bad_text(tmp_path, capsys, mutated(s), "/frames/0/2", "number")


def test_run_length_count_negative(tmp_path, capsys) -> None:
    def neg(d):
        d["frames"][0][0] = -5

    replay_bad_text(tmp_path, capsys, mutated(neg), "/frames/0/0", "positive")


def test_run_length_count_zero(tmp_path, capsys) -> None:
    def zero(d):
        d["frames"][0][0] = 0

    replay_bad_text(tmp_path, capsys, mutated(zero), "/frames/0/0", "positive")


def test_run_length_count_not_integer(tmp_path, capsys) -> None:
    def frac(d):
        d["frames"][0][0] = 2.5

    replay_bad_text(tmp_path, capsys, mutated(frac), "/frames/0/0", "integer")


def test_run_length_counts_do_not_add_up(tmp_path, capsys) -> None:
    replay_bad_text(
        tmp_path, capsys, mutated(lambda d: d.update(steps=9)), "/frames", "add up to 8"
    )


def test_run_length_counts_exceed_steps(tmp_path, capsys) -> None:
    replay_bad_text(
        tmp_path, capsys, mutated(lambda d: d.update(steps=6)), "more than the declared 6"
    )


def test_frame_of_wrong_width(tmp_path, capsys) -> None:
    def short(d):
        d["frames"][0].pop()

    replay_bad_text(tmp_path, capsys, mutated(short), "/frames/0", "entries")


def test_embedded_definition_invalid(tmp_path, capsys) -> None:
    def bad(d):
        d["definition"]["tires"]["front"]["mu_x"] = -1.0

    replay_bad_text(tmp_path, capsys, mutated(bad), "/definition", "tires.front.mu_x")


def test_embedded_definition_does_not_match_its_hash(tmp_path, capsys) -> None:
    def edit(d):
        d["definition"]["mass"]["total_kg"] = d["definition"]["mass"]["total_kg"] + 1.0

    replay_bad_text(tmp_path, capsys, mutated(edit), "/definition_hash", "does not match")


def test_channel_names_do_not_match(tmp_path, capsys) -> None:
    def rename(d):
        d["channels"] = list(reversed(d["channels"]))

    replay_bad_text(tmp_path, capsys, mutated(rename), "/channels")


def test_unknown_input_version(tmp_path, capsys) -> None:
    replay_bad_text(
        tmp_path, capsys, mutated(lambda d: d.update(input_version=99)), "/input_version"
    )


def test_duplicate_key(tmp_path, capsys) -> None:
    text = json.dumps(VALID).replace('"host_hz": 100', '"host_hz": 100, "host_hz": 50')
    replay_bad_text(tmp_path, capsys, text, "twice")


@pytest.mark.parametrize(
    ("preset", "drive", "says"),
    [
        ("hovercraft", "scripted", ("hovercraft", "known presets")),
        ("kart", "moonwalk", ("moonwalk", "unknown drive")),
    ],
)
def test_unknown_preset_or_drive_on_record(tmp_path, capsys, preset, drive, says) -> None:
    out = tmp_path / "r.json"
    rc, lines = run_cli(["record", "--preset", preset, "--drive", drive, "-o", str(out)], capsys)
    check_one_line(rc, lines, *says)
    assert not out.exists()


def test_unknown_preset_on_use_preset(tmp_path, capsys) -> None:
    path = tmp_path / "r.json"
    path.write_text(mutated(lambda d: d.update(preset="hovercraft")), encoding="utf-8")
    (tmp_path / "h").mkdir()
    rc, lines = run_cli(
        ["replay", str(path), "--use-preset", "--hashes", str(tmp_path / "h")], capsys
    )
    check_one_line(rc, lines, "/preset", "hovercraft")


def test_huge_file_is_refused_before_reading(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:  # sparse: 200 MB of size, no disk used
        fh.truncate(200 * 1024 * 1024)
    reads = []
    real_open = open

    def spy_open(file, mode="r", *a, **k):
        if str(file) == str(path):
            reads.append(mode)
        return real_open(file, mode, *a, **k)

    monkeypatch.setattr("builtins.open", spy_open)
    rc, lines = run_cli(["replay", str(path), "--hashes", str(tmp_path / "h")], capsys)
    check_one_line(rc, lines, "huge.json", "too large", str(200 * 1024 * 1024))
    assert reads == [], "the file was opened before its size was checked"


def test_bad_recording_makes_bless_write_nothing(tmp_path, capsys) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(VALID), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(mutated(lambda d: d.update(version=7)), encoding="utf-8")
    hashes = tmp_path / "hashes"
    rc, lines = run_cli(["bless", str(good), str(bad), "--hashes", str(hashes)], capsys)
    check_one_line(rc, lines, "bad.json", "/version")
    assert not hashes.exists()


# ----------------------------------------------------------------------------- fuzz

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_JSONISH = st.recursive(
    _LEAVES,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=6), kids, max_size=4)
    ),
    max_leaves=10,
)


def _paths(v, prefix=()):
    yield prefix
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, (*prefix, k))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, (*prefix, i))


ALL_PATHS = [p for p in _paths(VALID) if p]


def _set(doc, path, value):
    for k in path[:-1]:
        doc = doc[k]
    doc[path[-1]] = value


def _delete(doc, path):
    for k in path[:-1]:
        doc = doc[k]
    if isinstance(doc, dict):
        del doc[path[-1]]
    else:
        doc.pop(path[-1])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(["set", "delete", "dup"]), st.sampled_from(ALL_PATHS), _JSONISH),
        min_size=1,
        max_size=3,
    ),
    cut=st.one_of(st.none(), st.integers(min_value=0, max_value=4000)),
)
def test_fuzz_loader_loads_or_raises_recording_error(ops, cut) -> None:
    doc = copy.deepcopy(VALID)
    for op, path, value in ops:
        try:
            if op == "set":
                _set(doc, path, value)
            elif op == "delete":
                _delete(doc, path)
            else:  # duplicate a list element / replace with a deep copy of another part
                _set(doc, path, copy.deepcopy(value))
        except (KeyError, IndexError, TypeError):
            continue  # the path no longer exists after an earlier mutation
    text = json.dumps(doc, allow_nan=False)
    if cut is not None:
        text = text[:cut]
    try:
        rec = recording.loads(text)
    except RecordingError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    # it loaded: then it must be a faithful, re-loadable recording
    assert rec.steps == sum(c for c, _ in rec.frames)
    for values in rec.inputs():
        for v, ch in zip(values, engine_inputs.CHANNELS, strict=True):
            assert ch.lo <= v <= ch.hi and math.isfinite(v)
    assert recording.loads(recording.dumps(rec)) == rec
