"""The metadata records of a commit that writes base files, compaction's ``commit`` among them
(``HoodieTableMetadataUtil.convertMetadataToRecords(HoodieCommitMetadata)``):

- ``files``: ``__all_partitions__`` with every partition of the write stats, and per partition
  the files written with their sizes (``convertMetadataToFilesPartitionRecords``);
- ``column_stats``: the ranges of every indexed column of every file written, from its footer;
- ``bloom_filters``: each base file's footer bloom filter, typed with the configured filter type;
- ``partition_stats``: see :mod:`.partition_stats`.

Nothing goes to ``record_index`` or secondary indexes for a compaction (Hudi skips them for
compaction); :func:`compaction_update` refuses other operations. A clustering
(:func:`clustering_update`) also writes a ``record_index`` upsert for every record key of its new
base files (its keys moved to new file groups; ``convertMetadataToRecordIndexRecords`` reads the
keys of each new base file), and nothing to secondary indexes (the keys do not change).
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.build import (
    KeyedRecord,
    bloom_filter_record,
    column_stats_record,
    files_record,
    partition_list_record,
    record_index_record,
)
from maintainer.hudi.metadata.updates.indexes import (
    BLOOM_FILTERS,
    COLUMN_STATS,
    PARTITION_STATS,
    TableIndexes,
)
from maintainer.hudi.metadata.updates.java_map import hashmap_order
from maintainer.hudi.metadata.updates.parquet_stats import footer_ranges, read_parquet_footer
from maintainer.hudi.metadata.updates.partition_stats import (
    partition_stats_records,
    stored_ranges,
    wrapper_hints,
)
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.parquet import bloom
from maintainer.hudi.payloads.commit import CommitMetadata
from maintainer.hudi.payloads.write_stat import WriteStat
from maintainer.storage import Storage

UpdateRecords = dict[str, list[KeyedRecord]]
"""Metadata partition -> its records (key, record)."""
COMPACT = "COMPACT"
CLUSTER = "CLUSTER"
RECORD_INDEX = "record_index"


@dataclass(frozen=True)
class TableView:
    """The data table around the write, as Hudi sees it when it indexes the write."""

    latest_files: Mapping[str, Collection[str]]
    """Partition -> the file names of its latest merged file slices once the write is complete
    (the write's own files included); needed for the partitions the write touched."""
    column_stats: Mapping[str, MetadataRecord] = field(default_factory=dict)
    """The metadata table's ``column_stats`` records before the write, by key."""


def compaction_update(
    instant_time: str, commit: CommitMetadata, storage: Storage, indexes: TableIndexes, view: TableView
) -> UpdateRecords:
    """What Hudi writes into the metadata table for the compaction completed at ``instant_time``."""
    if commit.operation_type != COMPACT:
        raise UnsupportedTableError(f"instant {instant_time} is a {commit.operation_type}, not a compaction")
    return commit_update(instant_time, commit, storage, indexes, view)


@dataclass(frozen=True)
class MovedKeys:
    """The record keys of one new base file of a clustering."""

    partition: str
    file_id: str
    record_keys: Sequence[str]


def clustering_update(
    instant_time: str,
    commit: CommitMetadata,
    storage: Storage,
    indexes: TableIndexes,
    view: TableView,
    moved: Sequence[MovedKeys],
    instant_millis: int,
) -> UpdateRecords:
    """What Hudi 1.x writes into the metadata table for the clustering completed at
    ``instant_time``: :func:`commit_update`'s records of the new base files (no deletes: the
    replaced files stay listed until the cleaner deletes them), and where the table has a record
    index, each key of ``moved`` at its new file group (``instant_millis``: the instant's time)."""
    if commit.operation_type != CLUSTER:
        raise UnsupportedTableError(f"instant {instant_time} is a {commit.operation_type}, not a clustering")
    update = commit_update(instant_time, commit, storage, indexes, view)
    if indexes.has(RECORD_INDEX):
        records = [
            record_index_record(key, files.partition, files.file_id, instant_millis)
            for files in moved
            for key in files.record_keys
        ]
        if records:
            update[RECORD_INDEX] = records
    return update


def needs_partition_stats(indexes: TableIndexes, commit: CommitMetadata) -> bool:
    """Whether the commit's update has ``partition_stats`` records, the only ones that read the
    :class:`TableView`'s latest files: the index is on, with column stats of some columns, and
    the commit recorded its writer schema (Hudi computes them only then)."""
    return (
        indexes.has(PARTITION_STATS)
        and indexes.has(COLUMN_STATS)
        and bool(indexes.columns)
        and bool(commit.table_schema)
    )


def commit_update(
    instant_time: str, commit: CommitMetadata, storage: Storage, indexes: TableIndexes, view: TableView
) -> UpdateRecords:
    """The ``files``, ``column_stats``, ``bloom_filters`` and ``partition_stats`` records of a
    commit whose write stats are base files."""
    by_partition = {p: tuple(s) for p, s in (commit.partition_to_write_stats or {}).items()}
    update: UpdateRecords = {FILES: files_records(by_partition)}
    written = _read_written(by_partition, storage, indexes, instant_time)
    if indexes.has(COLUMN_STATS) and indexes.columns:
        update[COLUMN_STATS] = [column_stats_record(p, r) for p, r, _ in written.ranges]
    if indexes.has(BLOOM_FILTERS):
        update[BLOOM_FILTERS] = written.blooms
    if needs_partition_stats(indexes, commit):
        update[PARTITION_STATS] = _partition_stats(by_partition, written.ranges, indexes, view)
    return {name: records for name, records in update.items() if records}


def files_records(by_partition: Mapping[str, Sequence[WriteStat]]) -> list[KeyedRecord]:
    """``__all_partitions__`` and one files record per partition of the write stats."""
    records = [partition_list_record(list(by_partition))]
    for partition, stats in by_partition.items():
        records.append(files_record(partition, _written_sizes(stats), ()))
    return records


def _written_sizes(stats: Sequence[WriteStat]) -> dict[str, int]:
    """File name -> size (the largest reported) in the order of the ``new HashMap<>(n)``
    Hudi accumulates them in; CDC files come with their own sizes."""
    sizes: dict[str, int] = {}
    for stat in stats:
        if stat.path is None:
            continue
        name = posixpath.basename(stat.path)
        sizes[name] = max(sizes.get(name, stat.file_size_in_bytes or 0), stat.file_size_in_bytes or 0)
        for cdc_path, cdc_size in (stat.cdc_stats or {}).items():
            sizes[posixpath.basename(cdc_path)] = cdc_size
    order = hashmap_order(list(sizes), capacity=len(stats))
    return {name: sizes[name] for name in order}


@dataclass(frozen=True)
class _Written:
    ranges: list[tuple[str, ColumnRange, str]]
    """(partition, range, file name) of every indexed column of every file written."""
    blooms: list[KeyedRecord]


def _read_written(
    by_partition: Mapping[str, Sequence[WriteStat]],
    storage: Storage,
    indexes: TableIndexes,
    instant_time: str,
) -> _Written:
    written = _Written([], [])
    wants_ranges = indexes.has(COLUMN_STATS) and bool(indexes.columns)
    if not wants_ranges and not indexes.has(BLOOM_FILTERS):
        return written
    for partition, stats in by_partition.items():
        for stat in stats:
            if stat.path is not None:
                _read_file(partition, stat.path, storage, indexes, instant_time, written)
    return written


def _read_file(
    partition: str, path: str, storage: Storage, indexes: TableIndexes, instant_time: str, written: _Written
) -> None:
    name = posixpath.basename(path)
    if BaseFileName.parse(name) is None or not name.endswith(".parquet"):
        raise UnsupportedTableError(
            f"{path}: maintainer indexes Parquet base files only", where=storage.uri(path)
        )
    metadata = read_parquet_footer(storage, path)
    if indexes.has(COLUMN_STATS) and indexes.columns:
        ranges = footer_ranges(
            metadata, name, indexes.columns, indexes.column_stats_version, storage.uri(path)
        )
        written.ranges.extend((partition, r, name) for r in ranges)
    if indexes.has(BLOOM_FILTERS):
        text = footer_bloom_filter(metadata.metadata or {}, storage.uri(path))
        if text is not None:
            written.blooms.append(
                bloom_filter_record(partition, name, instant_time, indexes.bloom_filter_type, text, False)
            )


def footer_bloom_filter(values: Mapping[bytes, bytes], where: str) -> bytes | None:
    """The footer's filter as Hudi re-serializes it (``BloomFilter.serializeToString``)."""
    text = values.get(bloom.BLOOM_FILTER_KEY.encode()) or values.get(bloom.LEGACY_BLOOM_FILTER_KEY.encode())
    if text is None:
        return None
    code = values.get(bloom.TYPE_CODE_KEY.encode())
    parsed = bloom.parse_bloom_filter(text, code.decode() if code else None, where)
    return parsed.serialize().encode("utf-8")


def _partition_stats(
    by_partition: Mapping[str, Sequence[WriteStat]],
    written: Sequence[tuple[str, ColumnRange, str]],
    indexes: TableIndexes,
    view: TableView,
) -> list[KeyedRecord]:
    if indexes.partition_stats_version is not indexes.column_stats_version:
        raise UnsupportedTableError(
            "the column stats and partition stats indexes have different versions "
            f"({indexes.column_stats_version.value}, {indexes.partition_stats_version.value})"
        )
    records: list[KeyedRecord] = []
    for partition in by_partition:
        own = [r for p, r, _ in written if p == partition]
        own_files = {name for p, _, name in written if p == partition}
        others = set(view.latest_files.get(partition, ())) - own_files
        stored = stored_ranges(partition, others, indexes, view.column_stats, wrapper_hints(own))
        records.extend(partition_stats_records(partition, [*own, *stored], indexes))
    return records
