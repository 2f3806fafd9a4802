"""Skidpad's physics core: strict math, named state, the vehicle model, presets.

Imports nothing outside the standard library and nothing from the other
Skidpad packages; everything here obeys the strict-float contract (docs/architecture.md §3).
"""

__version__ = "0.1.0"
