"""Ctrl-C and SIGTERM (a cancelled CI job) during ``apply``'s node walk.

* The first signal says at once what is running and that no new node will start; the walk then
  starts none (the nodes not started are ``cancelled``), the running ones finish, and apply
  writes run_results.json and the state as after any run, and exits 130 (SIGINT) or 143
  (SIGTERM): 128 plus the signal's number, as shells do.
* A second signal stops now: each running node ends at its next safe point, before its next
  write into the table (the table lock's write fence) or at the executors' fault points between
  the timeline's requested, inflight and completed steps: a crash there is one the next apply
  recovers from (tests/e2e/test_crash_campaign.py kills applies anywhere), and the running
  Spark jobs are cancelled. The table locks are released as the nodes end.
* Applying the same plan again resumes: the nodes done are recorded in their tables and skipped.

The handlers are installed only while the walk runs, on the main thread, and the previous ones
restored after.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from maintainer.console import print_notice
from maintainer.executors.faults import clear_stop, request_stop

HANDLED = (signal.SIGINT, signal.SIGTERM)
SIGNAL_EXIT_BASE = 128
"""A process ended by signal N exits 128 + N (130 for SIGINT, 143 for SIGTERM)."""


def _name(signum: int) -> str:
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


class Interrupts:
    """What the signals asked for: ``cancel`` (the walk starts no new node) after the first,
    a stop at the next safe point after the second. ``running`` names the running nodes;
    ``cancel_jobs`` cancels the running Spark jobs."""

    def __init__(
        self, running: Callable[[], list[str]] = list, cancel_jobs: Callable[[], None] = lambda: None
    ) -> None:
        self.running = running
        self.cancel_jobs = cancel_jobs
        self.cancel = threading.Event()
        self.signal: int | None = None
        self.stopping = False

    @property
    def exit_code(self) -> int | None:
        """128 + the first signal's number, or None without one."""
        return None if self.signal is None else SIGNAL_EXIT_BASE + self.signal

    def _names(self) -> str:
        running = self.running()
        return ", ".join(running) if running else "no node"

    def handle(self, signum: int, frame: FrameType | None = None) -> None:
        if self.signal is None:
            self.signal = signum
            self.cancel.set()
            print_notice(
                "interrupt",
                f"interrupted ({_name(signum)}): {self._names()} still running; no new node will "
                "start (a second Ctrl-C stops now, safely)",
            )
        elif not self.stopping:
            self.stopping = True
            request_stop()
            self.cancel_jobs()
            print_notice(
                "stop",
                f"stopping now: the running nodes ({self._names()}) stop at their next safe point, "
                "Spark jobs cancelled; re-running the plan resumes",
            )
        else:
            print_notice("stop", f"already stopping: waiting for {self._names()} to reach a safe point")

    @contextmanager
    def installed(self) -> Iterator[Interrupts]:
        """The handlers, for the block's duration (only on the main thread: Python delivers
        signals there; elsewhere nothing is installed)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = {signum: signal.signal(signum, self.handle) for signum in HANDLED}
        try:
            yield self
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            clear_stop()
