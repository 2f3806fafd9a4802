"""The MB derivative specialised to one parameter set: ``mb.derivatives_ext`` made fast.

:func:`specialised` hands :func:`engine.commonroad.mb.derivatives_ext` (the readable
equations, the only text of them) and one ``VehicleParams`` to the specialiser
(:mod:`engine.specialise`), which writes ``derivatives_ext(x, u)``: every parameter and every
``MBConstants`` value folded into literals (and the few subexpressions the equations form from
parameters alone, by the same operations), the input constraints, the slips, the four tires
(``tire.combined_forces``) and the fast kernels (by their declared sign split) inlined, so the
common path makes no Python call. It moves the readable operations, never changes one, so
both give the same bits (ADR 0230). Below ``LOW_SPEED`` (the kinematic branch, and reverse)
``ks_cog`` is called as the readable form calls it.

``tests/test_commonroad_mb_fast.py`` holds it bit-equal to the readable form for vehicles 1-3
on random and special states, lints the text with the strict-float lint and catches a one-ulp
change planted in it; ``parity/fastpath_check.py`` repeats the comparison in every runtime of
the parity matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from skidpad.engine.memo import IdentityMemo
from skidpad.engine.specialise import (
    Plan,
    Specialised,
    Unfoldable,
    Unsupported,
    compile_specialised,
    specialise,
)

from . import constraints, tire
from .mb import _nonzero, _slip, constants_for, derivatives_ext, tire_series_for
from .params import VehicleParams

Derivatives = Callable[[Sequence[float], Sequence[float]], list]
CACHE_SIZE = 8
#: what the specialiser inlines of the MB equations (the kernels come by their sign split),
#: and the pure functions of the parameters it calls once, while specialising
PLAN = Plan(
    inline=frozenset(
        {
            constraints.steering_constraints,
            constraints.acceleration_constraints,
            _slip,
            _nonzero,
            tire.combined_forces,
            tire.shift_weight,
        }
    ),
    fold=frozenset({constants_for, tire_series_for}),
)


def specialised(p: VehicleParams) -> Specialised:
    """``derivatives_ext`` for the parameter set ``p``, as a specialised function."""
    return specialise(derivatives_ext, {"p": p}, PLAN)


def source(p: VehicleParams) -> str:
    """The readable text of ``derivatives_ext(x, u)`` for the parameter set ``p``."""
    return specialised(p).text


def build(p: VehicleParams, text: str | None = None) -> Derivatives:
    """Compile ``derivatives(x, u)`` for ``p`` (or from ``text``, a variant of :func:`source`:
    the planted-difference test perturbs one line)."""
    ext = compile_specialised(specialised(p), text, "commonroad mb")

    def derivatives(x: Sequence[float], u: Sequence[float]) -> list:
        return ext(x, u)[0]

    return derivatives


def _readable(p: VehicleParams) -> Derivatives:
    def derivatives(x: Sequence[float], u: Sequence[float]) -> list:
        return derivatives_ext(x, u, p)[0]

    return derivatives


def build_or_readable(p: VehicleParams) -> Derivatives:
    """:func:`build`, or the readable equations where a constant has no literal."""
    try:
        return build(p)
    except Unfoldable:  # a non-finite constant (parameters built past validation)
        return _readable(p)
    except (Unsupported, OSError):  # the readable text unreadable here: its own bits, slower
        return _readable(p)


#: The compiled ``derivatives`` of parameter set ``p``, built once per ``VehicleParams`` object
#: (compared by identity). ``build`` is looked up at each miss, so a test may replace it.
derivatives_for: IdentityMemo[VehicleParams, Derivatives] = IdentityMemo(
    lambda p: build_or_readable(p), CACHE_SIZE
)


#: (params, compiled derivatives) of the last parameter set seen: one tuple, so a reader never
#: pairs one set's params with another's function
_LAST: tuple = (None, None)


def derivatives(x: Sequence[float], u: Sequence[float], p: VehicleParams) -> list:
    """Right-hand side of the MB equations: ``mb.derivatives``'s bits, computed by the code
    specialised from it for ``p`` (what the daemon, replay and parity run)."""
    last = _LAST
    if last[0] is p:
        return last[1](x, u)
    return _remember(p)(x, u)


def _remember(p: VehicleParams) -> Derivatives:
    global _LAST
    fn = derivatives_for(p)
    _LAST = (p, fn)
    return fn
