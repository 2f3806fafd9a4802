"""Hostile inputs and output paths: refused in one line, before any work, nothing touched.

Every file here is made by the test in a temporary directory (devices with
``os.mknod`` where permitted, FIFOs, sockets, symlinks, sparse files). Each
refusal case checks: exit 2, exactly one line on stderr, no traceback, the
line names the problem, and every file that was in the directory before is
byte-identical afterwards (a device stays a device, a link stays a link, no
file appears). Output paths: devices, FIFOs, sockets, directories, dangling
or looping symlinks, the command's own input, an unwritable or full
destination. Inputs: FIFOs, devices, directories, oversize files, drives
declared longer than the budget, rates outside the definition's range,
integers of hundreds or thousands of digits, parameters beyond their bounds.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from skidpad.cli import main
from skidpad.engine.commonroad.daemon import CommonRoadDaemon
from skidpad.engine.fourwheel.definition import canonical_json
from skidpad.engine.fourwheel.simulation import Simulation
from skidpad.engine.state import hash_bytes
from skidpad.replay import output, recording
from skidpad.replay.budget import DEFAULT_MAX_SIM_SECONDS
from skidpad.replay.commonroad import parameters_hash
from test_recording_format import frame, make_recording

from tests.helpers import cut_recording

ROOT = Path(__file__).resolve().parents[1]
STEPS = 8  # host steps of the small four-wheel recording (0.08 s at 100 Hz)


# ----------------------------------------------------------------------------- fixtures


def kart_doc(steps: int = STEPS) -> dict:
    frames = [frame(throttle=0.5)] * (steps // 2) + [frame(steer=0.1)] * (steps - steps // 2)
    return json.loads(recording.dumps(make_recording(frames, "kart")))


def commonroad_doc(steps: int = 5) -> dict:
    """``recordings/commonroad-st-v2.json`` cut to its first ``steps`` host steps."""
    doc = cut_recording("commonroad-st-v2", steps)
    doc["final_hash"] = None
    return doc


def write_doc(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def rehash(doc: dict) -> dict:
    """Recompute the embedded hash, as anyone editing a recording can."""
    if "definition" in doc:  # the definition is normalised already: hash it as it stands
        doc["definition_hash"] = hash_bytes(canonical_json(doc["definition"]).encode("utf-8"))
    else:
        doc["parameters_hash"] = parameters_hash(doc["parameters"])
    return doc


def snapshot(root: Path) -> dict:
    """Everything under ``root``: kind and content of each entry, links not followed."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[p] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                out[p] = ("file", Path(p).read_bytes(), stat.S_IMODE(st.st_mode))
            else:
                out[p] = (stat.S_IFMT(st.st_mode), st.st_rdev)
    return out


@pytest.fixture
def box() -> Iterator[Path]:
    """A short temporary directory (a Unix socket path must stay under ~100 bytes)."""
    d = Path(tempfile.mkdtemp(prefix="skh-", dir="/tmp"))
    try:
        yield d
    finally:
        for p in d.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
        shutil.rmtree(d)


@pytest.fixture
def steps_run(monkeypatch) -> list[int]:
    """Counts host steps of every simulation and CommonRoad daemon (each runs >= 1 substep)."""
    counter = [0]
    sim_step, daemon_step = Simulation.step, CommonRoadDaemon.step_us

    def counted_sim(self, *a, **k):
        counter[0] += 1
        return sim_step(self, *a, **k)

    def counted_daemon(self, *a, **k):
        counter[0] += 1
        return daemon_step(self, *a, **k)

    monkeypatch.setattr(Simulation, "step", counted_sim)
    monkeypatch.setattr(CommonRoadDaemon, "step_us", counted_daemon)
    return counter


