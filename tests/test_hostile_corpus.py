"""Every file a command reads is hostile input; every write is whole (ADR 0210).

A corpus generated here (no committed blobs), a class per kind of input: golden files and
math.json, traces, fuzz logs, long names, what a command reads by itself (implicit inputs),
options, lone surrogates, and a few wrong answers. Every case must give exit 2 and one line
on stderr (or the verdict its class documents), no traceback, within a time limit, and leave
every file that was there byte for byte as it was. A planted internal error deep in the
engine is not bad input: it says "internal error", exit 70. The interrupted ``bless`` runs
are in tests/test_bless_interrupted.py, the server's abuse in tests/test_server_bounds.py.
"""

from __future__ import annotations

import json
import os
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from skidpad.cli import EXIT_INTERNAL, main
from skidpad.parity.fuzz import LOG_FORMAT, LOG_NAME

#: Seconds any one case may take (a loaded 2-core machine; a hang is far beyond it).
CASE_LIMIT_S = 90


class _CaseTooSlow(BaseException):
    pass


@pytest.fixture(autouse=True)
def time_limit() -> Iterator[None]:
    """A case that hangs (a FIFO opened for reading, say) fails instead of blocking."""

    def expire(signum: int, frame: object) -> None:
        raise _CaseTooSlow(f"the case took more than {CASE_LIMIT_S} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, CASE_LIMIT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``: a file's bytes, or what else it is."""
    out: dict[str, bytes | str] = {}
    for p in sorted(folder.rglob("*")):
        key = str(p.relative_to(folder))
        st = os.lstat(p)
        if stat.S_ISREG(st.st_mode):
            out[key] = p.read_bytes()
        elif stat.S_ISLNK(st.st_mode):
            out[key] = "link:" + os.readlink(p)
        else:
            out[key] = f"mode:{stat.S_IFMT(st.st_mode)}"
    return out


def refused(argv: list[str], capsys, folder: Path, *words: str) -> str:
    """Run ``argv``: exit 2, one line on stderr naming ``words``, ``folder`` untouched."""
    before = snapshot(folder)
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own refusal: the process exits with its code
        rc = exc.code
    cap = capsys.readouterr()
    err = cap.err.strip().splitlines()
    assert rc == 2, (rc, cap.err[-2000:])
    assert len(err) == 1, err
    assert "Traceback" not in cap.err
    for w in words:
        assert w in err[0], err[0]
    assert snapshot(folder) == before
    return err[0]


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Tiny recordings, made once: a kart random drive (20 host steps) and a CommonRoad one."""
    d = tmp_path_factory.mktemp("made")
    out = {"kart": d / "kart.json", "cr": d / "cr.json"}
    argv = ["record", "--preset", "kart", "--drive", "random:3", "--duration", "0.2"]
    assert main([*argv, "-o", str(out["kart"]), "--json"]) == 0
    argv = ["record", "--drive", "commonroad:ks:2", "--duration", "0.05"]
    assert main([*argv, "-o", str(out["cr"]), "--json"]) == 0
    return out


@pytest.fixture()
def box(tmp_path: Path, made: dict[str, Path], capsys) -> Path:
    """A checkout: recordings/a.json (the kart) blessed into hashes/, a trace of it, and a
    file of the user's."""
    (tmp_path / "recordings").mkdir()
    (tmp_path / "hashes").mkdir()
    (tmp_path / "recordings" / "a.json").write_bytes(made["kart"].read_bytes())
    assert main(["bless", str(tmp_path / "recordings" / "a.json"), "--json"]) == 0
    rec = tmp_path / "recordings" / "a.json"
    assert main(["replay", str(rec), "--trace", "-o", str(tmp_path / "t.json"), "--json"]) == 0
    (tmp_path / "mine.txt").write_bytes(b"a user's file\n")
    capsys.readouterr()
    return tmp_path


def edit_json(path: Path, change: Callable[[dict], object]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


# ----------------------------------------------------------------------------- golden files


def _set(key: str, value: object) -> Callable[[dict], None]:
    return lambda d: d.__setitem__(key, value)


GOLDEN_EDITS: dict[str, Callable[[dict], object] | bytes] = {
    "checkpoint-infinity": b'{"format": "skidpad-golden", "version": 1, "checkpoints": '
    b'[[Infinity, "x"]]}',
    "checkpoint-string-step": lambda d: d["checkpoints"].__setitem__(0, ["0", "a" * 16]),
    "checkpoint-bad-hash": lambda d: d["checkpoints"].__setitem__(0, [0, "XYZ"]),
    "checkpoint-triple": lambda d: d["checkpoints"].__setitem__(0, [0, "a" * 16, 1]),
    "checkpoints-not-a-list": _set("checkpoints", 5),
    "checkpoints-repeated": lambda d: d["checkpoints"].append(d["checkpoints"][0]),
    "checkpoint-past-the-end": lambda d: d["checkpoints"].append([10**6, "a" * 16]),
    "final-a-number": _set("final", 5),
    "steps-negative": _set("steps", -1),
    "steps-huge": _set("steps", 10**30),
    "checkpoint-every-zero": _set("checkpoint_every", 0),
    "checkpoint-every-bool": _set("checkpoint_every", True),
    "sha-short": _set("recording_sha256", "abc"),
    "unknown-field": _set("surprise", 1),
    "version-2": _set("version", 2),
    "no-format": lambda d: d.pop("format"),
    "physics-version-zero": _set("physics_version", 0),
    "physics-version-text": _set("physics_version", "3"),
    "preset-a-list": _set("preset", ["kart"]),
    "not-an-object": b"[1, 2, 3]\n",
    "invalid-utf8": b'{"format": "skidpad-golden\xff"}',
    "duplicate-keys": b'{"format": "skidpad-golden", "format": "skidpad-golden"}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "empty": b"",
    "nan-literal": b'{"format": "skidpad-golden", "version": NaN}',
}


@pytest.mark.parametrize("command", ["replay", "diff", "bless"])
@pytest.mark.parametrize("case", list(GOLDEN_EDITS))
def test_a_hostile_golden_file_is_one_line(box: Path, capsys, case: str, command: str) -> None:
    golden = box / "hashes" / "a.json"
    edit = GOLDEN_EDITS[case]
    if isinstance(edit, bytes):
        golden.write_bytes(edit)
    else:
        edit_json(golden, edit)
    refused([command, box / "recordings" / "a.json"], capsys, box, "a.json")


@pytest.mark.parametrize("kind", ["fifo", "directory", "dangling-link", "dev-link"])
def test_a_golden_file_that_is_not_a_file_is_one_line(box: Path, capsys, kind: str) -> None:
    golden = box / "hashes" / "a.json"
    golden.unlink()
    if kind == "fifo":
        os.mkfifo(golden)
    elif kind == "directory":
        golden.mkdir()
    elif kind == "dangling-link":
        golden.symlink_to(box / "nowhere.json")
    else:
        golden.symlink_to("/dev/zero")
    refused(["replay", box / "recordings" / "a.json"], capsys, box, "a.json")


MATH_EDITS = {
    "hash-short": b'{"math_hash": "abc"}',
    "unknown-field": b'{"math_hash": "0123456789abcdef", "x": 1}',
    "functions-not-strings": b'{"math_hash": "0123456789abcdef", "functions": [1]}',
    "a-list": b"[]",
    "infinity": b'{"math_hash": Infinity}',
    "bom-utf16": "{}".encode("utf-16"),
}


@pytest.mark.parametrize("case", list(MATH_EDITS))
def test_a_hostile_math_json_is_one_line(box: Path, capsys, case: str) -> None:
    (box / "hashes" / "math.json").write_bytes(MATH_EDITS[case])
    refused(["replay", box / "recordings" / "a.json"], capsys, box, "math.json")


def test_a_golden_file_with_a_physics_version_is_read(box: Path, capsys) -> None:
    """What the physics-version work adds to golden files and traces is accepted."""
    edit_json(box / "hashes" / "a.json", _set("physics_version", 3))
    edit_json(box / "t.json", _set("physics_version", 3))
    assert main(["replay", str(box / "recordings" / "a.json"), "--json"]) == 0
    assert main(["diff", str(box / "t.json"), str(box / "recordings" / "a.json")]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- traces

TRACE_EDITS: dict[str, Callable[[dict], object] | bytes] = {
    "checkpoint-every-text": _set("checkpoint_every", "abc"),
    "detail-without-from-step": _set("detail", {"to_step": 2, "substeps": []}),
    "detail-huge-window": _set("detail", {"from_step": 0, "to_step": 10**12, "substeps": []}),
    "host-hz-zero": _set("host_hz", 0),
    "substep-hz-negative": _set("substep_hz", -5),
    "runtime-a-list": _set("runtime", [1]),
    "substep-hashes-a-number": _set("substep_hashes", 5),
    "substep-hash-bad": lambda d: d["substep_hashes"].__setitem__(0, 7),
    "layout-fields-not-pairs": lambda d: d["layout"].__setitem__("fields", [["x"]]),
    "layout-missing": lambda d: d.pop("layout"),
    "states-not-numbers": _set("states", {"0": {"body.vx": [1]}}),
    "step-ticks-text": _set("step_ticks", ["1"]),
    "final-bad": _set("final", "zz"),
    "version-9": _set("version", 9),
    "unknown-field": _set("extra", True),
    "checkpoint-step-float": lambda d: d["checkpoints"].__setitem__(0, [0.5, "a" * 16]),
    "infinity-step": b'{"format": "skidpad-trace", "version": 1, "steps": Infinity}',
    "invalid-utf8": b'{"format": "skidpad-trace\xfe"}',
    "deep": b'{"format": "skidpad-trace", "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
}


@pytest.mark.parametrize("case", list(TRACE_EDITS))
def test_a_hostile_trace_is_one_line(box: Path, capsys, case: str) -> None:
    bad = box / "bad.trace.json"
    edit = TRACE_EDITS[case]
    if isinstance(edit, bytes):
        bad.write_bytes(edit)
    else:
        bad.write_bytes((box / "t.json").read_bytes())
        edit_json(bad, edit)
    refused(["diff", bad, box / "t.json"], capsys, box, "bad.trace.json")


def test_a_trace_that_is_a_fifo_does_not_hang(box: Path, capsys) -> None:
    os.mkfifo(box / "fifo.json")
    refused(["diff", box / "fifo.json", box / "t.json"], capsys, box, "FIFO")


def test_diff_finds_a_format_key_after_the_first_4096_characters(box: Path, capsys) -> None:
    rec = box / "recordings" / "a.json"
    doc = json.loads(rec.read_text(encoding="utf-8"))
    late = {k: v for k, v in doc.items() if k != "format"}
    late["format"] = doc["format"]  # after the frames, far past 4096 characters
    moved = box / "late.json"
    moved.write_text(json.dumps(late, indent=8), encoding="utf-8")
    assert moved.read_text().index('"format"') > 4096
    assert main(["diff", str(moved), str(rec)]) == 0
    capsys.readouterr()


# ----------------------------------------------------------------------------- fuzz logs

FUZZ = ["fuzz", "--drives", "2", "--duration", "1", "--batch", "2", "--max-substep-hz", "400"]


def _campaign_header(out: Path) -> dict:
    from skidpad.cli import build_parser
    from skidpad.cli.cmd_fuzz import campaign_of

    campaign = campaign_of(build_parser().parse_args([*FUZZ, "--out", str(out)]))
    return {"format": LOG_FORMAT, "version": 1, "campaign": campaign.to_json()}, campaign


def _cell(runtime: str, final: str = "a" * 16) -> dict:
    result = {"checkpoints": [[0, "b" * 16]], "final": final, "steps": 5, "sha256": "c" * 64}
    return {
        "cell": [runtime, 0],
        "status": "ok",
        "error": None,
        "results": {"0": dict(result), "1": dict(result)},
    }


def _lines(*docs: object) -> bytes:
    return b"".join((d if isinstance(d, bytes) else json.dumps(d).encode()) + b"\n" for d in docs)


def _fuzz_log_cases() -> dict[str, Callable[[dict, tuple], bytes]]:
    def cells(head, rts, **over):
        return [head, *(_cell(rt) for rt in rts)]

    return {
        "empty-results-claiming-ok": lambda h, rts: _lines(
            h, *({**_cell(rt), "results": {}} for rt in rts), {"drive": 0, "verdict": "agree"}
        ),
        "result-without-final": lambda h, rts: _lines(
            h, {**_cell(rts[0]), "results": {"0": {"sha256": "c" * 64}, "1": {"sha256": "c" * 64}}}
        ),
        "final-malformed": lambda h, rts: _lines(h, _cell(rts[0], final="not-a-hash")),
        "cell-a-number": lambda h, rts: _lines(h, {"cell": 5}),
        "runtime-a-list": lambda h, rts: _lines(h, {**_cell(rts[0]), "cell": [[rts[0]], 0]}),
        "runtime-unknown": lambda h, rts: _lines(h, {**_cell(rts[0]), "cell": ["cpython2.7", 0]}),
        "batch-out-of-range": lambda h, rts: _lines(h, {**_cell(rts[0]), "cell": [rts[0], 7]}),
        "wall-s-a-list": lambda h, rts: _lines(h, {**_cell(rts[0]), "wall_s": [1]}),
        "verdict-contradicts-cells": lambda h, rts: _lines(
            h, _cell(rts[0]), _cell(rts[1], final="d" * 16), {"drive": 0, "verdict": "agree"}
        ),
        "verdict-unknown": lambda h, rts: _lines(h, {"drive": 0, "verdict": "fine"}),
        "verdict-drive-out-of-range": lambda h, rts: _lines(h, {"drive": 99, "verdict": "agree"}),
        "neither-cell-nor-verdict": lambda h, rts: _lines(h, {"hello": 1}, {"drive": 0}),
        "a-line-that-is-an-array": lambda h, rts: _lines(h, [1, 2], {"drive": 0}),
        "nan-literal": lambda h, rts: _lines(h, b'{"cell": NaN}', {"drive": 0}),
        "duplicate-keys": lambda h, rts: _lines(h, b'{"cell": 1, "cell": 2}', {"drive": 0}),
        "deep-line": lambda h, rts: _lines(h, b"[" * 100_000 + b"]" * 100_000, {"drive": 0}),
        "invalid-utf8": lambda h, rts: _lines(h, b'{"cell": "\xff"}', {"drive": 0}),
        "header-not-a-log": lambda h, rts: _lines({"format": "something else"}),
    }


FUZZ_LOG_CASES = _fuzz_log_cases()


@pytest.mark.parametrize("case", list(FUZZ_LOG_CASES))
def test_a_hostile_fuzz_log_is_one_line(tmp_path: Path, capsys, case: str) -> None:
    out = tmp_path / "fz"
    out.mkdir()
    head, campaign = _campaign_header(out)
    (out / LOG_NAME).write_bytes(FUZZ_LOG_CASES[case](head, campaign.runtimes))
    refused([*FUZZ, "--out", out], capsys, tmp_path, LOG_NAME)


@pytest.mark.parametrize("kind", ["fifo", "dev-full-link", "directory", "out-below-a-file"])
def test_a_fuzz_log_that_is_not_a_file_is_one_line(tmp_path: Path, capsys, kind: str) -> None:
    out = tmp_path / "fz"
    if kind == "out-below-a-file":
        (tmp_path / "plain").write_text("a user's file\n")
        out = tmp_path / "plain" / "fz"
    else:
        out.mkdir()
        log = out / LOG_NAME
        if kind == "fifo":
            os.mkfifo(log)
        elif kind == "dev-full-link":
            log.symlink_to("/dev/full")
        else:
            log.mkdir()
    refused([*FUZZ, "--out", out], capsys, tmp_path)


# ----------------------------------------------------------------------------- long names


def _long(n: int, char: str = "x", suffix: str = ".json") -> str:
    return char * (n - len(suffix.encode())) + suffix


RECORD = ["record", "--preset", "kart", "--drive", "random:3", "--duration", "0.2"]


@pytest.mark.parametrize(
    "name", [_long(256), _long(300), _long(256, "é"), _long(1000, "ü")], ids=str.__len__
)
def test_record_refuses_a_name_too_long_before_driving(box, capsys, monkeypatch, name) -> None:
    from skidpad.engine.fourwheel.simulation import Simulation

    calls = []
    real = Simulation.step
    monkeypatch.setattr(
        Simulation, "step", lambda self, *a, **k: (calls.append(1), real(self, *a, **k))[1]
    )
    refused([*RECORD, "-o", box / name], capsys, box, "limit")
    assert not calls  # refused before a single step


def test_a_path_beyond_path_max_is_refused(box: Path, capsys) -> None:
    deep = box.joinpath(*(["d" * 200] * 25), "out.json")
    refused([*RECORD, "-o", deep], capsys, box)


def test_a_name_that_fits_is_written_whole(box: Path, capsys) -> None:
    """The documented boundary: a 255-byte name is written (the temporary file is shorter)."""
    name = box / _long(255)
    assert main([*RECORD, "-o", str(name), "--json"]) == 0
    assert main(["replay", str(box / "recordings" / "a.json"), "--trace", "-o", str(name)]) == 0
    capsys.readouterr()
    assert json.loads(name.read_text())["format"] == "skidpad-trace"
    assert not [p for p in box.iterdir() if p.name.startswith(".")]


def _deep_folder(box: Path, length: int) -> Path:
    """A folder path of about ``length`` bytes under ``box`` (not created)."""
    parts, total = [], len(os.fsencode(box))
    while total + 201 < length:
        parts.append("d" * 200)
        total += 201
    return box.joinpath(*parts)


def test_bless_blesses_a_recording_whose_name_is_at_the_limit(box: Path, capsys) -> None:
    """The documented boundary: a 255-byte recording name gets its 255-byte golden file."""
    rec = box / "recordings" / _long(255)
    rec.write_bytes((box / "recordings" / "a.json").read_bytes())
    assert main(["bless", str(rec), "--json"]) == 0
    capsys.readouterr()
    assert (box / "hashes" / rec.name).is_file()
    assert not [p for p in (box / "hashes").iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("where", ["existing", "new"])
def test_bless_refuses_a_golden_path_too_long_before_writing(box: Path, capsys, where) -> None:
    rec = box / "recordings" / _long(250)
    rec.write_bytes((box / "recordings" / "a.json").read_bytes())
    hashes = _deep_folder(box, 3950)
    if where == "existing":
        hashes.mkdir(parents=True)
    else:
        hashes.parent.mkdir(parents=True)
    argv = ["bless", box / "recordings" / "a.json", rec, "--hashes", hashes]
    refused(argv, capsys, box, "limit")
    assert where == "existing" or not hashes.exists()


def test_bless_recordings_folder_with_one_path_too_long(box: Path, capsys) -> None:
    rec = box / "recordings" / _long(250)
    rec.write_bytes((box / "recordings" / "a.json").read_bytes())
    hashes = _deep_folder(box, 3950)
    hashes.mkdir(parents=True)
    argv = ["bless", "--recordings", box / "recordings", "--hashes", hashes]
    refused(argv, capsys, box, "limit")


def test_bless_refuses_two_recordings_with_one_golden_file(box: Path, capsys) -> None:
    """Same stem from two folders: refused whether or not the hashes folder exists yet."""
    for sub in ("x", "y"):
        (box / sub).mkdir()
        (box / sub / "a.json").write_bytes((box / "recordings" / "a.json").read_bytes())
    for hashes in (box / "hashes", box / "NEWDIR"):
        argv = ["bless", box / "x" / "a.json", box / "y" / "a.json", "--hashes", hashes]
        refused(argv, capsys, box, "also that of")
    assert not (box / "NEWDIR").exists()


@pytest.mark.parametrize("command", ["replay-trace", "verify-report"])
def test_other_outputs_with_a_name_too_long(box: Path, capsys, command: str) -> None:
    rec = box / "recordings" / "a.json"
    if command == "replay-trace":
        argv = ["replay", rec, "--trace", "-o", box / _long(256)]
    else:
        argv = ["verify", rec, "--report", box / _long(256, suffix=".jsonl")]
    refused(argv, capsys, box, "limit")


# ----------------------------------------------------------------------------- implicit inputs


def _implicit_targets(box: Path) -> dict[str, tuple[list, Path]]:
    rec = box / "recordings" / "a.json"
    golden, math = box / "hashes" / "a.json", box / "hashes" / "math.json"
    return {
        "golden": ([], golden),
        "math": ([], math),
        "golden-via-dotdot": ([], box / "recordings" / ".." / "hashes" / "a.json"),
        "golden-symlink": ([], "symlink:golden"),
        "golden-hardlink": ([], "hardlink:golden"),
        "math-hardlink": ([], "hardlink:math"),
        "golden-detail": (["--detail-steps", "0:1"], golden),
        "math-state-at": (["--state-at", "0,1"], math),
        "other-hashes-golden": (["--hashes", "H2"], "H2/a.json"),
        "other-hashes-math": (["--hashes", "H2"], "H2/math.json"),
        "the-recording": ([], rec),
    }


@pytest.mark.parametrize("case", list(_implicit_targets(Path("."))))
def test_replay_trace_refuses_to_write_over_what_it_reads(box: Path, capsys, case: str) -> None:
    extra, target = _implicit_targets(box)[case]
    if isinstance(target, str) and target.startswith(("symlink:", "hardlink:")):
        how, what = target.split(":")
        source = box / "hashes" / ("a.json" if what == "golden" else "math.json")
        target = box / f"{how}.json"
        (target.symlink_to if how == "symlink" else target.hardlink_to)(source)
    elif isinstance(target, str):
        (box / "H2").mkdir()
        for name in ("a.json", "math.json"):
            (box / "H2" / name).write_bytes((box / "hashes" / name).read_bytes())
        target = box / target
        extra = ["--hashes", box / "H2"]
    argv = ["replay", box / "recordings" / "a.json", "--trace", *extra, "-o", target]
    refused(argv, capsys, box, "input")


# ----------------------------------------------------------------------------- options

OPTION_CASES = {
    "verify-report-nan": [
        "verify",
        "{rec}",
        "--report",
        "{box}/r.jsonl",
        "--max-sim-seconds",
        "nan",
    ],
    "verify-report-negative": [
        "verify",
        "{box}/recordings",
        "--report",
        "{box}/r.jsonl",
        "--max-sim-seconds",
        "-1",
    ],
    "verify-jobs-negative-budget": ["verify", "{rec}", "--jobs", "1", "--max-sim-seconds", "-1"],
    "replay-inf-budget": ["replay", "{rec}", "--max-sim-seconds", "inf"],
    "bless-checkpoint-zero": ["bless", "{rec}", "--checkpoint-every", "0"],
    "diff-checkpoint-zero": ["diff", "{rec}", "{rec}", "--checkpoint-every", "0"],
    "diff-checkpoint-negative": ["diff", "{rec}", "{rec}", "--checkpoint-every", "-5"],
    "replay-checkpoint-superscript": ["replay", "{rec}", "--checkpoint-every", "²"],
    "replay-detail-huge": [
        "replay",
        "{rec}",
        "--trace",
        "-o",
        "{box}/o.json",
        "--detail-steps",
        "0:99999999999999999999",
    ],
    "replay-detail-reversed": [
        "replay",
        "{rec}",
        "--trace",
        "-o",
        "{box}/o.json",
        "--detail-steps",
        "5:2",
    ],
    "replay-state-at-5000-digits": [
        "replay",
        "{rec}",
        "--trace",
        "-o",
        "{box}/o.json",
        "--state-at",
        "9" * 5000,
    ],
    "record-seed-superscript": [*RECORD[:4], "random:²", "-o", "{box}/o.json"],
    "record-seed-5000-digits": [*RECORD[:4], "random:" + "7" * 5000, "-o", "{box}/o.json"],
    "record-seed-arabic-digits": [*RECORD[:4], "random:٣", "-o", "{box}/o.json"],
    "fuzz-timeout-negative": [*FUZZ, "--timeout", "-1", "--out", "{box}/fz"],
    "fuzz-timeout-nan": [*FUZZ, "--timeout", "nan", "--out", "{box}/fz"],
    "fuzz-start-timeout-zero": [*FUZZ, "--start-timeout", "0", "--out", "{box}/fz"],
    "fuzz-jobs-huge": [*FUZZ, "--jobs", "100000", "--out", "{box}/fz"],
    "fuzz-seed-5000-digits": [*FUZZ, "--seed", "1" * 5000, "--out", "{box}/fz"],
    "fuzz-checkpoint-zero": [*FUZZ, "--checkpoint-every", "0", "--out", "{box}/fz"],
    "fuzz-batch-zero": [*FUZZ[:6], "--batch", "0", "--out", "{box}/fz"],
    "fuzz-scheduler-port-99999": [*FUZZ, "--scheduler", "tcp://[::1]:99999", "--out", "{box}/fz"],
    "fuzz-scheduler-port-0": [*FUZZ, "--scheduler", "tcp://127.0.0.1:0", "--out", "{box}/fz"],
    "verify-jobs-zero": ["verify", "{rec}", "--jobs", "0"],
    "verify-jobs-huge": ["verify", "{rec}", "--jobs", "100000"],
    "verify-batch-negative": ["verify", "{rec}", "--batch", "-3"],
    "parity-timeout-nan": ["parity", "--timeout", "nan"],
    "parity-jobs-huge": ["parity", "--jobs", "999"],
    "validate-jobs-huge": ["validate", "--jobs", "10000"],
}


@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_a_bad_option_is_one_line_before_any_work(box: Path, capsys, case: str) -> None:
    rec = box / "recordings" / "a.json"
    argv = [a.format(rec=rec, box=box) if "{" in a else a for a in OPTION_CASES[case]]
    refused(argv, capsys, box)


def test_a_refused_scheduler_connection_says_refused(box: Path, capsys) -> None:
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        argv = [*FUZZ, "--scheduler", f"tcp://127.0.0.1:{port}", "--out", box / "fz"]
        refused(argv, capsys, box, "refused")


def test_bare_skidpad_prints_usage_on_stderr_and_exits_2(capsys) -> None:
    assert main([]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.startswith("usage: skidpad")


def test_laps_on_a_drive_without_a_track_are_one_line(box: Path, capsys) -> None:
    lap = {"lap": 1, "time_s": 0.1, "sectors_s": [0.03, 0.03, 0.04], "valid": True, "reason": ""}
    edit_json(box / "recordings" / "a.json", lambda d: d["claims"].__setitem__("laps", [lap]))
    refused(["verify", box / "recordings" / "a.json"], capsys, box, "/claims/laps", "no track")


def test_many_laps_on_a_short_drive_are_one_line(box: Path, capsys) -> None:
    def many(d: dict) -> None:
        d["track"] = "sandbox"
        d["claims"]["laps"] = [
            {"lap": i + 1, "time_s": 1.0, "sectors_s": [0.3, 0.3, 0.4], "valid": True, "reason": ""}
            for i in range(100_000)
        ]

    edit_json(box / "recordings" / "a.json", many)
    refused(["verify", box / "recordings" / "a.json"], capsys, box, "/claims/laps", "100000 laps")


# ----------------------------------------------------------------------------- surrogates


def _surrogate_recording(box: Path, field: str, version: int = 2) -> Path:
    rec = box / "recordings" / "a.json"
    doc = json.loads(rec.read_text(encoding="utf-8"))
    doc[field] = "x\ud800y\udfff"
    if version == 1:
        doc["final_hash"] = doc["claims"]["final_hash"]
        doc = {k: doc[k] for k in (k if k != "claims" else "final_hash" for k in doc)}
        doc["version"] = 1
        doc.pop("physics_version", None)  # a later format's field
    out = box / f"s-{field}-v{version}.json"
    out.write_text(json.dumps(doc), encoding="utf-8")  # ensure_ascii: "\ud800" escapes
    return out


@pytest.mark.parametrize("field", ["preset", "drive"])
@pytest.mark.parametrize(
    "command", ["replay", "replay-json", "replay-trace", "verify", "verify-json", "diff"]
)
def test_lone_surrogates_are_printed_escaped(box: Path, capsys, field: str, command: str):
    rec = _surrogate_recording(box, field)
    argv = {
        "replay": ["replay", rec, "--hashes", box / "hashes"],
        "replay-json": ["replay", rec, "--hashes", box / "hashes", "--json"],
        "replay-trace": ["replay", rec, "--trace", "-o", box / "s.trace.json"],
        "verify": ["verify", rec],
        "verify-json": ["verify", rec, "--json"],
        "diff": ["diff", rec, box / "recordings" / "a.json"],
    }[command]
    rc = main([str(a) for a in argv])
    cap = capsys.readouterr()
    assert rc in (0, 1), cap.err  # a verdict (the golden file is another preset's), no crash
    assert "Traceback" not in cap.err
    if command == "replay" and field == "preset":
        assert "x\\ud800y\\udfff" in cap.out
    if command == "replay-trace":
        trace = box / "s.trace.json"
        trace.read_bytes().decode("utf-8")  # strict UTF-8: the surrogates are escapes
        assert main(["diff", str(trace), str(rec)]) == 0
        capsys.readouterr()


def test_verify_upgrade_keeps_a_lone_surrogate(box: Path, capsys) -> None:
    rec = _surrogate_recording(box, "preset", version=1)
    assert main(["verify", str(rec), "--upgrade"]) == 0
    out = capsys.readouterr().out
    assert "rewritten" in out
    doc = json.loads(rec.read_bytes().decode("utf-8"))
    assert doc["version"] > 1 and doc["preset"] == "x\ud800y\udfff"


def test_a_file_name_with_undecodable_bytes_is_printed_escaped(box: Path, capsys) -> None:
    name = os.fsdecode(b"r\xff\xfe.json")
    target = box / "recordings" / name
    target.write_bytes((box / "recordings" / "a.json").read_bytes())
    assert main(["replay", str(target)]) == 1  # no golden file for it: a verdict
    cap = capsys.readouterr()
    assert "\\udcff" in cap.out and "Traceback" not in cap.err


# ----------------------------------------------------------------------------- bugs


@pytest.mark.parametrize("command", ["replay", "verify", "bless"])
def test_a_planted_internal_error_is_not_bad_input(box: Path, capsys, monkeypatch, command):
    """An exception deep in the engine that is not bad input: exit 70, says so."""
    from skidpad.engine.fourwheel import simulation

    def broken(self, *a, **k):
        raise ZeroDivisionError("planted deep in the engine")

    monkeypatch.setattr(simulation.Simulation, "step", broken)
    before = snapshot(box)
    rc = main([command, str(box / "recordings" / "a.json")])
    err = capsys.readouterr().err
    assert rc == EXIT_INTERNAL != 2
    assert "internal error" in err.strip().splitlines()[-1]
    assert "ZeroDivisionError: planted deep in the engine" in err
    assert snapshot(box) == before
