"""The errors a profile target's Spark gives before any work starts: a Connect server or a
standalone master that accepts no connection, a Connect server of another Spark line, executors
of another Spark line or another maintainer, executors on another Python (no session is
started: the builders and the address parsing, and a real refused port)."""

from __future__ import annotations

import socket

import pytest

from maintainer import __version__
from maintainer.errors import ApplyError
from maintainer.project.profiles import SparkSettings
from maintainer.spark.session import (
    connect_address,
    connect_version_error,
    executor_version_error,
    master_addresses,
    master_gave_up_error,
    minor_version,
    reach,
    require_reachable,
    start_error,
    unreachable_connect_error,
    unreachable_master_error,
)
from maintainer.spark.tasks import task_error


def closed_port() -> int:
    """A loopback port nothing listens on (bound, never listened, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_addresses_of_connect_urls_and_standalone_masters() -> None:
    assert connect_address("sc://spark.example:15010/;token=abc;use_ssl=true") == ("spark.example", 15010)
    assert connect_address("sc://spark.example") == ("spark.example", 15002)
    assert master_addresses("spark://m1:7077,m2:7078") == [("m1", 7077), ("m2", 7078)]
    assert master_addresses("spark://m1") == [("m1", 7077)]
    assert master_addresses("local[*]") == master_addresses("yarn") == []


def test_versions_compare_by_major_and_minor() -> None:
    assert minor_version("4.0.1") == (4, 0)
    assert minor_version("3.5.2.dev0") == (3, 5)
    assert minor_version("4") == (4, 0)


def test_an_unreachable_connect_server_says_so_and_what_to_do() -> None:
    error = unreachable_connect_error("sc://10.0.0.5:15002", "connection refused")
    assert error.message == (
        "cannot reach the Spark Connect server at sc://10.0.0.5:15002 (10.0.0.5:15002): "
        "connection refused; is it running?"
    )
    assert error.where == "profile target: spark.remote"
    assert "start-connect-server.sh" in (error.hint or "") and "spark.remote" in (error.hint or "")


def test_an_unreachable_master_names_each_address_tried() -> None:
    error = unreachable_master_error(
        "spark://m1:7077,m2:7077", {("m1", 7077): "connection refused", ("m2", 7077): "no answer within 10 s"}
    )
    assert error.message == (
        "cannot reach the Spark master at spark://m1:7077,m2:7077 (m1:7077: connection refused; "
        "m2:7077: no answer within 10 s); is it running?"
    )
    assert "spark.master" in (error.hint or "")


def test_a_port_nobody_listens_on_is_refused_at_once() -> None:
    port = closed_port()
    assert reach(("127.0.0.1", port)) == "connection refused"
    with pytest.raises(ApplyError, match=r"cannot reach the Spark Connect server.*connection refused"):
        require_reachable(SparkSettings(remote=f"sc://127.0.0.1:{port}"))
    with pytest.raises(ApplyError, match=r"cannot reach the Spark master.*connection refused"):
        require_reachable(SparkSettings(master=f"spark://127.0.0.1:{port}"))
    require_reachable(SparkSettings(master="local[2]"))  # Spark's own business


def test_a_connect_server_of_another_spark_line_is_refused_with_both_versions() -> None:
    assert connect_version_error("sc://h:15002", "4.0.1", "4.0.0") is None
    error = connect_version_error("sc://h:15002", "4.0.1", "3.5.6")
    assert error is not None
    assert error.message == (
        "the Spark Connect server at sc://h:15002 runs Spark 4.0.1, this client has pyspark 3.5.6: "
        "their major.minor versions must match"
    )
    assert "pip install 'pyspark==4.0.*'" in (error.hint or "")


def report(pyspark: str, maintainer: str = __version__) -> dict[str, str]:
    return {"pyspark": pyspark, "maintainer": maintainer, "python": "3.11.7",
            "executable": "/opt/py/bin/python"}  # fmt: skip


def test_executors_of_another_spark_line_are_refused() -> None:
    assert executor_version_error("spark://m:7077", "3.5.1", report("3.5.6")) is None
    error = executor_version_error("spark://m:7077", "4.0.0", report("3.5.6"))
    assert error is not None
    assert "the executors of spark://m:7077 run Spark 3.5.6" in error.message
    assert "this driver has pyspark 4.0.0" in error.message
    assert "pip install 'pyspark==3.5.*'" in (error.hint or "")


def test_executors_of_another_maintainer_are_refused() -> None:
    error = executor_version_error("spark://m:7077", "4.0.0", report("4.0.0", maintainer="0.0.9"))
    assert error is not None
    assert error.message == (
        f"the executors of spark://m:7077 run maintainer 0.0.9 (Python /opt/py/bin/python), this "
        f"driver runs maintainer {__version__}"
    )
    assert "spark.pyspark.python" in (error.hint or "")


@pytest.mark.parametrize(
    "text",
    [
        "[PYTHON_VERSION_MISMATCH] Python in worker has different version: 3.10 than that in driver: "
        "3.11, PySpark cannot run with different minor versions.",  # Spark 4
        "[PYTHON_VERSION_MISMATCH] Python in worker has different version 3.10 than that in driver "
        "3.11, PySpark cannot run with different minor versions.",  # Spark 3.5
    ],
)
def test_executors_on_another_python_are_named(text: str) -> None:
    error = task_error(f"org.apache.spark.api.python.PythonException: {text}")
    assert error is not None
    assert error.message == (
        "the Spark executors run another Python minor version than this driver "
        "(executors: Python 3.10, driver: Python 3.11)"
    )
    assert "spark.pyspark.python" in (error.hint or "")
    assert task_error("java.lang.OutOfMemoryError") is None


def test_a_master_that_gave_up_on_the_app_suggests_a_version_mismatch() -> None:
    error = master_gave_up_error("spark://m:7077", "3.5.9")
    assert error.message == (
        "the Spark master at spark://m:7077 did not take this application (it answers, but Spark gave "
        "up registering with it): is it another Spark version than this pyspark 3.5.9?"
    )
    assert "pip install 'pyspark==X.Y.*'" in (error.hint or "")
    stopped = RuntimeError("java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.")
    shown = start_error(SparkSettings(master="spark://m:7077"), stopped)
    assert shown.message.startswith("the Spark master at spark://m:7077 did not take this application")
    assert start_error(SparkSettings(), stopped).message.startswith("cannot start Spark (local[*])")
