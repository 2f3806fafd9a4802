"""Tracks as data: a closed centreline built from straights and clothoid-eased corners.

A track file (``engine/tracks/<name>.json``) lists segments from a start
pose (``x``, ``y`` in m, ``heading`` in rad, counter-clockwise from +x)::

    {"straight": L}                                        L m at zero curvature
    {"corner": {"radius": R, "angle_deg": A, "transition": T}}

A corner turns by ``A`` degrees (positive = left) with radius ``R`` m in its
middle; its curvature ramps linearly from 0 to ``sign(A)/R`` over ``T`` m
(a clothoid), holds, and ramps back over ``T`` m, so curvature — and the
steering a driver needs — is continuous along the whole lap. The arc in the
middle is ``|A|·R − T`` m long (the two ramps turn by ``T/R`` together).

The centreline is sampled every ``resolution`` m of arc length ``s``. The
heading is exact for linear curvature, ``θ(s) = θ0 + κ0·s + κ'·s²/2``, and
the position is integrated with Simpson's rule, using only strict math
(``engine.smath``): the lap driver steers from these numbers, so they feed
the recorded inputs and the hash. Loading checks the circuit closes (end
pose = start pose within 1 mm and 1e-9 rad) and raises
:class:`TrackError` otherwise.

A track is also a racing circuit (:class:`Circuit`, the file's ``circuit``
block): the start/finish line at ``finish_line_m``, two sector lines that split the
lap into three sectors, the track limits (the edges, ``width/2`` either side
of the centreline, plus ``limit_margin_m``) and a grid position
``grid_behind_m`` behind the line, heading along the track. A standing start:
lap 1 begins at the car's first forward crossing of the line.

The file's ``surfaces`` block names the surface of the track and of the runoff beyond
its edges, each with a friction and a rolling-resistance factor; every wheel drives on
the surface under its contact point, every substep (:mod:`engine.fourwheel.ground`). The block is
part of the physics: changing it is a new physics version.

:class:`LapTimer` times laps in the engine's time base. It observes the
state after every substep: the CoG's signed distance to a line is
``a = (p − c)·t`` (``c`` the line's centreline point, ``t`` the unit tangent
there); a forward crossing between substep ticks ``k−1`` and ``k`` happens at
``(k − 1 + f)/S`` seconds with ``f = a₀/(a₀ − a₁)``, the CoG moving in a
straight line within one substep. A lap counts (is *valid*) only if every
wheel's contact point stayed within the limits for the whole lap and the car
never reversed over a line; an invalid lap keeps its time and says why.
Every wheel's nearest centreline sample is followed incrementally from the
previous substep's (a few distance evaluations per wheel), so checking the
limits every substep is cheap.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from skidpad.engine import smath
from skidpad.engine.errors import SkidpadError
from skidpad.engine.fourwheel.ground import Ground, Surface, ground_for, parse_surfaces

TRACK_DIR = Path(__file__).resolve().parent / "tracks"
CLOSURE_M = 1e-3
CLOSURE_RAD = 1e-9
#: a circuit whose file names no surfaces: the track's surface on both sides of its edges
DEFAULT_SURFACES = (Surface("track", 1.0, 1.0), Surface("runoff", 1.0, 1.0))


class TrackError(SkidpadError, ValueError):
    """A track file is missing, malformed or does not close; the message names it."""


@dataclass(frozen=True)
class Track:
    """A sampled closed centreline. Index ``i`` is at arc length ``s[i] = i·ds``; the last sample
    (``s = length``) coincides with the first, so ``n = len(s) - 1`` samples make one lap."""

    name: str
    width: float
    ds: float
    length: float
    s: tuple
    x: tuple
    y: tuple
    heading: tuple
    curvature: tuple
    closure_m: float

    @property
    def n(self) -> int:
        return len(self.s) - 1

    def index_at(self, s: float) -> int:
        """Sample index at or before arc length ``s`` (wrapped to one lap)."""
        i = int(math.floor(s / self.ds))
        return i % self.n

    def nearest(self, x: float, y: float, hint: int, window: int = 200) -> int:
        """Index of the nearest sample to (x, y), searched within ``window`` samples of ``hint``."""
        best = hint % self.n
        dx = self.x[best] - x
        dy = self.y[best] - y
        best_d = dx * dx + dy * dy
        for off in range(-window, window + 1):
            i = (hint + off) % self.n
            dx = self.x[i] - x
            dy = self.y[i] - y
            d = dx * dx + dy * dy
            if d < best_d:
                best, best_d = i, d
        return best

    def lateral_offset(self, i: int, x: float, y: float) -> float:
        """Signed distance (m, left positive) of (x, y) from the centreline at sample ``i``."""
        h = self.heading[i]
        return -(x - self.x[i]) * smath.sin(h) + (y - self.y[i]) * smath.cos(h)


def _segments(doc: dict, name: str) -> list[tuple[float, float, float]]:
    """The centreline as pieces of linear curvature: (length, curvature at start, at end)."""
    pieces = []
    for i, seg in enumerate(doc["segments"]):
        where = f"{name}: segments/{i}"
        if not isinstance(seg, dict) or len(seg) != 1:
            raise TrackError(f'{where}: expected {{"straight": L}} or {{"corner": {{...}}}}')
        if "straight" in seg:
            length = float(seg["straight"])
            if not length > 0:
                raise TrackError(f"{where}: straight length must be > 0")
            pieces.append((length, 0.0, 0.0))
        elif "corner" in seg:
            c = seg["corner"]
            try:
                radius, angle, trans = (
                    float(c["radius"]),
                    float(c["angle_deg"]),
                    float(c["transition"]),
                )
            except (KeyError, TypeError, ValueError):
                raise TrackError(
                    f"{where}: corner needs radius, angle_deg and transition"
                ) from None
            if not (radius > 0 and trans >= 0 and angle != 0):
                raise TrackError(
                    f"{where}: radius > 0, transition >= 0 and angle_deg != 0 are required"
                )
            k = math.copysign(1.0 / radius, angle)
            arc = abs(angle) * (math.pi / 180.0) * radius - trans
            if arc < 0:
                raise TrackError(f"{where}: transition {trans} m is too long for the corner")
            if trans > 0:
                pieces.append((trans, 0.0, k))
            if arc > 0:
                pieces.append((arc, k, k))
            if trans > 0:
                pieces.append((trans, k, 0.0))
        else:
            raise TrackError(f"{where}: unknown segment {next(iter(seg))!r}")
    return pieces


def sample(doc: dict, name: str) -> tuple:
    """``(width, ds, length, s, x, y, heading, curvature)`` lists, before the closure check."""
    try:
        width = float(doc["width"])
        ds = float(doc["resolution"])
        start = doc["start"]
        x0, y0, h0 = float(start["x"]), float(start["y"]), float(start["heading"])
    except (KeyError, TypeError, ValueError):
        raise TrackError(f"{name}: needs width, resolution and start {{x, y, heading}}") from None
    if not (width > 0 and ds > 0):
        raise TrackError(f"{name}: width and resolution must be > 0")
    pieces = _segments(doc, name)
    # Sample on a global grid s = i*ds; walk the pieces, exact in heading and Simpson's rule in
    # position over each grid interval (split at piece boundaries).
    total = 0.0
    ends = []
    for length, _, _ in pieces:
        total = total + length
        ends.append(total)
    n = int(math.floor(total / ds + 0.5))
    ds = total / n  # an integer number of samples per lap
    xs, ys, hs, ks, ss = [x0], [y0], [h0], [pieces[0][1]], [0.0]
    x, y = x0, y0
    p = 0
    s = 0.0
    s_piece = 0.0  # arc length where piece p starts
    h_piece = h0  # heading where piece p starts
    for i in range(1, n + 1):
        s_next = i * ds if i < n else total
        while True:
            length, k0, k1 = pieces[p]
            dk = (k1 - k0) / length
            end = ends[p]
            upto = s_next if s_next < end else end
            u0 = s - s_piece
            u1 = upto - s_piece
            um = (u0 + u1) / 2
            ha = h_piece + k0 * u0 + dk * u0 * u0 / 2
            hm = h_piece + k0 * um + dk * um * um / 2
            hb = h_piece + k0 * u1 + dk * u1 * u1 / 2
            w = (u1 - u0) / 6
            x = x + w * (smath.cos(ha) + 4.0 * smath.cos(hm) + smath.cos(hb))
            y = y + w * (smath.sin(ha) + 4.0 * smath.sin(hm) + smath.sin(hb))
            s = upto
            if upto < end or p + 1 == len(pieces):
                break
            h_piece = h_piece + k0 * length + dk * length * length / 2
            s_piece = end
            p += 1
            if s >= s_next:
                break
        length, k0, k1 = pieces[p]
        u = s - s_piece
        ks.append(k0 + (k1 - k0) * (u / length))
        hs.append(h_piece + k0 * u + (k1 - k0) / length * u * u / 2)
        xs.append(x)
        ys.append(y)
        ss.append(s)
    return width, ds, total, ss, xs, ys, hs, ks


def build(doc: dict, name: str) -> Track:
    """Sample the centreline of a parsed track document and check that it closes."""
    width, ds, total, ss, xs, ys, hs, ks = sample(doc, name)
    x0, y0, h0 = xs[0], ys[0], hs[0]
    gap = smath.hypot(xs[-1] - x0, ys[-1] - y0)
    turn = hs[-1] - h0
    full = 2.0 * math.pi
    if gap > CLOSURE_M or not (abs(abs(turn) - full) < CLOSURE_RAD):
        raise TrackError(
            f"{name}: the circuit does not close (end is {gap:.6f} m from the start, "
            f"total turn {turn * 180.0 / math.pi:.6f} deg)"
        )
    # one lap: make the last sample coincide with the first, with the heading unwrapped
    xs[-1], ys[-1] = x0, y0
    return Track(name, width, ds, total, tuple(ss), tuple(xs), tuple(ys), tuple(hs), tuple(ks), gap)


def load_track(name: str = "sandbox") -> Track:
    """Load ``engine/tracks/<name>.json``."""
    if not name.replace("_", "").replace("-", "").isalnum():
        raise TrackError(f"track name {name!r}: letters, digits, '-' and '_' only")
    path = TRACK_DIR / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in TRACK_DIR.glob("*.json"))
        raise TrackError(f"unknown track {name!r} (known: {', '.join(known)})")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise TrackError(f"{path}: not valid JSON ({exc})") from None
    return build(doc, name)


# ----------------------------------------------------------------------------- circuit


@dataclass(frozen=True)
class Line:
    """A timing line across the track at centreline sample ``index``: the point ``(x, y)`` and
    the unit tangent ``(tx, ty)`` pointing in the direction of travel."""

    name: str
    index: int
    s: float
    x: float
    y: float
    tx: float
    ty: float

    def along(self, px: float, py: float) -> float:
        """Signed distance (m) of a point past the line, positive in the direction of travel."""
        return (px - self.x) * self.tx + (py - self.y) * self.ty

    def across(self, px: float, py: float) -> float:
        """Signed distance (m, left positive) of a point from the centreline along the line."""
        return -(px - self.x) * self.ty + (py - self.y) * self.tx


@dataclass(frozen=True)
class GridPose:
    """Where the car starts: CoG position (m) and heading (rad, counter-clockwise from +x)."""

    x: float
    y: float
    heading: float


@dataclass(frozen=True)
class Circuit:
    """A track with its start/finish line, two sector lines, track limits and grid position."""

    track: Track
    lines: tuple  # (start/finish, sector 1|2, sector 2|3), each a Line
    limit_margin_m: float
    grid_behind_m: float
    normals: tuple  # per centreline sample, (nx, ny): unit left normal
    #: (track, runoff): the surfaces on and beyond the track's edges (engine.fourwheel.ground)
    surfaces: tuple = DEFAULT_SURFACES

    @property
    def limit_m(self) -> float:
        """Largest allowed |lateral offset| (m) of a wheel's contact point from the centreline."""
        return self.track.width / 2 + self.limit_margin_m

    def grid_pose(self) -> GridPose:
        """The grid position: ``grid_behind_m`` behind the start/finish line, on the centreline."""
        t = self.track
        i = (self.lines[0].index - int(math.floor(self.grid_behind_m / t.ds + 0.5))) % t.n
        turns = int(math.floor(t.heading[i] / (2.0 * math.pi) + 0.5))
        return GridPose(t.x[i], t.y[i], t.heading[i] - turns * (2.0 * math.pi))


