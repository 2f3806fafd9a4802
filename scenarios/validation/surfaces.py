"""Surfaces: the 100–0 km/h stop on wet, gravel, snow and ice, locked (no ABS) and with ABS.

The stop of :mod:`.straight_line` on the surface (``initial.surface``: the
engine's friction scale, :data:`engine.fourwheel.tire.SURFACES`). A car that swaps ends
(heading change past 90°) is flagged ``spins``; its distance is then how far
from the start it came to rest. The hold after the stop is shortened to
0.5 s (the rest check belongs to the dry stop).

The car starts with a yaw-rate disturbance of :data:`YAW_DISTURBANCE_RADPS`:
a symmetric model on a perfect road keeps even an unstable straight slide
(rear wheels locked, fronts rolling) straight for ever; a real road always
gives it a nudge, and the nudge is what decides whether it swaps ends.
"""

from __future__ import annotations

from skidpad.scenarios.validation.straight_line import stop

SURFACES = ("wet", "gravel", "snow", "ice")
HOLD_S = 0.5
YAW_DISTURBANCE_RADPS = 0.01


def run(
    definition: dict,
    progress: object = None,
    surfaces: tuple = SURFACES,
    modes: tuple = ("locked", "abs"),
) -> dict:
    out = {}
    for surface in surfaces:
        row = {}
        for mode in modes:
            if progress:
                progress(f"100-0 km/h on {surface}, {mode}")
            r = stop(
                definition,
                abs_on=(mode == "abs"),
                surface=surface,
                hold_s=HOLD_S,
                probe_locks=False,
                yaw_rate=YAW_DISTURBANCE_RADPS,
            )
            row[mode] = (
                None
                if r is None
                else {
                    "distance_m": r["distance_m"],
                    "time_s": r["time_s"],
                    "spins": r["spins"],
                    "heading_change_deg": r["heading_change_deg"],
                }
            )
        out[surface] = row
    return out
