"""Fast path against readable path, in the runtime that runs it (ADR 0176).

The four-wheel substep has two implementations that must give the same bits (ADR 0130): the
readable stages and the code :mod:`engine.fourwheel.fastpath` generates from them for one
definition.
``tests/test_fastpath.py`` holds them equal in the suite (CPython); this module is the same
check sized for the parity matrix, where every runtime (CPython 3.11–3.13, Pyodide under Node
and in the browsers) generates and ``exec``s the fast path itself. ``parity.worker`` runs it
in its self-test phase.

Each preset drives :data:`DRIVE_STEPS` host steps (0.6 s at 1 kHz substeps) from
:data:`INITIAL` (6 m/s on a wet road) on both paths in lockstep, with every assist on: full
throttle into a turn (traction control acts in three of the six presets, the stability
control and the steering assist in all), a full-pedal stop (ABS; the kart, which has none,
locks its wheels), then part throttle with the opposite lock and a gear request. After every
host step the whole state and the derived values are compared bit for bit; the first host
step where they part is reported with the first differing state field (or derived value),
both values as hex and their distance in ulps.

The CommonRoad MB derivative has the same pair (ADR 0185): the readable equations
(``mb.derivatives``) and the body ``engine.commonroad.mb_fast`` generates for one
parameter set. :func:`compare_commonroad_mb` drives two MB daemons, one on each, in lockstep
(a crawl through the kinematic branch, a cruise) and compares their states the same way.

The result, per preset and under ``"commonroad"`` for MB: ``{"steps": n, "final": hash,
"first_difference": None | {...}}``, and ``"ok"`` over all of them.
"""

from __future__ import annotations

import time
from typing import Any

from skidpad.engine.floatbits import float_bits, ulp_distance
from skidpad.engine.fourwheel.definition import PRESET_NAMES, load_preset
from skidpad.engine.fourwheel.simulation import Simulation

DRIVE_STEPS = 60
INITIAL = {"speed_mps": 6.0, "surface": "wet"}  # low and slippery: the assists have work
ASSISTS = (1, 1, 1, 1)  # abs, tc, esc, steer assist


def drive_inputs(k: int) -> tuple:
    """Host step ``k``'s inputs: (throttle, brake, steer, handbrake, gear request, assists)."""
    if k < 20:
        return (1.0, 0.0, 0.35, 0.0, 0, *ASSISTS)
    if k < 40:
        return (0.0, 1.0, -0.1, 0.0, 0, *ASSISTS)
    return (0.4, 0.0, -0.3, 0.0, 1 if k == 40 else 0, *ASSISTS)


WHEELS = ("FL", "FR", "RL", "RR")


def _named_derived(derived: Any) -> tuple[list[str], list]:
    """The derived values by name (``derived.fz.FL``, ``derived.dvx``, ...), every field."""
    names: list[str] = []
    values: list = []
    for name in derived._fields:
        v = getattr(derived, name)
        if isinstance(v, tuple):
            names += [f"derived.{name}.{w}" for w in WHEELS[: len(v)]]
            values += v
        else:
            names.append(f"derived.{name}")
            values.append(v)
    return names, values


def _first_field(names: list[str], fast: list, readable: list) -> dict[str, Any] | None:
    if len(fast) != len(readable):
        return {
            "field": "length",
            "fast": str(len(fast)),
            "readable": str(len(readable)),
            "ulps": None,
        }
    for name, a, b in zip(names, fast, readable, strict=True):
        if isinstance(a, float) and isinstance(b, float):
            if float_bits(a) != float_bits(b):
                return {
                    "field": name,
                    "fast": a.hex(),
                    "readable": b.hex(),
                    "ulps": ulp_distance(a, b),
                }
        elif a != b:
            return {"field": name, "fast": repr(a), "readable": repr(b), "ulps": None}
    return None


