"""Fixed-step classic Runge-Kutta (RK4) with the inputs held over the substep.

    k1 = f(x, u),  k2 = f(x + h/2 k1, u),  k3 = f(x + h/2 k2, u),  k4 = f(x + h k3, u)
    x+ = x + h/6 (k1 + 2 k2 + 2 k3 + k4)

Explicit and fixed (ADR 0063): no adaptivity, so the number and order of
operations never depend on the data beyond the model's own branches, and the
result is the same bits in every runtime. The sum is formed slot by slot in
one fixed order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def rk4_step(f: Callable, x: Sequence[float], u: Sequence[float], p, h: float) -> list:
    """One RK4 step of ``x' = f(x, u, p)`` over ``h`` seconds."""
    n = len(x)
    h2 = h / 2.0
    h6 = h / 6.0
    k1 = f(x, u, p)
    k2 = f([x[i] + h2 * k1[i] for i in range(n)], u, p)
    k3 = f([x[i] + h2 * k2[i] for i in range(n)], u, p)
    k4 = f([x[i] + h * k3[i] for i in range(n)], u, p)
    return [x[i] + h6 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) for i in range(n)]
