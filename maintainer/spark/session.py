"""A SparkSession from a profile target: local, a cluster master, or Spark Connect."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from maintainer.errors import ApplyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_CONF: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.shuffle.partitions": "8",
}


@dataclass(frozen=True, slots=True)
class SparkSettings:
    """Where Spark runs: ``master`` (e.g. ``local[*]``, ``yarn``) or ``remote`` (Spark Connect)."""

    master: str | None = "local[*]"
    remote: str | None = None
    conf: Mapping[str, str] = field(default_factory=dict)
    app_name: str = "maintainer"


def _require_java_for_local(settings: SparkSettings) -> None:
    if settings.remote is None and shutil.which("java") is None:
        raise ApplyError(
            "no Java runtime found: Spark needs a JDK 17+ on this machine",
            hint="install one (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME, "
            "or point the profile target at a Spark Connect server with `remote:`",
        )


def create_session(settings: SparkSettings) -> SparkSession:
    """Build (or reuse) the session; Spark Connect when ``remote`` is set."""
    _require_java_for_local(settings)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(settings.app_name)
    if settings.remote:
        builder = builder.remote(settings.remote)
    elif settings.master:
        builder = builder.master(settings.master)
        if settings.master.startswith("local"):
            # executors of a local run use this interpreter (and its installed packages)
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            builder = builder.config("spark.pyspark.python", sys.executable)
    for key, value in {**DEFAULT_CONF, **settings.conf}.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # pyspark raises many unrelated types here
        where = settings.remote or settings.master or "spark"
        raise ApplyError(
            f"cannot start Spark ({where}): {exc}", hint="check the profile target's spark settings"
        ) from exc
    if not settings.remote:
        session.sparkContext.setLogLevel("ERROR")
    return session
