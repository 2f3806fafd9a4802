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
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import DefinitionError

from .params import load_data_file

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


def _profile(d: dict, where: str) -> Profile:
    limits = []
    for name in METRICS:
        if name not in d:
            raise DefinitionError(f"{where}.{name}: missing")
        mag, rate = (float(v) for v in d[name])
        if not (mag > 0.0 and rate > 0.0):
            raise DefinitionError(f"{where}.{name}: thresholds must be > 0")
        limits.append((mag, rate))
    return Profile(tuple(limits))


def load_safety(model: str, overrides: dict | None = None) -> SafetyConfig:
    """The safety configuration of a model; ``overrides`` may set ``staging`` keys."""
    data = load_data_file("safety.json")
    m = data["models"][model]
    staging = dict(data["staging"])
    if overrides:
        for k, v in overrides.items():
            if k not in staging:
                raise DefinitionError(f"safety.{k}: unknown parameter")
            staging[k] = v
    st = Staging(**{k: float(v) for k, v in staging.items()})
    if not 0.0 < st.engage_severity < st.emergency_severity:
        raise DefinitionError("safety.engage_severity: must be in (0, emergency_severity)")
    if not st.release_time > 0.0:
        raise DefinitionError("safety.release_time: must be > 0")
    return SafetyConfig(
        _profile(m["normal"], f"safety.{model}.normal"),
        _profile(m["drift"], f"safety.{model}.drift"),
        bool(m["drift_default"]),
        st,
    )


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
