"""The racing circuit: start/finish and sector lines, track limits, the grid, the lap timer.

The timer is checked against drives whose lap times are known independently: a point moved
along the sampled centreline at a constant speed crosses the lines after exactly the
polyline's length divided by the speed.
"""

from __future__ import annotations

from math import sqrt

import pytest
from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.track import (
    LapTimer,
    TrackError,
    build_circuit,
    load_circuit,
    load_track,
    nearest_sample,
    wheel_offsets,
)

HZ = 1000
SPEED = 25.0  # m/s


@pytest.fixture(scope="module")
def circuit():
    return load_circuit("sandbox")


@pytest.fixture(scope="module")
def kart_offsets():
    return wheel_offsets(load_preset("kart"))


def polyline(track) -> list[float]:
    """Cumulative length (m) of the sampled centreline, sample by sample, over one lap."""
    out = [0.0]
    for i in range(track.n):
        dx = track.x[i + 1] - track.x[i]
        dy = track.y[i + 1] - track.y[i]
        out.append(out[-1] + sqrt(dx * dx + dy * dy))
    return out


def drive_centreline(circuit, timer, laps: float, offset: float = 0.0, start_s: float = None):
    """Move the CoG along the centreline polyline (shifted ``offset`` m to the left) at SPEED,
    one substep at a time, from ``start_s`` (polyline metres; default: the grid)."""
    t = circuit.track
    cum = polyline(t)
    total = cum[-1]
    if start_s is None:
        start_s = cum[(circuit.lines[0].index - round(circuit.grid_behind_m / t.ds)) % t.n]
    ticks = int((laps * total) / SPEED * HZ)
    i = 0
    for k in range(ticks + 1):
        d = (start_s + SPEED * k / HZ) % total
        while not cum[i] <= d < cum[i + 1]:
            i = (i + 1) % t.n
        u = (d - cum[i]) / (cum[i + 1] - cum[i])
        dx, dy = t.x[i + 1] - t.x[i], t.y[i + 1] - t.y[i]
        norm = sqrt(dx * dx + dy * dy)
        c, s = dx / norm, dy / norm
        x = t.x[i] + u * dx - s * offset
        y = t.y[i] + u * dy + c * offset
        timer.observe(k, x, y, c, s)
    return total


def test_centreline_laps_take_the_polyline_length_over_the_speed(circuit, kart_offsets) -> None:
    timer = LapTimer(circuit, kart_offsets, HZ)
    total = drive_centreline(circuit, timer, laps=2.2)
    assert [lap.number for lap in timer.laps] == [1, 2]
    for lap in timer.laps:
        assert lap.valid and lap.reason == ""
        assert lap.time_s == pytest.approx(total / SPEED, rel=1e-9)
        assert sum(lap.sectors_s) == pytest.approx(lap.time_s, rel=1e-12)
    cum = polyline(circuit.track)
    l0, l1, l2 = (cum[line.index] for line in circuit.lines)
    assert timer.laps[0].sectors_s[0] == pytest.approx((l1 - l0) / SPEED, rel=1e-9)
    assert timer.laps[0].sectors_s[1] == pytest.approx((l2 - l1) / SPEED, rel=1e-9)


def test_standing_start_lap_one_begins_at_the_first_crossing(circuit, kart_offsets) -> None:
    timer = LapTimer(circuit, kart_offsets, HZ)
    drive_centreline(circuit, timer, laps=0.005)  # 6 m from the grid: still behind the line
    assert timer.lap_number == 0 and not timer.lap_started and timer.elapsed_s(5000) == 0.0
    timer = LapTimer(circuit, kart_offsets, HZ)
    drive_centreline(circuit, timer, laps=0.02)  # 24 m: past the line (15 m ahead of the grid)
    assert timer.lap_number == 1
    ticks_past = 24.0 / SPEED * HZ
    expected = (24.0 - circuit.grid_behind_m) / SPEED
    assert timer.elapsed_s(int(ticks_past)) == pytest.approx(expected, abs=2e-3)


@pytest.mark.parametrize("offset, valid", [(4.0, True), (-4.0, True), (5.2, False), (-5.2, False)])
def test_a_lap_counts_only_if_every_wheel_stays_within_the_limits(
    circuit, kart_offsets, offset: float, valid: bool
) -> None:
    # kart: half tracks 0.51/0.59 m, limit = 5 m + 0.5 m margin
    timer = LapTimer(circuit, kart_offsets, HZ)
    drive_centreline(circuit, timer, laps=1.1, offset=offset)
    (lap,) = timer.laps
    assert lap.valid is valid
    if not valid:
        assert "track limits" in lap.reason and "wheel" in lap.reason


