"""The cores a process's gzip page sinks share, and the threads that deflate pages on spare ones.

A base file's writer thread both encodes (pyarrow) and deflates (libdeflate, which releases the
GIL) its pages. When fewer files are being written than the process has cores, a core is left
over: a page is then handed to a deflate thread while the writer goes on encoding, so a
compaction of one large file group (or the last file of a larger one) still uses every core.
When every core already has a writer, pages are deflated by their own writer: extra threads
would only contend for the same cores (measured: 4-6% more CPU for two files on two cores).

Each writing sink holds a core (:meth:`DeflateThreads.writer_started` and
:meth:`~DeflateThreads.writer_finished`); while fewer sinks write than there are cores, their
pages queue for as many deflate threads as cores (a sink waits once it has a few pages in
flight), so the writers and the threads fill the cores between them. A Spark task is given
one core by Spark: :func:`set_process_cores` tells this process so, and its pages are never
handed over. The threads and the count are per process, so a forked child (a Spark Python
worker) never waits on its parent's threads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

_Result = TypeVar("_Result")


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class DeflateThreads:
    """``cores`` cores shared by the writers of one process, and the threads for spare ones."""

    def __init__(self, cores: int) -> None:
        self.cores = max(1, cores)
        self._lock = threading.Lock()
        self._writers = 0
        self._pool: ThreadPoolExecutor | None = None

    def writer_started(self) -> None:
        """A writer holds a core until :meth:`writer_finished`."""
        with self._lock:
            self._writers += 1

    def writer_finished(self) -> None:
        with self._lock:
            self._writers -= 1

    @property
    def writers(self) -> int:
        """Writers writing now."""
        return self._writers

    def submit_if_idle(
        self, work: Callable[[bytes | bytearray], _Result], data: bytes | bytearray
    ) -> Future[_Result] | None:
        """``work(data)`` on a deflate thread when fewer writers are writing than there are
        cores, else None (do it yourself)."""
        with self._lock:
            if self._writers >= self.cores:
                return None
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self.cores, thread_name_prefix="maintainer-deflate"
                )
            pool = self._pool
        try:
            return pool.submit(work, data)
        except RuntimeError:  # the interpreter is shutting down
            return None


_PROCESS: dict[int, DeflateThreads] = {}
_PROCESS_LOCK = threading.Lock()


def process_threads() -> DeflateThreads:
    """This process's :class:`DeflateThreads` (made on first use, for its available cores)."""
    pid = os.getpid()
    threads = _PROCESS.get(pid)
    if threads is None:
        with _PROCESS_LOCK:
            threads = _PROCESS.get(pid)
            if threads is None:
                _PROCESS.clear()  # a forked parent's: its threads are not in this process
                threads = _PROCESS[pid] = DeflateThreads(available_cores())
    return threads


def set_process_cores(cores: int) -> None:
    """Tell this process it has ``cores`` cores for its writers (a Spark task: the one Spark
    gave it), whatever the machine has."""
    pid = os.getpid()
    with _PROCESS_LOCK:
        current = _PROCESS.get(pid)
        if current is None or current.cores != max(1, cores):
            _PROCESS.clear()
            _PROCESS[pid] = DeflateThreads(cores)
