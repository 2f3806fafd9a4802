"""Every file a command writes goes through here (ADR 0115).

A write goes to a temporary file beside the destination, is fsynced, and is
renamed over the destination, so a reader sees the old file or the new one,
never half of either. It only ever replaces a regular file (or nothing): a
destination that is a directory, a device, a FIFO or a socket, or that is one
of the command's own input files, is refused with :class:`OutputError`. A
symlink destination is written through: the file it points at is replaced
and the link itself stays; a link that points nowhere is refused.

Commands call :func:`preflight` on every output before any simulation
starts: it makes the same checks and proves the directory writable by
creating and removing a temporary file there, so a drive never runs for
minutes only to find it cannot save its result. A write that fails anyway
(disk full, permission) leaves the old file as it was and no temporary file
behind, and raises :class:`OutputError` with one line saying why.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from skidpad.engine.errors import SkidpadError

PathLike = str | os.PathLike


class OutputError(SkidpadError):
    """An output cannot be written where it was asked for; nothing was written."""


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def resolve(path: PathLike) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the file its symlink names."""
    p = Path(path)
    check_name_fits(p, path)
    if not p.is_symlink():
        return p
    try:
        return Path(os.path.realpath(p, strict=True))
    except FileNotFoundError:
        raise OutputError(
            f"{p}: is a symlink to {os.readlink(p)}, which does not exist; "
            "an output is written through a symlink only to an existing file"
        ) from None
    except OSError as exc:
        raise OutputError(f"{p}: cannot follow the symlink: {_reason(exc)}") from None


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _input_stats(inputs: Iterable[PathLike]) -> list[tuple[PathLike, os.stat_result]]:
    out = []
    for f in inputs:
        try:
            out.append((f, os.stat(f)))
        except OSError:
            continue  # an input that is not there cannot be overwritten
    return out


def check_target(path: PathLike, inputs: Iterable[PathLike] = ()) -> Path:
    """The regular file (or free name) a write to ``path`` will replace; OutputError if none.

    Refused: a directory, device, FIFO or socket; a dangling symlink; a
    destination whose directory does not exist; the same file as any of
    ``inputs`` (compared by device and inode, so another name or a hard link
    for the input is caught too).
    """
    target = resolve(path)
    check_name_fits(target, path)
    try:
        st: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{path}: cannot write here: {_reason(exc)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(
            f"{path}: is {_kind(st.st_mode)}, not a regular file; an output only ever "
            "replaces a regular file"
        )
    directory = target.parent
    if not directory.is_dir():
        raise OutputError(f"{path}: directory {directory} does not exist")
    if st is not None:
        for f, ist in _input_stats(inputs):
            if _same_file(st, ist):
                raise OutputError(f"{path}: is the input {f}; refusing to write over an input")
    return target


#: What :func:`tempfile.mkstemp` adds to a prefix: eight random characters and the suffix.
_TEMP_EXTRA = 8 + len(".partial")


def _limit(directory: Path, name: str, default: int) -> int:
    """The file system's ``PC_NAME_MAX`` or ``PC_PATH_MAX`` for ``directory`` (``default``
    where it cannot say)."""
    try:
        value = os.pathconf(directory, name)
    except (OSError, ValueError, AttributeError):
        return default
    return value if value and value > 0 else default


def check_name_fits(target: Path, path: PathLike) -> None:
    """The destination's name and path fit the file system's limits (NAME_MAX, PATH_MAX), so
    a long name is refused before any work rather than when the result is written."""
    directory = target.parent if str(target.parent) else Path(".")
    name_max = _limit(directory, "PC_NAME_MAX", 255)
    path_max = _limit(directory, "PC_PATH_MAX", 4096)
    name_bytes = len(os.fsencode(target.name))
    if name_bytes > name_max:
        raise OutputError(
            f"{path}: the file name is {name_bytes} bytes, more than this file system's "
            f"limit of {name_max}; nothing written"
        )
    path_bytes = len(os.fsencode(os.path.abspath(target)))
    if path_bytes >= path_max:
        raise OutputError(
            f"{path}: the path is {path_bytes} bytes, more than this file system's limit of "
            f"{path_max - 1}; nothing written"
        )


def temp_prefix(target: Path) -> str:
    """The prefix of the temporary file a write to ``target`` goes through: ``.<name>.``,
    the name shortened so that the temporary name fits wherever the name itself does."""
    name_max = _limit(target.parent, "PC_NAME_MAX", 255)
    room = max(1, name_max - _TEMP_EXTRA - 2)
    name = os.fsencode(target.name)[:room].decode("utf-8", "ignore") or "out"
    return f".{name}."


def _probe_writable(directory: Path, path: PathLike, target: Path | None = None) -> None:
    """Create and remove, in ``directory``, the temporary file the write of ``target`` will
    use (same name length): the one sure test of writability."""
    if target is not None:
        check_name_fits(target, path)
    prefix = temp_prefix(target) if target is not None else ".skidpad-probe."
    try:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".partial", dir=directory)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write in {directory}: {_reason(exc)}") from None
    os.close(fd)
    os.unlink(tmp)


