"""Compaction settings: when a compaction is scheduled (trigger) and which slices it takes
(strategy), with Hudi's names and defaults (HUDI.md §5), mapped from the manifest."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from maintainer.project.services import CompactionSpec

MB = 1024 * 1024
DEFAULT_PARQUET_MAX_FILE_SIZE = 120 * MB
"""hoodie.parquet.max.file.size: the write size Hudi assumes for a slice without a base file."""


class TriggerStrategy(str, Enum):
    """hoodie.compact.inline.trigger.strategy."""

    NUM_COMMITS = "num_commits"
    NUM_COMMITS_AFTER_LAST_REQUEST = "num_commits_after_last_request"
    TIME_ELAPSED = "time_elapsed"
    NUM_AND_TIME = "num_and_time"
    NUM_OR_TIME = "num_or_time"


class StrategyName(str, Enum):
    """hoodie.compaction.strategy, by the short names of the manifest."""

    LOG_FILE_SIZE = "log_file_size"
    LOG_FILE_NUM = "log_file_num"
    BOUNDED_IO = "bounded_io"
    DAY_BASED = "day_based"
    UNBOUNDED = "unbounded"
    PARTITION_REGEX = "partition_regex"


_STRATEGY_PACKAGE = "org.apache.hudi.table.action.compact.strategy"
STRATEGY_CLASSES = {
    StrategyName.LOG_FILE_SIZE: f"{_STRATEGY_PACKAGE}.LogFileSizeBasedCompactionStrategy",
    StrategyName.LOG_FILE_NUM: f"{_STRATEGY_PACKAGE}.LogFileNumBasedCompactionStrategy",
    StrategyName.BOUNDED_IO: f"{_STRATEGY_PACKAGE}.BoundedIOCompactionStrategy",
    StrategyName.DAY_BASED: f"{_STRATEGY_PACKAGE}.DayBasedCompactionStrategy",
    StrategyName.UNBOUNDED: f"{_STRATEGY_PACKAGE}.UnBoundedCompactionStrategy",
    StrategyName.PARTITION_REGEX: f"{_STRATEGY_PACKAGE}.PartitionRegexBasedCompactionStrategy",
}
"""The Hudi class each strategy mirrors (named in plan reasons)."""


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """The compaction options the planner needs (names and defaults are Hudi's)."""

    trigger: TriggerStrategy = TriggerStrategy.NUM_COMMITS
    max_delta_commits: int = 5
    """hoodie.compact.inline.max.delta.commits."""
    max_delta_seconds: int = 3600
    """hoodie.compact.inline.max.delta.seconds."""
    strategy: StrategyName = StrategyName.LOG_FILE_SIZE
    target_io_mb: int = 512000
    """hoodie.compaction.target.io."""
    log_file_size_threshold: int = 0
    """hoodie.compaction.logfile.size.threshold (bytes)."""
    log_file_num_threshold: int = 0
    """hoodie.compaction.logfile.num.threshold."""
    target_partitions: int = 10
    """hoodie.compaction.daybased.target.partitions."""
    partition_regex: str | None = None
    """Partitions to compact (full match) for the partition_regex strategy."""
    parquet_max_file_size: int = DEFAULT_PARQUET_MAX_FILE_SIZE

    @classmethod
    def from_spec(cls, spec: CompactionSpec) -> CompactionSettings:
        trigger, strategy = spec.trigger, spec.strategy
        return cls(
            trigger=TriggerStrategy(trigger.strategy),
            max_delta_commits=trigger.max_delta_commits,
            max_delta_seconds=trigger.max_delta_seconds,
            strategy=StrategyName(strategy.name),
            target_io_mb=strategy.target_io_mb,
            log_file_size_threshold=strategy.log_file_size_threshold,
            log_file_num_threshold=strategy.log_file_num_threshold,
            target_partitions=strategy.target_partitions,
            partition_regex=strategy.partition_regex,
        )

    @property
    def strategy_class(self) -> str:
        return STRATEGY_CLASSES[self.strategy]
