"""engine.memo.IdentityMemo: one call of the function per key object, compared by identity."""

from __future__ import annotations

from skidpad.engine.memo import IdentityMemo


def test_a_key_object_is_computed_once_and_an_equal_one_again() -> None:
    calls = []
    memo = IdentityMemo(lambda key: calls.append(key) or len(calls), size=2)
    a, b = [1.0], [1.0]  # equal, not the same object
    assert memo(a) == 1 and memo(a) == 1
    assert memo(b) == 2  # identity, not equality
    assert calls == [a, b]


def test_the_oldest_entry_is_forgotten_and_clear_forgets_all() -> None:
    calls = []
    memo = IdentityMemo(lambda key: calls.append(key) or len(calls), size=2)
    a, b, c = object(), object(), object()
    memo(a), memo(b), memo(c)  # a, computed first, drops out
    assert memo(b) == 2 and memo(c) == 3 and memo(a) == 4
    memo.clear()
    assert memo(c) == 5