def check_directory(directory: PathLike) -> Path:
    """``directory`` exists, is a directory and takes new files (an output will go in it)."""
    d = Path(directory)
    if not d.is_dir():
        raise OutputError(f"{d}: is not an existing directory")
    _probe_writable(d, d)
    return d


def make_directory(directory: PathLike) -> Path:
    """Create ``directory`` (and its parents) for outputs; OutputError in one line if not."""
    d = Path(directory)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{d}: cannot create the directory: {_reason(exc)}") from None
    return check_directory(d)


def preflight(outputs: Sequence[PathLike], inputs: Iterable[PathLike] = ()) -> list[Path]:
    """Check every output before any work: each can be written, none is an input, no two
    name the same file. Returns the files the writes will replace, in order."""
    inputs = list(inputs)
    targets = []
    seen: dict[str, PathLike] = {}
    for out in outputs:
        target = check_target(out, inputs)
        key = os.path.realpath(target)
        if key in seen:
            raise OutputError(f"{out}: is written twice in one run (also as {seen[key]})")
        seen[key] = out
        _probe_writable(target.parent, out, target)
        targets.append(target)
    return targets


def _mode_for(target: Path) -> int:
    """The mode a rewritten file keeps, or what a new file gets from the umask."""
    try:
        return os.stat(target).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; a file system that cannot fsync a directory is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes(path: PathLike, data: bytes, inputs: Iterable[PathLike] = ()) -> Path:
    """Write ``data`` to ``path``: temp file beside it, fsync, rename. Returns the file written.

    The destination is checked again (:func:`check_target`) just before the
    write, since a run can be long. On any failure the old file is intact
    and the temporary file is gone.
    """
    target = check_target(path, inputs)
    existed = target.exists()
    kept = "the old file is unchanged" if existed else "nothing written"
    try:
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target), suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {_reason(exc)}; {kept}") from None
    try:
        try:
            os.fchmod(fd, _mode_for(target))  # mkstemp makes 0600; give the file its usual mode
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"{path}: cannot write: {_reason(exc)}; {kept}") from None
        raise
    _sync_directory(target.parent)
    return target


def write_text(path: PathLike, text: str, inputs: Iterable[PathLike] = ()) -> Path:
    """:func:`write_bytes` of ``text`` as UTF-8 (newlines as given)."""
    return write_bytes(path, text.encode("utf-8"), inputs)


class StreamedText:
    """A text output written piece by piece while a run goes on, and published whole.

    The pieces go to a temporary file beside the destination as they come (each written
    through at once, so the partial file can be followed); :meth:`close` fsyncs it, checks
    the destination again and renames it over it. A run that stops early (:meth:`discard`,
    or an exception leaving the ``with`` block) removes the temporary file: the
    destination keeps what it had, never half a report. The destination is checked like
    any output (:func:`check_target`) when the stream is opened, before any work.
    """

    def __init__(self, path: PathLike, inputs: Iterable[PathLike] = ()) -> None:
        self.path = path
        self.inputs = list(inputs)
        self.target = check_target(path, self.inputs)
        try:
            fd, tmp = tempfile.mkstemp(
                prefix=temp_prefix(self.target), suffix=".partial", dir=self.target.parent
            )
        except OSError as exc:
            raise OutputError(
                f"{path}: cannot write: {_reason(exc)}; the destination is unchanged"
            ) from None
        self.partial = Path(tmp)
        self._fd: int | None = fd
        try:
            os.fchmod(fd, _mode_for(self.target))
        except OSError as exc:
            self.discard()
            raise OutputError(
                f"{path}: cannot write: {_reason(exc)}; the destination is unchanged"
            ) from None

    def write(self, text: str) -> None:
        """Append ``text`` to the partial file now."""
        if self._fd is None:
            raise OutputError(f"{self.path}: the output is already closed")
        try:
            _write_all(self._fd, text.encode("utf-8"))
        except OSError as exc:
            self.discard()
            raise OutputError(
                f"{self.path}: cannot write: {_reason(exc)}; the destination is unchanged"
            ) from None

    def close(self) -> Path:
        """Publish: fsync, rename over the destination. Returns the file written."""
        if self._fd is None:
            raise OutputError(f"{self.path}: the output is already closed")
        fd, self._fd = self._fd, None
        try:
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            target = check_target(self.path, self.inputs)  # a long run: check again
            os.replace(self.partial, target)
        except BaseException as exc:
            self._remove_partial()
            if isinstance(exc, OSError):
                raise OutputError(f"{self.path}: cannot write: {_reason(exc)}") from None
            raise
        _sync_directory(target.parent)
        return target

    def discard(self) -> None:
        """Drop what was written; the destination is left as it was."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
        self._remove_partial()

    def _remove_partial(self) -> None:
        try:
            os.unlink(self.partial)
        except FileNotFoundError:
            pass

    def __enter__(self) -> StreamedText:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            if self._fd is not None:
                self.close()
        else:
            self.discard()
