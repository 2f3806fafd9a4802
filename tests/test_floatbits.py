"""engine/floatbits.py: the bit pattern of a float and back, and the distance in ulps.

Every expected value is written from the IEEE 754 binary64 layout (sign bit 63,
biased exponent in bits 52-62, fraction in bits 0-51), not computed by the code.
"""

from __future__ import annotations

import math
import struct

import pytest
from skidpad.engine.floatbits import bits_float, float_bits, ulp_distance

CASES = [
    (0.0, 0x0000000000000000),
    (-0.0, 0x8000000000000000),
    (1.0, 0x3FF0000000000000),
    (-2.0, 0xC000000000000000),
    (0.5, 0x3FE0000000000000),
    (5e-324, 0x0000000000000001),  # the smallest subnormal
    (2.2250738585072014e-308, 0x0010000000000000),  # the smallest normal
    (1.7976931348623157e308, 0x7FEFFFFFFFFFFFFF),  # the largest double
    (math.inf, 0x7FF0000000000000),
    (-math.inf, 0xFFF0000000000000),
]


@pytest.mark.parametrize(("x", "bits"), CASES)
def test_bits_of_a_float_and_back(x: float, bits: int) -> None:
    assert float_bits(x) == bits
    assert float_bits(bits_float(bits)) == bits  # -0.0 stays -0.0


def test_nan_keeps_its_payload() -> None:
    assert float_bits(bits_float(0x7FF8000000000123)) == 0x7FF8000000000123


@pytest.mark.parametrize("bits", [-1, 1 << 64])
def test_bits_outside_64_are_refused(bits: int) -> None:
    with pytest.raises(struct.error):
        bits_float(bits)


@pytest.mark.parametrize(
    ("a", "b", "ulps"),
    [
        (1.0, 1.0, 0),
        (1.0, 1.0000000000000002, 1),  # 1 + 2**-52
        (1.0, 0.9999999999999999, 1),  # 1 - 2**-53: the binade below is twice as fine
        (0.0, -0.0, 1),
        (5e-324, -5e-324, 3),  # -min, -0, +0, +min
        (1.7976931348623157e308, math.inf, 1),
    ],
)
def test_ulp_distance(a: float, b: float, ulps: int) -> None:
    assert ulp_distance(a, b) == ulps
    assert ulp_distance(b, a) == ulps
