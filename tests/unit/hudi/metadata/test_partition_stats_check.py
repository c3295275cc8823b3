"""``partition_stats`` must cover the aggregate of each partition's latest column stats (the
records here are built by the writer's own record builders)."""

from __future__ import annotations

from dataclasses import replace

from maintainer.hudi.metadata.findings import REBUILD_HINT
from maintainer.hudi.metadata.partition_stats_check import check_partition_stats, uncovered
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.build import column_stats_record, partition_stats_record
from maintainer.hudi.metadata.updates.indexes import TableIndexes
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.values import IndexVersion, ValueMeta, ValueType, Wrapped

LONG = ValueMeta(ValueType.LONG)
STRING = ValueMeta(ValueType.STRING)
INDEXES = TableIndexes(
    partitions=frozenset({"files", "column_stats", "partition_stats"}),
    columns=("n",),
    column_stats_version=IndexVersion.V2,
    partition_stats_version=IndexVersion.V2,
    column_types={"n": LONG},
)
PARTITION = "p=1"
FILES = ("f1.parquet", "f2.parquet")


def long_range(name: str, low: int | None, high: int | None, nulls: int, values: int) -> ColumnRange:
    return ColumnRange(name, "n", _long(low), _long(high), nulls, values, 10 * values, 20 * values, LONG)


def _long(value: int | None) -> Wrapped | None:
    return None if value is None else Wrapped("LongWrapper", value)


def column_stats(*ranges: ColumnRange) -> dict[str, MetadataRecord]:
    return dict(column_stats_record(PARTITION, r) for r in ranges)


def partition_stats(column_range: ColumnRange) -> dict[str, MetadataRecord]:
    return dict([partition_stats_record(PARTITION, replace(column_range, file=PARTITION))])


FILE_RANGES = (long_range("f1.parquet", 3, 9, 1, 5), long_range("f2.parquet", 1, 4, 0, 2))
AGGREGATE = long_range(PARTITION, 1, 9, 1, 7)


def test_the_tight_aggregate_and_a_looser_bound_both_cover() -> None:
    stats = column_stats(*FILE_RANGES)
    tight = check_partition_stats({PARTITION: FILES}, stats, partition_stats(AGGREGATE), INDEXES)
    assert tight.findings == () and tight.compared == 1
    looser = long_range(PARTITION, 0, 12, 2, 9)  # Hudi's, counting files a compaction replaced
    assert check_partition_stats({PARTITION: FILES}, stats, partition_stats(looser), INDEXES).findings == ()


def test_a_bound_that_leaves_values_out_is_named_with_partition_column_and_values() -> None:
    stats = column_stats(*FILE_RANGES)
    narrow = long_range(PARTITION, 2, 8, 0, 6)
    (finding,) = check_partition_stats({PARTITION: FILES}, stats, partition_stats(narrow), INDEXES).findings
    assert finding.partition == "partition_stats" and finding.where == "partition p=1 column 'n'"
    assert "min 2 is above its files' smallest value 1" in finding.problem
    assert "max 8 is below its files' largest value 9" in finding.problem
    assert "null count 0 is below its files' 1" in finding.problem
    assert "value count 6 is below its files' 7" in finding.problem
    assert finding.describe().endswith(f"({REBUILD_HINT})")


def test_only_the_latest_files_count() -> None:
    """A file of the partition's records that is not in the latest slices (replaced) is not
    part of the aggregate."""
    stats = column_stats(*FILE_RANGES, long_range("old.parquet", -50, 50, 9, 90))
    check = check_partition_stats({PARTITION: FILES}, stats, partition_stats(AGGREGATE), INDEXES)
    assert check.findings == ()


def test_a_missing_or_deleted_record_is_left_to_the_presence_check() -> None:
    stats = column_stats(*FILE_RANGES)
    assert check_partition_stats({PARTITION: FILES}, stats, {}, INDEXES).compared == 0
    deleted = dict([partition_stats_record(PARTITION, AGGREGATE, deleted=True)])
    assert check_partition_stats({PARTITION: FILES}, stats, deleted, INDEXES).findings == ()


def test_an_all_null_range_typed_null_takes_the_column_type() -> None:
    """A log file of nulls only has statistics typed NULL; Hudi promotes them to the column's
    type, so they are merged, not refused."""
    nulls = ColumnRange("f3.log", "n", None, None, 4, 4, 1, 1, ValueMeta(ValueType.NULL))
    stats = column_stats(*FILE_RANGES, nulls)
    stored = partition_stats(long_range(PARTITION, 1, 9, 5, 11))
    check = check_partition_stats({PARTITION: (*FILES, "f3.log")}, stats, stored, INDEXES)
    assert check.findings == () and check.compared == 1 and check.not_compared == ()
    short = partition_stats(long_range(PARTITION, 1, 9, 1, 7))
    (finding,) = check_partition_stats({PARTITION: (*FILES, "f3.log")}, stats, short, INDEXES).findings
    assert "null count 1 is below its files' 5" in finding.problem


def test_statistics_typed_otherwise_than_the_schema_are_not_compared() -> None:
    typed = replace(
        FILE_RANGES[0], min=Wrapped("StringWrapper", "3"), max=Wrapped("StringWrapper", "9"), meta=STRING
    )
    check = check_partition_stats(
        {PARTITION: FILES[:1]}, column_stats(typed), partition_stats(AGGREGATE), INDEXES
    )
    assert check.findings == () and check.compared == 0
    assert check.not_compared[0].startswith("partition_stats of partition p=1 column 'n' (")


def test_uncovered_ignores_missing_values_and_other_wrappers() -> None:
    expected = long_range(PARTITION, 1, 9, 0, 1)
    assert uncovered(long_range(PARTITION, None, None, 0, 1), expected) == ""
    other = replace(expected, min=Wrapped("IntWrapper", 5))
    assert uncovered(other, expected) == ""
