"""Partition stats of a write (``convertMetadataToPartitionStatRecords``): for every partition
the write touched, the column stats of the files of its latest merged file slices, merged into
one range per column (``FileFormatUtils.getColumnRangeInPartition``) and written with
``isTightBound`` true.

The files the write itself produced bring the ranges just read from their footers; every other
file of those slices (base and log files) brings the column stats the metadata table already
holds for it (a file or column without one is skipped, as Hudi's key-prefix lookup skips it).
With index version V2 each file's values are taken as the type the table schema gives the column
(``ValueType.fromSchema``); maintainer refuses the type changes Hudi would convert.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.build import KeyedRecord, partition_stats_record
from maintainer.hudi.metadata.updates.indexes import TableIndexes
from maintainer.hudi.metadata.updates.ranges import ColumnRange, by_column, merge_all
from maintainer.hudi.metadata.updates.stored import stored_range
from maintainer.hudi.metadata.updates.values import V1, IndexVersion, ValueMeta


def partition_stats_prefixes(columns: Iterable[str], partitions: Iterable[str]) -> list[str]:
    """The ``column_stats`` key prefixes holding the stats of ``columns`` in ``partitions``
    (column id + partition id), as Hudi looks them up (``getRecordsByKeyPrefixes``)."""
    return sorted({keys.column_id(c) + keys.partition_id(p) for c in columns for p in partitions})


def stored_ranges(
    partition: str,
    files: Collection[str],
    indexes: TableIndexes,
    column_stats: Mapping[str, MetadataRecord],
    hints: Mapping[str, str],
) -> list[ColumnRange]:
    """The stored column stats of ``files`` of ``partition`` (column_stats key -> record)."""
    found: list[ColumnRange] = []
    for name in sorted(files):
        for column in indexes.columns:
            record = column_stats.get(keys.column_stats_key(column, partition, name))
            column_range = None if record is None else stored_range(record, hints.get(column))
            if column_range is not None:
                found.append(column_range)
    return found


def wrapper_hints(ranges: Sequence[ColumnRange]) -> dict[str, str]:
    """Column -> the wrapper its values have in ``ranges`` (to read plain V1 stored values)."""
    hints: dict[str, str] = {}
    for column_range in ranges:
        value = column_range.min or column_range.max
        if value is not None:
            hints.setdefault(column_range.column, value.wrapper)
    return hints


def partition_stats_records(
    partition: str, ranges: Sequence[ColumnRange], indexes: TableIndexes
) -> list[KeyedRecord]:
    """One record per indexed column that has a range among ``ranges`` (all of ``partition``)."""
    records: list[KeyedRecord] = []
    for column, column_ranges in by_column(ranges).items():
        if column not in indexes.columns:
            continue
        meta = _partition_meta(column, indexes)
        typed = [replace(_as_type(r, meta), file=partition) for r in column_ranges]
        records.append(partition_stats_record(partition, merge_all(typed)))
    return records


def _partition_meta(column: str, indexes: TableIndexes) -> ValueMeta:
    if indexes.partition_stats_version is IndexVersion.V1:
        return V1
    meta = indexes.column_types.get(column)
    if meta is None:
        raise UnsupportedTableError(f"indexed column {column!r} is not in the table schema")
    return meta


def _as_type(column_range: ColumnRange, meta: ValueMeta) -> ColumnRange:
    """``standardizeJavaTypeAndPromote``, for the one case maintainer supports: no change."""
    if column_range.meta != meta and not (meta.is_v1 and column_range.meta.is_v1):
        raise UnsupportedTableError(
            f"column {column_range.column!r} of {column_range.file} is typed {column_range.meta.type.name} "
            f"but the table schema types it {meta.type.name}",
            hint="leave this table's metadata table to Hudi's own services (its schema evolved)",
        )
    return replace(column_range, meta=meta)
