"""The metadata records of a completed clean
(``HoodieTableMetadataUtil.convertMetadataToRecords(HoodieCleanMetadata)``):

- ``files``: per cleaned partition, its deleted files as ``{size: 0, isDeleted: true}``
  (``deletePathPatterns``, as recorded); the partitions the clean deleted as deleted entries of
  ``__all_partitions__``; on table version 9 (Hudi 1.1, HUDI-8449) a partition the clean
  deleted has its ``files`` record deleted instead (``createPartitionFilesRecord`` with
  ``isPartitionDeleted``: an empty payload, a key of a DELETE block), where Hudi 1.0 (version 8)
  writes its files as deleted;
- ``column_stats``: a deleted stub (no min/max, counts -1) for every indexed column of every
  deleted file, base or log;
- ``bloom_filters``: a deleted record (empty type and filter, the clean's instant as timestamp)
  for every deleted base file;
- nothing for ``partition_stats`` (``PartitionStatsIndexer.clean`` is empty), the record index or
  secondary indexes.

Pure: no file is read.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.updates.build import (
    KeyedRecord,
    bloom_filter_record,
    column_stats_record,
    files_partition_id,
    files_record,
    partition_list_record,
)
from maintainer.hudi.metadata.updates.commit import UpdateRecords
from maintainer.hudi.metadata.updates.indexes import BLOOM_FILTERS, COLUMN_STATS, TableIndexes
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.values import V1, IndexVersion, ValueMeta, ValueType
from maintainer.hudi.payloads.clean import CleanMetadata

NULL_META = ValueMeta(ValueType.NULL)
"""``ValueMetadata.NULL_METADATA``: the value type of a V2 stub."""


PARTITION_RECORD_DELETED_FROM_VERSION = 9
"""HUDI-8449 (Hudi 1.1): a clean that deletes a partition deletes its ``files`` record."""


@dataclass(frozen=True)
class CleanUpdate:
    records: UpdateRecords
    deletes: dict[str, list[str]]
    """Metadata partition -> keys deleted."""


def clean_update(
    instant_time: str, clean: CleanMetadata, indexes: TableIndexes, table_version: int
) -> CleanUpdate:
    """What Hudi writes into the metadata table for the clean completed at ``instant_time``."""
    gone = _deleted_partition_keys(clean) if table_version >= PARTITION_RECORD_DELETED_FROM_VERSION else []
    records = _records(instant_time, clean, indexes, frozenset(gone))
    return CleanUpdate(records, {FILES: gone} if gone else {})


def _deleted_partition_keys(clean: CleanMetadata) -> list[str]:
    return [
        files_partition_id(partition)
        for partition, metadata in (clean.partition_metadata or {}).items()
        if metadata.is_partition_deleted
    ]


def _records(
    instant_time: str, clean: CleanMetadata, indexes: TableIndexes, gone: frozenset[str]
) -> UpdateRecords:
    deleted = {p: tuple(m.delete_path_patterns) for p, m in (clean.partition_metadata or {}).items()}
    update: UpdateRecords = {FILES: _files_records(clean, gone)}
    if indexes.has(BLOOM_FILTERS):
        update[BLOOM_FILTERS] = [
            bloom_filter_record(p, posixpath.basename(f), instant_time, "", b"", True)
            for p, files in deleted.items()
            for f in files
            if BaseFileName.parse(posixpath.basename(f)) is not None
        ]
    if indexes.has(COLUMN_STATS) and indexes.columns:
        update[COLUMN_STATS] = [
            column_stats_record(p, _stub(posixpath.basename(f), c, indexes), deleted=True)
            for p, files in deleted.items()
            for f in files
            for c in indexes.columns
        ]
    return {name: records for name, records in update.items() if records}


def _files_records(clean: CleanMetadata, deleted_keys: frozenset[str]) -> list[KeyedRecord]:
    """``convertMetadataToFilesPartitionRecords``; the partitions whose record is deleted
    (``deleted_keys``) get none."""
    records: list[KeyedRecord] = []
    gone: list[str] = []
    for partition, metadata in (clean.partition_metadata or {}).items():
        if files_partition_id(partition) not in deleted_keys:
            records.append(files_record(partition, {}, metadata.delete_path_patterns))
        if metadata.is_partition_deleted:
            gone.append(partition)
    if gone:
        records.append(partition_list_record(gone, deleted=True))
    return records


def _stub(file_name: str, column: str, indexes: TableIndexes) -> ColumnRange:
    """``HoodieColumnRangeMetadata.stub``."""
    meta = V1 if indexes.column_stats_version is IndexVersion.V1 else NULL_META
    return ColumnRange(file_name, column, None, None, -1, -1, -1, -1, meta)
