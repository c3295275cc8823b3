"""The Spark task runner's driver side (its tasks run in the Spark integration tests)."""

from __future__ import annotations

from typing import Any, cast

from maintainer.spark.tasks import FALLBACK_PARALLELISM, SparkRunner


class _Context:
    defaultParallelism = 6


class _ClassicSession:
    sparkContext = _Context()


class _ConnectSession:
    @property
    def sparkContext(self) -> Any:
        raise RuntimeError("Spark Connect has no SparkContext")


def test_parallelism_is_the_sessions_default_parallelism_or_a_fixed_default() -> None:
    assert SparkRunner(cast(Any, _ClassicSession())).parallelism == 6
    assert SparkRunner(cast(Any, _ConnectSession())).parallelism == FALLBACK_PARALLELISM


def test_no_items_start_no_spark_job() -> None:
    assert SparkRunner(cast(Any, object())).run(str, []) == []