def mknod_or_skip(path: Path, minor: int = 3) -> Path:
    """A character device like /dev/null (minor 3) or /dev/full (minor 7) at ``path``."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc.strerror}")
    return path


def make_socket(path: Path) -> Path:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()
    return path


def refused(
    box: Path, capsys, argv: list[str], *needles: str, prepare: Callable[[], None] | None = None
) -> str:
    """Run the CLI in this process; assert a one-line refusal and an untouched ``box``."""
    before = snapshot(box)
    try:
        rc = main(argv)
    except SystemExit as exc:  # an option refused by argparse: the process exits with it
        rc = exc.code
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert rc == 2, err
    assert len(lines) == 1, lines
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert snapshot(box) == before, "a refused command changed the directory"
    return lines[0]


def refused_in_subprocess(box: Path, argv: list[str], *needles: str) -> str:
    """As :func:`refused`, in a child process with a timeout (the case could hang)."""
    before = snapshot(box)
    r = subprocess.run(
        [sys.executable, "-m", "skidpad", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    lines = r.stderr.splitlines()
    assert r.returncode == 2, r.stderr
    assert len(lines) == 1, lines
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert snapshot(box) == before
    return lines[0]


def hashes(box: Path) -> str:
    """An empty golden directory in ``box`` (made before the snapshot is taken)."""
    d = box / "hashes"
    d.mkdir(exist_ok=True)
    return str(d)


def trace_argv(rec: Path, out: Path | str, *extra: str) -> list[str]:
    return ["replay", str(rec), "--trace", "-o", str(out), "--hashes", hashes(rec.parent), *extra]


def record_argv(out: Path | str, *extra: str) -> list[str]:
    return ["record", "--preset", "kart", "--drive", "random:1", "--duration", "0.05"] + [
        "-o",
        str(out),
        *extra,
    ]


# ----------------------------------------------------------------------------- output paths


def test_trace_over_a_character_device_is_refused(box, capsys, steps_run) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    dev = mknod_or_skip(box / "null")
    refused(box, capsys, trace_argv(rec, dev), "character device")
    assert steps_run[0] == 0


def test_record_over_a_character_device_is_refused_before_driving(box, capsys, steps_run) -> None:
    dev = mknod_or_skip(box / "full", minor=7)
    refused(box, capsys, record_argv(dev), "character device")
    assert steps_run[0] == 0


def test_record_over_the_real_dev_full_is_refused(box, capsys, steps_run) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    refused(box, capsys, record_argv("/dev/full"), "/dev/full", "character device")
    assert Path("/dev/full").is_char_device()
    assert steps_run[0] == 0


def test_trace_over_a_fifo_is_refused(box) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    os.mkfifo(box / "pipe")
    refused_in_subprocess(box, trace_argv(rec, box / "pipe"), "FIFO")


def test_record_over_a_fifo_is_refused(box) -> None:
    os.mkfifo(box / "pipe")
    refused_in_subprocess(box, record_argv(box / "pipe"), "FIFO")


def test_trace_over_a_socket_is_refused(box, capsys) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    refused(box, capsys, trace_argv(rec, make_socket(box / "sock")), "socket")


def test_record_where_the_file_name_is_a_directory_is_refused(box, capsys, steps_run) -> None:
    (box / "out" / "kart-random-1.json").mkdir(parents=True)
    refused(box, capsys, record_argv(box / "out"), "kart-random-1.json", "directory")
    assert steps_run[0] == 0


def test_trace_of_several_where_one_name_is_a_directory_is_refused(box, capsys) -> None:
    a = write_doc(box / "a.json", kart_doc())
    b = write_doc(box / "b.json", kart_doc(6))
    (box / "out" / "b.trace.json").mkdir(parents=True)
    argv = ["replay", str(a), str(b), "--trace", "-o", str(box / "out"), "--hashes", hashes(box)]
    refused(box, capsys, argv, "b.trace.json", "directory")


def test_traces_of_two_recordings_with_one_name_are_refused(box, capsys, steps_run) -> None:
    (box / "a").mkdir()
    (box / "b").mkdir()
    one = write_doc(box / "a" / "r.json", kart_doc())
    two = write_doc(box / "b" / "r.json", kart_doc(6))
    (box / "out").mkdir()
    argv = ["replay", str(one), str(two), "--trace", "-o", str(box / "out")]
    refused(box, capsys, [*argv, "--hashes", hashes(box)], "r.trace.json", "twice")
    assert steps_run[0] == 0


def test_trace_over_its_own_input_is_refused(box, capsys, steps_run) -> None:
    rec = write_doc(box / "X.json", kart_doc())
    refused(box, capsys, trace_argv(rec, rec), "X.json", "input")
    assert steps_run[0] == 0


def test_trace_over_a_hard_link_to_its_input_is_refused(box, capsys) -> None:
    rec = write_doc(box / "X.json", kart_doc())
    os.link(rec, box / "other.json")
    refused(box, capsys, trace_argv(rec, box / "other.json"), "input")


def test_trace_through_a_symlink_to_its_input_is_refused(box, capsys) -> None:
    rec = write_doc(box / "X.json", kart_doc())
    (box / "link.json").symlink_to(rec)
    refused(box, capsys, trace_argv(rec, box / "link.json"), "input")


def test_trace_over_the_input_by_another_path_is_refused(box, capsys) -> None:
    rec = write_doc(box / "X.json", kart_doc())
    (box / "sub").mkdir()
    refused(box, capsys, trace_argv(rec, box / "sub" / ".." / "X.json"), "input")


def test_trace_through_a_dangling_symlink_is_refused(box, capsys) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    (box / "link.json").symlink_to(box / "nowhere.json")
    refused(box, capsys, trace_argv(rec, box / "link.json"), "symlink", "does not exist")


def test_trace_through_a_symlink_loop_is_refused(box, capsys) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    (box / "a").symlink_to(box / "b")
    (box / "b").symlink_to(box / "a")
    refused(box, capsys, trace_argv(rec, box / "a"), "symlink")


def test_trace_through_a_symlink_to_a_device_is_refused(box, capsys) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    (box / "link").symlink_to("/dev/null")
    refused(box, capsys, trace_argv(rec, box / "link"), "character device")
    assert Path("/dev/null").is_char_device()


def test_trace_into_a_missing_directory_is_refused(box, capsys) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    refused(box, capsys, trace_argv(rec, box / "nope" / "t.json"), "does not exist")


def test_trace_into_an_unwritable_directory_is_refused_before_replaying(
    box, capsys, steps_run
) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    if os.geteuid() == 0:  # root writes through any mode bits; /proc takes no new files
        target = Path("/proc/skidpad-hostile.trace.json")
    else:
        (box / "ro").mkdir()
        (box / "ro").chmod(0o500)
        target = box / "ro" / "t.json"
    refused(box, capsys, trace_argv(rec, target), "cannot write")
    assert steps_run[0] == 0
    assert not target.exists()


def test_preflight_refuses_one_file_written_twice(box: Path) -> None:
    (box / "sub").mkdir()
    with pytest.raises(output.OutputError, match="twice"):
        output.preflight([box / "a.json", box / "sub" / ".." / "a.json"])
    assert sorted(p.name for p in box.iterdir()) == ["sub"]


def test_bless_over_a_fifo_golden_file_is_refused_before_replaying(box, capsys, steps_run) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    (box / "hashes").mkdir()
    os.mkfifo(box / "hashes" / "r.json")
    refused(box, capsys, ["bless", str(rec), "--hashes", str(box / "hashes")], "FIFO")
    assert steps_run[0] == 0


def test_bless_into_a_hashes_path_that_is_a_file_is_refused(box, capsys, steps_run) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    (box / "hashes").write_text("not a directory\n")
    refused(box, capsys, ["bless", str(rec), "--hashes", str(box / "hashes")], "hashes")
    assert steps_run[0] == 0


def test_parity_reports_over_a_fifo_are_refused_before_any_runtime(box, capsys) -> None:
    os.mkfifo(box / "report.json")
    argv = ["parity", "-r", "cpython3.11", "--selftest-only", "--report-dir", str(box)]
    refused(box, capsys, argv, "report.json", "FIFO")


def test_a_full_disk_leaves_the_old_file_and_no_temp_file(box, capsys, monkeypatch) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    old = box / "t.json"
    old.write_text("the previous trace\n")
    real_write = os.write

    def full(fd: int, data) -> int:
        if fd > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full)
    refused(box, capsys, trace_argv(rec, old), "No space left on device", "unchanged")


def test_a_full_tmpfs_leaves_the_old_file_and_no_temp_file(box, capsys) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tiny tmpfs needs root")
    mnt = box / "mnt"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)])
    if r.returncode != 0:
        pytest.skip("mount is not permitted here")
    try:
        rec = write_doc(mnt / "r.json", kart_doc())
        old = mnt / "t.json"
        old.write_text("the previous trace\n")
        argv = trace_argv(rec, old)
        filler = mnt / "filler"
        with open(filler, "wb", buffering=0) as fh:  # fill the file system to its last byte
            try:
                while True:
                    fh.write(b"x" * 512)
                    fh.flush()
            except OSError:
                pass
        refused(mnt, capsys, argv, "No space left on device", "unchanged")
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


# ----------------------------------------------------------------------------- input files


def test_a_fifo_as_input_is_refused_without_waiting(box) -> None:
    os.mkfifo(box / "in.json")
    refused_in_subprocess(box, ["replay", str(box / "in.json"), "--hashes", hashes(box)], "FIFO")


def test_a_device_as_input_is_refused_without_reading_it(box, capsys) -> None:
    refused(box, capsys, ["replay", "/dev/zero", "--hashes", hashes(box)], "/dev/zero", "device")


def test_a_symlink_to_a_device_as_input_is_refused(box, capsys) -> None:
    (box / "in.json").symlink_to("/dev/zero")
    refused(box, capsys, ["replay", str(box / "in.json"), "--hashes", hashes(box)], "device")


def test_a_directory_as_input_is_refused(box, capsys) -> None:
    (box / "in.json").mkdir()
    refused(box, capsys, ["replay", str(box / "in.json"), "--hashes", hashes(box)], "directory")


def test_a_socket_as_input_is_refused(box, capsys) -> None:
    sock = make_socket(box / "in.json")
    refused(box, capsys, ["replay", str(sock), "--hashes", hashes(box)], "socket")


def test_an_oversize_input_is_refused_before_reading(box, capsys) -> None:
    big = box / "big.json"
    with open(big, "wb") as fh:  # sparse: costs no disk space
        fh.truncate(recording.MAX_BYTES + 1)
    refused(box, capsys, ["replay", str(big), "--hashes", hashes(box)], "too large")


def test_bless_refuses_a_fifo_input(box) -> None:
    os.mkfifo(box / "in.json")
    argv = ["bless", str(box / "in.json"), "--hashes", str(box / "h")]
    refused_in_subprocess(box, argv, "FIFO")


def day_of_driving_four_wheel() -> dict:
    doc = kart_doc()
    doc["frames"] = [[24 * 3600 * 100, *doc["frames"][0][1:]]]
    doc["steps"] = 24 * 3600 * 100
    return doc


def day_of_driving_commonroad() -> dict:
    doc = commonroad_doc()
    steps = 24 * 3600 * 1000  # 1 ms host steps
    doc["frames"] = [[steps, 1000, *doc["frames"][0][2:]]]
    doc["steps"] = steps
    return doc


def test_claimed_checkpoints_of_a_huge_drive_are_counted_not_listed(box) -> None:
    doc = kart_doc()
    assert doc["version"] >= 2  # a claims block
    doc["steps"] = 10**12
    doc["claims"].update(checkpoint_every=1, checkpoints=[[0, "0" * 16]])
    rec = write_doc(box / "r.json", doc)
    refused_in_subprocess(box, ["replay", str(rec), "--hashes", hashes(box)], "/claims")


@pytest.mark.parametrize("command", ["replay", "bless", "diff"])
def test_a_tiny_file_declaring_a_day_of_driving_runs_no_substep(
    box, capsys, steps_run, command
) -> None:
    rec = write_doc(box / "day.json", day_of_driving_four_wheel())
    assert rec.stat().st_size < 10_000
    argv = {
        "replay": ["replay", str(rec), "--hashes", hashes(box)],
        "bless": ["bless", str(rec), "--hashes", str(box / "h")],
        "diff": ["diff", str(rec), str(rec)],
    }[command]
    refused(box, capsys, argv, "/steps", "--max-sim-seconds")
    assert steps_run[0] == 0


def test_a_commonroad_file_declaring_a_day_of_driving_runs_no_substep(
    box, capsys, steps_run
) -> None:
    rec = write_doc(box / "day.json", day_of_driving_commonroad())
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "--max-sim-seconds")
    assert steps_run[0] == 0


def test_a_commonroad_drive_over_budget_in_its_runs_is_refused(box, capsys, steps_run) -> None:
    # few steps, but each one second long: the runs, not the step count, exceed the budget
    doc = commonroad_doc()
    steps = int(DEFAULT_MAX_SIM_SECONDS) + 1
    doc["frames"] = [[steps, 1_000_000, *doc["frames"][0][2:]]]
    doc["steps"] = steps
    rec = write_doc(box / "long.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/frames", "budget")
    assert steps_run[0] == 0


def test_max_sim_seconds_lowers_and_raises_the_budget(box, capsys, steps_run) -> None:
    rec = write_doc(box / "r.json", kart_doc())  # 0.08 s of driving
    hashes = box / "h"
    refused(box, capsys, ["bless", str(rec), "--hashes", str(hashes), "--max-sim-seconds", "0.07"])
    assert steps_run[0] == 0
    rc = main(["bless", str(rec), "--hashes", str(hashes), "--max-sim-seconds", "0.09"])
    assert rc == 0, capsys.readouterr().err
    assert steps_run[0] == STEPS
    assert (hashes / "r.json").is_file()


class _Enough(BaseException):  # not an Exception: the CLI reports those as internal errors
    """Ends a replay the budget admitted, after a few host steps."""


def test_max_sim_seconds_raises_the_budget_past_the_default(box, capsys, monkeypatch) -> None:
    rec = write_doc(box / "day.json", day_of_driving_four_wheel())
    argv = ["replay", str(rec), "--hashes", hashes(box), "--max-sim-seconds", str(24 * 3600 + 1)]
    done = [0]
    real = Simulation.step

    def stop_after_some(self, *a, **k):
        done[0] += 1
        if done[0] > 3:
            raise _Enough
        return real(self, *a, **k)

    monkeypatch.setattr(Simulation, "step", stop_after_some)
    with pytest.raises(_Enough):  # the day of driving was admitted and started
        main(argv)
    capsys.readouterr()
    assert done[0] == 4


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e12"])
def test_a_bad_max_sim_seconds_is_refused(box, capsys, value) -> None:
    rec = write_doc(box / "r.json", kart_doc())
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box), "--max-sim-seconds", value])


def test_a_substep_rate_of_a_megahertz_is_refused(box, capsys) -> None:
    doc = kart_doc()
    doc["substep_hz"] = 1_000_000
    rec = write_doc(box / "r.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/substep_hz", "20000")


def test_a_substep_rate_below_the_definitions_range_is_refused(box, capsys) -> None:
    doc = kart_doc()
    doc["substep_hz"] = 10
    doc["host_hz"] = 10
    rec = write_doc(box / "r.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/substep_hz", "100")


def test_a_host_rate_above_the_substep_rate_is_refused(box, capsys) -> None:
    doc = kart_doc()
    doc["host_hz"] = doc["substep_hz"] + 1
    rec = write_doc(box / "r.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/host_hz")


HUGE = 10**400  # 401 digits


def _set(doc: dict, path: tuple, value: object) -> dict:
    target = doc
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    "path, value",
    [
        (("definition", "mass", "total_kg"), HUGE),
        (("definition", "tires", "rear", "mu_y"), HUGE),
        (("definition", "aero", "drag_area_m2"), -HUGE),
        (("initial", "speed_mps"), HUGE),
        (("steps",), HUGE),
        (("host_hz",), HUGE),
        (("frames", 0, 0), HUGE),
        (("frames", 0, 1), HUGE),
        (("frames", 1, 5), -HUGE),
    ],
    ids=lambda x: "/".join(map(str, x)) if isinstance(x, tuple) else "huge",
)
def test_an_integer_of_401_digits_is_named_by_its_path(box, capsys, path, value) -> None:
    rec = write_doc(box / "r.json", _set(kart_doc(), path, value))
    line = refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)])
    assert "/" + "/".join(map(str, path)) in line
    assert any(w in line for w in ("401 digits", "range", "budget", "more than the declared"))


def test_a_commonroad_parameter_of_401_digits_is_named(box, capsys) -> None:
    doc = commonroad_doc()
    doc["parameters"]["vehicle"]["m"] = HUGE
    rec = write_doc(box / "r.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/parameters/vehicle/m")


def test_a_commonroad_initial_speed_of_401_digits_is_named(box, capsys) -> None:
    doc = commonroad_doc()
    doc["initial"]["speed"] = HUGE
    rec = write_doc(box / "r.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/initial/speed")


@pytest.mark.parametrize(
    "old, where",
    [('"total_kg": 165.0', "/definition/mass/total_kg"), ('"steps": 8', "/steps")],
)
def test_an_integer_of_5001_digits_is_named_without_pythons_limit(box, capsys, old, where) -> None:
    text = json.dumps(kart_doc())
    assert old in text
    rec = box / "r.json"
    rec.write_text(text.replace(old, old.split(":")[0] + ": 1" + "0" * 5000), encoding="utf-8")
    line = refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], where)
    assert "set_int_max_str_digits" not in line and "4300" not in line


def test_an_integer_of_5001_digits_in_a_frame_is_named(box, capsys) -> None:
    text = json.dumps(kart_doc())
    rec = box / "r.json"
    rec.write_text(text.replace('"frames": [[4, ', '"frames": [[4' + "0" * 5000 + ", "), "utf-8")
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], "/frames/0/0")


@pytest.mark.parametrize(
    "path",
    [
        ("definition", "tires", "front", "mu_x"),
        ("definition", "tires", "rear", "radius_m"),
        ("definition", "aero", "drag_area_m2"),
        ("definition", "aero", "air_density_kg_per_m3"),
        ("definition", "mass", "yaw_inertia_kgm2"),
        ("definition", "suspension", "front", "wheel_rate_n_per_m"),
    ],
    ids=lambda p: ".".join(p[1:]),
)
def test_a_parameter_beyond_its_upper_bound_is_named(box, capsys, path) -> None:
    doc = rehash(_set(kart_doc(), path, 1e300))
    rec = write_doc(box / "r.json", doc)
    refused(box, capsys, ["replay", str(rec), "--hashes", hashes(box)], ".".join(path[1:]))


# ----------------------------------------------------------------------------- the helper


def test_a_symlink_destination_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    output.write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_a_failed_write_leaves_no_temp_file_and_a_new_name_free(tmp_path, monkeypatch) -> None:
    def broken(src, dst):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(output.OutputError, match="nothing written"):
        output.write_text(tmp_path / "new.json", "x\n")
    assert list(tmp_path.iterdir()) == []


def test_preflight_leaves_nothing_behind(tmp_path: Path) -> None:
    targets = output.preflight([tmp_path / "a.json", tmp_path / "b.json"])
    assert targets == [tmp_path / "a.json", tmp_path / "b.json"]
    assert list(tmp_path.iterdir()) == []


def test_a_legal_recording_still_loads_and_replays_after_the_checks(box, capsys) -> None:
    doc = kart_doc()
    doc["frames"][0][1] = 1  # an integer in a float column is read as a float
    rec = write_doc(box / "r.json", copy.deepcopy(doc))
    loaded = recording.load(rec)
    assert loaded.frames[0][1][0] == 1.0 and isinstance(loaded.frames[0][1][0], float)
    assert main(["bless", str(rec), "--hashes", str(box / "h")]) == 0
    capsys.readouterr()
