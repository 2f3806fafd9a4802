"""A set of files written into one folder all or nothing (ADR 0210).

``skidpad bless`` rewrites a golden file per recording and ``math.json``: a reader must
find the old set or the new one, never a mix, whatever stops the writer. The set is
committed in three moves, each one atomic on a POSIX file system:

1. **Stage.** Every new file is written and fsynced into ``DIR/.skidpad-set.staging/``.
2. **Commit.** That folder is renamed ``DIR/.skidpad-set.commit/``: this rename is the
   commit point. Before it, the set is the old one; after it, the new one.
3. **Publish.** Each staged file is renamed over its destination, then the empty folder
   is removed.

Whoever finds a ``.staging`` folder (a writer that stopped before the commit point)
removes it; whoever finds a ``.commit`` folder finishes the publish, which can be done
any number of times. :func:`recover` does that, and every reader of golden files calls it,
so after a SIGKILL the next command that reads or writes the folder completes or rolls
back the set. The writer holds an exclusive ``flock`` on the folder for the whole
transaction; :func:`recover` leaves a folder alone while a live writer holds it.
SIGINT and SIGTERM during a transaction do not kill the writer half-way: before the
commit point they raise (the staging folder is removed on the way out), after it they are
held until the publish is done (:class:`Interrupted` then says which).

``SKIDPAD_TEST_SET_DELAY`` (tests only) sleeps before each staged and each published
file, so a test can interrupt the write phase at chosen moments: ``SECONDS`` in both halves,
``stage:SECONDS`` or ``publish:SECONDS`` in one (a test aiming at one half of the write
phase need not wait through the other).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from skidpad.replay.output import OutputError, _sync_directory, check_name_fits

STAGING = ".skidpad-set.staging"
COMMIT = ".skidpad-set.commit"
_DELAY_ENV = "SKIDPAD_TEST_SET_DELAY"

try:  # not on every platform (Pyodide has no fcntl): there the lock is skipped
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]


class Interrupted(BaseException):
    """A signal stopped the write of a set; ``committed`` says whether the new set is whole
    (True) or the old one was kept (False). ``status`` is the exit status the signal asks."""

    def __init__(self, signum: int, committed: bool) -> None:
        self.signum = signum
        self.committed = committed
        self.status = 128 + signum
        kept = "the new set is complete" if committed else "nothing written"
        super().__init__(f"{signal.Signals(signum).name}: {kept}")


def _test_delay(half: str) -> None:
    """The test hook's sleep before a file of ``half`` ("stage" or "publish")."""
    delay = os.environ.get(_DELAY_ENV)
    if delay:
        only, _, seconds = delay.rpartition(":")
        if only in ("", half):
            time.sleep(float(seconds))


@contextlib.contextmanager
def _locked(directory: Path, blocking: bool = True) -> Iterator[bool]:
    """An exclusive ``flock`` on ``directory``; yields False if ``blocking`` is off and a
    live process holds it. The kernel drops the lock when its holder dies, even by SIGKILL."""
    if fcntl is None:
        yield True
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        flags = fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB)
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def recover(directory: str | os.PathLike) -> None:
    """Complete or roll back a set a writer left in ``directory`` (see the module docstring).
    Nothing to do, or a live writer at work: returns at once."""
    d = Path(directory)
    if not (d / STAGING).exists() and not (d / COMMIT).exists():
        return
    try:
        with _locked(d, blocking=False) as mine:
            if mine:
                _recover_locked(d)
    except OSError as exc:
        raise OutputError(f"{d}: cannot complete an interrupted write: {exc.strerror}") from None


def _recover_locked(d: Path) -> None:
    if (d / COMMIT).is_dir():
        _publish(d)
    if (d / STAGING).exists():
        shutil.rmtree(d / STAGING, ignore_errors=True)


def _publish(d: Path) -> None:
    commit = d / COMMIT
    for name in sorted(os.listdir(commit)):
        _test_delay("publish")
        os.replace(commit / name, d / name)
    _sync_directory(d)
    os.rmdir(commit)
    _sync_directory(d)


class _Signals:
    """SIGINT/SIGTERM raise :class:`Interrupted` before the commit point, and are held after
    it until :meth:`release` (only in the main thread; elsewhere signals are left alone)."""

    def __init__(self) -> None:
        self.committed = False
        self.pending: int | None = None
        self._old: dict[int, object] = {}

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: object) -> None:
        if self.committed:
            self.pending = signum
        else:
            raise Interrupted(signum, committed=False)

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)  # type: ignore[arg-type]

    def release(self) -> None:
        if self.pending is not None:
            raise Interrupted(self.pending, committed=True)


def check_names(directory: Path, names: Mapping[str, bytes]) -> None:
    """Every name of the set fits the file system (and so does its staged copy)."""
    for name in names:
        if not name or "/" in name or name in (".", ".."):
            raise OutputError(f"{directory / name}: not a plain file name")
        check_name_fits(directory / name, directory / name)
        check_name_fits(directory / COMMIT / name, directory / name)


def write_set(directory: str | os.PathLike, files: Mapping[str, bytes]) -> None:
    """Write ``files`` (name -> bytes) into the existing ``directory`` all or nothing.

    Raises :class:`OutputError` (nothing written) or :class:`Interrupted`.
    """
    d = Path(directory)
    check_names(d, files)
    with _Signals() as signals, _locked(d):
        _recover_locked(d)  # a set an earlier writer left, before this one starts
        staging = d / STAGING
        try:
            staging.mkdir()
            for name, data in files.items():
                _test_delay("stage")
                _write_staged(staging / name, data, _mode_of(d / name))
            _sync_directory(staging)
            os.rename(staging, d / COMMIT)  # the commit point
            signals.committed = True
        except BaseException as exc:
            if (d / COMMIT).is_dir():  # stopped between the rename and the line after it
                signals.committed = True
                _publish(d)
                if isinstance(exc, Interrupted):
                    raise Interrupted(exc.signum, committed=True) from None
                raise
            shutil.rmtree(staging, ignore_errors=True)
            if isinstance(exc, OSError):
                raise OutputError(
                    f"{d}: cannot write: {exc.strerror or exc}; nothing written"
                ) from None
            raise
        _publish(d)
    signals.release()


def _mode_of(existing: Path) -> int:
    try:
        return os.stat(existing).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_staged(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
