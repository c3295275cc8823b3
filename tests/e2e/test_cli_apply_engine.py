"""Where apply runs: with the default ``engine: auto`` a clean of a few files and a savepoint run
in the driver process and no JVM starts; a compaction runs on Spark; ``engine: local`` never
starts Spark and ``engine: spark`` always does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from tests.support import oracle
from tests.support.metadata_tables import Project

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


def table_of(kind: str, path: Path, commits: int) -> Path:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=commits, rows_per_commit=10, seed=commits)
    generate(str(path), DatagenSpec("t", kind, 8, workload))
    return path


def with_engine(root: Path, engine: str) -> None:
    profiles = root / "profiles.yml"
    text = profiles.read_text()
    profiles.write_text(text.replace("engine: auto", f"engine: {engine}"))


def test_a_small_clean_and_a_savepoint_start_no_jvm(
    project: Callable[[Path, str], Path], tmp_path: Path, sessions: list[object]
) -> None:
    table = table_of("cow", tmp_path / "lake" / "t", commits=6)
    before = oracle.snapshot_rows(table, drop=META)
    commit = oracle.completed_commit_times(table)[-1]
    services = (
        "compaction: {enabled: false}\narchive: {enabled: false}\n"
        "clean: {policy: keep_latest_file_versions, file_versions_retained: 1}\n"
        f"savepoints: {{instants: ['{commit}']}}"
    )
    maintained = Project(project(table, services), table)
    assert maintained.cli("plan") == 0
    assert maintained.nodes()["t.clean"]["status"] == "changes"
    assert maintained.cli("apply") == 0, maintained.results()
    assert sessions == []
    assert maintained.results()["t.savepoint_create"]["status"] == "success"
    assert oracle.snapshot_rows(table, drop=META) == before


@pytest.mark.parametrize(("engine", "spark"), [("local", False), ("spark", True)])
def test_the_target_engine_decides(
    engine: str, spark: bool, project: Callable[[Path, str], Path], tmp_path: Path, sessions: list[object]
) -> None:
    table = table_of("mor", tmp_path / "lake" / "t", commits=4)
    services = (
        "clean: {enabled: false}\narchive: {enabled: false}\ncompaction: {trigger: {max_delta_commits: 1}}"
    )
    maintained = Project(project(table, services), table)
    with_engine(maintained.root, engine)
    assert maintained.cli("plan") == 0
    assert maintained.nodes()["t.compaction"]["status"] == "changes"
    assert maintained.cli("apply") == (1 if spark else 0)
    assert bool(sessions) is spark
