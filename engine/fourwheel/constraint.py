"""The bounded constraint: a torque that holds a speed unless it would exceed a capacity.

Box2D's friction and motor joints clamp an impulse to a maximum; this is the
same for a torque over one substep. The brake of a wheel, the launch clutch and
a limited-slip differential are each such a constraint (docs/adr/0036):

* :func:`bound`: the requested torque ``T_req`` is applied as it is when
  ``|T_req| <= capacity`` (the constraint holds), else ``±capacity`` with the
  sign of ``T_req`` (it slips with its full capacity).
* :func:`bounded_solve`: one body ``d·ω' = rhs - T`` held at ``ω' = 0`` by a
  torque ``T`` bounded by ``capacity``: the torque that holds it is ``T_req = rhs``;
  if that is inside the bound, ``ω'`` is exactly 0 (a locked wheel does not
  creep or chatter), otherwise ``ω' = (rhs ∓ capacity)/d``.

Units: torques in N·m, ``d`` in N·m·s/rad (inertia over the substep plus the
tire's stiffness), speeds in rad/s; positive drives the body forward.
"""

from __future__ import annotations


def bound(t_req: float, capacity: float) -> tuple[float, bool]:
    """``(torque, held)``: ``t_req`` inside ``[-capacity, capacity]``, else the nearer end."""
    if -capacity <= t_req <= capacity:
        return t_req, True
    return (capacity if t_req > 0.0 else -capacity), False


def bounded_solve(rhs: float, diag: float, capacity: float) -> tuple[float, float, bool]:
    """``(ω', T, held)`` of ``diag·ω' = rhs - T`` with ``|T| <= capacity`` aiming at ``ω' = 0``."""
    t, held = bound(rhs, capacity)
    if held:
        return 0.0, t, True
    return (rhs - t) / diag, t, False
