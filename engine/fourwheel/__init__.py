"""The four-wheel vehicle model: one module per physical subsystem, the substep's stages
(:data:`engine.fourwheel.stages.STAGES`), the definitions and presets, and the fast path
derived from the stages (:mod:`engine.fourwheel.fastpath`).

Beside it, :mod:`engine.commonroad` is the other model family; what both share (strict math,
named state, integer ticks, the tracks, the specialiser, errors) sits in ``engine/`` itself.
"""
