"""Reading a file a user names, as hostile input: only a regular file, never more than a limit.

Every reader of the tool (recordings, traces, golden files, logs, ``.tir`` files) takes its
bytes through :func:`read_regular_file`, so they refuse the same things in the same words:

* a directory, FIFO, device or socket is refused from its ``stat``, before it is opened
  (opening a FIFO for reading waits for a writer);
* the file is opened non-blocking and checked again after opening, so one swapped in between
  the two cannot hang the read;
* the read is bounded (``limit + 1`` bytes), even if the file grows or lies about its size.

Each refusal is one line, raised as the caller's error class (a
:class:`~skidpad.engine.errors.SkidpadError`), naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skidpad.engine.errors import SkidpadError

__all__ = ["not_regular", "read_regular_file"]

#: opening non-blocking keeps a FIFO swapped in after the stat from hanging the read (POSIX
#: only: Windows has no FIFOs to open and no such flag)
_NONBLOCK = os.O_NONBLOCK if os.name == "posix" else 0


def not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is ("a FIFO", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular_file(
    path: str | os.PathLike, limit: int, error: type[SkidpadError], what: str
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Anything else raises ``error`` with one line naming the file: ``what`` is what the file
    should have been ("a recording file", "a .tir file") and the unit of the size limit.
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except OSError as exc:
        raise error(f"{p}: cannot read: {exc.strerror or exc}") from None
    _refuse(p, st, limit, error, what)
    try:
        fd = os.open(p, os.O_RDONLY | _NONBLOCK)
    except OSError as exc:
        raise error(f"{p}: cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        _refuse(p, os.fstat(fd), limit, error, what)  # the file opened may not be the one stat saw
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise error(f"{p}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{p}: too large (more than {limit} bytes)")
    return data


def _refuse(p: Path, st: os.stat_result, limit: int, error: type[SkidpadError], what: str) -> None:
    kind = not_regular(st.st_mode)
    if kind is not None:
        raise error(f"{p}: is {kind}, not {what}")
    if st.st_size > limit:
        raise error(f"{p}: too large ({st.st_size} bytes; {what} is at most {limit} bytes)")