CIRCUIT_KEYS = ("finish_line_m", "sector_lines_m", "limit_margin_m", "grid_behind_m")


def _line(track: Track, name: str, s: float) -> Line:
    i = int(math.floor(s / track.ds + 0.5)) % track.n
    h = track.heading[i]
    return Line(name, i, track.s[i], track.x[i], track.y[i], smath.cos(h), smath.sin(h))


def build_circuit(track: Track, block: dict, surfaces: object = None) -> Circuit:
    """The circuit of ``track`` from its file's ``circuit`` block (see the module docstring)
    and its ``surfaces`` block (:func:`engine.fourwheel.ground.parse_surfaces`; None: the track's
    surface everywhere, a circuit without runoff)."""
    where = f"{track.name}: circuit"
    if not isinstance(block, dict) or sorted(block) != sorted(CIRCUIT_KEYS):
        raise TrackError(f"{where}: needs exactly {', '.join(CIRCUIT_KEYS)}")
    sectors = block["sector_lines_m"]
    if not (isinstance(sectors, list) and len(sectors) == 2):
        raise TrackError(f"{where}: sector_lines_m must be two arc lengths (m)")
    try:
        s0 = float(block["finish_line_m"])
        s1, s2 = float(sectors[0]), float(sectors[1])
        margin = float(block["limit_margin_m"])
        grid = float(block["grid_behind_m"])
    except (TypeError, ValueError, OverflowError):
        raise TrackError(f"{where}: its values must be numbers") from None
    if not (0.0 <= s0 < s1 < s2 < track.length):
        raise TrackError(
            f"{where}: the lines must satisfy 0 <= finish < sector1 < sector2 < "
            f"{track.length:.1f} m"
        )
    if not (0.0 <= margin <= track.width):
        raise TrackError(f"{where}: limit_margin_m must be within 0..{track.width} m")
    if not (0.0 < grid < track.length - s2 + s0):
        raise TrackError(f"{where}: grid_behind_m must be > 0 and shorter than the last sector")
    lines = (_line(track, "finish", s0), _line(track, "sector1", s1), _line(track, "sector2", s2))
    normals = tuple((-smath.sin(h), smath.cos(h)) for h in track.heading[: track.n])
    pair = DEFAULT_SURFACES if surfaces is None else parse_surfaces(surfaces, track.name)
    return Circuit(track, lines, margin, grid, normals, pair)


