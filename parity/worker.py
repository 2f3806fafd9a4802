"""The runtime worker: the Python that every runtime runs, CPython and Pyodide alike.

See docs/architecture.md §5.

It imports only the standard library, ``engine`` and ``replay``, so the same code runs
natively, in Pyodide under Node and in every browser. Adapters only move JSON to and from
``run_request``; the computing happens here, identically everywhere.

Request::

    {"selftest": bool,                         # compute the math self-test hash (default true)
     "fastpath": bool,                         # and compare the fast and readable substep on
                                               # a short drive of every preset (default: selftest)
     "recordings": [{"name": str, "text": str,          # recording documents (JSON text)
                     "physics": int}, ...],   # optional: replay under that archived physics
                                               # (parity.archived; the answer adds "laps")
     "checkpoint_every": int,                  # host steps between checkpoints (default 100)
     "trace": {"stop_after": int | None,       # optional: trace each recording (replay.trace),
               "detail_steps": [from, to] | None}}   # stopping early, with stage/state detail

Response::

    {"python": sys.version, "platform": str, "implementation": str,
     "code_hash": str | None,                  # content hash of the project code it runs
     "math_hash": str | None,                  # None when not requested or when it failed
     "math_error": str,                        # only when the self-test failed
     "fastpath": {"ok": bool, "presets": {preset: {"steps": int, "final": str | None,
                  "first_difference": None | {"host_step", "tick", "field", "fast",
                  "readable", "ulps"}}}, "wall_s": float}
                 | {"error": str},             # only when asked for (parity.fastpath_check)
     "recordings": {name: {"checkpoints": [[step, hash], ...], "final": str,
                           "steps": int, "wall_s": float,
                           "trace": {...}}     # the trace document, only when asked for
                          | {"error": str}},
     "wall_s": float}                          # time spent in run_request

A recording that fails to load or replay (or a replayer that is not installed) gives that
recording ``{"error": ...}``; it never fails the other recordings or the request. A request
that is not of the shape above raises ``RequestError`` naming the bad field.

Entry points: ``python -m parity.worker [REQUEST.json]`` reads one request (stdin when no
file is given) and prints the response; ``python -m parity.worker --serve`` answers one
request per stdin line with one ``@@skidpad <json>`` line on stdout until stdin closes (the
line protocol the runtime adapters use; anything else the run prints goes to stderr).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import platform
import sys
import time
from typing import IO, Any

from skidpad.engine.errors import SkidpadError

#: prefix of every protocol line, so stray output can never be mistaken for a response.
PROTOCOL_PREFIX = "@@skidpad "
DEFAULT_CHECKPOINT_EVERY = 100


class RequestError(SkidpadError):
    """The request is not of the documented shape; the message names the field."""


def runtime_info() -> dict[str, str | None]:
    """What this interpreter is (full version string, platform and implementation) and which
    project code it runs (``code_hash``: ``parity.wheel.code_hash`` of the imported packages,
    None if they cannot be read)."""
    return {
        "python": sys.version,
        "platform": platform.platform(),
        "implementation": f"{sys.implementation.name} {platform.python_version()}",
        "code_hash": _code_hash(),
    }


def _code_hash() -> str | None:
    from skidpad.parity.wheel import running_code  # lazy: hashing the packages once, on first use

    try:
        return running_code().hash
    except OSError:  # e.g. packages imported from a zip: no hash rather than no runtime
        return None


def _check_trace(trace: Any) -> dict[str, Any] | None:
    if trace is None:
        return None
    if not isinstance(trace, dict) or set(trace) - {"stop_after", "detail_steps"}:
        raise RequestError("request.trace: must be an object with stop_after and/or detail_steps")
    stop = trace.get("stop_after")
    if stop is not None and (not isinstance(stop, int) or isinstance(stop, bool) or stop < 0):
        raise RequestError("request.trace.stop_after: must be an integer >= 0 or null")
    window = trace.get("detail_steps")
    if window is not None:
        ok = (
            isinstance(window, list)
            and len(window) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in window)
            and 0 <= window[0] < window[1]
        )
        if not ok:
            raise RequestError("request.trace.detail_steps: must be [from, to] with 0 <= from < to")
    return {"stop_after": stop, "detail_steps": window}


#: the fields of one request.recordings entry ("physics": replay under that archived version,
#: parity.archived)
_ITEM_KEYS = {"name", "text", "physics"}


def _check_request(request: Any) -> tuple[bool, list[tuple[str, str, int | None]], int]:
    if not isinstance(request, dict):
        raise RequestError(f"request: must be a JSON object, not {type(request).__name__}")
    unknown = sorted(
        set(request) - {"selftest", "fastpath", "recordings", "checkpoint_every", "trace"}
    )
    if unknown:
        raise RequestError(f"request: unknown field(s) {', '.join(unknown)}")
    selftest = request.get("selftest", True)
    if not isinstance(selftest, bool):
        raise RequestError("request.selftest: must be true or false")
    if not isinstance(request.get("fastpath", selftest), bool):
        raise RequestError("request.fastpath: must be true or false")
    every = request.get("checkpoint_every", DEFAULT_CHECKPOINT_EVERY)
    if not isinstance(every, int) or isinstance(every, bool) or every < 1:
        raise RequestError("request.checkpoint_every: must be an integer >= 1")
    items = request.get("recordings", [])
    if not isinstance(items, list):
        raise RequestError("request.recordings: must be a list of {name, text}")
    recordings: list[tuple[str, str, int | None]] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        where = f"request.recordings[{i}]"
        if not isinstance(item, dict) or not {"name", "text"} <= set(item) <= _ITEM_KEYS:
            raise RequestError(
                f"{where}: must be an object with 'name' and 'text' (and optionally 'physics')"
            )
        name, text, physics = item["name"], item["text"], item.get("physics")
        if physics is not None and (not isinstance(physics, int) or isinstance(physics, bool)):
            raise RequestError(f"{where}.physics: must be an archived physics version (integer)")
        if not isinstance(name, str) or not name:
            raise RequestError(f"{where}.name: must be a non-empty string")
        if not isinstance(text, str):
            raise RequestError(f"{where}.text: must be a string (the recording's JSON text)")
        if name in seen:
            raise RequestError(f"{where}.name: duplicate recording name {name!r}")
        seen.add(name)
        recordings.append((name, text, physics))
    return selftest, recordings, every


def _error_text(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def math_hash() -> str:
    """The math self-test hash (docs/architecture.md §3) computed in this runtime."""
    from skidpad.engine.smath.selftest import selftest_hash  # lazy: written alongside this module

    return selftest_hash()


def fastpath_equivalence() -> dict[str, Any]:
    """The fast path against the readable stages on a short drive of every preset, in this
    runtime (``parity.fastpath_check``)."""
    from skidpad.parity import fastpath_check  # lazy: only the self-test phase needs it

    return fastpath_check.run()


def replay_one(
    name: str, text: str, checkpoint_every: int, trace: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Load and replay one recording; the result in the response's per-recording shape."""
    # lazy: a missing replayer fails only the recordings, not the self-test
    recording = importlib.import_module("skidpad.replay.recording")
    replayer = importlib.import_module("skidpad.replay.replayer")
    rec = recording.loads(text)
    options: dict[str, Any] = {}
    if trace is not None:
        window = trace["detail_steps"]
        options = {
            "trace": True,
            "stop_after": trace["stop_after"],
            "detail_steps": range(window[0], window[1]) if window else None,
        }
    result = replayer.replay(rec, checkpoint_every=checkpoint_every, **options)
    out: dict[str, Any] = {
        "checkpoints": [[int(step), str(h)] for step, h in result.checkpoints],
        "final": str(result.final_hash),
        "steps": int(result.steps),
        "wall_s": float(result.wall_s),
    }
    if trace is not None:
        tracing = importlib.import_module("skidpad.replay.trace")
        info = {
            "name": name,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "preset": getattr(rec, "preset", None),
            "steps": getattr(rec, "steps", None),
        }
        out["trace"] = tracing.trace_document(result, info, None)
    return out


