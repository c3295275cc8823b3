"""Rollback of datagen failed writes (COW and MOR, v6 and v8): hudi reads exactly the committed
rows afterwards, the failed files are gone, the rollback instants decode with Hudi's schemas,
live writers are left alone, and a crash at any step is recovered by planning and running again."""

from __future__ import annotations

import io
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import fastavro
import pytest

from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.common.rollback_requests import relative_path
from maintainer.executors.common.table_service_rollback import rollback_table_service
from maintainer.executors.rollback.executor import run_rollback
from maintainer.executors.rollback.model import RollbackKind
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filemodel import BaseFile
from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.logformat import BlockType, read_log_file
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.rollback.model import RollbackPlanResult
from maintainer.services.rollback.planner import plan_rollback
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.rollback.state import load_rollback_inputs
from maintainer.spark.tasks import SparkRunner
from tests.integration.hudi.test_payload_fixtures import hudi_reader_schema
from tests.support import oracle

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
EAGER_NOW = RollbackSpec(min_age=timedelta(0))
CASES = [pytest.param(k, v, id=f"{k}-v{v}") for k in ("cow", "mor") for v in (6, 8)]


class Crash(Exception):
    pass


def make_table(path: Path, kind: str, version: int) -> GeneratedTable:
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=3, rows_per_commit=30)
    return generate(str(path), DatagenSpec("t", kind, version, workload, failed_write=True))


def plan(path: Path, settings: RollbackSpec = EAGER_NOW) -> tuple[TableState, RollbackPlanResult]:
    loaded = open_table(str(path))
    return loaded, plan_rollback(load_rollback_inputs(loaded), settings, datetime.now(timezone.utc))


def apply_all(path: Path, crash_at: str | None = None) -> None:
    loaded, result = plan(path)

    def fault(point: str) -> None:
        if point == crash_at:
            raise Crash(point)

    for planned in result.rollbacks:
        run_rollback(loaded.storage, loaded.snapshot.config, planned, fault=fault)


def by_key(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: r["uuid"])


def assert_reads_committed_rows(path: Path, table: GeneratedTable) -> None:
    for instant in table.completed:
        got = oracle.snapshot_rows(path, as_of=instant, drop=META)
        assert by_key(got) == by_key(table.expected[instant]), instant
    assert by_key(oracle.snapshot_rows(path, drop=META)) == by_key(table.expected[table.completed[-1]])


def decode_with_hudi(data: bytes, schema: str) -> dict[str, Any]:
    record = next(fastavro.reader(io.BytesIO(data), reader_schema=hudi_reader_schema(schema)))
    assert isinstance(record, dict)
    return record


@pytest.mark.parametrize(("kind", "version"), CASES)
def test_rollback_leaves_exactly_the_committed_rows(tmp_path: Path, kind: str, version: int) -> None:
    path = tmp_path / "t"
    table = make_table(path, kind, version)
    failed = table.failed_instant
    assert failed is not None
    loaded, result = plan(path)
    (planned,) = result.rollbacks
    assert (planned.kind, planned.target.timestamp, planned.source) == (
        RollbackKind.ROLLBACK,
        failed,
        "markers",
    )
    table_uri = loaded.storage.uri("")
    to_delete = [p for r in planned.plan.rollback_requests or () for p in r.files_to_be_deleted]
    outcome = run_rollback(loaded.storage, loaded.snapshot.config, planned)

    after = open_table(str(path))
    timeline = after.snapshot.timeline
    assert failed not in {i.timestamp for i in timeline}
    assert not (path / ".hoodie" / ".temp" / failed).exists()
    assert not (path / ".hoodie" / ".heartbeat" / failed).exists()
    for absolute in to_delete:
        assert not (path / str(relative_path(table_uri, absolute))).exists(), absolute
    assert_reads_committed_rows(path, table)

    rollback = outcome.rollback_instant
    assert rollback is not None and rollback.is_completed
    requested = (path / timeline.file_path(rollback, State.REQUESTED)).read_bytes()
    metadata = decode_with_hudi((path / timeline.file_path(rollback)).read_bytes(), "HoodieRollbackMetadata")
    plan_record = decode_with_hudi(requested, "HoodieRollbackPlan")
    assert plan_record["instantToRollback"] == {"commitTime": failed, "action": planned.target.action.value}
    assert (path / timeline.file_path(rollback, State.INFLIGHT)).read_bytes() == b""
    assert metadata["commitsRollback"] == [failed]
    assert metadata["instantsRollback"] == [{"commitTime": failed, "action": planned.target.action.value}]
    partitions = metadata["partitionMetadata"].values()
    if kind == "mor" and version == 6:
        rollback_logs = [p for part in partitions for p in part["rollbackLogFiles"]]
        assert rollback_logs and all(p.startswith("file:/") for p in rollback_logs)
        for uri in rollback_logs:
            (block,) = read_log_file(after.storage, str(relative_path(table_uri, uri)))
            assert block.block_type is BlockType.COMMAND
            assert (block.instant_time, block.target_instant_time) == (rollback.timestamp, failed)
        assert all(part["logFilesFromFailedCommit"] for part in partitions)
    else:
        deleted = [p for part in partitions for p in part["successDeleteFiles"]]
        assert sorted(deleted) == sorted(to_delete) and deleted
        assert metadata["totalFilesDeleted"] == len(deleted)


