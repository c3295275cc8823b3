"""Run units of Hudi work as Spark tasks: one task per item, over ``mapInArrow``.

Items and results travel pickled in a binary column, so this works on classic Spark and on
Spark Connect alike (no RDDs). The function and items must be importable/picklable on the
executors (the ``maintainer`` package installed there).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import pyarrow as pa

Item = TypeVar("Item")
Result = TypeVar("Result")

_RESULT_SCHEMA = pa.schema([("index", pa.int64()), ("result", pa.binary())])


def _task_body(
    function: Callable[[Any], Any],
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            indexes = batch.column("index").to_pylist()
            payloads = batch.column("item").to_pylist()
            results = [pickle.dumps(function(pickle.loads(p))) for p in payloads]
            yield pa.RecordBatch.from_arrays([pa.array(indexes, pa.int64()), pa.array(results, pa.binary())],
                                             schema=_RESULT_SCHEMA)  # fmt: skip

    return run


def map_tasks(spark: Any, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """``[function(item) for item in items]``, one Spark task per item, results in item order."""
    if not items:
        return []
    rows = [(index, pickle.dumps(item)) for index, item in enumerate(items)]
    frame = spark.createDataFrame(rows, "index long, item binary").repartitionByRange(len(items), "index")
    collected = frame.mapInArrow(_task_body(function), "index long, result binary").collect()
    ordered = sorted(collected, key=lambda row: row["index"])
    return [pickle.loads(row["result"]) for row in ordered]
