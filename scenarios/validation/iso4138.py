"""ISO 4138 constant radius: the understeer gradient, four-wheel, single-track and linear theory.

Four-wheel: :func:`scenarios.skidpad.circle_point` drives the 40 m circle
closed loop (yaw-rate PI + linear feedforward on the steer, PI on the speed)
at 4, 6, 8, 10 and 12 m/s, turning left and turning right (a negative
radius mirrors the driver). Each point's reference steer angle is reduced by
the Ackermann angle of the path actually driven, ``L·r/V``, and K_us is the
least-squares slope of that over ``a_y = V·r`` (deg/g), fitted per direction
on the magnitudes; the reported K_us is the mean of the two.

Single-track: :func:`engine.fourwheel.single_track.understeer` (steady-state solve of
the bicycle model from the same definition, same speeds and radius).
Linear theory: :func:`engine.fourwheel.single_track.linear_understeer`.
"""

from __future__ import annotations

from skidpad.engine.fourwheel.single_track import fit_understeer, linear_understeer
from skidpad.engine.fourwheel.single_track import understeer as single_track_understeer
from skidpad.scenarios.skidpad import (
    RADIUS_M,
    SPEEDS_MPS,
    circle_point,
)

DEG_PER_RAD = 57.29577951308232


def four_wheel(
    definition: dict,
    radius: float,
    speeds: tuple = SPEEDS_MPS,
    progress: object = None,
    **kwargs: object,
) -> tuple[float, list[dict]]:
    """K_us (deg/g) on a circle of signed ``radius`` (negative turns right) and its points."""
    wb = definition["geometry"]["wheelbase_m"]
    pts = []
    fit = []
    for v in speeds:
        if progress:
            progress(f"ISO 4138 {'left' if radius > 0 else 'right'} {v:g} m/s")
        p = circle_point(definition, v, radius, **kwargs)
        ack = wb * p.yaw_rate / p.speed
        s = 1.0 if radius > 0.0 else -1.0
        fit.append((s * p.ay, s * (p.delta - ack)))
        pts.append(
            {
                "target_mps": v,
                "speed_mps": p.speed,
                "yaw_rate_radps": p.yaw_rate,
                "ay_mps2": p.ay,
                "steer_deg": p.delta * DEG_PER_RAD,
                "ackermann_deg": ack * DEG_PER_RAD,
                "path_radius_m": p.radius,
            }
        )
    return fit_understeer(fit), pts


#: the speeds of the single-track K_us compared with linear theory (small lateral acceleration)
SMALL_AY_SPEEDS_MPS = (1.0, 1.5, 2.0, 2.5, 3.0)


def run(definition: dict, progress: object = None, speeds: tuple = SPEEDS_MPS, **kwargs) -> dict:
    k_left, p_left = four_wheel(definition, RADIUS_M, speeds, progress, **kwargs)
    k_right, p_right = four_wheel(definition, -RADIUS_M, speeds, progress, **kwargs)
    k_st, st_pts = single_track_understeer(definition, RADIUS_M, speeds)
    # linear theory is the slope at zero lateral acceleration: the single-track model's is
    # taken where every tire is still linear (a_y <= 0.23 m/s² on this radius), whatever
    # its force law (an MF 6.1 tire bends well inside the speeds above)
    k_small, _ = single_track_understeer(definition, RADIUS_M, SMALL_AY_SPEEDS_MPS)
    return {
        "kus_four_wheel_deg_per_g": 0.5 * (k_left + k_right),
        "kus_four_wheel_left_deg_per_g": k_left,
        "kus_four_wheel_right_deg_per_g": k_right,
        "kus_single_track_deg_per_g": k_st,
        "kus_single_track_small_ay_deg_per_g": k_small,
        "kus_linear_deg_per_g": linear_understeer(definition),
        "points_left": p_left,
        "points_right": p_right,
        "single_track_points": [
            {"ay_mps2": ay, "steer_deg": delta * DEG_PER_RAD} for ay, _dd, delta in st_pts
        ],
    }