def load_circuit(name: str = "sandbox") -> Circuit:
    """Load ``engine/tracks/<name>.json`` as a circuit (its ``circuit`` block is required)."""
    track = load_track(name)
    doc = json.loads((TRACK_DIR / f"{name}.json").read_text(encoding="utf-8"))
    if "circuit" not in doc:
        raise TrackError(f"{name}: no circuit block (start/finish, sectors, limits, grid)")
    return build_circuit(track, doc["circuit"], doc.get("surfaces"))


# ----------------------------------------------------------------------------- lap timer

WHEELS = ("FL", "FR", "RL", "RR")
#: how far (samples) one substep may move a wheel's nearest-sample index before the tracker
#: falls back to a full search (0.5 m samples: far beyond any speed at any substep rate)
MAX_TRACK_STEPS = 64


@dataclass(frozen=True)
class Lap:
    """A completed lap: its number (1 = the first after the standing start), time (s), the three
    sector times (s), whether it counts, and why not."""

    number: int
    time_s: float
    sectors_s: tuple
    valid: bool
    reason: str

    def to_json(self) -> dict:
        return {
            "lap": self.number,
            "time_s": self.time_s,
            "sectors_s": list(self.sectors_s),
            "valid": self.valid,
            "reason": self.reason,
        }


def wheel_offsets(definition: dict) -> tuple:
    """Body-frame (x forward, y left) positions (m) of the four contact points from the CoG."""
    geometry = definition["geometry"]
    a = definition["mass"]["cog_to_front_axle_m"]
    b = geometry["wheelbase_m"] - a
    tf = geometry["track_front_m"] / 2
    tr = geometry["track_rear_m"] / 2
    return ((a, tf), (a, -tf), (-b, tr), (-b, -tr))


