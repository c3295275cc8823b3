"""Fixtures of the servers tests: a standalone Spark cluster (master and one worker) and a Spark
Connect server on 127.0.0.1, each started once per test session (JVMs are heavy) and stopped at
its end."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from tests.support.spark_servers import ConnectServer, StandaloneCluster, connect_server, standalone_cluster


def _require_java() -> None:
    import shutil

    if shutil.which("java") is None:
        pytest.skip("no JDK on PATH: the Spark servers need Java 17+")


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    """A standalone master and one worker (1 core, 1g) on 127.0.0.1."""
    _require_java()
    with standalone_cluster(tmp_path_factory.mktemp("spark-cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def spark_connect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConnectServer]:
    """A Spark Connect server (local[2] inside) on 127.0.0.1 whose Python workers run this
    interpreter (so they import maintainer)."""
    _require_java()
    if importlib.util.find_spec("grpc") is None or importlib.util.find_spec("zstandard") is None:
        pytest.fail("the Spark Connect client packages are missing: pip install -e '.[dev,connect]'")
    with connect_server(tmp_path_factory.mktemp("spark-connect")) as server:
        yield server
