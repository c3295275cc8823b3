"""``maintainer debug``'s Spark checks that need no session: the JDK, the Connect client and
server, and what a local-engine target skips."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from maintainer.diagnostics import spark_checks
from maintainer.diagnostics.checks import CheckStatus
from maintainer.diagnostics.spark_checks import (
    check_connect,
    check_java,
    check_reachable,
    check_spark,
    check_spark_premises,
    java_major,
)
from maintainer.project.profiles import SparkSettings, TargetSettings


def fake_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    script = tmp_path / "bin" / "java"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2024-01-16' >&2\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(script.parent))
    monkeypatch.delenv("JAVA_HOME", raising=False)


def test_java_versions_old_and_new() -> None:
    assert java_major("17.0.15") == 17
    assert java_major("21") == 21
    assert java_major("1.8.0_392") == 8
    assert java_major("11.0.2-ea") == 11


def test_a_jdk_too_old_for_this_pyspark_is_named_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spark_checks, "pyspark_version", lambda: "4.1.0")
    fake_java(tmp_path, monkeypatch, "11.0.22")
    result = check_java()
    assert result.status is CheckStatus.FAILED
    assert "Java 11.0.22" in result.detail and "needs 17+" in result.detail
    assert result.fix is not None and "JDK 17+" in result.fix


def test_no_java_at_all(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    result = check_java()
    assert (result.status, result.detail) == (CheckStatus.FAILED, "no `java` on PATH")


def test_java_home_is_where_pyspark_looks_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spark_checks, "pyspark_version", lambda: "4.1.0")
    fake_java(tmp_path, monkeypatch, "17.0.15")  # on PATH, and JAVA_HOME leads elsewhere
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    result = check_java()
    assert result.status is CheckStatus.FAILED
    assert result.detail == f"no runnable java at $JAVA_HOME/bin/java ({tmp_path / 'jdk'})"
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))  # tmp_path/bin/java is the fake one
    assert check_java().detail == f"Java 17.0.15 ({tmp_path / 'bin' / 'java'})"


def test_a_connect_server_that_does_not_answer_and_one_that_does() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert check_reachable(f"sc://127.0.0.1:{port}").status is CheckStatus.PASSED
    refused = check_reachable(f"sc://127.0.0.1:{port}")
    assert refused.status is CheckStatus.FAILED
    assert f"cannot reach 127.0.0.1:{port}" in refused.detail
    assert refused.fix is not None and "start-connect-server" in refused.fix


def test_missing_connect_packages_say_which_and_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spark_checks, "_importable", lambda module: module != "grpc")
    client, _server = check_connect(SparkSettings(remote="sc://127.0.0.1:1"))
    assert client.status is CheckStatus.FAILED
    assert client.detail == "missing: grpcio"
    assert client.fix is not None and "maintainer[connect]" in client.fix


def test_a_failed_premise_skips_the_session(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    results = check_spark(TargetSettings())
    assert [result.status for result in results] == [
        CheckStatus.FAILED,
        CheckStatus.SKIPPED,
        CheckStatus.SKIPPED,
    ]


def test_a_local_engine_target_needs_no_spark() -> None:
    results = check_spark(TargetSettings(engine="local"))
    assert [(result.status, result.name) for result in results] == [(CheckStatus.SKIPPED, "spark")]


def test_the_premises_of_a_session_are_the_jdk_or_the_connect_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    (local,) = check_spark_premises(TargetSettings())
    assert (local.name, local.status) == ("JDK", CheckStatus.FAILED)
    remote = check_spark_premises(TargetSettings(spark=SparkSettings(remote="sc://127.0.0.1:1")))
    assert [result.name for result in remote] == ["Connect client", "Connect server"]
    assert remote[1].status is CheckStatus.FAILED
