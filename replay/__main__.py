"""``python -m replay`` is no longer the command line: it moved up to the ``cli`` package.

``replay`` sits below the command line and may not import it (ADR 0160), so this entry
point only says where the command line went and exits 2 (bad input), running nothing.
"""

import sys

print(
    "skidpad: the command line is 'skidpad' or 'python -m skidpad' now; "
    "'python -m replay' no longer runs it",
    file=sys.stderr,
)
sys.exit(2)
