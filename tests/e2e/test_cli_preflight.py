"""Apply checks what the whole run needs before its first node (issue 30, item 8): the JDK when
the plan has Spark work (a rollback is not done and then the compaction failing for want of a
JVM), and every table's lock before any JVM starts, with a saved plan, with ``--auto-approve``,
and when another apply takes the lock between the check and the node. No test here starts a
JVM: ``sessions`` records each session apply asks for."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from maintainer.commands import apply_cmd
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.runner.apply import preflight
from maintainer.runner.lock import TableLock
from maintainer.storage import Storage
from tests.support import artifacts

ROLLBACK_AND_COMPACTION = (
    "clean: {enabled: false}\narchive: {enabled: false}\nrollback: {min_age: 0s}\n"
    "compaction: {trigger: {max_delta_commits: 1}}"
)
Writer = Callable[[Path, str], Path]


@pytest.fixture
def project(bare_project: Writer, monkeypatch: pytest.MonkeyPatch) -> Writer:
    """The e2e conftest's project, without a JVM, outside CI (no stale refusal by default)."""
    monkeypatch.delenv("CI", raising=False)
    return bare_project


@pytest.fixture
def no_java(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """PATH and JAVA_HOME lead to no ``java`` (the venv's tools stay reachable by full path)."""
    empty = tmp_path / "no-jdk"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("JAVA_HOME", str(empty))
    yield


def mor_with_a_failed_write(path: Path) -> Path:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=4, rows_per_commit=10, seed=30)
    generate(str(path), DatagenSpec("t", "mor", 8, workload, failed_write_at=1))
    return path


def timeline(table: Path) -> set[str]:
    return {p.name for p in (table / ".hoodie" / "timeline").iterdir() if p.is_file()}


def statuses(root: Path) -> dict[str, str]:
    data = artifacts.plan_json(root / "target" / "plan")
    return {f"{n['table']}.{n['service']}": n["status"] for t in data["tables"] for n in t["nodes"]}


def test_no_jdk_fails_before_the_rollback_with_what_to_install(
    project: Writer,
    tmp_path: Path,
    sessions: list[object],
    no_java: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = mor_with_a_failed_write(tmp_path / "lake" / "t")
    root = project(table, ROLLBACK_AND_COMPACTION)
    assert main(["plan", "--project-dir", str(root)]) == 0
    found = statuses(root)
    assert (found["t.rollback"], found["t.compaction"]) == ("changes", "changes")
    before = timeline(table)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1

    err = capsys.readouterr().err
    assert "the plan has work that runs on Spark (t.compaction) and Spark cannot start here" in err
    assert f"no runnable java at $JAVA_HOME/bin/java ({tmp_path / 'no-jdk'})" in err
    assert "nothing was applied" in err and "JDK 17+" in err
    assert sessions == []
    assert timeline(table) == before  # the rollback was not done either
    assert not (root / "target" / "run_results.json").exists()


def test_no_jdk_does_not_matter_when_nothing_runs_on_spark(
    project: Writer, tmp_path: Path, sessions: list[object], no_java: None
) -> None:
    table = mor_with_a_failed_write(tmp_path / "lake" / "t")
    no_compaction = ROLLBACK_AND_COMPACTION.replace("trigger: {max_delta_commits: 1}", "enabled: false")
    root = project(table, no_compaction)
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert statuses(root)["t.rollback"] == "changes"
    before = timeline(table)
    assert main(["apply", "--project-dir", str(root)]) == 0
    assert sessions == []
    assert timeline(table) != before  # the rollback ran in this process


def test_a_locked_table_fails_auto_approve_before_spark_starts(
    project: Writer, tmp_path: Path, sessions: list[object], capsys: pytest.CaptureFixture[str]
) -> None:
    table = mor_with_a_failed_write(tmp_path / "lake" / "t")
    root = project(table, ROLLBACK_AND_COMPACTION)
    before = timeline(table)
    capsys.readouterr()
    with TableLock(Storage(str(table)), "feedfacecafe" * 5):
        assert main(["apply", "--auto-approve", "--project-dir", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"the table is locked by another apply or writer: maintainer on {os.uname().nodename}" in err
    assert sessions == []
    assert timeline(table) == before


def test_a_lock_taken_after_the_preflight_is_met_before_spark_starts(
    project: Writer, tmp_path: Path, sessions: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two applies started together both pass the preflight; the one that comes second to the
    table meets the lock before it starts a JVM (it used to start Spark first, 25 s)."""
    table = mor_with_a_failed_write(tmp_path / "lake" / "t")
    root = project(table, "clean: {enabled: false}\narchive: {enabled: false}\nrollback: {enabled: false}\n"
                          "compaction: {trigger: {max_delta_commits: 1}}")  # fmt: skip
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert statuses(root)["t.compaction"] == "changes"
    real = preflight
    other = TableLock(Storage(str(table)), "0123456789ab" * 5)

    def then_another_apply_locks(*args: Any) -> Any:
        done = real(*args)
        other.acquire()
        return done

    monkeypatch.setattr(apply_cmd, "preflight", then_another_apply_locks)
    try:
        assert main(["apply", "--project-dir", str(root)]) == 1
    finally:
        other.release()
    assert sessions == []
    results = artifacts.run_results(root / "target")
    (node,) = [n for n in results["results"] if n["node"] == "t.compaction"]
    assert node["status"] == "error" and "locked by another apply" in node["message"]


def test_a_connect_server_that_does_not_answer_fails_before_the_rollback(
    project: Writer, tmp_path: Path, sessions: list[object], capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    table = mor_with_a_failed_write(tmp_path / "lake" / "t")
    root = project(table, ROLLBACK_AND_COMPACTION)
    profiles = root / "profiles.yml"
    text = profiles.read_text()
    profiles.write_text(
        text.replace(
            'master: "local[*]"\n        conf:', f'remote: "sc://127.0.0.1:{port}"\n        conf:', 1
        )
    )
    assert main(["plan", "--project-dir", str(root)]) == 0
    before = timeline(table)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1

    err = " ".join(capsys.readouterr().err.split())
    assert "the plan has work that runs on Spark (t.compaction) and Spark cannot start here" in err
    assert f"Connect server: cannot reach 127.0.0.1:{port}" in err
    assert sessions == []
    assert timeline(table) == before
