"""The checks every block of a vehicle definition makes, with one message shape.

Each subsystem validates its own block (``drivetrain.clutch``, ``assists``, ...)
and returns a normalised copy; the messages name the block's path and the
parameter, ``<path>.<key>: <what is wrong>``, and a :class:`DefinitionError`
carries them (docs/architecture.md §2: loading validates everything).
"""

from __future__ import annotations

from math import isfinite

from skidpad.engine.errors import DefinitionError


def require_object(block: object, path: str) -> dict:
    """``block`` itself when it is a JSON object (a dict)."""
    if not isinstance(block, dict):
        raise DefinitionError(f"{path}: must be an object")
    return block


def refuse_unknown(block: dict, path: str, known: tuple) -> None:
    """Every key of ``block`` is one of ``known``."""
    for key in block:
        if key not in known:
            raise DefinitionError(f"{path}.{key}: unknown parameter")


def require_keys(block: dict, path: str, keys: tuple) -> None:
    """Every one of ``keys`` is in ``block``."""
    for key in keys:
        if key not in block:
            raise DefinitionError(f"{path}.{key}: is missing")


def number(
    path: str, v: object, lo: float = 0.0, strict: bool = True, hi: float | None = None
) -> float:
    """``v`` as a float: a finite number (not a bool) above ``lo`` (at or above if not strict)
    and, given ``hi``, at most ``hi``. An integer too large for a float is refused by its
    size, before anything converts it."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DefinitionError(f"{path}: must be a finite number")
    if isinstance(v, int) and v.bit_length() > 1023:
        raise DefinitionError(
            f"{path}: must be a finite number, not an integer of {v.bit_length()} bits"
        )
    f = float(v)
    if not isfinite(f):
        raise DefinitionError(f"{path}: must be a finite number")
    if (strict and f <= lo) or (not strict and f < lo):
        raise DefinitionError(f"{path}: must be {'>' if strict else '>='} {lo:g}, got {f!r}")
    if hi is not None and f > hi:
        raise DefinitionError(f"{path}: must be <= {hi:g}, got {f!r}")
    return f
