"""The ground under each wheel: a circuit's surfaces by position (the ``ground`` stage).

A circuit's track file names two surfaces (its ``surfaces`` block): the ``track`` and the
``runoff`` beyond its edges (grass on the sandbox circuit). Each has

- a friction factor ``friction`` (dimensionless, > 0): it multiplies the tire's peak
  forces D_x, D_y on top of the road condition's λ (:mod:`engine.fourwheel.tire`);
- a rolling-resistance coefficient ``rolling_resistance`` (dimensionless, ≥ 0) that the
  ground adds to the tire's own f_rr — the work of deforming a soft surface, which a hard
  track does not take (0 there): the resisting torque about the axle becomes
  ``(f_rr + f_ground)·F_z·R``, a bound like a brake's (:mod:`engine.fourwheel.wheel`), so a wheel
  rolling on grass is held back whether it is driven or not.

Which surface a wheel is on, every substep, from the pose at the substep's start:

- the contact point ``p = (x, y) + R(ψ)·(l_x, l_y)``, with ``(l_x, l_y)`` the wheel's
  body-frame offset from the CoG (x forward, y left, m) and ``R(ψ)`` the heading's rotation
  ``[[c, −s], [s, c]]`` — the same point the lap timer checks against the track limits;
- its lateral offset from the centreline ``e = (p − c_i)·n_i`` (m, left +) at ``i``, the
  centreline sample nearest to ``p`` (``n_i`` the unit left normal there);
- on the track while ``|e| ≤ width/2``, on the runoff beyond.

The answer is a pure function of the contact point (no memory between substeps, so a
restored snapshot, a replay from any step and every runtime see the same ground). It is
computed over a lattice of 1 m cells, each classified the first time a wheel enters it
(the classification is itself a pure function of the cell, so the order cells are met in
changes nothing): a cell whose four corners lie on the track by more than ``EDGE_SLACK_M``
is *track*, one whose corners all lie beyond the edge by more than that (or more than
``REACH_M`` from every sample) is *runoff*, any other is an *edge* cell, where the nearest
sample is walked to from the cell centre's and ``e`` decides. (A straight edge between two
corners on one side never enters the cell; a curved one bulges in by at most
``1 m²/(8·r)``, under 8 mm for the sandbox's tightest edge, r = 15 m, below the slack.)
The nearest sample of a corner or a centre is the whole lap's, found among the samples
listed in its coarse cell (every sample within ``REACH_M`` of that cell), ties to the
lowest index. A car whose CoG's cell lies inside the edges by more than its farthest
contact point is from the CoG (plus the slack) has all four wheels on the track — the
distance from the centreline changes no faster than the distance travelled — which
:meth:`Ground.factors` answers with that one look-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from skidpad.engine.errors import SkidpadError

#: side of a lattice cell (m)
CELL_M = 1.0
#: how far inside or outside the edge a cell's four corners must lie for the whole cell to
#: be classified without a walk (m; above the 8 mm a curved edge can bulge into a cell)
EDGE_SLACK_M = 0.05
#: side of a coarse cell (m), whose list names every sample within REACH_M of it
COARSE_M = 4.0
#: beyond this distance (m) from every centreline sample a point is on the runoff
#: (it must exceed width/2: checked when the ground is built)
REACH_EXTRA_M = 3.0
#: a lattice cell's class
TRACK, RUNOFF, EDGE = 0, 1, 2

__all__ = [
    "CELL_M",
    "EDGE_SLACK_M",
    "Ground",
    "GroundError",
    "Lattice",
    "Surface",
    "ground_for",
    "lattice_of",
    "parse_surfaces",
]


class GroundError(SkidpadError, ValueError):
    """A track's surfaces block is missing or malformed; the message names the field."""


@dataclass(frozen=True)
class Surface:
    """A surface: its name, its friction factor and the rolling-resistance coefficient it
    adds to a tire's own (both dimensionless)."""

    name: str
    friction: float
    rolling_resistance: float


#: the largest values a surface may state (beyond is a typing error, not a surface): a
#: friction factor, and an added rolling-resistance coefficient (deep sand is about 0.3)
MAX_FRICTION = 2.0
MAX_ROLLING = 1.0


