"""A second Ctrl-C during a node's Spark job, on the shared local SparkSession: the apply's
``LazySpark.cancel_jobs`` ends the running job at once (it does not run to its end), and the
node it ended is ``cancelled``, not failed."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from maintainer.executors.faults import clear_stop, request_stop
from maintainer.graph import NodeId
from maintainer.runner.dag import run_one
from maintainer.runner.results import NodeRunStatus
from maintainer.runner.spark import LazySpark
from maintainer.services.base import NodeOutcome

pytestmark = pytest.mark.spark

JOB_S = 120


def sleep_long(_: Any) -> None:
    time.sleep(JOB_S)


def test_a_stop_cancels_the_running_spark_job_and_the_node_ends_cancelled(spark: Any) -> None:
    lazy = LazySpark(lambda: spark)
    job_started = threading.Event()

    def long_spark_job(node: NodeId) -> NodeOutcome:
        session = lazy()
        job_started.set()
        session.sparkContext.parallelize(range(2), 2).foreach(sleep_long)
        return NodeOutcome(message="done")

    def second_ctrl_c() -> None:
        job_started.wait(timeout=60)
        time.sleep(2.0)  # the job's tasks are running
        request_stop()
        lazy.cancel_jobs()

    stopper = threading.Thread(target=second_ctrl_c)
    stopper.start()
    began = time.monotonic()
    try:
        result = run_one(long_spark_job, NodeId("t", "compaction"))
    finally:
        stopper.join()
        clear_stop()
    assert time.monotonic() - began < JOB_S / 2, "the job ran on after the stop"
    assert result.status is NodeRunStatus.CANCELLED
    assert result.message.startswith("stopped while running, as asked: unexpected error:")
    assert "cancel" in result.message.lower()
