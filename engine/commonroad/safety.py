"""Loss-of-control detector and staged safety controller.

Detector. Four metrics are scored against a profile of (magnitude, rate)
thresholds: yaw rate |r| [rad/s], slip angle |beta| [rad], lateral
acceleration |v r| [m/s^2] and the largest per-wheel longitudinal slip |s|
(models with wheel states); slip angle and wheel slip are scored only above
``slip_min_speed``, where they mean something. The score of a metric is
``max(|m| / m_max, |dm/dt| / rate_max)`` with dm/dt the finite difference over
the last substep; the **severity** is the worst score.

Staged controller (stages NORMAL 0, TRANSITION 1, EMERGENCY 2), one update per
substep with severity s and intervention blend b in [0, 1]:

* target = clamp((s - engage) / (emergency - engage), 0, 1); outside emergency
  b = max(target, b - h / release_time): it engages at once and eases out at
  the release rate; the stage is NORMAL when b = 0, else TRANSITION.
* s > emergency latches EMERGENCY with b = 1. It holds until the speed has
  come down to ``recover_speed`` and s < ``release_severity``; then the stage
  drops to TRANSITION and b eases out from 1.

The intervention scales throttle by (1 - b) and the steering demand by
(1 - b steer_cut); in EMERGENCY the brake is at least ``emergency_brake``.

Profiles (per model, ``data/safety.json``): ``normal`` and the looser
``drift``; the drift-capable model (STD) starts in drift, the others opt in
at reset or by the runtime drift toggle.

Parameters: :func:`build_safety` builds a :class:`SafetyConfig` from plain data
(the profiles, ``drift_default``, the staging settings; :func:`build_profile`
and :func:`build_staging` for the parts), checking every threshold (> 0, it
divides) and staging setting (:data:`STAGING_RANGES`, and
``engage_severity < emergency_severity``) once; :func:`load_safety` builds a
model's configuration from ``data/safety.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from skidpad.engine.errors import DefinitionError

from .params import Range, checked_values, load_data_file, non_negative, positive, within

NORMAL, TRANSITION, EMERGENCY = 0, 1, 2
STAGE_NAMES = ("normal", "transition", "emergency")
METRICS = ("yaw_rate", "slip_angle", "lat_accel", "wheel_slip")


@dataclass(frozen=True)
class Profile:
    """(magnitude, rate) thresholds per metric, in ``METRICS`` order."""

    limits: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Staging:
    engage_severity: float
    emergency_severity: float
    release_severity: float
    recover_speed: float  # [m/s]
    release_time: float  # [s]
    slip_min_speed: float  # [m/s]
    emergency_brake: float  # [0, 1]
    steer_cut: float  # [0, 1]


@dataclass(frozen=True)
class SafetyConfig:
    normal: Profile
    drift: Profile
    drift_default: bool
    staging: Staging


#: Valid range of every staging setting (the cross conditions are in :func:`build_staging`).
STAGING_RANGES: dict[str, Range] = {
    "engage_severity": positive(),  # and < emergency_severity, which divides
    "emergency_severity": positive(),
    "release_severity": non_negative(),
    "recover_speed": non_negative(),
    "release_time": positive(),  # the blend eases out at 1 / release_time
    "slip_min_speed": non_negative(),
    "emergency_brake": within(0.0, 1.0),  # a brake pedal position
    "steer_cut": within(0.0, 1.0),
}
#: A detector threshold divides the metric (magnitude) or its rate of change.
THRESHOLD_RANGE = positive()
#: The safety configuration as plain data: its keys.
SAFETY_KEYS = ("normal", "drift", "drift_default", "staging")


def build_profile(data: Mapping, name: str) -> Profile:
    """A detector profile from ``{metric: [magnitude, rate]}`` for every metric in ``METRICS``.

    ``name`` (``normal``, ``drift``) says which profile it is in the DefinitionError, e.g.
    ``safety parameter normal/yaw_rate rate threshold must be > 0, not -5.0``.
    """
    limits = []
    for metric in METRICS:
        label = f"safety parameter {name}/{metric}"
        if metric not in data:
            raise DefinitionError(f"{label} is missing")
        pair = data[metric]
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise DefinitionError(f"{label} must be [magnitude, rate]")
        mag, rate = (
            THRESHOLD_RANGE.check(v, f"{label} {which} threshold")
            for v, which in zip(pair, ("magnitude", "rate"), strict=True)
        )
        limits.append((mag, rate))
    return Profile(tuple(limits))


def build_staging(data: Mapping) -> Staging:
    """The staged controller's settings from every one of them, by name, checked once here."""
    st = Staging(**checked_values(data, STAGING_RANGES, "safety parameter staging/"))
    if not st.engage_severity < st.emergency_severity:
        # the blend target divides by emergency_severity - engage_severity
        raise DefinitionError(
            "safety parameter staging/engage_severity must be < staging/emergency_severity "
            f"({st.emergency_severity!r}), not {st.engage_severity!r}"
        )
    return st