def parse_surfaces(block: object, where: str) -> tuple[Surface, Surface]:
    """The (track, runoff) surfaces of a track file's ``surfaces`` block."""
    if not isinstance(block, dict) or sorted(block) != ["runoff", "track"]:
        raise GroundError(f"{where}: surfaces needs exactly track and runoff")
    out = []
    for role in ("track", "runoff"):
        entry = block[role]
        at = f"{where}: surfaces.{role}"
        if not isinstance(entry, dict) or sorted(entry) != [
            "friction",
            "name",
            "rolling_resistance",
        ]:
            raise GroundError(f"{at}: needs exactly name, friction and rolling_resistance")
        name = entry["name"]
        if not (isinstance(name, str) and name.isidentifier() and len(name) <= 32):
            raise GroundError(f"{at}.name: a word of letters, digits and '_' (at most 32)")
        values = []
        for key, low, top in (
            ("friction", "> 0", MAX_FRICTION),
            ("rolling_resistance", ">= 0", MAX_ROLLING),
        ):
            v = entry[key]
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise GroundError(f"{at}.{key}: a number")
            v = float(v)
            above = v > 0.0 if low == "> 0" else v >= 0.0
            if not (above and v <= top):
                raise GroundError(f"{at}.{key}: must be {low} and <= {top:g}, got {v!r}")
            values.append(v)
        out.append(Surface(name, values[0], values[1]))
    if out[0].name == out[1].name:
        raise GroundError(f"{where}: surfaces.track and surfaces.runoff need different names")
    return out[0], out[1]


class Lattice:
    """Which surface each point of one circuit is on (shared by every car on that circuit:
    the cells and corners classified so far are kept, see :func:`lattice_of`)."""

    def __init__(self, circuit: object, track: Surface, runoff: Surface) -> None:
        t = circuit.track
        self.track_surface = track
        self.runoff_surface = runoff
        self.half_width = t.width / 2
        self.reach = self.half_width + REACH_EXTRA_M
        self._xs = t.x
        self._ys = t.y
        self._n = t.n
        self._normals = circuit.normals
        self._coarse = self._coarse_lists()
        self._cells: dict = {}
        self._corners: dict = {}

    def surface_at(self, px: float, py: float) -> Surface:
        """The surface at the point (px, py) (m)."""
        key = (math.floor(px / CELL_M), math.floor(py / CELL_M))
        cell = self._cells.get(key)
        if cell is None:
            cell = self._cells[key] = self._classify(key)
        kind, hint = cell
        if kind == TRACK:
            return self.track_surface
        if kind == RUNOFF:
            return self.runoff_surface
        i = self._walk(hint, px, py)
        e = self._offset(i, px, py)
        return self.track_surface if abs(e) <= self.half_width else self.runoff_surface

    def _offset(self, i: int, px: float, py: float) -> float:
        nx, ny = self._normals[i]
        return (px - self._xs[i]) * nx + (py - self._ys[i]) * ny

    def _dist2(self, i: int, px: float, py: float) -> float:
        dx = self._xs[i] - px
        dy = self._ys[i] - py
        return dx * dx + dy * dy

    def _walk(self, i: int, px: float, py: float) -> int:
        """The nearest sample to (px, py) walked to from sample ``i`` while the distance
        falls (forward first, then backward)."""
        n = self._n
        d = self._dist2(i, px, py)
        for step in (1, -1):
            while True:
                j = (i + step) % n
                dj = self._dist2(j, px, py)
                if not dj < d:
                    break
                i, d = j, dj
        return i

    def _coarse_lists(self) -> dict:
        """Per coarse cell, the samples within ``reach`` of some point of it (in index
        order): each sample's square of half-side ``reach`` marks every coarse cell it
        overlaps, so a point's nearest sample, if within ``reach``, is in its cell's list."""
        lists: dict = {}
        r = self.reach
        for i in range(self._n):
            x, y = self._xs[i], self._ys[i]
            for gx in range(math.floor((x - r) / COARSE_M), math.floor((x + r) / COARSE_M) + 1):
                for gy in range(math.floor((y - r) / COARSE_M), math.floor((y + r) / COARSE_M) + 1):
                    lists.setdefault((gx, gy), []).append(i)
        return lists

    def _nearest(self, px: float, py: float) -> int | None:
        """The nearest sample of the whole lap to (px, py) (lowest index on a tie), None if
        every sample is farther than ``reach``."""
        key = (math.floor(px / COARSE_M), math.floor(py / COARSE_M))
        best, best_d = None, self.reach * self.reach
        for i in self._coarse.get(key, ()):
            d = self._dist2(i, px, py)
            if d < best_d or (d == best_d and best is None):
                best, best_d = i, d
        return best

    # -- the lattice

    def _corner(self, gx: int, gy: int) -> float:
        """|e| at the lattice point (gx, gy)·CELL_M (infinite beyond ``reach``)."""
        key = (gx, gy)
        got = self._corners.get(key)
        if got is None:
            px, py = gx * CELL_M, gy * CELL_M
            i = self._nearest(px, py)
            got = math.inf if i is None else abs(self._offset(i, px, py))
            self._corners[key] = got
        return got

    def _classify(self, key: tuple) -> tuple:
        """(class, hint): the cell's class, and for an edge cell the nearest sample of its
        centre, where the walk starts."""
        gx, gy = key
        corners = (
            self._corner(gx, gy),
            self._corner(gx + 1, gy),
            self._corner(gx, gy + 1),
            self._corner(gx + 1, gy + 1),
        )
        inside = self.half_width - EDGE_SLACK_M
        outside = self.half_width + EDGE_SLACK_M
        if all(e <= inside for e in corners):
            return (TRACK, -1)
        if all(e >= outside for e in corners):
            return (RUNOFF, -1)
        hint = self._nearest((gx + 0.5) * CELL_M, (gy + 0.5) * CELL_M)
        if hint is None:  # a corner is near the edge, so the centre is within reach
            raise GroundError(f"ground: cell {key} has an edge but no sample in reach")
        return (EDGE, hint)


