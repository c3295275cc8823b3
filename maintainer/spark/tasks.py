"""Run units of Hudi work as Spark tasks: a ``TaskRunner`` (``maintainer.tasks``) with one task
per item, over ``mapInArrow``.

Items travel pickled with the function over ``spark.range`` (small work: no shuffle) or in a
binary column, results in one, so this works on classic Spark and on Spark Connect alike (no
RDDs). The function and items must be importable/picklable on the executors (the
``maintainer`` package installed there); only the function is shipped, never the session.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import pyarrow as pa

from maintainer.errors import ApplyError
from maintainer.hudi.parquet.deflate_threads import set_process_cores

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Item = TypeVar("Item")
Result = TypeVar("Result")

FALLBACK_PARALLELISM = 8
"""Tasks at once on a session that does not say (Spark Connect has no SparkContext)."""

MISSING_PACKAGE = "No module named 'maintainer'"
PYTHON_MISMATCH = "PYTHON_VERSION_MISMATCH"
"""PySpark's error class when an executor's Python minor version differs from the driver's."""
WORKER_PYTHON = re.compile(r"worker has different version:? ([\d.]+) than that in driver:? ([\d.]+)")
"""Its message, in Spark 3.5 ("version 3.10 than that in driver 3.11") and 4.x ("version: ...")."""
_RESULT_SCHEMA = pa.schema([("index", pa.int64()), ("result", pa.binary())])

SHIPPED_WITH_FUNCTION_BYTES = 16 * 2**20
"""Up to this many bytes shipped in all (pickled items times tasks), the items travel with the
function and each task takes its own from ``spark.range``'s index: no shuffle. Beyond it they
travel as rows, range-partitioned to one per task (a sampling job and a shuffle: about 0.3 s
more per run on a warm local session)."""


def _use_task_cores() -> None:
    """This Python worker has the cores Spark gave its task (``spark.task.cpus``), not the
    machine's: the task's base files deflate their pages on them alone (see
    :mod:`maintainer.hudi.parquet.deflate_threads`)."""
    from pyspark import TaskContext

    context = TaskContext.get()
    cpus = getattr(context, "cpus", None) if context is not None else None
    set_process_cores(cpus() if callable(cpus) else 1)


def _results(function: Callable[[Any], Any], indexes: list[int], payloads: Iterable[bytes]) -> pa.RecordBatch:
    """The pickled results of ``function`` on the pickled items, by item index."""
    _use_task_cores()
    results = [pickle.dumps(function(pickle.loads(payload))) for payload in payloads]
    return pa.RecordBatch.from_arrays(
        [pa.array(indexes, pa.int64()), pa.array(results, pa.binary())], schema=_RESULT_SCHEMA
    )


def _task_body(
    function: Callable[[Any], Any],
) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The task over rows of (index, pickled item)."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield _results(function, batch.column("index").to_pylist(), batch.column("item").to_pylist())

    return run


def _indexed_task_body(
    function: Callable[[Any], Any], payloads: Sequence[bytes]
) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The task over ``spark.range``: each index picks its pickled item from ``payloads``."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            indexes = batch.column("id").to_pylist()
            yield _results(function, indexes, (payloads[i] for i in indexes))

    return run


class SparkRunner:
    """One Spark task per item, results in item order."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    @property
    def parallelism(self) -> int:
        """The session's default parallelism (a fixed default where it does not say)."""
        try:
            return max(1, int(self.spark.sparkContext.defaultParallelism))
        except Exception:  # Spark Connect has no SparkContext
            return FALLBACK_PARALLELISM

    def run(self, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        if not items:
            return []
        payloads = [pickle.dumps(item) for item in items]
        try:
            collected = self._tasks(function, payloads).collect()
        except Exception as exc:  # Py4J / Connect errors carry the executor's traceback as text
            error = task_error(str(exc))
            if error is not None:
                raise error from exc
            raise
        ordered = sorted(collected, key=lambda row: row["index"])
        return [pickle.loads(row["result"]) for row in ordered]

    def _tasks(self, function: Callable[[Item], Result], payloads: list[bytes]) -> Any:
        """The DataFrame of results, one task per item (see :data:`SHIPPED_WITH_FUNCTION_BYTES`)."""
        count = len(payloads)
        if count * sum(map(len, payloads)) <= SHIPPED_WITH_FUNCTION_BYTES:
            indexes = self.spark.range(0, count, 1, count)  # one index per partition
            return indexes.mapInArrow(_indexed_task_body(function, payloads), "index long, result binary")
        rows = list(enumerate(payloads))
        frame = self.spark.createDataFrame(rows, "index long, item binary")
        frame = frame.repartitionByRange(count, "index")
        return frame.mapInArrow(_task_body(function), "index long, result binary")


def task_error(text: str) -> ApplyError | None:
    """What a failed Spark job's error text means for the user, when it is a setup problem of
    the executors (no maintainer there, another Python version); None otherwise."""
    if MISSING_PACKAGE in text:
        return ApplyError(
            "the Spark executors cannot import maintainer (No module named 'maintainer')",
            hint="install maintainer (the same version) into the Python the executors run, and "
            "name it in the profile target's spark.conf: spark.pyspark.python: /path/to/python",
        )
    if PYTHON_MISMATCH in text:
        versions = WORKER_PYTHON.search(text)
        shown = f" (executors: Python {versions[1]}, driver: Python {versions[2]})" if versions else ""
        return ApplyError(
            f"the Spark executors run another Python minor version than this driver{shown}",
            hint="run the driver and the executors on the same Python minor version: name the "
            "executors' Python in the profile target's spark.conf (spark.pyspark.python), or run "
            "maintainer with that Python",
        )
    return None


def executor_report(_: object) -> dict[str, str]:
    """Runs on an executor (as one task): the versions there. That this module imports at all
    proves maintainer is installed in the executors' Python."""
    import platform
    import sys

    import pyspark

    from maintainer import __version__

    return {
        "pyspark": str(pyspark.__version__),
        "maintainer": __version__,
        "python": platform.python_version(),
        "executable": sys.executable,
    }
