"""The inflight metadata deltacommit against Hudi's: the workload profile
(``BaseSparkCommitActionExecutor.saveWorkloadProfileMetadataToInflight``) of every metadata
deltacommit of the fixtures, rebuilt from the log files Hudi wrote, equals Hudi's inflight file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from maintainer.hudi.file_groups.filemodel import FileGroup
from maintainer.hudi.hfile import read_hfile
from maintainer.hudi.logformat import block_deletes
from maintainer.hudi.logformat.model import BlockType
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.commit import commit_to_metadata_table
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.updates.build import files_record
from maintainer.hudi.metadata.writer import LogFileWrite, MetadataUpdate, inflight_metadata
from maintainer.hudi.payloads.container import read_container
from maintainer.hudi.payloads.decode import encode_avro
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable, metadata_fixture_names

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


def _profiled_inflights(timeline: Path) -> Iterator[tuple[str, bytes]]:
    """(instant, bytes) of the metadata deltacommits whose inflight file holds write stats."""
    for path in sorted(timeline.glob("*.deltacommit.inflight")):
        data = path.read_bytes()
        if data and read_container(data, str(path))["partitionToWriteStats"]:
            yield path.name.split(".")[0], data


def _records_in(log: Path) -> int:
    """Records a metadata log file carries: HFile cells and deleted keys."""
    count = 0
    for block in read_log_blocks(log.read_bytes(), str(log)):
        if block.block_type is BlockType.HFILE_DATA:
            count += len(read_hfile(block.content, str(log)).cells)
        elif block.block_type is BlockType.DELETE:
            count += len(block_deletes(block))
    return count


def _writes_of(mdt: MetadataTable, instant: str) -> list[LogFileWrite]:
    """The log files Hudi wrote for ``instant``, each with the base instant of the slice it
    belongs to (the slice Hudi tagged its records with)."""
    writes = []
    for partition in mdt.partitions:
        groups: list[FileGroup] = mdt.file_groups(partition.name)
        for group in groups:
            for file_slice in group.slices:
                for log in file_slice.log_files:
                    if f"_{instant}.log." in log.name:
                        path = Path(mdt.storage.full_path(log.path))
                        count = _records_in(path)
                        writes.append(
                            LogFileWrite(
                                partition.name, group.file_id, log.name, b"", count, file_slice.base_instant
                            )
                        )
    return writes


def _ordered(record: Any) -> Any:
    """A decoded record with every map's key order kept (Avro writes maps in that order)."""
    if isinstance(record, dict):
        return [(key, _ordered(value)) for key, value in record.items()]
    if isinstance(record, list):
        return [_ordered(item) for item in record]
    return record


WRITTEN_BY_MAINTAINER = {"files", "column_stats", "partition_stats", "bloom_filters"}


def _by_partition(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "partitionToWriteStats": dict(sorted(record["partitionToWriteStats"].items()))}


PROFILED = [name for name in metadata_fixture_names() if "meta" in name or name == TRIPS_V8]


@pytest.mark.parametrize("name", PROFILED)
def test_the_inflight_workload_profile_is_hudis(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    """BaseSparkCommitActionExecutor.saveWorkloadProfileMetadataToInflight: per partition (in
    HashMap order) an insert stat (no file, prevCommit "null"), then per file group its record
    count as numUpdateWrites and its latest slice's base instant as prevCommit."""
    path = fixture_table(name).path
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None
    timeline = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    checked = 0
    for instant, data in _profiled_inflights(timeline):
        ours = read_container(encode_avro(inflight_metadata(_writes_of(mdt, instant))), instant)
        hudis = read_container(data, instant)
        if set(hudis["partitionToWriteStats"]) <= WRITTEN_BY_MAINTAINER:
            assert _ordered(ours) == _ordered(hudis), instant
        else:  # record_index and a secondary index share a HashMap bucket: their order is Hudi's
            # insertion order, from Spark's shuffle; maintainer writes neither
            assert _ordered(_by_partition(ours)) == _ordered(_by_partition(hudis)), instant
        checked += 1
    if name == TRIPS_V8:
        assert checked == 7  # every deltacommit of table version 8 (Hudi 1.0)


def test_a_deltacommit_we_write_carries_its_workload_profile_on_version_8(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    """The writer tags each file group with its latest slice's base instant, as
    HoodieBackedTableMetadataWriter.prepRecords does, and saves the profile inflight."""
    path = fixture_copy(TRIPS_V8).path
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    partition = sorted(metadata_file_listing(mdt))[0]
    instant = "20300101000000000"
    (group,) = mdt.file_groups(FILES)
    assert group.latest_slice is not None

    def build(_: MetadataTable) -> MetadataUpdate:
        return MetadataUpdate(instant, {FILES: [files_record(partition, {"x.parquet": 5}, [])]})

    commit_to_metadata_table(table.storage, instant, build)
    inflight = read_container(
        (path / ".hoodie/metadata/.hoodie/timeline" / f"{instant}.deltacommit.inflight").read_bytes(), ""
    )
    (insert, update) = inflight["partitionToWriteStats"][FILES]
    assert (insert["fileId"], insert["prevCommit"], insert["numInserts"]) == ("", "null", 0)
    assert (update["fileId"], update["prevCommit"], update["numUpdateWrites"]) == (
        group.file_id,
        group.latest_slice.base_instant,
        1,
    )


def test_a_streamed_write_saves_an_empty_profile_as_hudi_1_1_does(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    """SparkMetadataTableFirstDeltaCommitActionExecutor.prepareWorkloadProfileAndSaveToInflight:
    Hudi 1.1 streams a compaction into the metadata table and saves an empty workload profile
    (the fixture's compaction 20260307162618152); so does a streamed update here."""
    path = fixture_table(MOR_V9).path
    compaction = "20260307162618152"
    hudis = (path / ".hoodie/metadata/.hoodie/timeline" / f"{compaction}.deltacommit.inflight").read_bytes()
    ours = encode_avro(inflight_metadata(()))
    assert _ordered(read_container(ours, "")) == _ordered(read_container(hudis, compaction))
