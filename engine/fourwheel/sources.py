"""The ranges and sources a definition states for its values (``sources``; ADR 0270).

A vehicle's kinematics-and-compliance and steering data are hard to measure and easy to
tune. A definition may therefore state, for any of its numbers, the range the value must
lie in and where that range comes from (a published measurement or a textbook's values
for that class of car):

    "sources": {
        "steering.system.ratio": {"range": [14.0, 18.0], "source": "..."},
        "suspension.front.kinematics.camber_gain": {"range": [-0.35, -0.05], "source": "..."}
    }

A key is the dotted path of a number in the definition, or of a table (an object of two
lists, such as ``camber_gain``), whose mean slope (last value minus first over last
abscissa minus first; rad per m for a camber-gain table) is what the range bounds. The
range is ``[lo, hi]`` with ``lo <= hi``, finite; the source is a non-empty line of at most
500 characters. A value outside its range, a path that names nothing, or a malformed entry
is refused like any bad parameter.

:func:`sourced_paths` lists the values a preset must state this way: every entry of a
steering system, of a suspension's kinematics, its lateral compliance and its compliance
steer, and a tire's camber stiffness and relaxation-length share.
"""

from __future__ import annotations

import math

from skidpad.engine.errors import DefinitionError

__all__ = ["SOURCE_CHARS", "sourced_paths", "validate"]

#: The longest source a definition may state (characters).
SOURCE_CHARS = 500


def _fail(path: str, message: str) -> None:
    raise DefinitionError(f"{path}: {message}")


def _at(d: dict, path: str) -> object:
    node: object = d
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _value(d: dict, path: str, where: str) -> float:
    """The number at ``path``, or a table's mean slope."""
    node = _at(d, path)
    if isinstance(node, float):
        return node
    if isinstance(node, dict) and len(node) == 2:
        xs, ys = node.values()
        if isinstance(xs, list) and isinstance(ys, list) and len(xs) == len(ys) >= 2:
            return (ys[-1] - ys[0]) / (xs[-1] - xs[0])
    _fail(where, f"{path} names no number or table of the definition")
    return 0.0  # (unreached)


def _bound(entry: object, where: str) -> tuple[float, float]:
    if not isinstance(entry, dict):
        _fail(where, f"must be an object, not {type(entry).__name__}")
    unknown = sorted(set(entry) - {"range", "source"})
    if unknown:
        _fail(f"{where}.{unknown[0]}", "unknown parameter")
    for key in ("range", "source"):
        if key not in entry:
            _fail(f"{where}.{key}", "is missing")
    source = entry["source"]
    if not isinstance(source, str) or not source.strip() or "\n" in source:
        _fail(f"{where}.source", "must be a non-empty line")
    if len(source) > SOURCE_CHARS:
        _fail(f"{where}.source", f"must be at most {SOURCE_CHARS} characters")
    rng = entry["range"]
    if not isinstance(rng, list) or len(rng) != 2:
        _fail(f"{where}.range", "must be [lo, hi]")
    for v in rng:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(f"{where}.range", "must hold two finite numbers")
        if isinstance(v, int) and v.bit_length() > 1023 or not math.isfinite(float(v)):
            _fail(f"{where}.range", "must hold two finite numbers")
    lo, hi = float(rng[0]), float(rng[1])
    if lo > hi:
        _fail(f"{where}.range", f"lo must be <= hi, got [{lo!r}, {hi!r}]")
    return lo, hi


def validate(sources: object, d: dict) -> dict:
    """A ``sources`` block of the validated definition ``d``, checked and normalised:
    every entry well formed, naming a number or table of ``d`` whose value lies in its
    range. DefinitionError names the first bad entry."""
    if not isinstance(sources, dict):
        _fail("sources", f"must be an object, not {type(sources).__name__}")
    out = {}
    for path, entry in sources.items():
        where = f"sources.{path}"
        lo, hi = _bound(entry, where)
        value = _value(d, path, where)
        if not lo <= value <= hi:
            _fail(path, f"{value!r} lies outside its stated range [{lo!r}, {hi!r}] ({where})")
        out[path] = {"range": [lo, hi], "source": entry["source"]}
    return out


def sourced_paths(d: dict) -> list[str]:
    """The paths of the values a preset states a range and a source for, those present in
    the validated definition ``d``: each steering-system entry, each entry of a suspension's
    kinematics, its lateral compliance and its compliance steer, each tire's camber
    stiffness and relaxation share."""
    paths = [f"steering.system.{key}" for key in d["steering"].get("system", {})]
    for axle in ("front", "rear"):
        sus = d["suspension"][axle]
        paths += [f"suspension.{axle}.kinematics.{key}" for key in sus.get("kinematics", {})]
        if "lateral_compliance_mm_per_kn" in sus:
            paths.append(f"suspension.{axle}.lateral_compliance_mm_per_kn")
        steer = sus.get("compliance_steer", {})
        paths += [f"suspension.{axle}.compliance_steer.{key}" for key in steer]
        for key in ("camber_stiffness_per_load", "relaxation_y_load_share"):
            if key in d["tires"][axle]:
                paths.append(f"tires.{axle}.{key}")
    return paths
