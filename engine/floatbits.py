"""The binary64 bit pattern of a float, and back: the project's one home for float bits.

``float_bits(x)`` is the IEEE 754 binary64 encoding of ``x`` read as an unsigned 64-bit
integer (sign bit 63, biased exponent bits 52-62, fraction bits 0-51), packed
little-endian with ``struct`` so it is the same in every runtime. ``bits_float`` is its
inverse and accepts exactly the integers ``0 <= bits < 2**64``. ``ulp_distance`` counts
the representable doubles between two floats.
"""

from __future__ import annotations

import struct

#: the two little-endian encodings; hot loops bind their ``pack``/``unpack`` to locals
DOUBLE = struct.Struct("<d")
UINT64 = struct.Struct("<Q")


def float_bits(x: float) -> int:
    """The IEEE 754 binary64 bit pattern of ``x`` as an unsigned int."""
    return UINT64.unpack(DOUBLE.pack(x))[0]


def bits_float(bits: int) -> float:
    """The float whose binary64 bit pattern is ``bits`` (``0 <= bits < 2**64``)."""
    return DOUBLE.unpack(UINT64.pack(bits))[0]


def ulp_distance(a: float, b: float) -> int:
    """How many representable doubles lie between ``a`` and ``b`` (0 when bit-equal).

    Uses the ordered-integer mapping of the bit patterns, so -0.0 and 0.0 are
    one apart, and the distance across zero counts every subnormal.
    """

    def ordered(x: float) -> int:
        u = float_bits(x)
        return (1 << 63) - 1 - (u & ((1 << 63) - 1)) if u >> 63 else (1 << 63) + u

    return abs(ordered(a) - ordered(b))
