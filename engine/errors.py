"""The project's error types: bad input is a :class:`SkidpadError` with one clear message.

The CLI turns any :class:`SkidpadError` into one line on stderr and exit code 2;
anything else escaping is a bug.
"""


class SkidpadError(Exception):
    """Base of every error caused by bad input (a file, a preset, an option)."""


class DefinitionError(SkidpadError, ValueError):
    """A vehicle definition (preset or embedded) is invalid; the message names the parameter."""


class InputError(SkidpadError, ValueError):
    """A host-step input is missing, not finite or out of range; the message names the channel."""


class SteadyStateError(SkidpadError, ValueError):
    """A definition has no steady turn at the asked speed and radius (its tires saturate)."""