class Ground:
    """The ground under one car's four wheels: ``factors(x, y, c, s)`` takes the CoG
    position (m) and heading unit vector at a substep's start and returns each wheel's
    friction factor (the road condition's λ times the surface's) and the rolling-resistance
    coefficient its surface adds, in the wheel order FL, FR, RL, RR:
    ``(λ0, λ1, λ2, λ3, f0, f1, f2, f3)``."""

    def __init__(self, lattice: Lattice, offsets: tuple, road: float) -> None:
        self.lattice = lattice
        self.offsets = tuple((float(lx), float(ly)) for lx, ly in offsets)
        self.road = road
        track, runoff = lattice.track_surface, lattice.runoff_surface
        # the factors of each surface, λ·friction (the track's 1.0 leaves λ's bits alone)
        self._values = {
            track.name: (road * track.friction, track.rolling_resistance),
            runoff.name: (road * runoff.friction, runoff.rolling_resistance),
        }
        on = self._values[track.name]
        self._on_track = (on[0],) * 4 + (on[1],) * 4
        #: how far (m) the farthest contact point is from the CoG
        self.wheel_reach = max(math.sqrt(lx * lx + ly * ly) for lx, ly in self.offsets)
        self._deep: dict = {}

    def _is_deep(self, key: tuple) -> bool:
        """Whether every point of the CoG's cell lies inside the track's edges by more than
        ``wheel_reach`` and the slack (its four corners do)."""
        gx, gy = key
        lattice = self.lattice
        inside = lattice.half_width - self.wheel_reach - EDGE_SLACK_M
        return all(
            lattice._corner(gx + i, gy + j) <= inside for i, j in ((0, 0), (1, 0), (0, 1), (1, 1))
        )

    def surfaces(self, x: float, y: float, c: float, s: float) -> tuple:
        """The four wheels' surfaces (:class:`Surface`)."""
        at = self.lattice.surface_at
        return tuple(at(x + c * lx - s * ly, y + s * lx + c * ly) for lx, ly in self.offsets)

    def factors(self, x: float, y: float, c: float, s: float) -> tuple:
        # Most substeps find the car deep in the track: when the CoG's cell lies farther
        # inside the edges than any wheel is from the CoG, every wheel is on the track
        # (distance from the centreline changes no faster than distance travelled), the
        # answer surface_at gives each wheel, found with one look-up instead of four.
        key = (math.floor(x / CELL_M), math.floor(y / CELL_M))
        deep = self._deep.get(key)
        if deep is None:
            deep = self._deep[key] = self._is_deep(key)
        if deep:
            return self._on_track
        values = self._values
        f0, f1, f2, f3 = (values[w.name] for w in self.surfaces(x, y, c, s))
        return (f0[0], f1[0], f2[0], f3[0], f0[1], f1[1], f2[1], f3[1])


_LATTICES: dict = {}
LATTICE_CACHE = 8  # circuits whose lattices are kept


def lattice_of(circuit: object, track: Surface, runoff: Surface) -> Lattice:
    """The lattice of ``circuit`` with these surfaces, shared by every car on it (kept by
    the circuit's exact centreline, width and surfaces)."""
    t = circuit.track
    key = (t.name, t.width, t.x, t.y, track, runoff)
    got = _LATTICES.get(key)
    if got is None:
        if len(_LATTICES) >= LATTICE_CACHE:
            del _LATTICES[next(iter(_LATTICES))]
        got = _LATTICES[key] = Lattice(circuit, track, runoff)
    return got


def ground_for(
    circuit: object, offsets: tuple, road: float, runoff: Surface | None = None
) -> Ground:
    """The ground of a car with wheel ``offsets`` on ``circuit`` in road condition ``road``
    (λ), from the circuit's own surfaces (``runoff``: another runoff in place of its own,
    as a measurement that switches the grass off does)."""
    track, own = circuit.surfaces
    return Ground(lattice_of(circuit, track, own if runoff is None else runoff), offsets, road)
