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
wheel passes the centre. An analog device (the page's gamepad) sets the targets instead of
full scale: ``throttle_amount`` and ``brake_amount`` (0..1) and ``steer_amount`` (-1..1,
left +) apply while the corresponding keys are not held, through the same ramps, so a
recording holds exactly what was applied whatever the device. Keyboard driving keeps the
steering assist on (the channel's ``1``); ABS, traction and stability control follow the
session's switches (on, off, or as the preset defines them). Gear presses (manual boxes)
are queued and each one is applied as a one-host-step gear request, so no press is lost or
applied twice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from skidpad.engine import smath
from skidpad.engine.errors import DefinitionError, InputError
from skidpad.engine.fourwheel import definition as engine_definition
from skidpad.engine.fourwheel.simulation import LAYOUT
from skidpad.engine.track import (
    Circuit,
    load_circuit,
    nearest_sample,
    walk_nearest,
    wheel_offsets,
)
from skidpad.replay.laps import replay_laps  # noqa: F401  (re-exported for the page's callers)
from skidpad.replay.recorder import Recorder, make_simulation
from skidpad.replay.recording import DRIVEN_VALUES

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
class SessionTire:
    """A person's own MF 6.1 tire on both axles of a drive (the page's "Load .tir").

    ``name`` is the file's base name, ``mapping`` its parameters as a definition embeds them
    (:func:`engine.fourwheel.tir.to_mapping`), and ``id`` the first 16 hex digits of the
    SHA-256 of their canonical JSON: two files with the same parameters are one tire, so
    the page keys its kept laps by it (a lap on another tire is another car)."""

    name: str
    mapping: dict
    id: str

    def to_json(self) -> dict:
        return {"name": self.name, "id": self.id}


#: the longest tire file name the page shows (the rest is cut, the id tells tires apart)
TIRE_NAME_CHARS = 80


def session_tire(name: str, raw: bytes) -> SessionTire:
    """The tire of a ``.tir`` file's bytes, read as ``skidpad tir check`` reads a file:
    a bad one raises :class:`engine.fourwheel.tir.TirError` in one line naming the key."""
    import hashlib
    import json

    from skidpad.engine.fourwheel import tir

    base = _base_name(name, "tire.tir")[:TIRE_NAME_CHARS]
    mapping = tir.to_mapping(tir.parse_tir(bytes(raw), base))
    canonical = json.dumps(mapping, sort_keys=True, separators=(",", ":"))
    return SessionTire(base, mapping, hashlib.sha256(canonical.encode()).hexdigest()[:16])


def _base_name(name: object, default: str) -> str:
    """The base name of a file the page names (a browser may give a Windows path), or
    ``default`` for none."""
    base = str(name).replace("\\", "/").rsplit("/", 1)[-1]
    return default if base in ("", ".", "..") else base


def preset_definition(preset: str, tire: SessionTire | None = None) -> dict:
    """The definition a drive runs: the preset's, with ``tire`` on both axles if given (a
    tire the preset cannot carry raises the definition's one-line error)."""
    d = engine_definition.load_preset(preset)
    if tire is None:
        return d
    try:
        return engine_definition.with_tir(d, tire.mapping)
    except DefinitionError as exc:
        raise DefinitionError(f"{tire.name} on {preset}: {exc}") from None


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
    #: an analog device's targets (None: none), used while the keys above are not held
    throttle_amount: float | None = None
    brake_amount: float | None = None
    steer_amount: float | None = None

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
            elif name.endswith("_amount"):
                low = -1.0 if name == "steer_amount" else 0.0
                if v is not None and (
                    isinstance(v, bool)
                    or not isinstance(v, (int, float))
                    or not math.isfinite(v)
                    or not low <= v <= 1.0
                ):
                    raise InputError(f"keys.{name}: null or a number {low:g}..1")
                v = None if v is None else float(v)
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
        if not (keys.left or keys.right) and keys.steer_amount is not None:
            steer_target = keys.steer_amount
        throttle_target = 1.0 if keys.throttle else (keys.throttle_amount or 0.0)
        brake_target = 1.0 if keys.brake else (keys.brake_amount or 0.0)
        self.throttle = ramp(self.throttle, throttle_target, THROTTLE_RATES, hz)
        self.brake = ramp(self.brake, brake_target, BRAKE_RATES, hz)
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
        driven: str | None = None,
        tire: SessionTire | None = None,
    ) -> None:
        self.preset = preset
        self.driven = driven
        self.tire = tire
        self.definition = preset_definition(preset, tire)
        self.circuit = circuit or load_circuit(TRACK)
        pose = self.circuit.grid_pose()
        self.initial = {"x_m": pose.x, "y_m": pose.y, "yaw_rad": pose.heading, "surface": surface}
        self.sim = make_simulation(self.definition, host_hz, None, self.initial)
        self.recorder = Recorder(
            self.sim,
            self.definition,
            # with another tire, the definition is no longer the preset's: the recording
            # says so (its definition, embedded whole, is what a replay runs)
            preset=preset if tire is None else None,
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
        # the ghost of every lap driven: the pose and the distance along the lap after each
        # host step (kept from the host step at which the lap began)
        self.poses: list[tuple] = []
        self.lap_starts: list[int] = []  # index into poses of lap n+1's first pose
        self.lap_ends: list[int] = []  # index into poses of completed lap n+1's last pose

    @property
    def steps(self) -> int:
        return self.sim.step_count

    def step(self, keys: Keys) -> None:
        """One host step with these keys."""
        self.inputs = self.keyboard.next(keys)
        self.telemetry = self.recorder.step(self.inputs)
        c, s = self.sim_heading()
        t = self.telemetry
        self.poses.append((t.x, t.y, c, s, self.car_distance()))
        k = len(self.poses) - 1
        timer = self.timer
        if len(timer.laps) > len(self.lap_ends):
            self.lap_ends.append(k - 1)  # the last pose short of the line
        if timer.lap_number == 0 and len(self.lap_starts) > len(timer.laps):
            self.lap_starts.pop()  # back over the start/finish line: that lap never began
        if timer.lap_number > len(self.lap_starts):
            self.lap_starts.append(k)

    def lap_ghost(self, number: int) -> dict:
        """Lap ``number``'s ghost (a completed lap): the pose (x, y, heading cos and sin) and
        the distance along the lap (m) after each host step from the step the lap began, to
        the millimetre; the page draws it and takes the live delta from it."""
        if not 1 <= number <= len(self.timer.laps):
            raise InputError(f"lap_ghost: no completed lap {number}")
        rows = self.poses[self.lap_starts[number - 1] : self.lap_ends[number - 1] + 1]
        return {
            "lap": number,
            "time_s": self.timer.laps[number - 1].time_s,
            "host_hz": self.sim.host_hz,
            **{
                key: [round(r[k], 3) for r in rows]
                for k, key in enumerate(("x", "y", "c", "s", "d"))
            },
        }

    def lap_start_step(self) -> int | None:
        """The host step (counted from the grid) after which the current lap's first pose was
        taken, None on the grid."""
        if not self.lap_starts or self.timer.lap_number == 0:
            return None
        return self.lap_starts[-1] + 1

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
        s, lateral = self._along_and_across()
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

    def car_distance(self) -> float:
        """The CoG's distance along the centreline from the start/finish line (m)."""
        return self._along_and_across()[0]

    def _along_and_across(self) -> tuple[float, float]:
        t = self.telemetry
        track = self.circuit.track
        i = walk_nearest(track, self._nearest, t.x, t.y)
        if i is None:
            i = nearest_sample(track, t.x, t.y)
        self._nearest = i
        nx, ny = self.circuit.normals[i]
        lateral = (t.x - track.x[i]) * nx + (t.y - track.y[i]) * ny
        along = (t.x - track.x[i]) * ny - (t.y - track.y[i]) * nx
        return (track.s[i] + along - self.circuit.lines[0].s) % track.length, lateral

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
            "lap_reason": timer.reason_so_far,
            # the track-limits detail of the current lap, and of the last completed one
            "violation": timer.violation,
            "last_violation": timer.violations[-1] if timer.violations else None,
            "lap_start_step": self.lap_start_step(),
            "best": min(best) if best else None,
            "laps": self.laps(),
        }

    def recording(self) -> Any:
        rec = self.recorder.recording()
        return rec if self.driven is None else replace(rec, driven=self.driven)


class PageAPI:
    """The sandbox worker's calls into Python, JSON text in and out (one instance per page).

    ``start(options, tire_name, tire_data)`` begins a new recording from the grid
    (``{"preset", "surface", "assists", "driven"}``, and a ``.tir`` file's bytes to drive on
    that tire); ``steps(n, keys)`` runs ``n`` host steps with one key state (gear
    presses apply to the first) and returns the view; ``recording()`` is the download;
    ``verify(name, data, progress)`` is ``skidpad verify`` of a loaded file (its verdict in
    the command's words, and the ghost); ``bench(data)`` times the bare substep loop.
    """

    def __init__(self) -> None:
        from skidpad.replay import archive

        archive.fetch_on_demand()  # the page's wheel has no archive: versions are fetched
        self.session: DriveSession | None = None
        #: the file being verified across calls, while archived versions are fetched:
        #: (SHA-256 of its bytes, its runs by physics version, its ghost poses)
        self._pending: tuple[str, dict, list] | None = None

    def catalogue(self) -> str:
        """The presets, surfaces and assist switches the page offers."""
        import json

        from skidpad.engine.fourwheel.tire import SURFACES

        from skidpad import engine

        return json.dumps(
            {
                "presets": list(engine_definition.PRESET_NAMES),
                "surfaces": list(SURFACES),
                "assists": list(ASSIST_CHANNELS),
                "engine_version": engine.__version__,
                # the physics this page runs, once the engine stamps one (None until then)
                "physics_version": physics_version(),
            }
        )

    def start(self, options_json: str, tire_name: Any = None, tire_data: Any = None) -> str:
        """A new drive from the grid; with ``tire_data`` (a ``.tir`` file's bytes, named
        ``tire_name``), on that tire. A refused tire raises its one-line reason, and the
        drive before it goes on."""
        import json

        options = json.loads(options_json)
        if not isinstance(options, dict):
            raise InputError("start: options must be an object")
        driven = options.get("driven")
        if driven is not None and driven not in DRIVEN_VALUES:
            raise InputError(f"start: driven must be null or one of {list(DRIVEN_VALUES)}")
        tire = None
        if tire_data is not None:
            raw = bytes(tire_data.to_py() if hasattr(tire_data, "to_py") else tire_data)
            tire = session_tire(str(tire_name or "tire.tir"), raw)
        self.session = DriveSession(
            options.get("preset", "hatchbackFwd"),
            surface=options.get("surface", "dry"),
            assists=options.get("assists"),
            driven=driven,
            tire=tire,
        )
        return self._view()

    def steps(self, n: int, keys_json: str) -> str:
        import json

        if self.session is None:
            raise InputError("steps: no drive started")
        if not 0 <= int(n) <= 1000:
            raise InputError("steps: 0..1000 host steps at a time")
        keys = Keys.from_json(json.loads(keys_json))
        held = replace(keys, gear_up=0, gear_down=0)
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
                # the tire the drive runs on when it is not the preset's ({name, id})
                "tire": self.session.tire.to_json() if self.session.tire else None,
                "host_hz": self.session.sim.host_hz,
            }
        )

    def state_hash(self) -> str:
        return self.session.state_hash() if self.session else ""

    def lap_ghost(self, number: int) -> str:
        """A completed lap's ghost (:meth:`DriveSession.lap_ghost`), for the page to keep."""
        import json

        if self.session is None:
            raise InputError("lap_ghost: no drive started")
        return json.dumps(self.session.lap_ghost(int(number)))

    def recording(self) -> str:
        from skidpad.replay.recording import dumps

        return dumps(self.session.recording())

    def verify(self, name: str, data: Any, progress: Any = None, lap: Any = None) -> str:
        """``skidpad verify`` of a loaded file, as the command does it
        (:func:`replay.verify.verify_as_the_command`): the file's bytes are written under its
        base name to a scratch folder and verified from there, so the page's verdict is the
        command's, in the same words. ``progress(n, total)`` sees the replay's progress.
        Returns the exit code, the text, the verdict and, for a four-wheel drive on this
        page's circuit, the ghost: the pose after every host step, under the physics the
        verdict names (today's or archived: ``verify`` never asks which). With ``lap`` (a
        kept lap's recording), also ``lap_ghost``: that lap's ghost as the page keeps one
        (:func:`lap_ghost_of`), when the file verifies."""
        import json
        import os
        import time
        from pathlib import Path

        from skidpad.replay.archive import ArchiveMissing
        from skidpad.replay.budget import DEFAULT_MAX_SIM_SECONDS
        from skidpad.replay.verify import VERIFIED, verify_as_the_command

        raw = bytes(data.to_py() if hasattr(data, "to_py") else data)
        base = _base_name(name, "recording.json")
        folder = Path("/tmp/skidpad-page-verify")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / base).write_bytes(raw)
        memo, poses = self._runs_of(raw)
        ghost = _GhostProbe(raw, poses)
        here = os.getcwd()
        t0 = time.perf_counter()
        try:
            os.chdir(folder)
            code, text, row = verify_as_the_command(
                Path(base), DEFAULT_MAX_SIM_SECONDS, ghost.observer, progress, memo
            )
        except ArchiveMissing as missing:  # the page fetches it and calls again (ADR 0206)
            return json.dumps({"needs_physics": missing.number})
        finally:
            os.chdir(here)
            (folder / base).unlink()
        self._pending = None
        whole = bool(row) and len(poses) == row.get("steps")  # the last run, complete
        ghost_lap = None
        if lap is not None and whole and row["verdict"] == VERIFIED:
            ghost_lap = lap_ghost_of(load_circuit(TRACK), poses, int(lap), _host_hz(raw))
        return json.dumps(
            {
                "exit": code,
                "text": text,
                "verdict": row["verdict"] if row else None,
                "driven": row.get("driven") if row else None,
                "steps": row.get("steps") if row else None,
                "physics": row.get("physics") if row else None,
                "seconds": time.perf_counter() - t0,
                "ghost": poses if whole else None,
                "ghost_note": ghost.note,
                "lap_ghost": ghost_lap,
            }
        )

    def _runs_of(self, raw: bytes) -> tuple[dict, list]:
        """The runs and ghost poses already made for these bytes (a call again after a
        fetch), else fresh ones."""
        import hashlib

        sha = hashlib.sha256(raw).hexdigest()
        if self._pending is None or self._pending[0] != sha:
            self._pending = (sha, {}, [])
        return self._pending[1], self._pending[2]

    def add_physics(self, number: int, data: Any) -> str:
        """Keep the zip of archived physics ``number`` the page fetched (checked whole)."""
        from skidpad.replay.archive import add_version_zip

        raw = bytes(data.to_py() if hasattr(data, "to_py") else data)
        return str(add_version_zip(int(number), raw))

    def bench(self, data: Any) -> str:
        """The bare substep loop's speed on a recording: its inputs replayed with no lap
        timer, no ghost and one checkpoint (what the page's verdict replay is measured
        against). Simulated seconds, wall seconds."""
        import json
        import time

        from skidpad.replay.recording import loads
        from skidpad.replay.replayer import replay

        raw = bytes(data.to_py() if hasattr(data, "to_py") else data)
        rec = loads(raw.decode("utf-8"))
        t0 = time.perf_counter()
        result = replay(rec, checkpoint_every=max(1, rec.steps))
        wall = time.perf_counter() - t0
        return json.dumps({"sim_s": rec.steps / rec.host_hz, "wall_s": wall,
                           "final_hash": result.final_hash})


