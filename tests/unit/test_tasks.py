"""Task runners: results in item order, whatever runs them."""

from __future__ import annotations

import threading
import time

from maintainer.tasks import IN_PROCESS, InProcessRunner, ThreadPoolRunner


def _square(value: int) -> int:
    time.sleep(0.001 * (5 - value % 5))  # later items finish first on a pool
    return value * value


def test_in_process_runs_each_item_in_order_and_calls_after_each_after_every_item() -> None:
    calls: list[str] = []

    def function(item: int) -> int:
        calls.append(f"run {item}")
        return item + 1

    runner = InProcessRunner(after_each=lambda: calls.append("after"))
    assert runner.run(function, [1, 2]) == [2, 3]
    assert calls == ["run 1", "after", "run 2", "after"]
    assert runner.parallelism == 1 and IN_PROCESS.run(function, []) == []


def test_a_thread_pool_returns_results_in_item_order_from_its_threads() -> None:
    threads: set[str] = set()

    def function(item: int) -> int:
        threads.add(threading.current_thread().name)
        return _square(item)

    runner = ThreadPoolRunner(workers=3)
    assert runner.run(function, list(range(10))) == [i * i for i in range(10)]
    assert runner.parallelism == 3
    assert threading.current_thread().name not in threads