def compare_preset(name: str, steps: int = DRIVE_STEPS) -> dict[str, Any]:
    """Drive preset ``name`` on both paths; where they first part (``None`` if nowhere)."""
    definition = load_preset(name)
    fast = Simulation(definition, initial=INITIAL)
    readable = Simulation(definition, initial=INITIAL, path="readable")
    state_names = list(fast.layout.names)
    for k in range(steps):
        inputs = drive_inputs(k)
        fast.step(inputs)
        readable.step(inputs)
        diff = _first_field(state_names, fast.state, readable.state)
        if diff is None:
            names, values = _named_derived(fast.derived)
            diff = _first_field(names, values, _named_derived(readable.derived)[1])
        if diff is not None:
            diff["host_step"] = k
            diff["tick"] = fast.tick
            return {"steps": k + 1, "final": None, "first_difference": diff}
    final = fast.state_hash()
    if final != readable.state_hash():  # the state agreed bit for bit: only the hash itself
        diff = {
            "host_step": steps - 1,
            "tick": fast.tick,
            "field": "state hash",
            "fast": final,
            "readable": readable.state_hash(),
            "ulps": None,
        }
        return {"steps": steps, "final": None, "first_difference": diff}
    return {"steps": steps, "final": final, "first_difference": None}


#: The CommonRoad MB drives: host steps of 10 ms from each initial speed [m/s] (a crawl below
#: MB's kinematic switch, then a cruise)
MB_DRIVES = ((0.05, 20), (15.0, 20))
MB_NAME = "commonroad:mb"


def mb_drive_inputs(k: int) -> dict[str, float]:
    """MB host step ``k``'s inputs: full throttle into a turn, then the other way under braking."""
    if k < 12:
        return {"steer": 0.3, "throttle": 1.0, "brake": 0.0}
    return {"steer": -0.6, "throttle": 0.0, "brake": 0.7}


def compare_commonroad_mb(drives: tuple = MB_DRIVES) -> dict[str, Any]:
    """The CommonRoad MB daemon on the generated derivative (``mb_fast.derivatives``, ADR 0185) and
    on the readable equations (``mb.derivatives``) in lockstep, for each drive; where
    they first part (``host_step`` counts over the drives). The crawl runs MB's kinematic
    branch and leaves it, the cruise its tires at speed."""
    from dataclasses import replace

    from skidpad.engine.commonroad import mb
    from skidpad.engine.commonroad.daemon import CommonRoadDaemon

    done = 0
    final = None
    for speed, steps in drives:
        fast = CommonRoadDaemon("mb", 2, initial={"speed": speed})
        readable = CommonRoadDaemon("mb", 2, initial={"speed": speed})
        readable.spec = replace(readable.spec, derivatives=mb.derivatives)
        names = list(fast.layout.names)
        for k in range(steps):
            inputs = mb_drive_inputs(k)
            fast.step_us(inputs, 10_000)
            readable.step_us(inputs, 10_000)
            diff = _first_field(names, fast.state, readable.state)
            if diff is not None:
                diff["host_step"] = diff["tick"] = done + k
                return {"steps": done + k + 1, "final": None, "first_difference": diff}
        done += steps
        final = fast.state_hash()
    return {"steps": done, "final": final, "first_difference": None}


def run(presets: tuple[str, ...] = PRESET_NAMES, steps: int = DRIVE_STEPS) -> dict[str, Any]:
    """Every preset's comparison and the CommonRoad MB drive's, whether all agree, and the
    wall time spent."""
    started = time.perf_counter()
    results = {name: compare_preset(name, steps) for name in presets}
    commonroad = {MB_NAME: compare_commonroad_mb()}
    return {
        "ok": all(r["first_difference"] is None for r in (*results.values(), *commonroad.values())),
        "presets": results,
        "commonroad": commonroad,
        "wall_s": time.perf_counter() - started,
    }


def describe(name: str, result: dict[str, Any]) -> str:
    """One line for a preset whose paths parted: where, which field, both values."""
    d = result["first_difference"]
    ulps = f", {d['ulps']} ulp" if d.get("ulps") is not None else ""
    return (
        f"{name}: fast and readable paths part at host step {d['host_step']} (tick "
        f"{d['tick']}): {d['field']} fast {d['fast']} readable {d['readable']}{ulps}"
    )
