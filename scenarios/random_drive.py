"""``random:SEED``: a deterministic, smooth, plausible random drive (fuzzing, untuned tests).

Randomness comes from splitmix64 over Python integers (no ``random``
module, no floats in the generator state): ``next = (s + γ) mod 2⁶⁴`` mixed
by two xor-shift-multiply rounds. A uniform double in [0, 1) is the top 53
bits divided by 2⁵³ (exact). The drive is a sequence of *phases* of random
integer length (0.4–2.5 s); each phase picks target pedal and steer values
and the inputs ramp linearly (integer step fractions) from the previous
targets to the new ones over the first third of the phase, then hold (the
pedals ramp as one signed value, throttle − brake, so they never overlap). A
phase is either driving (throttle 0.1–0.9, no brake) or braking (brake
0.2–0.8, no throttle), never both, and the steer target shrinks as the
throttle grows, so the car mostly stays on its wheels. The handbrake is
used only in the last second, to park.
"""

from __future__ import annotations

from skidpad.engine.fourwheel.definition import load_preset
from skidpad.engine.fourwheel.drive import top_start_speed
from skidpad.engine.prng import SplitMix64


def plan(seed: int, host_hz: int, steps: int) -> list[tuple[int, float, float, float]]:
    """Phases ``(first_step, throttle, brake, steer)`` covering ``steps`` host steps."""
    rng = SplitMix64(seed)
    shortest, longest = 4 * host_hz // 10, 25 * host_hz // 10  # a phase lasts 0.4-2.5 s
    phases = []
    k = 0
    first = True
    while k < steps:
        length = shortest + rng.below(longest - shortest + 1)
        if first or rng.unit() < 0.7:
            throttle = rng.uniform(0.1, 0.9)
            brake = 0.0
        else:
            throttle = 0.0
            brake = rng.uniform(0.2, 0.8)
        first = False
        steer = rng.uniform(-1.0, 1.0) * (0.3 - 0.25 * throttle)
        phases.append((k, throttle, brake, steer))
        k += max(1, length)
    return phases


