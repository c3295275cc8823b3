"""Shared test fixtures: the real Hudi tables and one lazily created local SparkSession."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import maintainer.services.registry  # noqa: F401  (installs the service catalog, as the CLI does)
from tests.support import fixtures as fx


@pytest.fixture(scope="session")
def hudi_fixtures_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if fx.fixtures_dir() is None:
        pytest.skip(fx.missing_reason())
    return tmp_path_factory.mktemp("hudi-fixtures")


@pytest.fixture(scope="session")
def fixture_table(hudi_fixtures_root: Path) -> Callable[[str], fx.FixtureTable]:
    """Unpack a fixture by name (once per session); read-only use."""

    def get(name: str) -> fx.FixtureTable:
        return fx.unpack(name, hudi_fixtures_root)

    return get


@pytest.fixture
def fixture_copy(
    fixture_table: Callable[[str], fx.FixtureTable], tmp_path: Path
) -> Callable[[str], fx.FixtureTable]:
    """A writable per-test copy of a fixture table."""

    def get(name: str) -> fx.FixtureTable:
        return fx.copy_table(fixture_table(name), tmp_path)

    return get


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local SparkSession for the whole run, created on first use."""
    import shutil

    if shutil.which("java") is None:
        pytest.skip("no JDK on PATH: Spark tests need Java 17+")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("maintainer-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")  # tests listen on loopback only
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "2g")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """moto's S3 server on 127.0.0.1 for the whole run (``servers``-marked tests): each test
    creates its own bucket; ``requests()`` counts what was sent."""
    from tests.support.s3_server import moto_s3_server

    with moto_s3_server(tmp_path_factory.mktemp("s3-server")) as server:
        yield server


@pytest.fixture(scope="session")
def seaweedfs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """SeaweedFS (``weed mini``) on 127.0.0.1 for the whole run, the second S3 server of the
    ``servers``-marked tests; it keeps no request log (check what it holds with ``keys()``)."""
    from tests.support.seaweedfs_server import seaweedfs_s3_server

    with seaweedfs_s3_server(tmp_path_factory.mktemp("seaweedfs")) as server:
        yield server


@pytest.fixture(autouse=True)
def _not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands behave as on a workstation (``apply`` refuses stale plans by default only where
    $CI is set); a test that wants CI's defaults sets $CI itself."""
    monkeypatch.delenv("CI", raising=False)


@pytest.fixture(autouse=True)
def _text_output() -> Iterator[None]:
    """Each test starts and ends with the default output (a CLI test may choose --log-format
    json or --quiet for its invocation; the consoles are shared by the process)."""
    from maintainer.console import configure

    configure()
    yield
    configure()
