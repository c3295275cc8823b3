"""Deletes in the metadata table: a DELETE block after the records' block, as Hudi's
``HoodieAppendHandle`` writes them, and the clean of a partition on table version 9 (HUDI-8449)
deleting the partition's ``files`` record where version 8 writes its files as deleted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.executors.common.metadata_sync import clean_writes, sync_clean
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.logformat import block_deletes
from maintainer.hudi.logformat.model import BlockType, HeaderKey
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.record_schema import metadata_schemas
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.writer import delete_block
from maintainer.hudi.payloads.clean import CleanMetadata, CleanPartitionMetadata
from maintainer.hudi.payloads.container import read_container
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
CLEAN = "20300101000000000"


def _open(path: Path) -> MetadataTable:
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None
    return mdt


def test_a_delete_block_is_hudis_byte_for_byte(fixture_table: Callable[[str], FixtureTable]) -> None:
    """HoodieAppendHandle.appendDataAndDeleteBlocks: a HoodieDeleteBlock with the data block's
    header (SCHEMA, INSTANT_TIME) whose records carry the metadata partition as partition path
    and the default ordering value (int 0): the fixture's record-index delete, rewritten."""
    path = fixture_table(MOR_V9).path
    mdt = _open(path)
    log = next((path / ".hoodie/metadata/record_index").glob(".record-index-0000-0_20260307162614221.log.*"))
    (block,) = read_log_blocks(log.read_bytes(), str(log))
    assert block.block_type is BlockType.DELETE
    keys = [d.record_key or "" for d in block_deletes(block)]
    schema = metadata_schemas(mdt.storage, mdt.state.snapshot.timeline).block_schema
    assert delete_block("record_index", keys, "20260307162614221", schema) == log.read_bytes()


def _clean_emptying(partition: str, files: list[str]) -> CleanMetadata:
    metadata = CleanPartitionMetadata(
        partition_path=partition,
        policy="KEEP_LATEST_COMMITS",
        delete_path_patterns=tuple(files),
        success_delete_files=tuple(files),
        failed_delete_files=(),
        is_partition_deleted=True,
    )
    return CleanMetadata(
        start_clean_time=CLEAN,
        time_taken_in_millis=1,
        total_files_deleted=len(files),
        earliest_commit_to_retain="",
        last_completed_commit_timestamp="",
        partition_metadata={partition: metadata},
    )


def _clean_a_partition(path: Path) -> tuple[str, list[Path]]:
    """Sync a clean that deleted every file of the first partition; its log files."""
    table = open_table(str(path), verify=False)
    listing = metadata_file_listing(_open(path))
    partition = sorted(listing)[0]
    clean = _clean_emptying(partition, sorted(listing[partition]))
    sync_clean(table.storage, Instant(CLEAN, Action.CLEAN, State.INFLIGHT), clean)
    return partition, sorted((path / ".hoodie/metadata/files").glob(f".*_{CLEAN}.log.*"))


def test_on_version_9_a_clean_that_deletes_a_partition_deletes_its_files_record(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """HoodieTableMetadataUtil.convertMetadataToFilesPartitionRecords (Hudi 1.1, HUDI-8449):
    ``createPartitionFilesRecord(..., isPartitionDeleted=true)`` is an empty payload, written as
    a DELETE block after the records' block; the partition's record is gone from ``files``."""
    path = fixture_copy(MOR_V9).path
    partition, (log,) = _clean_a_partition(path)
    data, deletes = read_log_blocks(log.read_bytes(), str(log))
    assert (data.block_type, deletes.block_type) == (BlockType.HFILE_DATA, BlockType.DELETE)
    assert [k for k, _ in deletes.header.entries] == [HeaderKey.SCHEMA, HeaderKey.INSTANT_TIME]
    assert [(d.record_key, d.partition_path) for d in block_deletes(deletes)] == [(partition, "files")]
    mdt = _open(path)
    assert partition not in mdt.read_partition("files")
    assert partition not in metadata_file_listing(mdt)
    timeline = path / ".hoodie/metadata/.hoodie/timeline"
    (completed,) = timeline.glob(f"{CLEAN}_*.deltacommit")
    (stat,) = read_container(completed.read_bytes(), "")["partitionToWriteStats"]["files"]
    assert (stat["numWrites"], stat["numDeletes"], stat["numUpdateWrites"]) == (1, 1, 1)
    inflight = read_container((timeline / f"{CLEAN}.deltacommit.inflight").read_bytes(), "")
    assert inflight["partitionToWriteStats"]["files"][1]["numUpdateWrites"] == 2  # a record, a delete


def test_on_version_8_a_clean_that_deletes_a_partition_writes_its_files_as_deleted(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """Hudi 1.0 (table version 8): ``createPartitionFilesRecord(partition, {}, deletedFiles)``,
    no delete: the record stays, every file a tombstone; the partition leaves the list."""
    path = fixture_copy(TRIPS_V8).path
    partition, (log,) = _clean_a_partition(path)
    assert [b.block_type for b in read_log_blocks(log.read_bytes(), str(log))] == [BlockType.HFILE_DATA]
    mdt = _open(path)
    record = mdt.read_partition("files")[partition]
    assert all(entry["isDeleted"] for entry in record["filesystemMetadata"].values())
    assert partition not in metadata_file_listing(mdt)


@pytest.mark.parametrize(("name", "deletes_record"), [(MOR_V9, True), (TRIPS_V8, False)])
def test_the_plan_says_what_a_clean_emptying_a_partition_writes(
    name: str, deletes_record: bool, fixture_table: Callable[[str], FixtureTable]
) -> None:
    reason = clean_writes(_open(fixture_table(name).path), 2, True).reason
    assert "emptied partitions unlisted" in reason
    assert ("their files records deleted" in reason) is deletes_record
