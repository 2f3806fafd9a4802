"""Aerodynamics: drag and downforce with a front/rear balance.

    F_drag = -½·ρ·C_dA·v_x·|v_x|              (body x, N; opposes motion)
    F_down = ½·ρ·C_lA·v_x²                    (N, positive pressing down; negative = lift)
    F_down,front = share·F_down, F_down,rear = (1 - share)·F_down

v_x is the body's forward speed (the air is still). Drag acts at the CoG
(its pitch moment is neglected); downforce is applied directly to the wheel
loads (:mod:`engine.fourwheel.load_transfer`).
"""

from __future__ import annotations

from typing import NamedTuple


class AeroConstants(NamedTuple):
    """½ρ·C_dA and the downforce coefficients per axle (kg/m)."""

    drag: float
    down_front: float
    down_rear: float


def constants(a: dict) -> AeroConstants:
    """(½ρC_dA, ½ρC_lA·share, ½ρC_lA·(1-share)) in kg/m."""
    q = 0.5 * a["air_density_kg_per_m3"]
    down = q * a["downforce_area_m2"]
    share = a["downforce_front_share"]
    return AeroConstants(
        drag=q * a["drag_area_m2"], down_front=down * share, down_rear=down * (1.0 - share)
    )


def forces(k: AeroConstants, vx: float) -> tuple[float, float, float]:
    """(drag force on body x, downforce on the front axle, on the rear axle), N."""
    v2 = vx * vx
    return (-k.drag * vx * abs(vx), k.down_front * v2, k.down_rear * v2)
