"""Compaction planned and run in process on copies of the MOR fixtures (metadata tables
dropped as ``metadata_table: drop`` does) and on generated MOR tables of versions 6 and 8,
checked against ``hudi`` (hudi-rs): the same snapshot, read-optimized view equal to the
snapshot for every compacted file group, time travel unchanged, the commit decodes with
Hudi's own schemas; crashes are rolled back and redone; memory stays bounded per slice."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.common import base_merge
from maintainer.executors.compaction.executor import CompactionOutcome, run_compaction
from maintainer.executors.faults import FAULT_ENV, InjectedFault
from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.parquet.basefile import ParquetSettings
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.services.common.metadata_table import drop_metadata_table
from maintainer.services.compaction.model import CompactionPlanResult, PlanStatus
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from maintainer.storage import Storage
from tests.support import fixtures as fx
from tests.support import oracle

COMMIT_SCHEMA = (
    Path(__file__).resolve().parents[3].parent
    / "shared/reference/hudi-avsc/HoodieCommitMetadata.from_real_file.avsc"
)
EVERYTHING = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)
NOW = datetime.now(timezone.utc)
FILE_NAME = "_hoodie_file_name"

MOR_FIXTURES = [n for n in fx.fixture_names() if "_mor_" in n]


def plan(path: Path | str) -> tuple[TableState, CompactionPlanResult]:
    table = open_table(str(path))
    return table, plan_compaction(inputs_of(table), EVERYTHING, datetime.now(timezone.utc))


def compact(
    path: Path | str, plan_id: str = "test-plan", **options: Any
) -> tuple[CompactionPlanResult, CompactionOutcome]:
    table, result = plan(path)
    assert result.status is PlanStatus.SCHEDULE, result.reasons
    payload = build_compaction_plan(result.operations, plan_id)
    return result, run_compaction(
        table.storage, table.snapshot.config, result.instant_time, payload, **options
    )


def reads(path: Path | str) -> dict[str, list[dict[str, Any]]]:
    """hudi's snapshot (file names dropped) and its time travel to every completed commit."""
    result = {"snapshot": oracle.snapshot_rows(path, drop=[FILE_NAME])}
    for instant in oracle.completed_commit_times(path):
        result[instant] = oracle.snapshot_rows(path, as_of=instant)
    return result


def file_id(name: str | None) -> str:
    return (name or "").split("_", 1)[0]


def check_compacted(
    path: Path, before: dict[str, list[dict[str, Any]]], result: CompactionPlanResult
) -> None:
    after = reads(path)
    assert after["snapshot"] == before["snapshot"], "the snapshot changed"
    for instant, rows in before.items():
        assert after[instant] == rows, f"time travel to {instant} changed"
    compacted = {op.file_id for op in result.operations}
    snapshot = oracle.snapshot_rows(path)
    optimized = oracle.snapshot_rows(path, read_optimized=True)
    in_compacted = [r for r in snapshot if file_id(r.get(FILE_NAME)) in compacted]
    assert [r for r in optimized if file_id(r.get(FILE_NAME)) in compacted] == in_compacted
    if not result.skipped:
        assert optimized == snapshot


def check_commit(path: Path, outcome: CompactionOutcome, plan_id: str) -> None:
    table = open_table(str(path))
    timeline = table.snapshot.timeline
    entry = timeline.entry(outcome.instant.timestamp, Action.COMPACTION)
    assert entry is not None and entry.instant.is_completed
    data = (path / timeline.file_path(entry.instant, State.COMPLETED)).read_bytes()
    if table.snapshot.config.timeline_layout == 1:
        metadata = json.loads(data)
    else:
        reader_schema = fastavro.parse_schema(json.loads(without_comments(COMMIT_SCHEMA.read_text())))
        (metadata,) = list(fastavro.reader(io.BytesIO(data), reader_schema=reader_schema))
    assert metadata["compacted"] is True and metadata["operationType"] == "COMPACT"
    assert metadata["extraMetadata"][PLAN_ID_KEY] == plan_id and metadata["extraMetadata"]["schema"]
    stats = [s for group in metadata["partitionToWriteStats"].values() for s in group]
    assert len(stats) == len(outcome.stats)
    for stat in stats:
        assert (path / stat["path"]).stat().st_size == stat["fileSizeInBytes"]
        assert BaseFileName.parse(stat["path"].rsplit("/", 1)[-1]).instant_time == outcome.instant.timestamp  # type: ignore[union-attr]
        assert stat.get("prevBaseFile") is None or stat["prevCommit"] in stat["prevBaseFile"]  # v6 has none
        assert stat["totalLogFilesCompacted"] >= 1 and stat["totalLogSizeCompacted"] > 0
    assert not (path / ".hoodie/.temp" / outcome.instant.timestamp).exists(), "markers left behind"


def without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def drop_mdt(path: Path) -> None:
    if (path / ".hoodie/metadata").exists() or open_table(str(path)).snapshot.config.has_metadata_table:
        drop_metadata_table(Storage(str(path)))


@pytest.mark.fixtures
@pytest.mark.parametrize("name", MOR_FIXTURES)
def test_compaction_of_every_mor_fixture(name: str, fixture_copy: Callable[[str], fx.FixtureTable]) -> None:
    path = fixture_copy(name).path
    drop_mdt(path)
    table, result = plan(path)
    if "lance" in name:
        assert result.status is PlanStatus.BLOCKED and "Lance" in result.reasons[0]
        return
    if result.status is not PlanStatus.SCHEDULE:
        assert result.status is PlanStatus.NO_OP and not any(s.log_files for s in table.view.latest_slices())
        return
    before = reads(path)
    result, outcome = compact(path)
    check_compacted(path, before, result)
    check_commit(path, outcome, "test-plan")


