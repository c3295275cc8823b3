"""The apply's one lazy Spark session: started on first use; its jobs cancelled on a stop."""

from __future__ import annotations

from typing import Any

from maintainer.runner.spark import LazySpark


class Context:
    def __init__(self) -> None:
        self.cancelled = 0

    def cancelAllJobs(self) -> None:
        self.cancelled += 1


class Session:
    def __init__(self) -> None:
        self.sparkContext = Context()


class ConnectSession:
    """Spark Connect: no SparkContext; operations are interrupted instead."""

    def __init__(self) -> None:
        self.interrupted = 0

    @property
    def sparkContext(self) -> Any:
        raise NotImplementedError("sparkContext is not supported in Spark Connect")

    def interruptAll(self) -> list[str]:
        self.interrupted += 1
        return []


def maker(made: list[Session]) -> LazySpark:
    def make() -> Session:
        made.append(Session())
        return made[-1]

    return LazySpark(make)


def test_the_session_starts_once_on_first_use() -> None:
    made: list[Session] = []
    spark = maker(made)
    assert not spark.started
    assert spark() is spark() and len(made) == 1 and spark.started


def test_cancelling_jobs_without_a_session_starts_none() -> None:
    made: list[Session] = []
    spark = maker(made)
    spark.cancel_jobs()
    assert made == [] and not spark.started


def test_cancelling_jobs_cancels_every_job_of_the_session() -> None:
    session = Session()
    spark = LazySpark(lambda: session)
    spark()
    spark.cancel_jobs()
    assert session.sparkContext.cancelled == 1


def test_a_spark_connect_session_has_its_operations_interrupted() -> None:
    session = ConnectSession()
    spark = LazySpark(lambda: session)
    spark()
    spark.cancel_jobs()
    assert session.interrupted == 1
