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
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def load_trace_document(text: str, source: str) -> dict:
    """Parse a trace file, checking its format and the fields the diff needs."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise TraceError(f"{source}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != TRACE_FORMAT:
        raise TraceError(f"{source}: not a Skidpad trace file (expected format {TRACE_FORMAT!r})")
    if doc.get("version") != TRACE_VERSION:
        raise TraceError(f"{source}: trace version {doc.get('version')!r} is not supported")
    need = (
        "recording",
        "layout",
        "host_hz",
        "substep_hz",
        "checkpoints",
        "final",
        "steps",
        "substep_hashes",
    )
    for k in need:
        if k not in doc:
            raise TraceError(f"{source}: /{k}: missing")
    try:
        doc["checkpoints"] = [(int(s), str(h)) for s, h in doc["checkpoints"]]
        doc["layout"]["fields"] = [(str(n), str(k)) for n, k in doc["layout"]["fields"]]
        if doc.get("detail"):
            doc["detail"]["substeps"] = detail_from_json(doc["detail"]["substeps"])
    except (TypeError, ValueError, KeyError) as exc:
        raise TraceError(f"{source}: malformed trace ({type(exc).__name__}: {exc})") from None
    return doc
