"""Tracing a replay: a hash per substep, stage values, and trace files for ``skidpad diff``.

The engine calls a probe (docs/architecture.md §2, brief "probe protocol") with
``probe.stage(name, values)`` after each physics stage of a substep and
``probe.substep(tick, state)`` at the end of every substep. :class:`TraceProbe`
turns those calls into:

* ``substep_hashes``: ``[(tick, hash)]`` for every substep, where the hash is
  ``layout.hash(tick, state)`` — the state hash with the substep tick as the
  counter, so it does not depend on the host rate;
* ``detail``: for substeps inside a chosen window of host steps, the full
  state and every stage's values, which is what the diff compares field by
  field and stage by stage.

A *hook* is any object with the same two methods, called before the tracer
sees the values; tests use one to plant a divergence (mutate a field by one
ulp at a chosen substep).

A trace file (``skidpad replay --trace -o FILE``) is JSON::

    {"format": "skidpad-trace", "version": 1, "recording": {...}, "runtime": {...},
     "math_hash": ..., "layout": {"version": v, "fields": [[name, kind], ...]},
     "host_hz", "substep_hz", "checkpoint_every", "checkpoints": [[step, hash], ...],
     "final": hash, "steps": n, "substep_hashes": ["hash for tick 1", ...] or null,
     "step_ticks": [substeps done after host step 1, 2, ...] or null (CommonRoad runs),
     "states": {"step": {name: value}},
     "detail": {"from_step", "to_step", "substeps": [...]} or null}

Floats are written with ``repr`` (exact); non-finite stage values as strings.
"""

from __future__ import annotations

import json
import math
import platform
import sys
from dataclasses import dataclass, field
from typing import Any

from skidpad.engine.errors import SkidpadError
from skidpad.replay.document import json_escape_surrogates
from skidpad.replay.strict import Checker, parse_text

TRACE_FORMAT = "skidpad-trace"
TRACE_VERSION = 1


class TraceError(SkidpadError, ValueError):
    """A trace file is unreadable or not a Skidpad trace; the message names the file and field."""


@dataclass
class SubstepDetail:
    """Everything seen during one substep: its tick, stage values in order, the state after it."""

    tick: int
    stages: list[tuple[str, tuple]] = field(default_factory=list)
    state: tuple = ()


class TraceProbe:
    """The probe the replayer hands to ``Simulation.step`` in trace mode.

    ``detail_ticks`` is a half-open range of ticks (as reported by the engine)
    whose stage values and state are kept; ``hook`` is called first.
    """

    __slots__ = ("layout", "hook", "hashes", "detail", "detail_ticks", "_pending", "hash_substeps")

    def __init__(
        self,
        layout: Any,
        hook: Any = None,
        detail_ticks: range | None = None,
        hash_substeps: bool = True,
    ) -> None:
        self.layout = layout
        self.hook = hook
        self.hashes: list[tuple[int, str]] = []
        self.detail: list[SubstepDetail] = []
        self.detail_ticks = detail_ticks
        self.hash_substeps = hash_substeps
        self._pending: list[tuple[str, tuple]] = []

    def stage(self, name: str, values: tuple) -> None:
        if self.hook is not None:
            self.hook.stage(name, values)
        if self.detail_ticks is not None:
            self._pending.append((name, tuple(values)))

    def substep(self, tick: int, state: list) -> None:
        if self.hook is not None:
            self.hook.substep(tick, state)
        if self.hash_substeps:
            self.hashes.append((tick, self.layout.hash(tick, state)))
        if self.detail_ticks is not None:
            if tick in self.detail_ticks:
                self.detail.append(SubstepDetail(tick, self._pending, tuple(state)))
            self._pending = []


def runtime_info() -> dict:
    impl = sys.implementation
    return {
        "python": sys.version.split()[0],
        "implementation": impl.name,
        "platform": sys.platform,
        "machine": platform.machine(),
    }


