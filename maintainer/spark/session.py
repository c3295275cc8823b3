"""A SparkSession from a profile target: local, a cluster master, or Spark Connect."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from importlib import resources
from typing import TYPE_CHECKING

from maintainer.errors import ApplyError
from maintainer.project.profiles import SparkSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_MASTER = "local[*]"
DEFAULT_CONF: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.showConsoleProgress": "false",
}
LOG_CONFIG = resources.files("maintainer") / "resources" / "log4j2.properties"


def _require_java_for_local(settings: SparkSettings) -> None:
    if settings.remote is None and shutil.which("java") is None:
        raise ApplyError(
            "no Java runtime found: Spark needs a JDK 17+ on this machine",
            hint="install one (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME, "
            "or point the profile target at a Spark Connect server with `remote:`",
        )


def _conf_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def create_session(settings: SparkSettings) -> SparkSession:
    """Build (or reuse) the session; Spark Connect when ``remote`` is set, else ``master``
    (``local[*]`` by default)."""
    _require_java_for_local(settings)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(settings.app_name)
    if settings.remote:
        builder = builder.remote(settings.remote)
    else:
        master = settings.master or LOCAL_MASTER
        builder = builder.master(master)
        if master.startswith("local"):
            # the executors of a local run use this interpreter and its installed packages
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            builder = builder.config(
                "spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{LOG_CONFIG}"
            )
    for key, value in {**DEFAULT_CONF, **{k: _conf_text(v) for k, v in settings.conf.items()}}.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # pyspark raises many unrelated types here
        where = settings.remote or settings.master or LOCAL_MASTER
        raise ApplyError(
            f"cannot start Spark ({where}): {exc}", hint="check the profile target's spark settings"
        ) from exc
    if not settings.remote:
        session.sparkContext.setLogLevel("ERROR")
    return session
