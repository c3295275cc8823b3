"""Tasks on the shared local SparkSession: results in item order, and an executor that cannot
import maintainer is reported as exactly that, with what to do."""

from __future__ import annotations

from typing import Any

import pytest

from maintainer.errors import ApplyError
from maintainer.spark import tasks
from maintainer.spark.tasks import SparkRunner

pytestmark = pytest.mark.spark


def square(value: int) -> int:
    return value * value


def without_maintainer(value: int) -> int:
    raise ModuleNotFoundError("No module named 'maintainer'")  # as an executor without it fails


def test_results_come_back_in_item_order(spark: Any) -> None:
    assert SparkRunner(spark).run(square, list(range(7))) == [i * i for i in range(7)]


def test_an_executor_without_maintainer_is_named_with_the_fix(spark: Any) -> None:
    with pytest.raises(ApplyError) as error:
        SparkRunner(spark).run(without_maintainer, [1, 2])
    assert "the Spark executors cannot import maintainer" in error.value.message
    assert "spark.pyspark.python" in (error.value.hint or "")


def partition_of_task(value: int) -> tuple[int, int]:
    from pyspark import TaskContext

    context = TaskContext.get()
    assert context is not None
    return value, context.partitionId()


@pytest.mark.parametrize("shipped_with_function", [True, False])
def test_each_item_runs_in_a_task_of_its_own_whichever_way_items_travel(
    spark: Any, shipped_with_function: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small work travels with the function over ``spark.range`` (no shuffle), larger work as
    range-partitioned rows: both run one task per item and return results in item order."""
    if not shipped_with_function:
        monkeypatch.setattr(tasks, "SHIPPED_WITH_FUNCTION_BYTES", 0)
    results = SparkRunner(spark).run(partition_of_task, list(range(5)))
    assert [value for value, _ in results] == list(range(5))
    assert len({partition for _, partition in results}) == 5


def cores_of_task(value: int) -> int:
    from maintainer.hudi.parquet.deflate_threads import process_threads

    return process_threads().cores


def test_a_task_deflates_on_the_cores_spark_gave_it_not_the_machines(spark: Any) -> None:
    """Spark runs a task per core: a task's base files never hand pages to threads of their own
    on cores Spark gave other tasks."""
    assert SparkRunner(spark).run(cores_of_task, [0, 1]) == [1, 1]