def test_lazy_leaves_a_write_with_a_fresh_heartbeat_alone(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = make_table(path, "mor", 8)
    lazy = RollbackSpec(failed_writes_policy="lazy", min_age=timedelta(0))
    _, result = plan(path, lazy)
    assert not result.rollbacks
    (skipped,) = result.skipped
    assert skipped.instant.timestamp == table.failed_instant and "heartbeat is live" in skipped.reason
    _, eager = plan(path)
    assert [p.target.timestamp for p in eager.rollbacks] == [table.failed_instant]


def test_a_young_failed_write_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "t"
    make_table(path, "cow", 6)
    _, result = plan(path, RollbackSpec(min_age=timedelta(hours=1)))
    assert not result.rollbacks and "younger than min_age" in result.skipped[0].reason


@pytest.mark.parametrize(
    "crash_at", ["after_requested", "after_inflight", "after_deletes", "after_completed"]
)
@pytest.mark.parametrize(("kind", "version"), [("mor", 6), ("mor", 8)])
def test_a_crash_mid_rollback_is_recovered_by_a_rerun(
    tmp_path: Path, kind: str, version: int, crash_at: str
) -> None:
    path = tmp_path / "t"
    table = make_table(path, kind, version)
    with pytest.raises(Crash):
        apply_all(path, crash_at)
    _, again = plan(path)
    expected_kind = (
        RollbackKind.REMOVE_ROLLED_BACK_INSTANT
        if crash_at == "after_completed"
        else RollbackKind.FINISH_PENDING_ROLLBACK
    )
    assert [p.kind for p in again.rollbacks] == [expected_kind]
    apply_all(path)
    _, done = plan(path)
    assert not done.rollbacks and not done.skipped
    timeline = open_table(str(path)).snapshot.timeline
    rollbacks = timeline.of_action(Action.ROLLBACK)
    assert len(rollbacks) == 1 and rollbacks[0].is_completed
    assert_reads_committed_rows(path, table)
    if version == 6:
        blocks = [
            b
            for f in path.rglob(".*.log.*")
            for b in read_log_file(open_table(str(path)).storage, str(f.relative_to(path)))
            if b.block_type is BlockType.COMMAND
        ]
        assert len(blocks) == 4, "one rollback block per file group, none written twice"


@pytest.mark.parametrize(("kind", "version"), CASES)
def test_without_markers_the_failed_files_are_found_by_listing(
    tmp_path: Path, kind: str, version: int
) -> None:
    path = tmp_path / "t"
    table = make_table(path, kind, version)
    shutil.rmtree(path / ".hoodie" / ".temp" / str(table.failed_instant))
    loaded, result = plan(path)
    (planned,) = result.rollbacks
    assert planned.source == "listing"
    requests = planned.plan.rollback_requests or ()
    if kind == "mor" and version == 6:
        assert all(r.log_blocks_to_be_deleted and not r.files_to_be_deleted for r in requests)
    else:
        assert all(r.files_to_be_deleted and not r.log_blocks_to_be_deleted for r in requests)
    assert len(requests) == 4
    run_rollback(loaded.storage, loaded.snapshot.config, planned)
    assert not open_table(str(path)).view.uncommitted
    assert_reads_committed_rows(path, table)


@pytest.mark.parametrize("version", [6, 8])
def test_an_inflight_compaction_is_left_by_the_rollback_service_and_reverted_by_its_executor(
    tmp_path: Path, version: int
) -> None:
    """BaseHoodieTableServiceClient.getInstantsToRollback never takes a compaction (its
    timeline is getInflightTimelineExcludeCompactionAndClustering); the compactor's own rollback
    (BaseHoodieTableServiceClient.compact -> HoodieTable.rollbackInflightCompaction) deletes the
    attempt's output and reverts it to requested."""
    path = tmp_path / "t"
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=3, rows_per_commit=20)
    table = generate(str(path), DatagenSpec("t", "mor", version, workload))
    loaded = open_table(str(path))
    writer = TimelineWriter(loaded.storage, loaded.snapshot.config)
    requested = writer.create_requested(
        Action.COMPACTION, payloads.encode_avro(payloads.CompactionPlan(operations=()))
    )
    inflight = writer.transition_to_inflight(requested)
    (base,) = [f for f in loaded.view.all_files() if isinstance(f, BaseFile)]
    output = BaseFileName(base.file_id, "0-9-9", inflight.timestamp).name
    shutil.copy(path / base.path, path / base.partition / output)
    marker = path / ".hoodie" / ".temp" / inflight.timestamp / base.partition / f"{output}.marker.CREATE"
    marker.parent.mkdir(parents=True)
    marker.write_bytes(b"")

    loaded, result = plan(path)
    assert not result.rollbacks
    (left,) = result.skipped
    assert left.instant.timestamp == inflight.timestamp and "table service" in left.reason

    outcome = rollback_table_service(loaded.storage, loaded.snapshot.config, inflight, [base.partition])
    assert outcome is not None and outcome.rollback_instant is not None
    assert not (path / base.partition / output).exists()
    pending = open_table(str(path)).snapshot.timeline.pending_compactions()
    assert [(i.timestamp, i.state) for i in pending] == [(inflight.timestamp, State.REQUESTED)]
    assert_reads_committed_rows(path, table)
    _, again = plan(path)
    assert not again.rollbacks and "requested compaction is a table service" in again.skipped[0].reason