def datagen_table(tmp_path: Path, version: int, **workload: Any) -> Path:
    spec = WorkloadSpec(**{"partitions": 2, "file_groups": 2, "commits": 8, "rows_per_commit": 150,
                           "update_ratio": 0.5, "delete_ratio": 0.1, **workload})  # fmt: skip
    path = tmp_path / f"mor_v{version}"
    generate(str(path), DatagenSpec("trips", "mor", version, spec))
    return path


@pytest.mark.parametrize("version", [6, 8])
def test_compaction_of_generated_tables(version: int, tmp_path: Path) -> None:
    path = datagen_table(tmp_path, version)
    before = reads(path)
    result, outcome = compact(path, "gen-plan")
    assert len(result.operations) == 4
    assert sum(s.num_deletes or 0 for s in outcome.stats) > 0
    assert sum(s.num_update_writes or 0 for s in outcome.stats) > 0
    check_compacted(path, before, result)
    check_commit(path, outcome, "gen-plan")
    assert plan(path)[1].status is PlanStatus.NO_OP  # nothing left to compact


@pytest.mark.fixtures
def test_rollback_blocks_are_honoured(fixture_copy: Callable[[str], fx.FixtureTable]) -> None:
    path = fixture_copy("sample_table_mor_parquet_v6_nonpartitioned_rollback").path
    before = reads(path)
    result, outcome = compact(path)
    assert sum(s.total_rollback_blocks or 0 for s in outcome.stats) >= 1
    check_compacted(path, before, result)


@pytest.mark.parametrize("point", ["after_operation", "before_commit"])
def test_crash_during_execution_is_rolled_back_and_redone(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = datagen_table(tmp_path, 6, commits=5)
    before = reads(path)
    table, result = plan(path)
    payload = build_compaction_plan(result.operations, "crash-plan")
    monkeypatch.setenv(FAULT_ENV, f"compaction:{point}")
    with pytest.raises(InjectedFault):
        run_compaction(table.storage, table.snapshot.config, result.instant_time, payload)
    partial = list(path.rglob(f"*_{result.instant_time}.parquet"))
    assert partial, "the crash left new base files behind"
    assert (path / f".hoodie/{result.instant_time}.compaction.inflight").exists()
    assert oracle.snapshot_rows(path, drop=[FILE_NAME]) == before["snapshot"]
    monkeypatch.delenv(FAULT_ENV)
    redone = run_compaction(table.storage, table.snapshot.config, result.instant_time)
    assert sorted(redone.rolled_back_files) == sorted(str(p.relative_to(path)) for p in partial)
    rollbacks = open_table(str(path)).snapshot.timeline.of_action(Action.ROLLBACK)
    assert [r.timestamp for r in rollbacks] == [redone.rollback_instant], "one rollback instant"
    check_compacted(path, before, result)
    check_commit(path, redone, "crash-plan")
    keys = [r["_hoodie_record_key"] for r in oracle.snapshot_rows(path)]
    assert len(keys) == len(set(keys)), "duplicate records"


def test_large_slice_compacts_with_memory_bounded_by_one_row_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = datagen_table(tmp_path, 6, partitions=1, file_groups=1, commits=2, rows_per_commit=40_000,
                         update_ratio=0.05, delete_ratio=0.01)  # fmt: skip
    table = open_table(str(path))
    (slice_,) = table.view.latest_slices()
    assert slice_.base_file is not None and slice_.log_files
    base_path = path / slice_.base_file.path
    original = pq.read_table(base_path)
    base_bytes = original.nbytes
    written = base_path.stat().st_size
    pq.write_table(original, base_path, row_group_size=1000, compression="gzip")  # many small row groups
    del original
    commit = path / table.snapshot.timeline.file_path(table.snapshot.timeline.completed_commits()[0])
    size = f'"fileSizeInBytes" : {base_path.stat().st_size}'  # the rewrite is the commit's file
    commit.write_text(commit.read_text().replace(f'"fileSizeInBytes" : {written}', size))
    before = reads(path)
    seen: list[tuple[int, int]] = []
    merge = base_merge.SliceMerger.merge_row_group

    def spy(self: base_merge.SliceMerger, rows: Any) -> Any:
        seen.append((rows.num_rows, pa.total_allocated_bytes()))
        return merge(self, rows)

    monkeypatch.setattr(base_merge.SliceMerger, "merge_row_group", spy)
    result, outcome = compact(path, parquet=ParquetSettings(row_group_bytes=256 * 1024))
    assert len(seen) == pq.ParquetFile(base_path).num_row_groups and max(n for n, _ in seen) <= 1000
    allocated = [a for _, a in seen]  # Arrow memory at each row group (the bloom filter thread adds spikes)
    growth = min(allocated[-10:]) - min(allocated[:10])
    assert growth < base_bytes / 10, f"memory grew with the base file: {allocated}"
    (stat,) = outcome.stats
    assert pq.ParquetFile(path / (stat.path or "")).num_row_groups > 1
    check_compacted(path, before, result)


@pytest.mark.spark
def test_operations_run_as_spark_tasks(tmp_path: Path, spark: Any) -> None:
    path = datagen_table(tmp_path, 8, commits=5)
    before = reads(path)
    from maintainer.spark.tasks import SparkRunner

    result, outcome = compact(path, runner=SparkRunner(spark))
    assert len(outcome.stats) == len(result.operations) > 1
    check_compacted(path, before, result)
    check_commit(path, outcome, "test-plan")