class RandomDriver:
    """Open-loop driver for ``random:SEED``; ignores telemetry."""

    track = None

    def __init__(
        self,
        seed: int,
        host_hz: int = 100,
        duration_s: float = 30.0,
        initial: dict | None = None,
    ) -> None:
        from skidpad.engine.fourwheel import inputs as engine_inputs

        self.seed = int(seed)
        self.drive = f"random:{self.seed}"
        self.host_hz = int(host_hz)
        self.steps = int(duration_s * self.host_hz)
        self.channels = engine_inputs.CHANNELS
        self.phases = plan(self.seed, self.host_hz, self.steps)
        self._park_from = max(0, self.steps - self.host_hz)
        self._initial = dict(initial or {})

    def initial(self) -> dict:
        return dict(self._initial)

    def max_steps(self) -> int:
        return self.steps

    def _targets(self, step: int) -> tuple[float, float, float, float]:
        """Throttle, brake, steer, handbrake at ``step``: ramp from the last phase's targets."""
        i = 0
        for j, ph in enumerate(self.phases):
            if ph[0] <= step:
                i = j
        start, throttle, brake, steer = self.phases[i]
        if i > 0:
            _, t0, b0, s0 = self.phases[i - 1]
            end = self.phases[i + 1][0] if i + 1 < len(self.phases) else self.steps
            ramp = max(1, (end - start) // 3)
            done = step - start
            if done < ramp:
                # ramp one signed pedal (throttle - brake), so the two are never pressed together
                f = done / ramp
                p0, p1 = t0 - b0, throttle - brake
                pedal = p0 + (p1 - p0) * f
                throttle = pedal if pedal > 0.0 else 0.0
                brake = -pedal if pedal < 0.0 else 0.0
                steer = s0 + (steer - s0) * f
        handbrake = 0.0
        if step >= self._park_from:
            throttle, brake, steer, handbrake = 0.0, 0.8, 0.0, 1.0
        return throttle, brake, steer, handbrake

    def inputs(self, step: int, telemetry: object = None) -> dict:
        throttle, brake, steer, handbrake = self._targets(step)
        values = {"throttle": throttle, "brake": brake, "steer": steer, "handbrake": handbrake}
        names = {c.name for c in self.channels}
        return {k: v for k, v in values.items() if k in names}

    def finished(self, step: int, telemetry: object) -> bool:
        return False


def make_driver(
    definition: dict, host_hz: int, seed: int, duration_s: float = 30.0
) -> RandomDriver:
    return RandomDriver(seed, host_hz, duration_s)


# ------------------------------------------------------------------ random setups (fuzzing)

#: the presets a fuzz campaign draws from by default (every shipped four-wheel preset)
FUZZ_PRESETS = ("sportsRwd", "hatchbackFwd", "crossoverEv", "pickup4x4", "openWheeler", "kart")
#: common host rates (a frame rate or a fixed tick); a fuzz drive also draws any integer rate
HOST_RATES = (30, 50, 60, 100, 120, 144, 200, 240)
#: substep rates in bands: (lowest, highest, weight out of 10); the bands span the definition's
#: allowed range (100-20000 Hz), the slow top band drawn least so a campaign stays affordable
SUBSTEP_BANDS = ((100, 999, 4), (1000, 4999, 4), (5000, 20000, 2))
#: road surfaces of ``engine.fourwheel.tire.SURFACES``
SURFACES = ("dry", "wet", "gravel", "snow", "ice")


class FuzzSetup:
    """One random drive of a fuzz campaign: preset, rates, road and start, plus the input seed."""

    __slots__ = ("seed", "preset", "host_hz", "substep_hz", "initial")

    def __init__(
        self, seed: int, preset: str, host_hz: int, substep_hz: int, initial: dict
    ) -> None:
        self.seed, self.preset = seed, preset
        self.host_hz, self.substep_hz, self.initial = host_hz, substep_hz, initial

    def to_json(self) -> dict:
        return {
            "seed": self.seed,
            "preset": self.preset,
            "host_hz": self.host_hz,
            "substep_hz": self.substep_hz,
            "initial": dict(self.initial),
        }


def drive_seed(campaign_seed: int, index: int) -> int:
    """The seed of drive ``index`` of a campaign: one splitmix64 output, so neighbours differ."""
    return SplitMix64(campaign_seed * 1000003 + index).next()


def _band(rng: SplitMix64, bands: tuple) -> tuple[int, int]:
    total = 0
    for _, _, weight in bands:
        total += weight
    pick = rng.below(total)
    for lo, hi, weight in bands:
        if pick < weight:
            return lo, hi
        pick -= weight
    return bands[-1][0], bands[-1][1]


def random_setup(
    seed: int, presets: tuple[str, ...] = FUZZ_PRESETS, max_substep_hz: int = 20000
) -> FuzzSetup:
    """A random preset, host and substep rate, surface, grades and initial motion from ``seed``.

    The host rate is a common one or any integer in 20-250 Hz; the substep rate is at least
    the host rate and within the definition's 100-20000 Hz, at most ``max_substep_hz`` (a
    drive's cost grows with it). Initial motion stays moderate (0-40 m/s, below the speed the
    drivetrain allows in its top gear, a small yaw rate,
    grades within 15 %) so a drive mostly stays on its wheels."""
    rng = SplitMix64(seed)
    preset = presets[rng.below(len(presets))]
    if rng.below(2):
        host_hz = HOST_RATES[rng.below(len(HOST_RATES))]
    else:
        host_hz = 20 + rng.below(231)
    bands = tuple((lo, min(hi, max_substep_hz), w) for lo, hi, w in SUBSTEP_BANDS)
    lo, hi = _band(rng, tuple(b for b in bands if b[0] <= b[1]) or bands[:1])
    hi = max(hi, host_hz)
    lo = min(max(lo, host_hz), hi)
    substep_hz = lo + rng.below(hi - lo + 1)
    initial = {
        "surface": SURFACES[rng.below(len(SURFACES))],
        "grade": rng.uniform(-0.15, 0.15),
        "cross_grade": rng.uniform(-0.08, 0.08),
        "speed_mps": rng.uniform(0.0, min(40.0, 0.95 * top_start_speed(load_preset(preset)))),
        "yaw_rate_radps": rng.uniform(-0.3, 0.3),
        "yaw_rad": rng.uniform(-3.0, 3.0),
    }
    return FuzzSetup(rng.next(), preset, host_hz, substep_hz, initial)
