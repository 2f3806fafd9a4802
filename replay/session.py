"""A live drive on the circuit: keys in, inputs recorded exactly as applied, laps timed.

The sandbox page's Web Worker runs a :class:`DriveSession` in Pyodide; the tests run the
same class in CPython. Per host step the page hands over the state of the keys; the session
turns it into the engine's inputs with rate limits (a held key ramps its input, a released
one ramps back), feeds them through a :class:`replay.recorder.Recorder` (so the recording
holds the very values the engine was fed) and times laps with :class:`engine.track.LapTimer`
after every substep.

Keyboard ramps, in full scale per second (so a pedal goes from 0 to 1 in ``1/rate`` s):

======================  ======  ========
input                   press   release
======================  ======  ========
throttle                 4.0      8.0
brake                    5.0     10.0
steer (towards a side)   2.5      4.0 (back to centre)
handbrake               10.0     10.0
======================  ======  ========

Steering towards the other side while steering one way uses the release rate until the
wheel passes the centre. Keyboard driving keeps the steering assist on (the channel's
``1``); ABS, traction and stability control follow the session's switches (on, off, or as
the preset defines them). Gear presses (manual boxes) are queued and each one is applied as
a one-host-step gear request, so no press is lost or applied twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skidpad.engine import definition as engine_definition
from skidpad.engine import smath
from skidpad.engine.errors import InputError
from skidpad.engine.simulation import LAYOUT
from skidpad.engine.track import (
    Circuit,
    LapTimer,
    load_circuit,
    nearest_sample,
    walk_nearest,
    wheel_offsets,
)
from skidpad.replay.laps import replay_laps  # noqa: F401  (re-exported for the page's callers)
from skidpad.replay.recorder import Recorder, make_simulation

#: (press, release) ramp rates, full scale per second
THROTTLE_RATES = (4.0, 8.0)
BRAKE_RATES = (5.0, 10.0)
STEER_RATES = (2.5, 4.0)
HANDBRAKE_RATES = (10.0, 10.0)
TRACK = "sandbox"
DRIVE = "sandbox"

GEAR_UP, GEAR_DOWN = 1, 2
ASSIST_CHANNELS = ("abs", "traction_control", "stability_control")
HEADING_C = LAYOUT.index["body.heading_c"]
HEADING_S = LAYOUT.index["body.heading_s"]


@dataclass(frozen=True)
class Keys:
    """The keys held at one host step, and the gear presses since the previous one."""

    throttle: bool = False
    brake: bool = False
    left: bool = False
    right: bool = False
    handbrake: bool = False
    gear_up: int = 0
    gear_down: int = 0

    @classmethod
    def from_json(cls, data: Mapping) -> Keys:
        if not isinstance(data, Mapping):
            raise InputError("keys: must be an object")
        unknown = [k for k in data if k not in cls.__dataclass_fields__]
        if unknown:
            raise InputError(f"keys: unknown key {unknown[0]!r}")
        values = {}
        for name, spec in cls.__dataclass_fields__.items():
            v = data.get(name, spec.default)
            if name.startswith("gear_"):
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 100:
                    raise InputError(f"keys.{name}: a press count 0..100")
            elif not isinstance(v, bool):
                raise InputError(f"keys.{name}: true or false")
            values[name] = v
        return cls(**values)


def ramp(value: float, target: float, rates: tuple[float, float], host_hz: int) -> float:
    """``value`` moved towards ``target`` by at most one host step's worth of its rate: the
    press rate when moving away from zero, the release rate when moving towards it."""
    away = abs(target) > abs(value) and (target >= 0.0) == (value >= 0.0)
    step = (rates[0] if away else rates[1]) / host_hz
    if target > value:
        return target if value + step > target else value + step
    return target if value - step < target else value - step


class KeyboardInputs:
    """Keys to engine inputs, one host step at a time (the module docstring's ramps)."""

    def __init__(self, host_hz: int, assists: Mapping[str, int]) -> None:
        self.host_hz = host_hz
        self.assists = dict(assists)
        self.throttle = 0.0
        self.brake = 0.0
        self.steer = 0.0
        self.handbrake = 0.0
        self.pending_gears: list[int] = []

    def next(self, keys: Keys) -> dict:
        hz = self.host_hz
        self.pending_gears.extend([GEAR_UP] * keys.gear_up + [GEAR_DOWN] * keys.gear_down)
        steer_target = (1.0 if keys.left else 0.0) - (1.0 if keys.right else 0.0)
        self.throttle = ramp(self.throttle, 1.0 if keys.throttle else 0.0, THROTTLE_RATES, hz)
        self.brake = ramp(self.brake, 1.0 if keys.brake else 0.0, BRAKE_RATES, hz)
        self.steer = ramp(self.steer, steer_target, STEER_RATES, hz)
        self.handbrake = ramp(self.handbrake, 1.0 if keys.handbrake else 0.0, HANDBRAKE_RATES, hz)
        gear = self.pending_gears.pop(0) if self.pending_gears else 0
        return {
            "throttle": self.throttle,
            "brake": self.brake,
            "steer": self.steer,
            "handbrake": self.handbrake,
            "gear_request": gear,
            **self.assists,
            "steering_assist": 1,
        }


def assist_channels(assists: Mapping[str, bool | None] | None) -> dict:
    """Session switches (True on, False off, None or absent: as the preset defines) as the
    engine's assist channels (1, -1, 0)."""
    assists = dict(assists or {})
    unknown = [k for k in assists if k not in ASSIST_CHANNELS]
    if unknown:
        raise InputError(
            f"assists: unknown assist {unknown[0]!r}; known: {', '.join(ASSIST_CHANNELS)}"
        )
    out = {}
    for name in ASSIST_CHANNELS:
        v = assists.get(name)
        if v is not None and not isinstance(v, bool):
            raise InputError(f"assists.{name}: true, false or null")
        out[name] = 0 if v is None else (1 if v else -1)
    return out


class DriveSession:
    """One recording on the circuit, from the grid: :meth:`step` per host step."""

    def __init__(
        self,
        preset: str,
        surface: str = "dry",
        assists: Mapping[str, bool | None] | None = None,
        host_hz: int = 100,
        circuit: Circuit | None = None,
    ) -> None:
        self.preset = preset
        self.definition = engine_definition.load_preset(preset)
        self.circuit = circuit or load_circuit(TRACK)
        pose = self.circuit.grid_pose()
        self.initial = {"x_m": pose.x, "y_m": pose.y, "yaw_rad": pose.heading, "surface": surface}
        self.sim = make_simulation(self.definition, host_hz, None, self.initial)
        self.recorder = Recorder(
            self.sim,
            self.definition,
            preset=preset,
            initial=self.initial,
            track=TRACK,
            drive=DRIVE,
        )
        self.keyboard = KeyboardInputs(host_hz, assist_channels(assists))
        self.timer = self.recorder.lap_timer
        self.checkpoints = self.recorder.checkpoints
        self.telemetry = self.sim.telemetry()
        self.inputs: dict | None = None
        self._nearest = nearest_sample(self.circuit.track, pose.x, pose.y)

    @property
    def steps(self) -> int:
        return self.sim.step_count

    def step(self, keys: Keys) -> None:
        """One host step with these keys."""
        self.inputs = self.keyboard.next(keys)
        self.telemetry = self.recorder.step(self.inputs)

    def state_hash(self) -> str:
        return self.sim.state_hash()

    def laps(self) -> list[dict]:
        return [lap.to_json() for lap in self.timer.laps]

    def car(self) -> dict:
        """Where the car is: CoG position (m), heading (rad), speed (m/s), yaw rate (rad/s,
        counter-clockwise +), distance along the
        centreline from the start/finish line (m, one lap), lateral offset (m, left +) and the
        front wheels' mean road-wheel angle (rad, left +)."""
        t = self.telemetry
        c_, s_ = self.sim_heading()
        track = self.circuit.track
        i = walk_nearest(track, self._nearest, t.x, t.y)
        if i is None:
            i = nearest_sample(track, t.x, t.y)
        self._nearest = i
        nx, ny = self.circuit.normals[i]
        lateral = (t.x - track.x[i]) * nx + (t.y - track.y[i]) * ny
        along = (t.x - track.x[i]) * ny - (t.y - track.y[i]) * nx
        s = (track.s[i] + along - self.circuit.lines[0].s) % track.length
        return {
            "x": t.x,
            "y": t.y,
            "heading": smath.atan2(s_, c_),
            "speed": t.speed,
            "vx": t.vx,
            "yaw_rate": t.yaw_rate,
            "distance": s,
            "lateral": lateral,
            "steer_angle": (t.wheel_angle[0] + t.wheel_angle[1]) / 2,
        }

    def sim_heading(self) -> tuple[float, float]:
        """The heading unit vector (cos, sin) after the last step."""
        st = self.sim.state
        return st[HEADING_C], st[HEADING_S]

    def view(self) -> dict:
        """What the page draws after a step: the car, its wheels, the HUD and the lap board."""
        t = self.telemetry
        c, s = self.sim_heading()
        timer = self.timer
        best = [lap.time_s for lap in timer.laps if lap.valid]
        return {
            "step": self.sim.step_count,
            "time_s": t.time_s,
            "x": t.x,
            "y": t.y,
            "c": c,
            "s": s,
            "wheel_angle": list(t.wheel_angle),
            "locked": list(t.locked),
            "speed": t.speed,
            "gear": t.gear,
            "rpm": t.engine_rpm,
            "throttle": self.inputs["throttle"] if self.inputs else 0.0,
            "brake": self.inputs["brake"] if self.inputs else 0.0,
            "steer": self.inputs["steer"] if self.inputs else 0.0,
            "abs": any(a > 0.0 for a in t.abs_activity),
            "tc": t.tc_activity > 0.0,
            "esc": t.esc_brake_torque > 0.0,
            "lap": timer.lap_number,
            "lap_time": timer.elapsed_s(self.sim.tick),
            "lap_valid": timer.current_valid,
            "best": min(best) if best else None,
            "laps": self.laps(),
        }

    def recording(self) -> Any:
        return self.recorder.recording()


class PageAPI:
    """The sandbox worker's calls into Python, JSON text in and out (one instance per page).

    ``start(options)`` begins a new recording from the grid (``{"preset", "surface",
    "assists"}``); ``steps(n, keys)`` runs ``n`` host steps with one key state (gear presses
    apply to the first) and returns the view; ``recording()`` is the download; ``replay(text)``
    replays a loaded recording: its trajectory (for the ghost), laps and whether the replay
    reproduces the file's final hash.
    """

    def __init__(self) -> None:
        self.session: DriveSession | None = None

    def catalogue(self) -> str:
        """The presets, surfaces and assist switches the page offers."""
        import json

        from skidpad.engine.tire import SURFACES

        return json.dumps(
            {
                "presets": list(engine_definition.PRESET_NAMES),
                "surfaces": list(SURFACES),
                "assists": list(ASSIST_CHANNELS),
            }
        )

    def start(self, options_json: str) -> str:
        import json

        options = json.loads(options_json)
        if not isinstance(options, dict):
            raise InputError("start: options must be an object")
        self.session = DriveSession(
            options.get("preset", "hatchbackFwd"),
            surface=options.get("surface", "dry"),
            assists=options.get("assists"),
        )
        return self._view()

    def steps(self, n: int, keys_json: str) -> str:
        import json

        if self.session is None:
            raise InputError("steps: no drive started")
        if not 0 <= int(n) <= 1000:
            raise InputError("steps: 0..1000 host steps at a time")
        keys = Keys.from_json(json.loads(keys_json))
        held = Keys(keys.throttle, keys.brake, keys.left, keys.right, keys.handbrake)
        for i in range(int(n)):
            self.session.step(keys if i == 0 else held)
        return self._view()

    def _view(self) -> str:
        import json

        view = self.session.view()
        view["car"] = self.session.car()
        view["preset"] = self.session.preset
        return json.dumps(view)

    def setup(self) -> str:
        """The started drive's circuit drawing and the car's contact points (body frame)."""
        import json

        return json.dumps(
            {
                "track": track_drawing(self.session.circuit),
                "wheels": [list(o) for o in wheel_offsets(self.session.definition)],
                "preset": self.session.preset,
                "host_hz": self.session.sim.host_hz,
            }
        )

    def state_hash(self) -> str:
        return self.session.state_hash() if self.session else ""

    def recording(self) -> str:
        from skidpad.replay.recording import dumps

        return dumps(self.session.recording())

    def replay(self, text: str) -> str:
        import json

        from skidpad.replay.recording import loads
        from skidpad.replay.replayer import replay

        rec = loads(text)
        definition = getattr(rec, "definition", None)
        if definition is None:  # the ghost is a car on the circuit, drawn from its wheels
            raise InputError(
                f"replay: this page shows four-wheel drives as ghosts; this is a "
                f"{rec.format.family} recording ({rec.preset}): check it with skidpad verify"
            )
        circuit = load_circuit(rec.track or TRACK)
        timer = LapTimer(circuit, wheel_offsets(definition), rec.substep_hz)
        poses: list[list[float]] = []
        every = max(1, rec.substep_hz // rec.host_hz)

        def observe(tick: int, x: float, y: float, c: float, s: float) -> None:
            timer.observe(tick, x, y, c, s)
            if tick % every == 0:
                poses.append([x, y, c, s])

        result = replay(rec, observer=observe)
        return json.dumps(
            {
                "preset": rec.preset,
                "steps": result.steps,
                "final_hash": result.final_hash,
                "claimed_final_hash": rec.final_hash,
                "laps": [lap.to_json() for lap in timer.laps],
                "trajectory": poses,
            }
        )


def track_drawing(circuit: Circuit) -> dict:
    """What the page needs to draw the circuit: the centreline, its left normals, the width,
    the limit and the three lines (point and tangent)."""
    t = circuit.track
    return {
        "name": t.name,
        "x": list(t.x[: t.n]),
        "y": list(t.y[: t.n]),
        "nx": [n[0] for n in circuit.normals],
        "ny": [n[1] for n in circuit.normals],
        "width": t.width,
        "limit": circuit.limit_m,
        "lines": [
            {"name": line.name, "x": line.x, "y": line.y, "tx": line.tx, "ty": line.ty}
            for line in circuit.lines
        ],
    }
