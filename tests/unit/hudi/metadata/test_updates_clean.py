"""The metadata records of a clean. No fixture has a clean, so the clean here deletes the file
slices a fixture's compaction superseded; its records are checked against Hudi's rules and
against the fixture's metadata table: the column stats deletes hit exactly the stored column
stats of the deleted files, every record encodes with the table's own record schema, and the
files records merged onto the ``files`` partition drop the deleted files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

import pytest

from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.record_schema import metadata_schemas
from maintainer.hudi.metadata.records import decode_value, live_files, merge_records, parsed_schema
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.updates import TableIndexes, clean_update, table_indexes
from maintainer.hudi.metadata.writer import encode_value
from maintainer.hudi.payloads.clean import CleanMetadata, CleanPartitionMetadata
from maintainer.hudi.table.state import TableState, open_table
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures

V9 = "sample_table_mor_avro_v9_txns_simple_meta"
V9_DELETED = {
    "region=us": (
        "3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_1-27-53_20260307162557587.parquet",
        ".3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_20260307162604102.log.1_0-52-126",
        ".3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_20260307162606034.log.1_0-78-180",
    ),
    "region=apac": (
        "c3b646cc-8602-47c5-b010-3fe002241298-0_2-26-56_20260307162557587.parquet",
        ".c3b646cc-8602-47c5-b010-3fe002241298-0_20260307162611195.log.1_0-157-346",
    ),
}
V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
V8_DELETED = {
    "city=san_francisco": (
        "036ded81-9ed4-479f-bcea-7145dfa0079b-0_0-986-2792_20251220210108078.parquet",
        ".036ded81-9ed4-479f-bcea-7145dfa0079b-0_20251220210123755.log.1_0-1022-2928",
    ),
}
T = "20260307170000000"


def clean_of(deleted: Mapping[str, Sequence[str]], gone: Sequence[str] = ()) -> CleanMetadata:
    partitions = {
        partition: CleanPartitionMetadata(
            partition_path=partition,
            policy="KEEP_LATEST_COMMITS",
            delete_path_patterns=tuple(files),
            success_delete_files=tuple(files),
            failed_delete_files=(),
            is_partition_deleted=partition in gone,
        )
        for partition, files in deleted.items()
    }
    return CleanMetadata(
        start_clean_time=T,
        time_taken_in_millis=1,
        total_files_deleted=sum(len(f) for f in deleted.values()),
        earliest_commit_to_retain="",
        partition_metadata=partitions,
    )


def opened(fixture: FixtureTable) -> tuple[TableState, MetadataTable, TableIndexes]:
    state = open_table(str(fixture.path), verify=False)
    mdt = open_metadata_table(state)
    assert mdt is not None
    return (
        state,
        mdt,
        table_indexes(state.storage, state.snapshot.config, state.snapshot.config.create_schema),
    )


@pytest.mark.parametrize(("name", "deleted"), [(V9, V9_DELETED), (V8, V8_DELETED)])
def test_column_stats_deletes_hit_exactly_the_stored_stats_of_the_deleted_files(
    name: str, deleted: Mapping[str, Sequence[str]], fixture_table: Callable[[str], FixtureTable]
) -> None:
    _, mdt, indexes = opened(fixture_table(name))
    update = clean_update(T, clean_of(deleted), indexes, 8).records
    names = {f for files in deleted.values() for f in files}
    stored = {
        k
        for k, r in mdt.read_partition("column_stats").items()
        if r["ColumnStatsMetadata"]["fileName"] in names
    }
    assert {key for key, _ in update["column_stats"]} == stored
    assert len(update["column_stats"]) == len(names) * len(indexes.columns)
    assert set(update) == {"files", "column_stats"}


@pytest.mark.parametrize(
    ("name", "deleted", "value_type"),
    [(V9, V9_DELETED, {"typeOrdinal": 1, "additionalInfo": None}), (V8, V8_DELETED, None)],
)
def test_a_column_stats_delete_is_a_stub_of_its_index_version(
    name: str,
    deleted: Mapping[str, Sequence[str]],
    value_type: object,
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    _, mdt, indexes = opened(fixture_table(name))
    schema = metadata_schemas(mdt.storage, mdt.state.snapshot.timeline).block_schema
    key, record = clean_update(T, clean_of(deleted), indexes, 8).records["column_stats"][0]
    stats = decode_value(encode_value(record, parsed_schema(schema)), schema, key)["ColumnStatsMetadata"]
    assert stats["minValue"] is None and stats["maxValue"] is None
    assert [stats[f] for f in ("nullCount", "valueCount", "totalSize", "totalUncompressedSize")] == [-1] * 4
    assert stats["isDeleted"] is True and stats["isTightBound"] is False
    assert stats.get("valueType") == value_type
    assert key == keys.column_stats_key(stats["columnName"], next(iter(deleted)), stats["fileName"])


def test_files_records_tombstone_the_deleted_files(fixture_table: Callable[[str], FixtureTable]) -> None:
    _, mdt, indexes = opened(fixture_table(V9))
    files = clean_update(T, clean_of(V9_DELETED), indexes, 9).records["files"]
    assert [key for key, _ in files] == ["region=us", "region=apac"]
    current = mdt.read_partition("files")
    for partition, record in files:
        entries = record["filesystemMetadata"]
        assert entries == {name: {"size": 0, "isDeleted": True} for name in entries}
        assert sorted(entries) == sorted(V9_DELETED[partition])
        before = live_files(current[partition])
        after = live_files(merge_records(current[partition], record))
        assert set(before) - set(after) == set(V9_DELETED[partition])


def test_the_deleted_files_map_iterates_like_a_java_hashmap_of_its_size(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    _, _, indexes = opened(fixture_table(V9))
    # 4 buckets: "Aa" and "BB" share String.hashCode 2112 (bucket 0, insertion order), "y" is 121
    (_, record), *_ = clean_update(T, clean_of({"p": ("y", "Aa", "BB")}), indexes, 9).records["files"]
    assert list(record["filesystemMetadata"]) == ["Aa", "BB", "y"]
    (_, record), *_ = clean_update(T, clean_of({"p": ("y", "BB", "Aa")}), indexes, 9).records["files"]
    assert list(record["filesystemMetadata"]) == ["BB", "Aa", "y"]


@pytest.mark.parametrize("version", [8, 9])
def test_a_deleted_partition_leaves_the_partition_list(
    version: int, fixture_table: Callable[[str], FixtureTable]
) -> None:
    _, mdt, indexes = opened(fixture_table(V9))
    files = dict(
        clean_update(T, clean_of(V9_DELETED, gone=["region=apac"]), indexes, version).records["files"]
    )
    assert files["__all_partitions__"]["filesystemMetadata"] == {
        "region=apac": {"size": 0, "isDeleted": True}
    }
    merged = merge_records(mdt.read_partition("files")["__all_partitions__"], files["__all_partitions__"])
    assert sorted(live_files(merged)) == ["region=eu", "region=us"]


def test_on_version_8_a_deleted_partition_keeps_its_files_record_with_tombstones(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    """Hudi 1.0 (table version 8), HoodieTableMetadataUtil.convertMetadataToFilesPartitionRecords:
    ``createPartitionFilesRecord(partition, {}, deletedFiles)`` for every cleaned partition,
    deleted or not; no key is deleted."""
    _, _, indexes = opened(fixture_table(V9))
    update = clean_update(T, clean_of(V9_DELETED, gone=["region=apac"]), indexes, 8)
    assert update.deletes == {}
    files = dict(update.records["files"])
    assert sorted(files["region=apac"]["filesystemMetadata"]) == sorted(V9_DELETED["region=apac"])


def test_on_version_9_a_deleted_partition_has_its_files_record_deleted(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    """Hudi 1.1 (table version 9, HUDI-8449), HoodieMetadataPayload.createPartitionFilesRecord with
    ``isPartitionDeleted``: an empty payload (a delete of the partition's key) instead of its
    deleted files; the partitions still there keep their tombstones."""
    _, _, indexes = opened(fixture_table(V9))
    update = clean_update(T, clean_of(V9_DELETED, gone=["region=apac"]), indexes, 9)
    assert update.deletes == {"files": ["region=apac"]}
    assert [key for key, _ in update.records["files"]] == ["region=us", "__all_partitions__"]


def test_bloom_filter_deletes_for_deleted_base_files_only(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    _, mdt, indexes = opened(fixture_table(V9))
    with_blooms = dataclasses.replace(indexes, partitions=indexes.partitions | {"bloom_filters"})
    blooms = clean_update(T, clean_of(V9_DELETED), with_blooms, 9).records["bloom_filters"]
    schema = metadata_schemas(mdt.storage, mdt.state.snapshot.timeline).block_schema
    bases = [(p, f) for p, files in V9_DELETED.items() for f in files if f.endswith(".parquet")]
    assert [key for key, _ in blooms] == [keys.bloom_filter_key(p, f) for p, f in bases]
    for key, record in blooms:
        decoded = decode_value(encode_value(record, parsed_schema(schema)), schema, key)
        assert decoded["type"] == 4
        assert decoded["BloomFilterMetadata"] == {
            "type": "",
            "timestamp": T,
            "bloomFilter": b"",
            "isDeleted": True,
        }


def test_a_clean_without_indexes_writes_files_only(fixture_table: Callable[[str], FixtureTable]) -> None:
    _, _, indexes = opened(fixture_table(V9))
    files_only = dataclasses.replace(indexes, partitions=frozenset({"files"}))
    assert set(clean_update(T, clean_of(V9_DELETED), files_only, 9).records) == {"files"}
