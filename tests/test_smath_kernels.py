"""The declared sign split of the fast kernels (engine.smath.kernels.SIGN_SPLIT) holds: each
kernel is its negative side below zero and its positive side elsewhere, bit for bit."""

from __future__ import annotations

import math

import pytest
from skidpad.engine.smath import kernels
from test_smath_inline import POINTS, outcome

SPLITS = {fn.__name__: (fn, neg, pos) for fn, (neg, pos) in kernels.SIGN_SPLIT.items()}


@pytest.mark.parametrize("index", [math.floor, int], ids=["floor", "int"])
@pytest.mark.parametrize("name", sorted(SPLITS))
def test_the_split_gives_the_kernels_bits(name: str, index, monkeypatch) -> None:
    """Both sides on every grid point and around it, special values included, with either
    table-index function ``IDX`` may be."""
    fn, neg, pos = SPLITS[name]
    monkeypatch.setattr(kernels, "IDX", index)
    wrong = [x for x in POINTS if outcome(neg if x < 0.0 else pos, x) != outcome(fn, x)]
    assert not wrong, f"{name}: the split differs from the kernel at {wrong[:5]}"


def test_a_one_ulp_change_of_a_side_is_caught(monkeypatch) -> None:
    """The check above can fail: a table row nudged by one ulp on the negative side."""
    rows = list(kernels.ATLN)
    c, ah, al = rows[100]
    rows[100] = (c, math.nextafter(ah, 0.0), al)
    monkeypatch.setattr(kernels, "ATLN", tuple(rows))
    fn, neg, pos = SPLITS["atan_fast"]
    assert any(outcome(neg if x < 0.0 else pos, x) != outcome(fn, x) for x in POINTS)
