"""apply's signal handling: the first signal cancels (no new node), the second stops at the next
safe point and cancels Spark's jobs; the handlers are installed only while the walk runs."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from maintainer.commands.interrupts import Interrupts
from maintainer.executors.faults import Stopped, maybe_fail, stop_requested


class Spark:
    def __init__(self) -> None:
        self.cancelled = 0

    def cancel_jobs(self) -> None:
        self.cancelled += 1


def test_the_first_signal_cancels_says_what_runs_and_sets_the_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spark = Spark()
    interrupts = Interrupts(lambda: ["a.clean", "b.compaction"], spark.cancel_jobs)
    assert interrupts.exit_code is None
    interrupts.handle(signal.SIGINT)
    assert interrupts.cancel.is_set() and interrupts.exit_code == 130
    assert not stop_requested() and spark.cancelled == 0  # the running nodes go on
    err = capsys.readouterr().err
    assert "interrupted (Ctrl-C): a.clean, b.compaction still running; no new node will start" in err
    assert "a second Ctrl-C stops now, safely" in err


def test_the_second_signal_stops_at_the_next_safe_point_and_cancels_spark_jobs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spark = Spark()
    interrupts = Interrupts(lambda: ["a.compaction"], spark.cancel_jobs)
    with interrupts.installed():
        interrupts.handle(signal.SIGTERM)
        assert interrupts.exit_code == 143
        interrupts.handle(signal.SIGTERM)
        assert stop_requested() and spark.cancelled == 1
        with pytest.raises(Stopped):
            maybe_fail("compaction", "before_commit")
        interrupts.handle(signal.SIGINT)  # a third: still stopping, the exit code stays the first's
        assert spark.cancelled == 1 and interrupts.exit_code == 143
    assert not stop_requested()  # cleared with the handlers
    err = capsys.readouterr().err
    assert "interrupted (SIGTERM): a.compaction still running" in err
    assert "stopping now: the running nodes (a.compaction) stop at their next safe point" in err
    assert "re-running the plan resumes" in err
    assert "already stopping: waiting for a.compaction" in err


def test_a_real_signal_reaches_the_handler_and_the_previous_handlers_come_back() -> None:
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    interrupts = Interrupts()
    with interrupts.installed():
        os.kill(os.getpid(), signal.SIGTERM)
        assert interrupts.cancel.wait(timeout=5)
    assert interrupts.exit_code == 143
    assert {signum: signal.getsignal(signum) for signum in before} == before


def test_off_the_main_thread_nothing_is_installed() -> None:
    seen: list[object] = []

    def install() -> None:
        with Interrupts().installed():
            seen.append(signal.getsignal(signal.SIGINT))

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=install)
    thread.start()
    thread.join()
    assert seen == [before]
