"""Error-free transformations for double-double arithmetic, without FMA.

A double-double is an unevaluated sum ``hi + lo`` with ``|lo| <= ulp(hi)/2``;
it carries about 106 bits. These are the classical exact transformations
(Knuth's TwoSum, Dekker's FastTwoSum, Veltkamp's split and Dekker's TwoProd),
exact under round-to-nearest binary64 for arguments that do not overflow
(``two_prod`` needs ``|a|, |b| < 2**996`` so the split cannot overflow).

The strict functions inline these where speed matters; this module is the
readable reference the inlined copies are checked against.
"""

_SPLITTER = 134217729.0  # 2**27 + 1


def two_sum(a: float, b: float) -> tuple[float, float]:
    """``s + e == a + b`` exactly, ``s = fl(a + b)``."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def fast_two_sum(a: float, b: float) -> tuple[float, float]:
    """``s + e == a + b`` exactly, valid when ``|a| >= |b|`` (or a == 0)."""
    s = a + b
    e = b - (s - a)
    return s, e


def split(a: float) -> tuple[float, float]:
    """``a == hi + lo`` with each half holding at most 26 significant bits."""
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: float, b: float) -> tuple[float, float]:
    """``p + e == a * b`` exactly, ``p = fl(a * b)``."""
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e