class _GhostProbe:
    """The ghost of a verified file: the CoG pose after every host step, collected by the
    verify replay's pose observer, when the file is a four-wheel drive on this page's circuit
    (else ``observer`` is None and ``note`` says why there is no ghost). The poses are the
    last run's: a run that verifies is the last one tried."""

    def __init__(self, raw: bytes, poses: list) -> None:
        import json

        self.observer = None
        self.note = ""
        try:
            doc = json.loads(raw)
        except ValueError:
            return
        if not isinstance(doc, dict):
            return
        from skidpad.replay.recording import FORMAT_NAME

        if doc.get("format") != FORMAT_NAME:
            self.note = "no ghost: this page draws four-wheel drives on its circuit"
            return
        if doc.get("track") != TRACK:
            self.note = "no ghost: the drive is not on this page's circuit"
            return
        host_hz, substep_hz = doc.get("host_hz"), doc.get("substep_hz")
        if not (isinstance(host_hz, int) and isinstance(substep_hz, int) and host_hz > 0):
            return
        every = max(1, substep_hz // host_hz)
        append = poses.append
        last = [float("inf")]  # a new call's first run replaces what an earlier call kept

        def observer(tick: int, x: float, y: float, c: float, s: float) -> None:
            # ticks start again: another physics' run of the file (identification by trial,
            # or a call again after a fetch), whose poses replace the last run's
            if tick <= last[0]:
                del poses[:]
            last[0] = tick
            if tick % every == 0:
                append((x, y, c, s))

        self.observer = observer


def _host_hz(raw: bytes) -> int:
    import json

    return int(json.loads(raw)["host_hz"])


def lap_ghost_of(circuit: Circuit, poses: list, number: int, host_hz: int) -> dict | None:
    """Lap ``number``'s ghost, cut from a whole drive's poses (one per host step from the
    grid, under whatever physics drew them), in the shape :meth:`DriveSession.lap_ghost`
    gives: the pose and distance along the lap after each host step from the step the lap
    began, to the millimetre. A lap begins at the host step whose pose is first past the
    start/finish line (the distance along the lap wraps forwards), as the page's drive
    counts it; a crossing back over the line takes the last one back. None when the drive
    has no such completed lap."""
    d = distances_along(circuit, poses)
    half = circuit.track.length / 2
    starts: list[int] = []
    for k in range(1, len(d)):
        if d[k - 1] - d[k] > half:  # forwards over the line
            starts.append(k)
        elif d[k] - d[k - 1] > half and starts:  # back over it: that lap never began
            starts.pop()
    if not 1 <= number < len(starts):
        return None
    first, end = starts[number - 1], starts[number]
    rows = [(*poses[k], d[k]) for k in range(first, end)]
    return {
        "lap": number,
        "host_hz": host_hz,
        **{
            key: [round(r[k], 3) for r in rows]
            for k, key in enumerate(("x", "y", "c", "s", "d"))
        },
    }


def distances_along(circuit: Circuit, poses: list) -> list[float]:
    """Each pose's distance along the centreline from the start/finish line (m, one lap),
    as :meth:`DriveSession.car_distance` measures the car's."""
    track = circuit.track
    out = []
    nearest = None
    for x, y, *_ in poses:
        i = walk_nearest(track, nearest, x, y) if nearest is not None else None
        if i is None:
            i = nearest_sample(track, x, y)
        nearest = i
        nx, ny = circuit.normals[i]
        along = (x - track.x[i]) * ny - (y - track.y[i]) * nx
        out.append((track.s[i] + along - circuit.lines[0].s) % track.length)
    return out


def physics_version() -> Any:
    """The engine's physics version (``skidpad.engine.physics.PHYSICS_VERSION``, or the same
    name on ``skidpad.engine``), None for an engine that does not stamp one."""
    import importlib

    from skidpad import engine

    try:
        return importlib.import_module("skidpad.engine.physics").PHYSICS_VERSION
    except (ImportError, AttributeError):
        return getattr(engine, "PHYSICS_VERSION", None)


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
