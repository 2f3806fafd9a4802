"""Strict elementary functions: bit-identical results in every Python runtime.

Written only with the operations docs/architecture.md §3 allows (``+ - * /``, comparisons,
``math.sqrt``/``floor``/``fabs``/``copysign``/``isfinite``, ``struct``, Python
integers), so CPython on glibc and Pyodide on musl compute the same bits.
Every function is accurate to below 1 ulp against a 128-bit mpmath oracle
(``parity/oracle.py``, measured by ``parity/accuracy.py``; ``nox -s accuracy``).

Special values follow C99 Annex F as Python's ``math`` does: signed zeros are
kept, ``nan`` in gives ``nan`` out, and a domain error raises ``ValueError``
(an overflow raises ``OverflowError``).

``FUNCTIONS`` is the one list of the strict functions (name, function, arity), in the
fixed order in which the math self-test hash visits them; the oracle, the accuracy
measurement and ``hashes/math.json`` take their list from it.
"""

from math import sqrt

from .explog import cbrt, cosh, exp, expm1, hypot, log, log1p, pow, sinh, tanh
from .trig import acos, asin, atan, atan2, cos, sin, tan

#: name -> (function, arity), in the self-test hash's order.
FUNCTIONS = {
    "sin": (sin, 1),
    "cos": (cos, 1),
    "tan": (tan, 1),
    "asin": (asin, 1),
    "acos": (acos, 1),
    "atan": (atan, 1),
    "atan2": (atan2, 2),
    "exp": (exp, 1),
    "expm1": (expm1, 1),
    "log": (log, 1),
    "log1p": (log1p, 1),
    "pow": (pow, 2),
    "sinh": (sinh, 1),
    "cosh": (cosh, 1),
    "tanh": (tanh, 1),
    "hypot": (hypot, 2),
    "cbrt": (cbrt, 1),
    "sqrt": (sqrt, 1),
}

__all__ = [*FUNCTIONS, "FUNCTIONS"]