def build_safety(data: Mapping) -> SafetyConfig:
    """A validated :class:`SafetyConfig` from its plain data (``SAFETY_KEYS``), as a
    recording embeds it: both profiles, ``drift_default`` and the staging settings."""
    for k in SAFETY_KEYS:
        if k not in data:
            raise DefinitionError(f"safety parameter {k} is missing")
    if not isinstance(data["drift_default"], bool):
        raise DefinitionError("safety parameter drift_default must be true or false")
    return SafetyConfig(
        build_profile(data["normal"], "normal"),
        build_profile(data["drift"], "drift"),
        data["drift_default"],
        build_staging(data["staging"]),
    )


def load_safety(model: str, overrides: dict | None = None) -> SafetyConfig:
    """The safety configuration of a model from ``safety.json``; ``overrides`` may set
    ``staging`` keys."""
    data = load_data_file("safety.json")
    staging = {**data["staging"], **(overrides or {})}  # an unknown key is refused by name
    return build_safety({**data["models"][model], "staging": staging})


def severity(
    profile: Profile, metrics: tuple[float, ...], prev: tuple[float, ...], h: float
) -> tuple[float, int]:
    """(worst normalised score, index of the metric that set it)."""
    worst = 0.0
    which = 0
    for i in range(len(METRICS)):
        mag, rate = profile.limits[i]
        m = abs(metrics[i])
        score = m / mag
        r = abs(metrics[i] - prev[i]) / h / rate
        if r > score:
            score = r
        if score > worst:
            worst = score
            which = i
    return worst, which


def update_stage(
    st: Staging, stage: int, blend: float, sev: float, speed: float, h: float
) -> tuple[int, float]:
    """The next (stage, blend) after one substep of ``h`` seconds."""
    if sev > st.emergency_severity:
        return EMERGENCY, 1.0
    if stage == EMERGENCY:
        if speed > st.recover_speed or sev >= st.release_severity:
            return EMERGENCY, 1.0
        stage = TRANSITION  # released: ease out from full intervention
    target = (sev - st.engage_severity) / (st.emergency_severity - st.engage_severity)
    target = 0.0 if target < 0.0 else 1.0 if target > 1.0 else target
    eased = blend - h / st.release_time
    blend = target if target > eased else eased
    if blend <= 0.0:
        return NORMAL, 0.0
    return TRANSITION, blend


def intervene(
    st: Staging, stage: int, blend: float, steer: float, throttle: float, brake: float
) -> tuple[float, float, float]:
    """(steer, throttle, brake) after the safety intervention."""
    if stage == NORMAL:
        return steer, throttle, brake
    steer = steer * (1.0 - blend * st.steer_cut)
    throttle = throttle * (1.0 - blend)
    if stage == EMERGENCY and brake < st.emergency_brake:
        brake = st.emergency_brake
    return steer, throttle, brake
