"""What an untrusted recording may ask of a run, checked before any substep runs (ADR 0116).

A recording is data from anywhere: a few kilobytes of run-length frames can
declare a day of driving. :class:`Budget` bounds the file's size and the
drive it declares (simulated time, host steps, substeps), and the loaders
(``replay.recording``, ``replay.commonroad``) check it arithmetically from the
declared counts, before a frame is expanded or a substep is run. The
defaults suit any recording the project makes (the longest drive
``skidpad record`` writes is 1 h); ``--max-sim-seconds`` on ``replay``,
``bless`` and ``diff`` raises the time budget, and the step and substep
limits follow it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from skidpad.engine.fourwheel.definition import SUBSTEP_HZ_MAX

#: Recordings larger than this are refused before they are read.
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
#: Simulated seconds a recording may declare unless raised with ``--max-sim-seconds``.
DEFAULT_MAX_SIM_SECONDS = 3600.0
#: What raises the time budget on the command line (named in every refusal).
RAISE_HINT = "raise it with --max-sim-seconds"


class BudgetExceeded(ValueError):
    """A declared drive is larger than the budget; the loader names the field."""


@dataclass(frozen=True)
class Budget:
    """Limits for one untrusted recording.

    ``max_steps`` and ``max_substeps`` follow ``max_sim_seconds``: a host step
    runs at least one substep, and no run takes more substeps per simulated
    second than the fastest rate a definition may use (``SUBSTEP_HZ_MAX``).
    """

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_sim_seconds: float = DEFAULT_MAX_SIM_SECONDS

    def __post_init__(self) -> None:
        if not (isinstance(self.max_file_bytes, int) and self.max_file_bytes > 0):
            raise ValueError(f"max_file_bytes must be a positive integer: {self.max_file_bytes!r}")
        if not (0.0 < self.max_sim_seconds < 1e9):
            raise ValueError(
                f"--max-sim-seconds must be a positive number of seconds below 1e9, "
                f"not {self.max_sim_seconds!r}"
            )

    @property
    def max_sim_us(self) -> int:
        return round(self.max_sim_seconds * 1_000_000)

    @property
    def max_substeps(self) -> int:
        return self.max_sim_us * SUBSTEP_HZ_MAX // 1_000_000

    @property
    def max_steps(self) -> int:
        return self.max_substeps

    def check_drive(self, sim_us: int, steps: int, substeps: int) -> None:
        """Refuse a drive of ``sim_us`` simulated microseconds, ``steps`` host steps and
        ``substeps`` substeps that does not fit (BudgetExceeded says which limit)."""
        if sim_us > self.max_sim_us:
            raise BudgetExceeded(
                f"declares {sim_us / 1_000_000:.6g} s of driving, more than the budget of "
                f"{self.max_sim_seconds:g} s ({RAISE_HINT})"
            )
        if steps > self.max_steps:
            raise BudgetExceeded(
                f"declares {steps} host steps, more than the budget of {self.max_steps} "
                f"({RAISE_HINT})"
            )
        if substeps > self.max_substeps:
            raise BudgetExceeded(
                f"declares {substeps} substeps, more than the budget of {self.max_substeps} "
                f"({RAISE_HINT})"
            )


DEFAULT_BUDGET = Budget()


def add_budget_argument(p: argparse.ArgumentParser) -> None:
    """``--max-sim-seconds``, for every command that replays untrusted recordings."""
    p.add_argument(
        "--max-sim-seconds",
        type=sim_seconds,
        default=None,
        metavar="S",
        help="refuse a recording declaring more simulated seconds than S "
        f"(default {DEFAULT_MAX_SIM_SECONDS:g})",
    )


def sim_seconds(text: str) -> float:
    """``--max-sim-seconds`` as argparse reads it: checked there, so every mode of every
    command refuses nan, a negative or an absurd budget before any work (one line, exit 2)."""
    try:
        value = float(text)
        Budget(max_sim_seconds=value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text[:40]}: a positive number of seconds below 1e9"
        ) from None
    return value


def from_seconds(max_sim_seconds: float | None) -> Budget:
    """The budget for a command's ``--max-sim-seconds`` (None: the default)."""
    if max_sim_seconds is None:
        return DEFAULT_BUDGET
    from skidpad.engine.errors import SkidpadError

    try:
        return Budget(max_sim_seconds=max_sim_seconds)
    except ValueError as exc:
        raise SkidpadError(str(exc)) from None
