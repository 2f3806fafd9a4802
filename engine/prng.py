"""splitmix64: the project's one pseudo-random generator (Steele, Lea & Flood, 2014).

Integer-only (Python ints masked to 64 bits), so it yields the same sequence in every
runtime; it seeds the math self-test battery, the ``random:SEED`` drives, the accuracy
sampler and the tests' random points. Floats are built exactly from its bits: ``unit()``
is an integer below 2**53 times 2**-53, never a rounded quotient.
"""

from __future__ import annotations

from skidpad.engine.floatbits import bits_float

MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53, exact


class SplitMix64:
    """A seeded stream of 64-bit integers and the exact floats made from them."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        """The next 64-bit unsigned integer."""
        self.state = (self.state + _GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An integer in ``[0, n)`` by modulo (bias below n / 2**64)."""
        return self.next() % n

    def unit(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits."""
        return (self.next() >> 11) * _TWO_M53

    def uniform(self, lo: float, hi: float) -> float:
        """``lo + (hi - lo) * unit()``."""
        return lo + (hi - lo) * self.unit()

    def sign(self) -> float:
        """-1.0 or 1.0, from the top bit."""
        return -1.0 if self.next() >> 63 else 1.0

    def bits_double(self) -> float:
        """The double whose bit pattern is the next integer (may be inf or nan)."""
        return bits_float(self.next())
