"""Compaction strategies: partition filters, ordering and cut-off rules."""

from __future__ import annotations

from maintainer.artifact.model import CompactSlice
from maintainer.services.compaction.model import capture_metrics
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from maintainer.services.compaction.strategy import filter_partitions, order_and_filter, partition_date
from tests.support.plans import compact_slice, slice_file

MB = 1024 * 1024


def op(file_id: str, base_mb: int, log_sizes: list[int], partition: str = "p") -> CompactSlice:
    base = slice_file(f"{file_id}.parquet", base_mb * MB)
    logs = tuple(slice_file(f".{file_id}.log.{i}", s) for i, s in enumerate(log_sizes))
    return compact_slice(partition, file_id, "1", base, logs, capture_metrics(base, logs, 120 * MB))


def ids(ops: list[CompactSlice]) -> list[str]:
    return [o.file_id for o in ops]


def test_log_file_size_orders_by_log_size_desc_and_drops_below_threshold() -> None:
    settings = CompactionSettings(strategy=StrategyName.LOG_FILE_SIZE, log_file_size_threshold=100)
    chosen, left = order_and_filter([op("a", 1, [150]), op("b", 1, [50]), op("c", 1, [100, 300])], settings)
    assert ids(chosen) == ["c", "a"]
    assert [s.file_id for s in left] == ["b"] and "below" in left[0].reason


def test_log_file_size_is_bounded_by_target_io() -> None:
    settings = CompactionSettings(strategy=StrategyName.LOG_FILE_SIZE, target_io_mb=25)
    ops = [op("a", 10, [3]), op("b", 10, [2]), op("c", 10, [1])]
    chosen, left = order_and_filter(ops, settings)
    assert ids(chosen) == ["a", "b"] and [s.file_id for s in left] == ["c"]


def test_bounded_io_includes_the_operation_that_crosses_the_target() -> None:
    settings = CompactionSettings(strategy=StrategyName.BOUNDED_IO, target_io_mb=30)
    ops = [op("a", 10, [1]), op("b", 10, [1]), op("c", 10, [1])]  # 20 MB of IO each
    chosen, left = order_and_filter(ops, settings)
    assert ids(chosen) == ["a", "b"] and "target_io_mb" in left[0].reason


def test_bounded_io_stops_exactly_at_the_target() -> None:
    settings = CompactionSettings(strategy=StrategyName.BOUNDED_IO, target_io_mb=20)
    chosen, _ = order_and_filter([op("a", 10, [1]), op("b", 10, [1])], settings)
    assert ids(chosen) == ["a"]


def test_log_file_num_orders_by_log_count_and_drops_below_threshold() -> None:
    settings = CompactionSettings(strategy=StrategyName.LOG_FILE_NUM, log_file_num_threshold=2)
    chosen, left = order_and_filter([op("a", 1, [1, 1]), op("b", 1, [1]), op("c", 1, [1, 1, 1])], settings)
    assert ids(chosen) == ["c", "a"] and [s.file_id for s in left] == ["b"]


def test_day_based_keeps_the_newest_target_partitions() -> None:
    settings = CompactionSettings(strategy=StrategyName.DAY_BASED, target_partitions=2)
    parts = ["2024/01/03", "2024/01/10", "2023/12/31", "misc"]
    chosen, notes = filter_partitions(parts, settings)
    assert chosen == ["2024/01/10", "2024/01/03"] and len(notes) == 2


def test_day_based_strips_hive_style_keys_and_orders_newest_first() -> None:
    assert str(partition_date("year=2024/month=02/day=29")) == "2024-02-29"
    settings = CompactionSettings(strategy=StrategyName.DAY_BASED)
    chosen, _ = order_and_filter([op("a", 1, [1], "2024/01/01"), op("b", 1, [1], "2024/03/01")], settings)
    assert ids(chosen) == ["b", "a"]


def test_unbounded_takes_everything_in_order() -> None:
    settings = CompactionSettings(strategy=StrategyName.UNBOUNDED, target_io_mb=1)
    chosen, left = order_and_filter([op("a", 100, [1]), op("b", 100, [1])], settings)
    assert ids(chosen) == ["a", "b"] and not left


def test_partition_regex_keeps_full_matches_only() -> None:
    settings = CompactionSettings(strategy=StrategyName.PARTITION_REGEX, partition_regex="city=s.*")
    chosen, notes = filter_partitions(["city=sf", "city=la", "xcity=sf"], settings)
    assert chosen == ["city=sf"] and "2 partition(s)" in notes[0]
