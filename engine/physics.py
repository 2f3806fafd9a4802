"""The physics version: one integer that names the physics this engine computes.

The physics is everything in ``engine/`` that decides a state bit: strict math, the
stages of both vehicle families, presets as data, the track and the lap timer. Two
engines with the same physics version give the same bits on every recording; a change
that moves any state bit of any drive raises the version, in a ``physics:`` commit; a
change that moves no bit keeps it.

Versions are numbered on the main branch, in the order their changes land there: two
branches that each change the physics get their numbers when they merge (the second to
merge takes the next number, and re-blesses on top of the first). ``skidpad bless``
refuses to write golden hashes that moved unless this number is above the one the
golden files were blessed under, and a test over the repository's history fails on a
commit that moves a golden hash without raising it.

Recordings (format 3), golden files and claims carry the version that made them;
``skidpad verify`` replays a recording under its own physics, from the archive of every
earlier version that produced a committed recording (``replay/physics/``).
"""

#: the physics this engine computes (see the module docstring for when it changes)
PHYSICS_VERSION = 12

__all__ = ["PHYSICS_VERSION"]