@pytest.mark.parametrize("offset, wheel", [(5.2, "FL"), (-5.2, "FR")])
def test_the_violation_detail_names_the_wheel_how_far_and_where(
    circuit, kart_offsets, offset: float, wheel: str
) -> None:
    """Driven 5.2 m off the centreline from the grid, the first wheel checked on the outer
    side (the front one) is out from the first substep after the line: its offset is the
    CoG's plus the kart's half front track (0.51 m), the excess that over the 5.5 m limit, and
    it is about the front axle's distance past the line, in sector 1 (issue 31). The claimed
    reason keeps its words (recordings claim it)."""
    import re

    timer = LapTimer(circuit, kart_offsets, HZ)
    total = drive_centreline(circuit, timer, laps=1.1, offset=offset)
    (lap,) = timer.laps
    (detail,) = timer.violations
    front_x, half_track = kart_offsets[0]
    assert detail["wheel"] == wheel
    assert abs(detail["offset_m"]) == pytest.approx(5.2 + half_track, abs=1e-6)
    assert (detail["offset_m"] > 0) is (offset > 0)
    assert detail["limit_m"] == circuit.limit_m == 5.5
    assert detail["excess_m"] == pytest.approx(5.2 + half_track - 5.5, abs=1e-6)
    # the first check after the crossing substep: the CoG is one to two substeps past the line
    assert front_x < detail["distance_m"] <= front_x + 2 * SPEED / HZ + 1e-6
    assert detail["sector"] == 1
    assert re.fullmatch(
        rf"track limits: wheel {wheel} 5\.71 m from the centreline at \d+\.\d m "
        r"\(limit 5\.50 m\)",
        lap.reason,
    ), lap.reason
    # the next lap carries its own detail; a valid lap has none
    assert timer.violation is not None and timer.violation["sector"] == 1
    clean = LapTimer(circuit, kart_offsets, HZ)
    drive_centreline(circuit, clean, laps=1.1)
    assert clean.violations == [None] and clean.violation is None
    assert total > 0


def test_reversing_over_a_line_invalidates_the_lap(circuit, kart_offsets) -> None:
    timer = LapTimer(circuit, kart_offsets, HZ)
    line = circuit.lines[1]
    c, s = line.tx, line.ty
    k = 0
    # forward over the finish line, then up to just before sector 1 ...
    for along in (-3.0, 3.0):
        f = circuit.lines[0]
        timer.observe(k, f.x + along * f.tx, f.y + along * f.ty, f.tx, f.ty)
        k += 1
    # ... over sector 1, back behind it, and over it again
    for along in (-2.0, 2.0, -2.0, 2.0):
        timer.observe(k, line.x + along * c, line.y + along * s, c, s)
        k += 1
    assert not timer.current_valid
    assert timer.lap_number == 1
    assert "reversed over the sector1 line" in timer.reason_so_far


def test_incremental_nearest_sample_equals_the_full_search(circuit, kart_offsets) -> None:
    timer = LapTimer(circuit, kart_offsets, HZ)
    t = circuit.track
    for i in range(0, 3 * t.n, 7):
        j = i % t.n
        px = t.x[j] + 1.3 * circuit.normals[j][0]
        py = t.y[j] + 1.3 * circuit.normals[j][1]
        assert timer.follow(0, px, py) == nearest_sample(t, px, py)


def test_grid_is_behind_the_line_on_the_centreline(circuit) -> None:
    pose = circuit.grid_pose()
    finish = circuit.lines[0]
    assert finish.along(pose.x, pose.y) == pytest.approx(-circuit.grid_behind_m, abs=0.3)
    assert abs(finish.across(pose.x, pose.y)) < 1e-9


@pytest.mark.parametrize(
    "block",
    [
        {
            "finish_line_m": 40.0,
            "sector_lines_m": [840.0, 440.0],
            "limit_margin_m": 0.5,
            "grid_behind_m": 15.0,
        },
        {
            "finish_line_m": 40.0,
            "sector_lines_m": [440.0],
            "limit_margin_m": 0.5,
            "grid_behind_m": 15.0,
        },
        {
            "finish_line_m": 40.0,
            "sector_lines_m": [440.0, 840.0],
            "limit_margin_m": -1.0,
            "grid_behind_m": 15.0,
        },
        {
            "finish_line_m": 40.0,
            "sector_lines_m": [440.0, 840.0],
            "limit_margin_m": 0.5,
            "grid_behind_m": 1e400,
        },
        {"sector_lines_m": [440.0, 840.0], "limit_margin_m": 0.5, "grid_behind_m": 15.0},
        {
            "finish_line_m": "x",
            "sector_lines_m": [440.0, 840.0],
            "limit_margin_m": 0.5,
            "grid_behind_m": 15.0,
        },
    ],
)
def test_bad_circuit_blocks_are_refused(block: dict) -> None:
    with pytest.raises(TrackError, match="circuit"):
        build_circuit(load_track("sandbox"), block)
