"""Fast path against readable path, in the runtime that runs it (ADR 0176).

The four-wheel substep has two implementations that must give the same bits (ADR 0130): the
readable stages and the code :mod:`engine.fastpath` generates from them for one definition.
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

The result, per preset: ``{"steps": n, "final": hash, "first_difference": None | {...}}``,
and ``"ok"`` over all of them.
"""

from __future__ import annotations

import time
from typing import Any

from engine.definition import PRESET_NAMES, load_preset
from engine.floatbits import float_bits, ulp_distance
from engine.simulation import Simulation

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


def run(presets: tuple[str, ...] = PRESET_NAMES, steps: int = DRIVE_STEPS) -> dict[str, Any]:
    """Every preset's comparison, whether all agree, and the wall time spent."""
    started = time.perf_counter()
    results = {name: compare_preset(name, steps) for name in presets}
    return {
        "ok": all(r["first_difference"] is None for r in results.values()),
        "presets": results,
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