def drive_circuit(track: str | None) -> Circuit | None:
    """The circuit a drive on ``track`` (a track name; None: no track) is on, None when that
    track is not a circuit: what its lap timer times and its ground is made of."""
    if track is None:
        return None
    try:
        return load_circuit(track)
    except TrackError:
        return None


def drive_ground(track: str | None, definition: dict, road: float) -> Ground | None:
    """The ground of a drive on ``track`` (a track name; None: no track) by a car of
    ``definition`` in road condition ``road`` (λ): None when the drive is not on a circuit
    or its circuit has one surface everywhere (the road's λ under every wheel)."""
    circuit = drive_circuit(track)
    if circuit is None:
        return None
    on, off = circuit.surfaces
    if (on.friction, on.rolling_resistance) == (off.friction, off.rolling_resistance):
        return None
    return ground_for(circuit, wheel_offsets(definition), road)


class LapTimer:
    """Lap and sector times and track-limit validity, from the state after every substep.

    ``observe(tick, x, y, c, s)`` takes the substep tick (substeps since the start) and the CoG
    position and heading unit vector ``(c, s)`` after that substep. ``laps`` lists the
    completed laps; ``lap_started`` says whether the car has crossed the line yet.
    """

    def __init__(self, circuit: Circuit, offsets: tuple, substep_hz: int) -> None:
        self.circuit = circuit
        self.offsets = offsets
        self.substep_hz = substep_hz
        self.laps: list[Lap] = []
        self._nearest = [-1, -1, -1, -1]
        self._prev = None  # (tick, x, y) after the previous substep
        self._next_line = 0  # index into circuit.lines of the line the car must cross next
        self._crossings: list = []  # (tick - 1, fraction) of this lap's crossings, in order
        self._violation = ""
        self._reversed = ""
        #: the current lap's first track-limits violation, in detail (None while it counts):
        #: which wheel, how far out and where; beside the claimed ``reason`` text, which keeps
        #: its words so the laps claimed by existing recordings stay the same
        self.violation: dict | None = None
        #: the same detail for each completed lap (None: no track-limits violation)
        self.violations: list[dict | None] = []

    @property
    def lap_started(self) -> bool:
        return bool(self._crossings)

    @property
    def lap_number(self) -> int:
        """The lap being driven (0 on the grid before the first crossing)."""
        return len(self.laps) + 1 if self._crossings else 0

    def elapsed_s(self, tick: int) -> float:
        """Time (s) into the current lap at ``tick`` (0 before the first crossing)."""
        if not self._crossings:
            return 0.0
        k, f = self._crossings[0]
        return ((tick - k) - f) / self.substep_hz

    @property
    def current_valid(self) -> bool:
        """Whether the lap being driven still counts."""
        return not self.reason_so_far

    @property
    def reason_so_far(self) -> str:
        """Why the lap being driven no longer counts ("" while it does)."""
        return self._violation or self._reversed

    def observe(self, tick: int, x: float, y: float, c: float, s: float) -> None:
        if self._crossings:
            self._check_limits(tick, x, y, c, s)
        prev = self._prev
        self._prev = (tick, x, y)
        if prev is None:
            return
        self._check_lines(prev, tick, x, y)

    # -- lines

    def _check_lines(self, prev: tuple, tick: int, x: float, y: float) -> None:
        lines = self.circuit.lines
        ahead = lines[self._next_line]
        a0 = ahead.along(prev[1], prev[2])
        a1 = ahead.along(x, y)
        if a0 < 0.0 <= a1 and self._on_track(ahead, prev, x, y, a0, a1):
            self._crossed(prev[0], a0 / (a0 - a1))
            return
        if not self._crossings:
            return
        last = (self._next_line - 1) % len(lines)
        behind = lines[last]
        b0 = behind.along(prev[1], prev[2])
        b1 = behind.along(x, y)
        if b0 >= 0.0 > b1 and self._on_track(behind, prev, x, y, b0, b1):
            # back over the line crossed last: it must be crossed forward again, and a lap
            # that contains the reversal does not count
            self._crossings.pop()
            self._next_line = last
            if self._crossings or self.laps:
                self._reversed = f"reversed over the {behind.name} line"

    def _on_track(self, line: Line, prev: tuple, x: float, y: float, a0: float, a1: float) -> bool:
        """Whether the CoG's path crosses the line within the limits (and not on another part of
        the circuit passing close by)."""
        f = a0 / (a0 - a1)
        px = prev[1] + (x - prev[1]) * f
        py = prev[2] + (y - prev[2]) * f
        return abs(line.across(px, py)) <= self.circuit.limit_m

    def _crossed(self, tick_before: int, fraction: float) -> None:
        self._crossings.append((tick_before, fraction))
        if len(self._crossings) == 4:
            self._complete_lap()
        self._next_line = (self._next_line + 1) % len(self.circuit.lines)

    def _complete_lap(self) -> None:
        hz = self.substep_hz
        marks = self._crossings
        sectors = tuple(
            ((marks[i + 1][0] - marks[i][0]) + (marks[i + 1][1] - marks[i][1])) / hz
            for i in range(3)
        )
        total = ((marks[3][0] - marks[0][0]) + (marks[3][1] - marks[0][1])) / hz
        reason = self._violation or self._reversed
        self.laps.append(Lap(len(self.laps) + 1, total, sectors, not reason, reason))
        self.violations.append(self.violation)
        self.violation = None
        self._crossings = [marks[3]]
        self._violation = ""
        self._reversed = ""

    # -- limits

    def _check_limits(self, tick: int, x: float, y: float, c: float, s: float) -> None:
        if self._violation:
            return
        track = self.circuit.track
        limit = self.circuit.limit_m
        for w in range(4):
            lx, ly = self.offsets[w]
            px = x + c * lx - s * ly
            py = y + s * lx + c * ly
            i = self.follow(w, px, py)
            nx, ny = self.circuit.normals[i]
            e = (px - track.x[i]) * nx + (py - track.y[i]) * ny
            if abs(e) > limit:
                self._violation = (
                    f"track limits: wheel {WHEELS[w]} {abs(e):.2f} m from the centreline "
                    f"at {track.s[i]:.1f} m (limit {limit:.2f} m)"
                )
                self.violation = self._detail(tick, w, i, px, py, e)
                return

    def _detail(self, tick: int, w: int, i: int, px: float, py: float, e: float) -> dict:
        """A track-limits violation as the page shows it: the wheel, its offset from the
        centreline (m, left +), the limit and the excess over it (m), the distance along the
        lap from the start/finish line to the wheel's contact point (m), the sector (1-3) and
        the substep tick. Reporting only: nothing here feeds a state bit or a claim."""
        track = self.circuit.track
        nx, ny = self.circuit.normals[i]
        along = (px - track.x[i]) * ny - (py - track.y[i]) * nx
        distance = (track.s[i] + along - self.circuit.lines[0].s) % track.length
        limit = self.circuit.limit_m
        return {
            "wheel": WHEELS[w],
            "offset_m": e,
            "limit_m": limit,
            "excess_m": abs(e) - limit,
            "distance_m": distance,
            "sector": len(self._crossings),
            "tick": tick,
        }

    def follow(self, w: int, px: float, py: float) -> int:
        """Nearest centreline sample to wheel ``w``'s contact point, walked from its last one."""
        track = self.circuit.track
        i = self._nearest[w]
        j = walk_nearest(track, i, px, py) if i >= 0 else None
        if j is None:
            j = nearest_sample(track, px, py)
        self._nearest[w] = j
        return j


def walk_nearest(track: Track, i: int, px: float, py: float) -> int | None:
    """The nearest centreline sample to (px, py), walked from sample ``i`` (forward, then
    backward) while the distance falls; None if that takes more than MAX_TRACK_STEPS samples
    (the point jumped: search the whole lap with :func:`nearest_sample` instead)."""
    n = track.n
    d = _dist2(track, i, px, py)
    for step in (1, -1):
        moved = 0
        while True:
            j = (i + step) % n
            dj = _dist2(track, j, px, py)
            if not dj < d:
                break
            i, d = j, dj
            moved += 1
            if moved == MAX_TRACK_STEPS:
                return None
    return i


def _dist2(track: Track, i: int, px: float, py: float) -> float:
    dx = track.x[i] - px
    dy = track.y[i] - py
    return dx * dx + dy * dy


def nearest_sample(track: Track, px: float, py: float) -> int:
    """Index of the centreline sample nearest to (px, py), by a full search of the lap."""
    best, best_d = 0, _dist2(track, 0, px, py)
    for i in range(1, track.n):
        d = _dist2(track, i, px, py)
        if d < best_d:
            best, best_d = i, d
    return best
