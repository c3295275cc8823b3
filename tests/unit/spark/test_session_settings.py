"""What a SparkSession is built with, from a profile target (no session is started): the
executors' Python from the profile, no static UI settings sent to a Spark Connect server, and an
error that names the missing Connect client packages and how to install them."""

from __future__ import annotations

import sys

from maintainer.project.profiles import SparkSettings
from maintainer.spark.session import CONNECT_HINT, python_environment, session_conf, start_error


def test_the_executors_python_comes_from_the_profile() -> None:
    settings = SparkSettings(
        master="spark://127.0.0.1:7077",
        conf={
            "spark.pyspark.python": "/opt/venv/bin/python",
            "spark.pyspark.driver.python": "/usr/bin/python3",
        },
    )
    given, defaults = python_environment(settings)
    assert given == {"PYSPARK_PYTHON": "/opt/venv/bin/python", "PYSPARK_DRIVER_PYTHON": "/usr/bin/python3"}
    assert defaults == {}


def test_a_local_master_runs_this_interpreter_unless_told_otherwise() -> None:
    assert python_environment(SparkSettings()) == ({}, {"PYSPARK_PYTHON": sys.executable})


def test_a_connect_session_gets_no_static_ui_settings() -> None:
    remote = session_conf(
        SparkSettings(remote="sc://127.0.0.1:15002", conf={"spark.sql.shuffle.partitions": 4})
    )
    assert not any(key.startswith("spark.ui.") for key in remote)
    assert remote["spark.sql.shuffle.partitions"] == "4"
    local = session_conf(SparkSettings())
    assert local["spark.ui.enabled"] == "false" and "spark.driver.extraJavaOptions" in local
    assert local["spark.driver.host"] == local["spark.driver.bindAddress"] == "127.0.0.1"


def test_the_profile_conf_wins_over_the_defaults() -> None:
    conf = session_conf(SparkSettings(master="spark://127.0.0.1:7077", conf={"spark.ui.enabled": True}))
    assert conf["spark.ui.enabled"] == "true"
    assert "spark.driver.extraJavaOptions" not in conf  # the cluster's own logging
    assert "spark.driver.host" not in conf  # reachable by the cluster's executors: the profile's to say


def test_a_missing_connect_package_says_what_to_install() -> None:
    error = start_error(
        SparkSettings(remote="sc://127.0.0.1:15002"),
        ImportError("[PACKAGE_NOT_INSTALLED] grpcio >= 1.48.1 must be installed; however, it was not found."),
    )
    assert "cannot start Spark Connect (sc://127.0.0.1:15002): a client package is missing" in error.message
    assert error.hint == CONNECT_HINT and "maintainer[connect]" in CONNECT_HINT
    other = start_error(SparkSettings(), RuntimeError("boom"))
    assert other.message == "cannot start Spark (local[*]): boom"
