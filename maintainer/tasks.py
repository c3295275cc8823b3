"""Run one function over many items: in this process, on a pool of threads, or as Spark tasks
(``maintainer.spark.tasks.SparkRunner``).

Services and datagen take a ``TaskRunner`` and hand it the function and the items; where they
run is the caller's choice. The function must pickle with everything it captures (a
module-level function, or a ``functools.partial`` of one over picklable values such as a
``Storage``, never a SparkSession): the Spark runner ships it to the executors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class TaskRunner(Protocol):
    @property
    def parallelism(self) -> int:
        """How many items it works on at once (callers batch their items by it)."""
        ...

    def run(self, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        """``[function(item) for item in items]``, results in item order."""
        ...


@dataclass(frozen=True)
class InProcessRunner:
    """One item after the other in this process (tests, small tables); ``after_each`` is called
    after each item (a fault point)."""

    after_each: Callable[[], None] | None = None

    @property
    def parallelism(self) -> int:
        return 1

    def run(self, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        results = []
        for item in items:
            results.append(function(item))
            if self.after_each is not None:
                self.after_each()
        return results


@dataclass(frozen=True)
class ThreadPoolRunner:
    """Items on a pool of threads in this process (Arrow, Parquet and storage I/O release the GIL)."""

    workers: int

    @property
    def parallelism(self) -> int:
        return self.workers

    def run(self, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(function, items))


IN_PROCESS = InProcessRunner()
