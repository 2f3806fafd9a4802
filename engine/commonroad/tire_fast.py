"""The CommonRoad tire specialised to one vehicle: ``combined_forces`` made fast.

:func:`specialised` hands :func:`engine.commonroad.tire.combined_forces` (the readable chain,
the only text of the tire) and one ``TireParams`` to the specialiser (:mod:`engine.specialise`),
which writes ``forces(kappa, alpha, gamma, F_z) -> (F_x, F_y)``: the parameters and the
combined-slip weights' Taylor coefficients (``tire.weight_series``) folded into literals,
``shift_weight``'s Horner loop unrolled, and the fast kernels inlined by their declared sign
split (``engine.smath.kernels``). It moves the readable operations, never changes one, so
both give the same bits (ADR 0230); ``tests/test_commonroad_tire.py`` checks it for every
vehicle on random and edge inputs and lints the text with the strict-float lint, and
``tests/test_specialise_mutations.py`` checks that it follows a change of the readable text.
STD calls ``forces_for(p.tire)``; the MB derivative inlines the same readable chain.
"""

from __future__ import annotations

from collections.abc import Callable

from skidpad.engine.memo import IdentityMemo
from skidpad.engine.specialise import Plan, Specialised, compile_specialised, specialise

from . import tire
from .params import TireParams

#: the compiled ``forces`` of recently used tires, compared by identity (most recent first)
CACHE_SIZE = 8
#: what the specialiser inlines of the tire (the kernels come by their sign split)
PLAN = Plan(inline=frozenset({tire.shift_weight}), fold=frozenset())


def specialised(p: TireParams) -> Specialised:
    """``combined_forces`` for tire ``p``, as a specialised function ``forces``."""
    bound = {"p": p, "wx": tire.weight_series_x(p), "wy": tire.weight_series_y(p)}
    return specialise(tire.combined_forces, bound, PLAN, name="forces")


def source(p: TireParams) -> str:
    """The readable text of ``forces(kappa, alpha, gamma, F_z)`` for tire ``p``."""
    return specialised(p).text


def build(p: TireParams, text: str | None = None) -> Callable[[float, float, float, float], tuple]:
    """Compile ``forces`` for ``p`` (or ``text``, a variant of :func:`source`: the
    planted-difference test perturbs one line)."""
    return compile_specialised(specialised(p), text, "commonroad tire")


#: The compiled ``forces`` of tire ``p``, built once per ``TireParams`` object (compared by
#: identity: a lookup hashes none of its 32 floats).
forces_for: IdentityMemo[TireParams, Callable[[float, float, float, float], tuple]] = IdentityMemo(
    build, CACHE_SIZE
)
