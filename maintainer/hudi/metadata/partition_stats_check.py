"""``partition_stats`` against the aggregate of each partition's latest column stats, built by
the code that writes partition stats for maintainer's compactions
(:func:`.updates.partition_stats.partition_stats_records` over
:func:`.updates.partition_stats.stored_ranges` of the files of the latest merged slices).

Hudi's own partition statistics are a bound, not always the tight aggregate: after a
compaction, a clustering or an overwrite they still count the replaced files (the fixtures'
``region=apac`` of ``sample_table_mor_avro_v9_txns_simple_meta`` counts 8 values for 4 live ones)
although they are marked ``isTightBound``. So each stored record must *cover* the aggregate:
its min at most the smallest min, its max at least the largest max, and its null and value
counts at least the sums. A record that does not lets partition pruning skip a partition that
holds matching rows (wrong query results). Presence is checked by :mod:`.column_stats`.

A column whose files' statistics are typed otherwise than the table schema types it (an
evolved schema, which Hudi converts and maintainer does not) is left uncompared, as are
values of different wrappers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.findings import IndexFinding
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.indexes import PARTITION_STATS, TableIndexes
from maintainer.hudi.metadata.updates.partition_stats import partition_stats_records, stored_ranges
from maintainer.hudi.metadata.updates.ranges import ColumnRange, by_column
from maintainer.hudi.metadata.updates.stored import stored_range
from maintainer.hudi.metadata.updates.values import ValueMeta, ValueType, Wrapped, order_key


@dataclass(frozen=True)
class PartitionStatsCheck:
    findings: tuple[IndexFinding, ...]
    compared: int
    """(partition, column) records compared."""
    not_compared: tuple[str, ...] = ()


def check_partition_stats(
    latest_files: Mapping[str, Collection[str]],
    column_stats: Mapping[str, MetadataRecord],
    partition_stats: Mapping[str, MetadataRecord],
    indexes: TableIndexes,
) -> PartitionStatsCheck:
    findings: list[IndexFinding] = []
    notes: list[str] = []
    compared = 0
    for partition, files in sorted(latest_files.items()):
        ranges = stored_ranges(partition, files, indexes, column_stats, {})
        for column, column_ranges in by_column(ranges).items():
            record = partition_stats.get(keys.partition_stats_key(column, partition))
            stored = stored_range(record) if record is not None else None
            if stored is None:
                continue  # none, or deleted: the presence check names it
            try:
                expected = _aggregate(partition, column_ranges, indexes)
            except UnsupportedTableError as exc:
                notes.append(f"partition_stats of {_where(partition)} column {column!r} ({exc.message})")
                continue
            if expected is None:
                continue
            compared += 1
            problem = uncovered(stored, expected)
            if problem:
                findings.append(
                    IndexFinding(PARTITION_STATS, f"{_where(partition)} column {column!r}", problem)
                )
    return PartitionStatsCheck(tuple(findings), compared, tuple(notes))


def _where(partition: str) -> str:
    return f"partition {partition or '(non-partitioned)'}"


def _aggregate(partition: str, ranges: list[ColumnRange], indexes: TableIndexes) -> ColumnRange | None:
    """The partition stats Hudi writes for these files' ranges of one column (a range of
    all-null values, typed NULL, takes the column's type as Hudi's promotion does)."""
    target = indexes.column_types.get(ranges[0].column)
    typed = [_null_as(r, target) for r in ranges]
    records = partition_stats_records(partition, typed, indexes)
    return stored_range(records[0][1]) if records else None


def _null_as(column_range: ColumnRange, target: ValueMeta | None) -> ColumnRange:
    if target is None or column_range.meta.type is not ValueType.NULL:
        return column_range
    if column_range.min is not None or column_range.max is not None:
        return column_range
    return replace(column_range, meta=target)


def uncovered(stored: ColumnRange, expected: ColumnRange) -> str:
    """What of ``expected`` the stored range does not cover (empty: it covers all of it)."""
    parts = []
    if _before(expected.min, stored.min, expected.meta):
        parts.append(f"min {_shown(stored.min)} is above its files' smallest value {_shown(expected.min)}")
    if _before(stored.max, expected.max, expected.meta):
        parts.append(f"max {_shown(stored.max)} is below its files' largest value {_shown(expected.max)}")
    if stored.null_count < expected.null_count:
        parts.append(f"null count {stored.null_count} is below its files' {expected.null_count}")
    if stored.value_count < expected.value_count:
        parts.append(f"value count {stored.value_count} is below its files' {expected.value_count}")
    if not parts:
        return ""
    return (
        "the partition's statistics do not cover its latest files' column stats: "
        + "; ".join(parts)
        + " (partition pruning skips the partition for values it holds)"
    )


def _before(left: Wrapped | None, right: Wrapped | None, meta: ValueMeta) -> bool:
    """``left`` sorts strictly before ``right`` (a missing value or two wrappers: not compared)."""
    if left is None or right is None or left.wrapper != right.wrapper:
        return False
    return bool(order_key(left, meta) < order_key(right, meta))


def _shown(value: Wrapped | None) -> str:
    if value is None:
        return "none"
    return "0x" + value.value.hex()[:32] if isinstance(value.value, bytes) else repr(value.value)
