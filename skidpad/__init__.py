"""Skidpad: a vehicle-dynamics engine whose every run is reproducible to the bit.

This package is the only top-level import package of the ``skidpad`` distribution. Its
subpackages are the repository's top-level folders: ``skidpad.engine`` (the physics),
``skidpad.replay`` (formats, replay, verify, diff), ``skidpad.scenarios`` (drivers and
studies), ``skidpad.parity`` (the runtime matrix), ``skidpad.sandbox`` (the browser page)
and ``skidpad.cli`` (the command line). In the installed wheel they sit inside this
folder; in a checkout they stay at the repository root and this package adds the root
to its ``__path__``, so both resolve the same names (ADR 0204).

The public API is the names in :data:`__all__`, importable from ``skidpad`` directly
(loaded on first use, so ``import skidpad.engine`` in a browser worker pays for nothing
else). Everything else is internal and may change without notice::

    import skidpad

    car = skidpad.Simulation(skidpad.load_preset("hatchbackFwd"))
    for _ in range(100):                      # one second at the default 100 Hz
        car.step({"throttle": 0.5})
    print(car.state_hash(), car.telemetry().speed)
"""

from __future__ import annotations

import os as _os
from typing import TYPE_CHECKING, Any


def _checkout_root() -> str | None:
    """The repository root when this is a checkout (the package folders sit beside this
    one, not inside it), else None (an installed wheel)."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    if _os.path.isfile(_os.path.join(here, "engine", "__init__.py")):
        return None
    root = _os.path.dirname(here)
    markers = ("pyproject.toml", _os.path.join("engine", "__init__.py"))
    if all(_os.path.isfile(_os.path.join(root, m)) for m in markers):
        return root
    return None


_root = _checkout_root()
if _root is not None and _root not in __path__:
    __path__.append(_root)
del _root

#: the public API: name -> the module that defines it
_PUBLIC = {
    # a car: build, step, read
    "Simulation": "skidpad.engine.fourwheel.simulation",
    "Telemetry": "skidpad.engine.fourwheel.telemetry",
    "load_preset": "skidpad.api",
    "load_definition": "skidpad.api",
    "preset_names": "skidpad.api",
    "definition_hash": "skidpad.engine.fourwheel.definition",
    # recordings: record, save, load, replay, verify, diff
    "Recording": "skidpad.replay.recording",
    "ReplayResult": "skidpad.replay.replayer",
    "DiffReport": "skidpad.replay.diff",
    "record": "skidpad.api",
    "save_recording": "skidpad.api",
    "load_recording": "skidpad.api",
    "replay": "skidpad.api",
    "verify": "skidpad.api",
    "diff": "skidpad.api",
    # the errors it raises
    "SkidpadError": "skidpad.engine.errors",
    "DefinitionError": "skidpad.engine.errors",
    "InputError": "skidpad.engine.errors",
    "NonFiniteStateError": "skidpad.engine.state",
    "RecordingError": "skidpad.replay.document",
    # versions
    "__version__": "skidpad.engine",
}

__all__ = [
    "DefinitionError",
    "DiffReport",
    "InputError",
    "NonFiniteStateError",
    "Recording",
    "RecordingError",
    "ReplayResult",
    "Simulation",
    "SkidpadError",
    "Telemetry",
    "definition_hash",
    "diff",
    "load_definition",
    "load_preset",
    "load_recording",
    "preset_names",
    "record",
    "replay",
    "save_recording",
    "verify",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'skidpad' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


if TYPE_CHECKING:  # what a type checker and an IDE see: the same names, eagerly
    from skidpad.api import (
        diff,
        load_definition,
        load_preset,
        load_recording,
        preset_names,
        record,
        replay,
        save_recording,
        verify,
    )
    from skidpad.engine import __version__  # noqa: F401
    from skidpad.engine.errors import DefinitionError, InputError, SkidpadError
    from skidpad.engine.fourwheel.definition import definition_hash
    from skidpad.engine.fourwheel.simulation import Simulation
    from skidpad.engine.fourwheel.telemetry import Telemetry
    from skidpad.engine.state import NonFiniteStateError
    from skidpad.replay.diff import DiffReport
    from skidpad.replay.document import RecordingError
    from skidpad.replay.recording import Recording
    from skidpad.replay.replayer import ReplayResult