def _enc(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def _dec(v: Any) -> Any:
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    return v


def detail_to_json(detail: list[SubstepDetail]) -> list[dict]:
    return [
        {
            "tick": d.tick,
            "stages": [[name, [_enc(v) for v in vals]] for name, vals in d.stages],
            "state": [_enc(v) for v in d.state],
        }
        for d in detail
    ]


def detail_from_json(items: list) -> list[SubstepDetail]:
    out = []
    for it in items:
        out.append(
            SubstepDetail(
                int(it["tick"]),
                [(str(n), tuple(_dec(v) for v in vals)) for n, vals in it["stages"]],
                tuple(_dec(v) for v in it["state"]),
            )
        )
    return out


def trace_document(result: Any, recording_info: dict, math_hash: str | None) -> dict:
    """The JSON trace of a :class:`replay.replayer.ReplayResult` made with ``trace=True``."""
    layout = result.layout
    return {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "recording": recording_info,
        "runtime": runtime_info(),
        "math_hash": math_hash,
        "layout": {"version": layout.version, "fields": [[f.name, f.kind] for f in layout.fields]},
        "host_hz": result.host_hz,
        "substep_hz": result.substep_hz,
        "checkpoint_every": result.checkpoint_every,
        "checkpoints": [[s, h] for s, h in result.checkpoints],
        "final": result.final_hash,
        "steps": result.steps,
        "substep_hashes": [h for _, h in result.substep_hashes]
        if result.substep_hashes is not None
        else None,
        "first_tick": result.substep_hashes[0][0] if result.substep_hashes else None,
        # a CommonRoad replay's host steps differ in length: substeps done after each one
        "step_ticks": result.step_ticks,
        "states": {
            str(k): {n: _enc(v) for n, v in s.items()} for k, s in (result.states or {}).items()
        },
        "detail": (
            {
                "from_step": result.detail_steps.start,
                "to_step": result.detail_steps.stop,
                "substeps": detail_to_json(result.detail),
            }
            if result.detail_steps is not None
            else None
        ),
    }


def dumps_trace(doc: dict) -> str:
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    return json_escape_surrogates(text) + "\n"


#: A trace's fields: required, then optional (older traces lack some; newer add a stamp).
_TRACE_REQUIRED = (
    "format",
    "version",
    "recording",
    "layout",
    "host_hz",
    "substep_hz",
    "checkpoints",
    "final",
    "steps",
    "substep_hashes",
)
_TRACE_OPTIONAL = (
    "runtime",
    "math_hash",
    "checkpoint_every",
    "first_tick",
    "step_ticks",
    "states",
    "detail",
    "physics_version",
)
#: The most substeps a trace can cover (the recording budget's own ceiling on substeps).
_MAX_TICKS = 2**40
#: Host and substep rates a trace may declare (Hz).
_MAX_HZ = 10**7


def load_trace_document(text: str, source: str) -> dict:
    """Parse a trace file strictly and check every field (ADR 0210); TraceError names the
    file and the field's JSON pointer."""
    return check_trace(parse_text(text, source, TraceError), source)


def check_trace(doc: Checker, source: str) -> dict:
    """``doc`` checked field by field as a trace; the checked copy the diff reads."""
    c = Checker(source, TraceError)
    if not isinstance(doc, dict) or doc.get("format") != TRACE_FORMAT:
        c.fail("/format", f"not a Skidpad trace file (expected format {TRACE_FORMAT!r})")
    if doc.get("version") != TRACE_VERSION or isinstance(doc.get("version"), bool):
        c.fail("/version", f"trace version {str(doc.get('version'))[:40]} is not supported")
    c.object(doc, "", _TRACE_REQUIRED, _TRACE_OPTIONAL)
    _check_scalars(c, doc["recording"], "/recording")
    if "runtime" in doc:
        _check_scalars(c, doc["runtime"], "/runtime")
    c.string(doc.get("math_hash"), "/math_hash", 64, nullable=True)
    c.physics_version(doc)
    steps = c.integer(doc["steps"], "/steps")
    c.integer(doc["host_hz"], "/host_hz", 1, _MAX_HZ)
    c.integer(doc["substep_hz"], "/substep_hz", 1, _MAX_HZ)
    if doc.get("checkpoint_every") is not None:
        c.integer(doc["checkpoint_every"], "/checkpoint_every", 1)
    doc["checkpoints"] = c.checkpoints(doc["checkpoints"], "/checkpoints", steps)
    c.hash16(doc["final"], "/final", nullable=True)
    fields = _check_layout(c, doc["layout"])
    hashes = c.array(doc["substep_hashes"], "/substep_hashes", _MAX_TICKS, nullable=True)
    if hashes is not None:
        c.each(hashes, "/substep_hashes", c.hash16)
    if doc.get("first_tick") is not None:
        c.integer(doc["first_tick"], "/first_tick", 0, _MAX_TICKS)
    ticks = c.array(doc.get("step_ticks"), "/step_ticks", steps, nullable=True)
    if ticks is not None:
        c.each(ticks, "/step_ticks", lambda v, p: c.integer(v, p, 0, _MAX_TICKS))
    _check_states(c, doc.get("states"), len(fields))
    doc["detail"] = _check_detail(c, doc.get("detail"), steps, len(fields))
    return doc


def _check_scalars(c: Checker, v: Any, path: str) -> None:
    """An informational object (recording, runtime): its values strings, numbers or null."""
    c.object(v, path, (), tuple(v) if isinstance(v, dict) else ())
    for k, x in v.items():
        if isinstance(x, (dict, list)):
            c.fail(f"{path}/{k}", f"must be a string, a number or null, not {type(x).__name__}")
        if isinstance(x, str):
            c.string(x, f"{path}/{k}")


def _check_layout(c: Checker, layout: Any) -> list[tuple[str, str]]:
    c.object(layout, "/layout", ("version", "fields"))
    c.integer(layout["version"], "/layout/version", 0, 10**6)
    fields = c.array(layout["fields"], "/layout/fields", 10**5)
    out = []
    for i, f in enumerate(fields):
        where = f"/layout/fields/{i}"
        if not isinstance(f, list) or len(f) != 2:
            c.fail(where, "must be a pair [name, kind]")
        out.append((c.string(f[0], f"{where}/0", 200), c.string(f[1], f"{where}/1", 20)))
    layout["fields"] = out
    return out


def _check_value(c: Checker, v: Any, path: str) -> None:
    """A state or stage value: a number, or one of "nan", "inf", "-inf" (as written)."""
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return
    c.number(v, path)


def _check_states(c: Checker, states: Any, width: int) -> None:
    if states is None:
        return
    c.object(states, "/states", (), tuple(states) if isinstance(states, dict) else ())
    for key, state in states.items():
        where = f"/states/{key}"
        c.object(state, where, (), tuple(state) if isinstance(state, dict) else ())
        for name, v in state.items():
            _check_value(c, v, f"{where}/{name}")


def _check_detail(c: Checker, detail: Any, steps: int, width: int) -> dict | None:
    if detail is None:
        return None
    c.object(detail, "/detail", ("from_step", "to_step", "substeps"))
    start = c.integer(detail["from_step"], "/detail/from_step", 0, steps)
    c.integer(detail["to_step"], "/detail/to_step", start, steps)
    items = c.array(detail["substeps"], "/detail/substeps", _MAX_TICKS)
    for i, it in enumerate(items):
        where = f"/detail/substeps/{i}"
        c.object(it, where, ("tick", "stages", "state"))
        c.integer(it["tick"], f"{where}/tick", 0, _MAX_TICKS)
        for j, stage in enumerate(c.array(it["stages"], f"{where}/stages", 1000)):
            sw = f"{where}/stages/{j}"
            if not isinstance(stage, list) or len(stage) != 2:
                c.fail(sw, "must be a pair [name, values]")
            c.string(stage[0], f"{sw}/0", 200)
            c.each(
                c.array(stage[1], f"{sw}/1", 10**5), f"{sw}/1", lambda v, p: _check_value(c, v, p)
            )
        state = c.array(it["state"], f"{where}/state", width)
        c.each(state, f"{where}/state", lambda v, p: _check_value(c, v, p))
    detail["substeps"] = detail_from_json(items)
    return detail
