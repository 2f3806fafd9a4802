"""The scripted drive hash: the state hash after the fixed 30 s drive of :mod:`scenarios.scripted`.

Run exactly as the recorder runs it (``replay.recorder.make_simulation``:
the definition's substep rate, 100 Hz host, the driver's initial conditions).
"""

from __future__ import annotations

from skidpad.scenarios.scripted import make_driver
from skidpad.scenarios.validation.common import Run


def run(definition: dict, progress: object = None) -> dict:
    if progress:
        progress("scripted drive")
    drv = make_driver(definition, 100)
    r = Run(definition, drv)
    r.go()
    return {"hash": r.sim.state_hash(), "steps": r.steps}
