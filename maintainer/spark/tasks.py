"""Run units of Hudi work as Spark tasks: a ``TaskRunner`` (``maintainer.tasks``) with one task
per item, over ``mapInArrow``.

Items and results travel pickled in a binary column, so this works on classic Spark and on
Spark Connect alike (no RDDs). The function and items must be importable/picklable on the
executors (the ``maintainer`` package installed there); only the function is shipped, never
the session.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import pyarrow as pa

from maintainer.errors import ApplyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Item = TypeVar("Item")
Result = TypeVar("Result")

FALLBACK_PARALLELISM = 8
"""Tasks at once on a session that does not say (Spark Connect has no SparkContext)."""

MISSING_PACKAGE = "No module named 'maintainer'"
_RESULT_SCHEMA = pa.schema([("index", pa.int64()), ("result", pa.binary())])


def _task_body(
    function: Callable[[Any], Any],
) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            indexes = batch.column("index").to_pylist()
            payloads = batch.column("item").to_pylist()
            results = [pickle.dumps(function(pickle.loads(p))) for p in payloads]
            yield pa.RecordBatch.from_arrays([pa.array(indexes, pa.int64()), pa.array(results, pa.binary())],
                                             schema=_RESULT_SCHEMA)  # fmt: skip

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
        rows = [(index, pickle.dumps(item)) for index, item in enumerate(items)]
        frame = self.spark.createDataFrame(rows, "index long, item binary")
        frame = frame.repartitionByRange(len(items), "index")
        try:
            collected = frame.mapInArrow(_task_body(function), "index long, result binary").collect()
        except Exception as exc:  # Py4J / Connect errors carry the executor's traceback as text
            if MISSING_PACKAGE in str(exc):
                raise ApplyError(
                    "the Spark executors cannot import maintainer (No module named 'maintainer')",
                    hint="install maintainer (the same version) into the Python the executors run, and "
                    "name it in the profile target's spark.conf: spark.pyspark.python: /path/to/python",
                ) from exc
            raise
        ordered = sorted(collected, key=lambda row: row["index"])
        return [pickle.loads(row["result"]) for row in ordered]
