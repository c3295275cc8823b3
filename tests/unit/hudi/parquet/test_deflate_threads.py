"""The cores a process's gzip sinks share: per process, a Spark task's own count, work handed
over only while a core is idle."""

from __future__ import annotations

import os

import pytest

from maintainer.hudi.parquet import deflate_threads as dt


def test_work_is_handed_over_only_while_fewer_writers_write_than_there_are_cores() -> None:
    threads = dt.DeflateThreads(cores=2)
    threads.writer_started()
    handed = threads.submit_if_idle(bytes, b"a")
    assert handed is not None and handed.result(5) == b"a"
    threads.writer_started()
    assert threads.writers == 2
    assert threads.submit_if_idle(bytes, b"b") is None  # both cores have a writer: do it yourself
    threads.writer_finished()
    later = threads.submit_if_idle(bytes, b"c")  # a writer is done: its core is idle again
    assert later is not None and later.result(5) == b"c"
    threads.writer_finished()
    assert threads.writers == 0


def test_a_failure_on_a_deflate_thread_reaches_the_writer() -> None:
    def broken(data: bytes | bytearray) -> bytes:
        raise ValueError("no")

    future = dt.DeflateThreads(cores=2).submit_if_idle(broken, b"x")
    assert future is not None
    with pytest.raises(ValueError, match="no"):
        future.result(5)


def test_the_threads_are_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dt, "available_cores", lambda: 4)
    monkeypatch.setattr(os, "getpid", lambda: -7)
    mine = dt.process_threads()
    assert dt.process_threads() is mine and mine.cores == 4
    monkeypatch.setattr(os, "getpid", lambda: -8)  # as in a forked child
    child = dt.process_threads()
    assert child is not mine and child.writers == 0


def test_a_spark_task_has_the_cores_spark_gave_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dt, "available_cores", lambda: 8)
    monkeypatch.setattr(os, "getpid", lambda: -9)
    dt.set_process_cores(1)
    task = dt.process_threads()
    assert task.cores == 1
    task.writer_started()
    assert task.submit_if_idle(bytes, b"x") is None  # its one core is its writer's
    dt.set_process_cores(1)
    assert dt.process_threads() is task  # the same count: kept, with its writers
    task.writer_finished()
