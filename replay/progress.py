"""Progress on stderr for the long commands: counts and an estimated time left.

    bar = Progress(total=16, label="replay", unit="recordings", quiet=args.json)
    for ...:
        bar.note(name)
        ...
        bar.advance()
    bar.close()

A progress line is drawn only when the stream is a terminal and the command was
not asked for ``--json``: a log file, a pipe or a machine reading JSON gets
nothing. The line is redrawn in place (carriage return, erase to end of line)
at most every :data:`REDRAW_S` seconds and always when the count reaches the
total; :meth:`Progress.close` ends it with a newline so the result that
follows starts on a clean line. Standard library only: the engine and a bare
install need no dependency for this.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import Self, TextIO

from skidpad.replay.terminal import printable

#: Shortest interval between two redraws of the line, in seconds.
REDRAW_S = 0.2
_ERASE_LINE = "\r\x1b[K"


def format_eta(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a time left; ``--:--`` while it cannot be estimated yet."""
    if seconds < 0 or seconds != seconds or seconds == float("inf"):
        return "--:--"
    s = int(seconds + 0.5)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """A counted progress line on a terminal; silent everywhere else (see the module doc)."""

    def __init__(
        self,
        total: int,
        label: str,
        *,
        unit: str = "",
        quiet: bool = False,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = not quiet and _is_terminal(self.stream)
        self.total = max(0, int(total))
        self.label = label
        self.unit = unit
        self.done = 0
        self._note = ""
        self._clock = clock
        self._started = clock()
        self._drawn_at: float | None = None
        self._open = False
        self._lock = threading.Lock()  # parity runs runtimes in threads
        # a line longer than the terminal wraps, and the carriage return no longer redraws it
        self.width = shutil.get_terminal_size((80, 24)).columns if self.enabled else 80

    def start(self, total: int) -> None:
        """Set the total once it is known (the count and the clock start again)."""
        self.total = max(0, int(total))
        self.done = 0
        self._started = self._clock()
        self._draw(force=True)

    def note(self, text: str) -> None:
        """Show ``text`` (what is being worked on) after the counts."""
        self._note = text
        self._draw()

    def advance(self, n: int = 1) -> None:
        """``n`` more items are done."""
        self.done = min(self.total, self.done + n) if self.total else self.done + n
        self._draw(force=self.done >= self.total)

    def update(self, done: int) -> None:
        """``done`` items are done in all."""
        self.advance(done - self.done)

    def eta_s(self) -> float:
        """Estimated seconds left, from the mean time per item so far (inf before the first)."""
        if self.done <= 0:
            return float("inf")
        elapsed = self._clock() - self._started
        return elapsed / self.done * max(0, self.total - self.done)

    def line(self) -> str:
        """The text of the progress line as it is drawn now."""
        unit = f" {self.unit}" if self.unit else ""
        pct = f" ({100 * self.done // self.total}%)" if self.total else ""
        note = f"  {printable(self._note)}" if self._note else ""
        return (
            f"{self.label}: {self.done}/{self.total}{unit}{pct}, "
            f"ETA {format_eta(self.eta_s())}{note}"
        )

    def close(self) -> None:
        """End the line (a newline), so what is printed next starts on its own line."""
        if self.enabled and self._open:
            self._write("\n")
        self._open = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._draw_locked(force)

    def _draw_locked(self, force: bool) -> None:
        now = self._clock()
        if not force and self._drawn_at is not None and now - self._drawn_at < REDRAW_S:
            return
        self._drawn_at = now
        self._open = True
        self._write(_ERASE_LINE + self.line()[: max(20, self.width - 1)])

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal ends the progress, not the command
            self.enabled = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
