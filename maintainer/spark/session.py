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
LOCAL_DRIVER = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
"""A local master's driver listens on loopback only (its executors are on this machine); a
cluster's driver address is the profile's to give (spark.driver.host, spark.driver.bindAddress)."""
PYTHON_CONF = {
    "spark.pyspark.python": "PYSPARK_PYTHON",
    "spark.pyspark.driver.python": "PYSPARK_DRIVER_PYTHON",
}
"""Profile settings of the Python that runs the executors (and the driver), and the environment
variables PySpark actually reads them from when it launches its workers."""
CONNECT_HINT = (
    "install the Spark Connect client packages with `pip install 'maintainer[connect]'` (grpcio, "
    "grpcio-status, googleapis-common-protos, zstandard), matching the server's Spark version"
)


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


def session_conf(settings: SparkSettings) -> dict[str, str]:
    """The configuration the session is built with: maintainer's defaults under the profile's
    ``conf``. A Spark Connect session gets no ``spark.ui.*`` default: the server owns its static
    settings (setting them only earns a CANNOT_MODIFY_CONFIG warning per apply)."""
    defaults = dict(DEFAULT_CONF)
    if settings.remote:
        defaults = {k: v for k, v in defaults.items() if not k.startswith("spark.ui.")}
    elif (settings.master or LOCAL_MASTER).startswith("local"):
        defaults["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{LOG_CONFIG}"
        defaults.update(LOCAL_DRIVER)
    return {**defaults, **{k: _conf_text(v) for k, v in settings.conf.items()}}


def python_environment(settings: SparkSettings) -> tuple[dict[str, str], dict[str, str]]:
    """The PYSPARK_* variables to set before the session starts, as (set, set unless already
    set): the profile's ``spark.pyspark.python`` / ``spark.pyspark.driver.python`` (PySpark
    starts its workers with these variables, not with the conf); for a local master, this
    interpreter unless the environment names another."""
    given = {env: str(settings.conf[key]) for key, env in PYTHON_CONF.items() if key in settings.conf}
    defaults: dict[str, str] = {}
    if not settings.remote and (settings.master or LOCAL_MASTER).startswith("local"):
        defaults["PYSPARK_PYTHON"] = sys.executable
    return given, defaults


def start_error(settings: SparkSettings, exc: Exception) -> ApplyError:
    where = settings.remote or settings.master or LOCAL_MASTER
    text = str(exc)
    if settings.remote and (
        "PACKAGE_NOT_INSTALLED" in text or ("grpc" in text.lower() and "install" in text)
    ):
        return ApplyError(
            f"cannot start Spark Connect ({where}): a client package is missing: {text}", hint=CONNECT_HINT
        )
    return ApplyError(
        f"cannot start Spark ({where}): {exc}", hint="check the profile target's spark settings"
    )


def create_session(settings: SparkSettings) -> SparkSession:
    """Build (or reuse) the session; Spark Connect when ``remote`` is set, else ``master``
    (``local[*]`` by default)."""
    _require_java_for_local(settings)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(settings.app_name)
    if settings.remote:
        builder = builder.remote(settings.remote)
    else:
        builder = builder.master(settings.master or LOCAL_MASTER)
    given, defaults = python_environment(settings)
    os.environ.update(given)
    for env, value in defaults.items():
        os.environ.setdefault(env, value)
    for key, value in session_conf(settings).items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # pyspark raises many unrelated types here
        raise start_error(settings, exc) from exc
    if not settings.remote:
        session.sparkContext.setLogLevel("ERROR")
    return session
