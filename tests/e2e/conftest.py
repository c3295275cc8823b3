"""Fixtures of the end-to-end tests: a fresh project (``maintainer init``) with one table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.commands import apply_cmd
from maintainer.executors.faults import FAULT_ENV
from tests.support.metadata_tables import Project, in_process

ProjectWriter = Callable[[Path, str], Path]


@pytest.fixture
def project(bare_project: ProjectWriter, spark: Any) -> ProjectWriter:
    """:func:`bare_project` with the test session's SparkSession started (for tests whose apply
    runs on Spark)."""
    return bare_project


@pytest.fixture
def bare_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ProjectWriter:
    """``write(table, services)``: (re)write the project's manifest so it holds one table ``t`` at
    ``table`` with the given service blocks (YAML lines, one per service); returns the project
    directory. The environment cannot point elsewhere (no project/profiles dir, a private HOME).
    Starts no JVM."""
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0

    def write(table: Path, services: str) -> Path:
        body = "\n    ".join(services.splitlines())
        manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n    {body}\n"
        (root / "tables" / "example.yml").write_text(manifest)
        return root

    return write


@pytest.fixture
def local_project(
    bare_project: ProjectWriter, monkeypatch: pytest.MonkeyPatch
) -> Callable[[Path, str], Project]:
    """``write(table, services)``: :func:`bare_project` as a :class:`Project` whose apply runs
    every node in process (``engine: local``, no JVM), with no fault injected."""
    monkeypatch.delenv(FAULT_ENV, raising=False)
    return lambda table, services: in_process(bare_project(table, services), table)


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The Spark sessions apply starts (none are: the factory records the request and fails)."""
    started: list[object] = []

    def no_jvm(settings: object, log_path: object = None) -> Any:
        started.append(settings)
        raise AssertionError("apply started Spark")

    monkeypatch.setattr(apply_cmd, "create_session", no_jvm)
    return started
