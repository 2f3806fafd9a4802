"""Tracks as data: a closed centreline built from straights and clothoid-eased corners.

A track file (``scenarios/tracks/<name>.json``) lists segments from a start
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
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from engine import smath
from engine.errors import SkidpadError

TRACK_DIR = Path(__file__).resolve().parent / "tracks"
CLOSURE_M = 1e-3
CLOSURE_RAD = 1e-9


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
    """Load ``scenarios/tracks/<name>.json``."""
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
