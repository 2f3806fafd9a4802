"""Where the harness's tasks run: a plain local pool, or a dask.distributed cluster.

A task is one runtime x a batch of recordings (the runtime starts once per task). Both
executors take a list of picklable calls and yield ``(index, result)`` as each finishes, so
the caller counts every task exactly once, whatever ran it or how often:

* :class:`LocalExecutor` runs the calls in threads of this process (the runtimes are child
  processes, so a thread only waits on pipes); it needs nothing beyond the standard library.
* :class:`DaskExecutor` submits them to a ``distributed.Client``: a ``LocalCluster`` bound to
  127.0.0.1 with the dashboard off and ``jobs`` worker processes (``scheduler="local"``), or an
  existing cluster (``scheduler="tcp://HOST:PORT"``). dask re-runs the task of a worker that
  died on another worker; the future still completes once, so a cell is never counted twice.

dask is the optional extra ``skidpad[scale]`` and is imported only here, only when a cluster
is asked for (ADR 0145).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from skidpad.engine.errors import SkidpadError

INSTALL_HINT = "pip install 'skidpad[scale]'"
CONNECT_TIMEOUT_S = 20.0

Task = Callable[[], Any]
OnError = Callable[[int, BaseException], Any]


class SchedulerError(SkidpadError):
    """A cluster cannot be used: dask is missing, the address is malformed or unreachable."""


_ADDRESS = re.compile(r"^(tcp|tls)://[A-Za-z0-9._\-\[\]:]+:\d{1,5}$")


def check_scheduler(scheduler: str | None) -> None:
    """Refuse a malformed ``--scheduler`` or a missing dask before any work (one line)."""
    if scheduler is None:
        return
    if scheduler != "local" and not _ADDRESS.match(scheduler):
        raise SchedulerError(
            f"--scheduler {scheduler[:80]!r}: expected tcp://HOST:PORT (an existing dask "
            "scheduler) or 'local' (a cluster on this machine)"
        )
    if scheduler != "local":
        port = int(scheduler.rsplit(":", 1)[1])
        if not 1 <= port <= 65535:
            raise SchedulerError(f"--scheduler {scheduler}: port {port} is not within 1..65535")
    if not dask_available():
        raise SchedulerError(f"--scheduler needs dask.distributed: {INSTALL_HINT}")
    if scheduler != "local":
        refusal = _refused(scheduler)  # dask would report a refusal as a 20 s time-out
        if refusal is not None:
            raise SchedulerError(f"--scheduler {scheduler}: connection refused ({refusal})")


def add_scheduler_argument(parser: argparse.ArgumentParser) -> None:
    """``--scheduler`` as every command that runs cells takes it."""
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the tasks on dask.distributed: tcp://HOST:PORT of an existing scheduler, or "
        f"'local' for a LocalCluster of --jobs workers on 127.0.0.1 (needs {INSTALL_HINT})",
    )


def dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


class LocalExecutor:
    """``jobs`` threads in this process."""

    description = "local"

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = max(1, jobs)

    def run(self, tasks: Sequence[Task], on_error: OnError) -> Iterator[tuple[int, Any]]:
        if self.jobs == 1 or len(tasks) <= 1:
            for i, task in enumerate(tasks):
                yield i, _call(task, i, on_error)
            return
        with ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="skidpad") as pool:
            futures = {pool.submit(task): i for i, task in enumerate(tasks)}
            for future in as_completed(futures):
                i = futures[future]
                try:
                    yield i, future.result()
                except Exception as exc:
                    yield i, on_error(i, exc)

    def close(self) -> None:
        pass


def _call(task: Task, index: int, on_error: OnError) -> Any:
    try:
        return task()
    except Exception as exc:
        return on_error(index, exc)


class DaskExecutor:
    """A ``distributed.Client`` on a new local cluster or an existing scheduler."""

    def __init__(self, scheduler: str = "local", jobs: int = 1) -> None:
        import distributed

        self._cluster = None
        if scheduler == "local":
            self._cluster = distributed.LocalCluster(
                n_workers=max(1, jobs),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                # no dashboard; the scheduler's small HTTP server on loopback, any free port
                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
            )
            count = max(1, jobs)
            plural = "worker" if count == 1 else "workers"
            self.description = f"dask LocalCluster of {count} {plural} on 127.0.0.1"
            self.client = distributed.Client(self._cluster)
        else:
            try:
                self.client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as exc:
                raise SchedulerError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
            self.description = f"dask scheduler {scheduler}"

    def run(self, tasks: Sequence[Task], on_error: OnError) -> Iterator[tuple[int, Any]]:
        import distributed

        # pure=False: two equal calls are still two tasks (a re-run must not be deduplicated)
        futures = [self.client.submit(task, pure=False) for task in tasks]
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in distributed.as_completed(futures):
                i = index[future.key]
                try:
                    yield i, future.result()
                except Exception as exc:  # the task raised, or its workers died too often
                    yield i, on_error(i, exc)
                future.release()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def _refused(address: str) -> str | None:
    """Why a TCP connection to the scheduler's host and port is refused at once, or None
    (it connects, or takes longer: dask's own time-out then applies)."""
    import socket

    hostport = address.split("://", 1)[1]
    host, port = hostport.rsplit(":", 1)
    host = host.strip("[]")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            return None
    except ConnectionRefusedError as exc:
        return exc.strerror or "refused"
    except OSError:
        return None  # unreachable or slow: let dask say so


def make_executor(scheduler: str | None, jobs: int) -> LocalExecutor | DaskExecutor:
    """``scheduler`` None: the local pool; "local" or an address: dask (checked first)."""
    check_scheduler(scheduler)
    if scheduler is None:
        return LocalExecutor(jobs)
    return DaskExecutor(scheduler, jobs)
