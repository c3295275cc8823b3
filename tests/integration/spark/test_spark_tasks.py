"""Tasks on the shared local SparkSession: results in item order, and an executor that cannot
import maintainer is reported as exactly that, with what to do."""

from __future__ import annotations

from typing import Any

import pytest

from maintainer.errors import ApplyError
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
