"""A memo of a pure function of one object, compared by identity.

The CommonRoad code builds per-vehicle data once per parameter-set object (the folded MB
constants, the generated tire and the generated MB derivative). The parameter records hold
dozens of floats, so a lookup by equality would hash them on every call; a lookup by
identity costs a few comparisons. The most recently computed entries are kept. A memo of a pure
function: which entries it holds never changes a result, only how often the function runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityMemo(Generic[K, V]):
    """``memo(key)`` is ``fn(key)``, computed once per key object while it is among the
    ``size`` most recently computed."""

    def __init__(self, fn: Callable[[K], V], size: int = 8) -> None:
        self._fn = fn
        self._size = size
        self._recent: list[tuple[K, V]] = []

    def __call__(self, key: K) -> V:
        for known, value in self._recent:
            if known is key:
                return value
        value = self._fn(key)
        self._recent.insert(0, (key, value))
        del self._recent[self._size :]
        return value

    def clear(self) -> None:
        """Forget every entry (the next call of each key runs the function again)."""
        self._recent.clear()