def run_request(request: dict) -> dict:
    """Answer one request (see the module docstring for both shapes)."""
    started = time.perf_counter()
    selftest, recordings, every = _check_request(request)
    trace = _check_trace(request.get("trace"))
    response: dict[str, Any] = dict(runtime_info())
    response["math_hash"] = None
    if selftest:
        try:
            response["math_hash"] = math_hash()
        except Exception as exc:  # reported, never fatal: the harness shows it first
            response["math_error"] = _error_text(exc)
    if request.get("fastpath", selftest):
        try:
            response["fastpath"] = fastpath_equivalence()
        except Exception as exc:  # reported as a failed check, never fatal
            response["fastpath"] = {"error": _error_text(exc)}
    results: dict[str, Any] = {}
    for name, text, physics in recordings:
        try:
            if physics is not None:  # an earlier physics, run from the archive (ADR 0207)
                from skidpad.parity.archived import replay_archived

                results[name] = replay_archived(name, text, physics)
                continue
            results[name] = replay_one(name, text, every, trace)
        except Exception as exc:  # one bad recording must not hide the others' results
            results[name] = {"error": _error_text(exc)}
    response["recordings"] = results
    response["wall_s"] = time.perf_counter() - started
    return response


def handle_line(line: str) -> str:
    """One protocol exchange: a request line in, the ``@@skidpad`` response line out.

    A request that cannot be parsed gets ``{"request_error": ...}`` instead of a response.
    """
    try:
        request = json.loads(line)
        payload: dict[str, Any] = run_request(request)
    except (ValueError, SkidpadError) as exc:  # JSONDecodeError is a ValueError
        payload = {"request_error": _error_text(exc)}
    return PROTOCOL_PREFIX + json.dumps(payload, separators=(",", ":"))


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """Answer request lines until ``stdin`` closes; announce readiness first."""
    stdout.write(PROTOCOL_PREFIX + json.dumps({"ready": True, **runtime_info()}) + "\n")
    stdout.flush()
    for line in stdin:
        if not line.strip():
            continue
        real_stdout, sys.stdout = sys.stdout, sys.stderr  # stray prints stay off the protocol
        try:
            reply = handle_line(line)
        finally:
            sys.stdout = real_stdout
        stdout.write(reply + "\n")
        stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--serve"]:
        return serve(sys.stdin, sys.stdout)
    if len(args) > 1 or (args and args[0].startswith("-") and args[0] != "-"):
        print("usage: python -m parity.worker [REQUEST.json | - | --serve]", file=sys.stderr)
        return 2
    try:
        if args and args[0] != "-":
            with open(args[0], encoding="utf-8") as f:
                text = f.read()
        else:
            text = sys.stdin.read()
        response = run_request(json.loads(text))
    except (OSError, ValueError, SkidpadError) as exc:
        print(f"parity.worker: {_error_text(exc)}", file=sys.stderr)
        return 2
    print(json.dumps(response, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