@pytest.mark.spark
def test_rollback_requests_run_as_spark_tasks(tmp_path: Path, spark: Any) -> None:
    path = tmp_path / "t"
    table = make_table(path, "mor", 6)
    loaded, result = plan(path)
    (planned,) = result.rollbacks
    outcome = run_rollback(loaded.storage, loaded.snapshot.config, planned, runner=SparkRunner(spark))
    assert outcome.metadata is not None
    assert sum(len(p.rollback_log_files or {}) for p in outcome.metadata.partition_metadata.values()) == 4
    assert_reads_committed_rows(path, table)


def test_timeline_server_based_markers_are_used(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = make_table(path, "cow", 8)
    marker_dir = path / ".hoodie" / ".temp" / str(table.failed_instant)
    lines = sorted(str(m.relative_to(marker_dir)) for m in marker_dir.rglob("*.marker.*"))
    shutil.rmtree(marker_dir)
    marker_dir.mkdir()
    (marker_dir / "MARKERS.type").write_text("TIMELINE_SERVER_BASED")
    (marker_dir / "MARKERS0").write_text("\n".join(lines[:2]) + "\n")
    (marker_dir / "MARKERS1").write_text("\n".join(lines[2:]) + "\n")
    loaded, result = plan(path)
    (planned,) = result.rollbacks
    assert planned.source == "markers"
    assert sum(len(r.files_to_be_deleted) for r in planned.plan.rollback_requests or ()) == len(lines) == 4
    run_rollback(loaded.storage, loaded.snapshot.config, planned)
    assert not marker_dir.exists()
    assert_reads_committed_rows(path, table)
