"""Golden: the metadata records of every compaction of the fixtures, rebuilt from the data
table (the compaction's commit metadata, the new base files' footers, the file slices the
compaction leaves as its pending instant sees them, the column stats already in the metadata
table) equal, key for key and byte for byte, the records Hudi wrote in the metadata deltacommit
of the same instant."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.file_groups.fsview import FileSystemView, build_view
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import TimelineEntry
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.records import decode_value, parsed_schema
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.updates import (
    TableView,
    UpdateRecords,
    compaction_update,
    latest_files_after,
    latest_merged_files,
    needs_partition_stats,
    table_indexes,
)
from maintainer.hudi.metadata.writer import encode_value
from maintainer.hudi.payloads.commit import CommitMetadata
from maintainer.hudi.payloads.decode import decode_commit_metadata
from maintainer.hudi.table.state import TableState, open_table
from tests.support.fixtures import FixtureTable
from tests.unit.hudi.metadata.mdt_blocks import cells_at

pytestmark = pytest.mark.fixtures

COMPACTIONS = [
    ("sample_table_mor_avro_v9_txns_simple_meta", "20260307162618152"),
    ("sample_table_mor_avro_v9_txns_complex_meta", "20260307162648587"),
    ("sample_table_mor_avro_v9_txns_nonpart_meta", "20260307162714722"),
    ("quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "20251220210129235"),
]
EXPECTED_COUNTS = {
    "20260307162618152": {"files": 3, "column_stats": 32, "partition_stats": 32},
    "20260307162648587": {"files": 3, "column_stats": 32, "partition_stats": 32},
    "20260307162714722": {"files": 2, "column_stats": 15},
    "20251220210129235": {"files": 4, "column_stats": 27, "partition_stats": 27},
}
METADATA_PARTITIONS = ("files", "column_stats", "partition_stats", "bloom_filters", "record_index")


def _commit(state: TableState, instant: str) -> CommitMetadata:
    timeline = state.snapshot.timeline
    completed = next(i for i in timeline.completed() if i.timestamp == instant)
    path = timeline.file_path(completed)
    return decode_commit_metadata(state.storage.read_bytes(path), state.storage.uri(path))


def pending_view(state: TableState, instant: str) -> FileSystemView:
    """The view as the compaction at ``instant`` sees it before it completes."""
    timeline = state.snapshot.timeline.as_of(instant)
    entries = [
        entry
        if entry.timestamp != instant
        else TimelineEntry(
            Instant(instant, Action.COMPACTION, State.INFLIGHT),
            {s: f for s, f in entry.state_files.items() if s is not State.COMPLETED},
        )
        for entry in timeline.entries
    ]
    return build_view(timeline.filter(entries), state.snapshot.listings, state.view_as_of(instant).inputs)


def rebuild(path: Path, instant: str) -> UpdateRecords:
    state = open_table(str(path), verify=False)
    commit = _commit(state, instant)
    indexes = table_indexes(state.storage, state.snapshot.config, commit.table_schema)
    mdt = open_metadata_table(state)
    assert mdt is not None
    view = TableView(
        latest_files=latest_merged_files(
            state.view_as_of(instant), list(commit.partition_to_write_stats or {})
        ),
        column_stats=mdt.read_partition("column_stats"),
    )
    return compaction_update(instant, commit, state.storage, indexes, view)


@pytest.mark.parametrize(("name", "instant"), COMPACTIONS)
def test_compaction_records_equal_hudis_byte_for_byte(
    name: str, instant: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    path = fixture_table(name).path
    ours = rebuild(path, instant)
    counts = {}
    for partition in METADATA_PARTITIONS:
        stored = cells_at(path, instant, partition)
        mine = dict(ours.get(partition, []))
        assert sorted(mine) == sorted(stored), partition
        for key, cell in stored.items():
            encoded = encode_value(mine[key], parsed_schema(cell.schema_json))
            decoded = decode_value(encoded, cell.schema_json, key)
            assert decoded == decode_value(cell.value, cell.schema_json, key), (partition, key)
            assert encoded == cell.value, (partition, key)
        if stored:
            counts[partition] = len(stored)
    assert counts == EXPECTED_COUNTS[instant]


def test_nothing_is_written_for_the_record_index_or_secondary_indexes(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    ours = rebuild(fixture_table(COMPACTIONS[0][0]).path, COMPACTIONS[0][1])
    assert set(ours) == {"files", "column_stats", "partition_stats"}


def test_bloom_filter_records_carry_each_new_base_files_footer_filter(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    name, instant = COMPACTIONS[0]
    state = open_table(str(fixture_table(name).path), verify=False)
    commit = _commit(state, instant)
    indexes = table_indexes(state.storage, state.snapshot.config, commit.table_schema)
    with_blooms = dataclasses.replace(indexes, partitions=frozenset({"files", "bloom_filters"}))
    blooms = compaction_update(instant, commit, state.storage, with_blooms, TableView({}))["bloom_filters"]
    stats = list(commit.write_stats())
    assert len(blooms) == len(stats) == 2
    for (key, record), stat in zip(blooms, stats, strict=True):
        assert stat.path is not None and stat.partition_path is not None
        file_name = stat.path.rsplit("/", 1)[-1]
        assert key == keys.bloom_filter_key(stat.partition_path, file_name)
        footer = pq.ParquetFile(state.storage.full_path(stat.path)).metadata.metadata
        assert record["BloomFilterMetadata"] == {
            "type": "DYNAMIC_V0",
            "timestamp": instant,
            "bloomFilter": footer[b"org.apache.hudi.bloomfilter"],
            "isDeleted": False,
        }


def test_other_operations_are_refused(fixture_table: Callable[[str], FixtureTable]) -> None:
    state = open_table(str(fixture_table(COMPACTIONS[0][0]).path), verify=False)
    commit = dataclasses.replace(_commit(state, COMPACTIONS[0][1]), operation_type="UPSERT")
    indexes = table_indexes(state.storage, state.snapshot.config, commit.table_schema)
    with pytest.raises(UnsupportedTableError, match="not a compaction"):
        compaction_update("1", commit, state.storage, indexes, TableView({}))


@pytest.mark.parametrize(("name", "instant"), COMPACTIONS)
def test_a_pending_compaction_sees_the_slices_it_will_leave(
    name: str, instant: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    state = open_table(str(fixture_table(name).path), verify=False)
    written = _commit(state, instant).partition_to_write_stats or {}
    view = pending_view(state, instant)
    assert any(f.instant_time == instant for f in view.uncommitted)
    after = latest_files_after(view, instant, written)
    assert after == latest_merged_files(state.view_as_of(instant), list(written))
    assert after != latest_merged_files(view, list(written))


def test_a_commit_without_its_schema_gets_no_partition_stats(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    name, instant = COMPACTIONS[0]
    state = open_table(str(fixture_table(name).path), verify=False)
    commit = _commit(state, instant)
    indexes = table_indexes(state.storage, state.snapshot.config, commit.table_schema)
    schemaless = dataclasses.replace(commit, extra_metadata={})
    assert set(compaction_update(instant, schemaless, state.storage, indexes, TableView({}))) == {
        "files",
        "column_stats",
    }


def test_only_partition_stats_need_the_table_around_the_write(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    """The sync of a compaction lists the data partitions it wrote only when the update has
    partition stats (the only records reading :class:`TableView`): without them, the records
    made with an empty view are the records made with the real one."""
    name, instant = COMPACTIONS[0]
    state = open_table(str(fixture_table(name).path), verify=False)
    commit = _commit(state, instant)
    indexes = table_indexes(state.storage, state.snapshot.config, commit.table_schema)
    assert needs_partition_stats(indexes, commit)
    assert not needs_partition_stats(indexes, dataclasses.replace(commit, extra_metadata={}))
    without = dataclasses.replace(indexes, partitions=indexes.partitions - {"partition_stats"})
    assert not needs_partition_stats(without, commit)
    written = {p: tuple(w) for p, w in (commit.partition_to_write_stats or {}).items()}
    real = TableView(latest_files_after(state.view, instant, written))
    assert compaction_update(instant, commit, state.storage, without, TableView({})) == compaction_update(
        instant, commit, state.storage, without, real
    )
