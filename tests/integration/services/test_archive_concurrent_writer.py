"""Archive, then clean, then compact a v8 merge-on-read table with a concurrent writer's
deltacommit D (requested before compaction C, completed after it): once D is archived its
completion time comes from the LSM history, so its log files stay in C's file slice; the clean
keeps them and the next compaction takes them, and hudi reads every row as generated.

(hudi-rs does not read the LSM history: between the archival and the next compaction it reads
D's log in the older slice, so the oracle is asked before the archival and after the compaction.)
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from maintainer.artifact.directory import read_plan, write_plan
from maintainer.executors.archive.executor import run_archive
from maintainer.executors.compaction.executor import run_compaction
from maintainer.graph import NodeId
from maintainer.hudi.table.state import open_table
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.runner.apply import PlanRunner, apply_plan
from maintainer.runner.results import NodeRunStatus
from maintainer.services.archive.planner import plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.model import PlanStatus
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from tests.support import oracle
from tests.support.clean_checks import data_files
from tests.support.concurrent_writer import ConcurrentWriterTable, concurrent_writer_table, log_files_of

pytestmark = pytest.mark.spark

EVERYTHING = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)


META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


def rows(path: Path) -> list[dict[str, Any]]:
    return sorted(oracle.snapshot_rows(path, drop=META), key=lambda r: str(r["uuid"]))


def expected(table: ConcurrentWriterTable) -> list[dict[str, Any]]:
    latest = table.generated.expected[table.generated.completed[-1]]
    return sorted(latest, key=lambda r: str(r["uuid"]))


def archive_through_d(table: ConcurrentWriterTable) -> list[str]:
    loaded = open_table(str(table.path))
    result = plan_archive(load_archive_inputs(loaded), ArchiveSpec(keep_min_commits=2, keep_max_commits=3))
    run_archive(loaded.storage, loaded.snapshot.config, result)
    return [i.timestamp for i in result.instants]


def clean_latest_version_only(table: ConcurrentWriterTable, plan_dir: Path, spark: Any) -> set[str]:
    """Plan and apply a KEEP_LATEST_FILE_VERSIONS(1) clean; the paths it deleted."""
    clean = CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1)
    spec = TableSpec.of(name="t", path=str(table.path), manifest="tables/t.yml", line=1, clean=clean)
    built = build_plan("p", "dev", [TableRequest(spec, ("clean",))], {}, datetime.now(timezone.utc))
    assert not built.errors, built.errors
    write_plan(plan_dir, built.plan, built.payloads, "review", {})
    saved = read_plan(plan_dir)
    graph = nx.DiGraph()
    graph.add_node(NodeId("t", "clean"))
    before = data_files(table.path)
    results = apply_plan(saved, graph, PlanRunner(saved, {"t": spec}, lambda: spark), threads=1)
    assert [n.status for n in results.nodes] == [NodeRunStatus.SUCCESS], [n.message for n in results.nodes]
    return before - data_files(table.path)


def test_archive_then_clean_then_compaction_keeps_the_concurrent_writers_log(
    tmp_path: Path, spark: Any
) -> None:
    table = concurrent_writer_table(tmp_path / "t")
    d, c = table.deltacommit.timestamp, table.compaction.timestamp
    d_logs = log_files_of(table.path, d)
    assert d_logs and rows(table.path) == expected(table)

    archived = archive_through_d(table)
    assert d in archived and c not in archived
    timeline = open_table(str(table.path)).snapshot.timeline
    assert timeline.write_timeline_start() == c, "D is older than the active timeline now"
    for group in open_table(str(table.path)).view.file_groups():
        latest = group.latest_slice
        assert latest is not None and latest.base_instant == c
        assert {f.instant_time for f in latest.log_files} >= {d}, "D's log stays in C's slice"

    deleted = clean_latest_version_only(table, tmp_path / "plan", spark)
    assert deleted, "the slices before C go"
    assert not deleted & d_logs and d_logs <= data_files(table.path), "the clean kept D's log files"

    loaded = open_table(str(table.path))
    result = plan_compaction(inputs_of(loaded), EVERYTHING, datetime.now(timezone.utc))
    assert result.status is PlanStatus.SCHEDULE, result.reasons
    planned = {
        f"{op.partition}/{f.name}" if op.partition else f.name
        for op in result.operations
        for f in op.log_files
    }
    assert d_logs <= planned, "the next compaction takes D's log files"
    run_compaction(loaded.storage, loaded.snapshot.config, result.instant_time,
                   build_compaction_plan(result.operations, "test-plan"))  # fmt: skip
    assert rows(table.path) == expected(table), "no row lost"
