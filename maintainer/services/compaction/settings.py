"""Compaction settings: when a compaction is scheduled (trigger) and which slices it takes
(strategy), with Hudi's names and defaults (HUDI.md §5): the manifest's ``compaction`` block
(:class:`CompactionSpec`) and what the planner reads of it (:class:`CompactionSettings`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from pydantic import field_validator

from maintainer.catalog import RuleBreach
from maintainer.hudi.parquet.codecs import parse_parquet_compression
from maintainer.project.models import TableSpec
from maintainer.project.settings_types import FrozenModel, NonNegativeInt, PositiveInt, RegexPattern


class CompactionTrigger(FrozenModel):
    """When a compaction is scheduled (hoodie.compact.inline.trigger.strategy and its limits)."""

    strategy: Literal[
        "num_commits", "num_commits_after_last_request", "time_elapsed", "num_and_time", "num_or_time"
    ] = "num_commits"
    max_delta_commits: PositiveInt = 5
    """hoodie.compact.inline.max.delta.commits."""
    max_delta_seconds: PositiveInt = 3600
    """hoodie.compact.inline.max.delta.seconds."""


class CompactionStrategy(FrozenModel):
    """Which file slices a compaction takes (hoodie.compaction.strategy and its options)."""

    name: Literal[
        "log_file_size", "log_file_num", "bounded_io", "day_based", "unbounded", "partition_regex"
    ] = "log_file_size"
    target_io_mb: PositiveInt = 512000
    """hoodie.compaction.target.io (MB read + written per compaction)."""
    log_file_size_threshold: NonNegativeInt = 0
    """hoodie.compaction.logfile.size.threshold (bytes)."""
    log_file_num_threshold: NonNegativeInt = 0
    """hoodie.compaction.logfile.num.threshold."""
    target_partitions: PositiveInt = 10
    """hoodie.compaction.daybased.target.partitions."""
    partition_regex: RegexPattern | None = None
    """Partitions to compact, for name: partition_regex (Python regular expression, full match)."""


class CompactionSpec(FrozenModel):
    """Compact merge-on-read file slices (base + logs into a new base file). MOR tables only."""

    enabled: bool = True
    trigger: CompactionTrigger = CompactionTrigger()
    strategy: CompactionStrategy = CompactionStrategy()
    parquet_compression: str | None = None
    """hoodie.parquet.compression.codec of new base files whose slice has no base file (or whose
    base file's codec maintainer cannot write): gzip, snappy, zstd or uncompressed, optionally with
    a level (gzip:1-9, zstd:1-22). A slice's base file keeps its codec (at this level when the codec
    is the same). Default: hoodie.properties' hoodie.parquet.compression.codec, else gzip."""

    @field_validator("parquet_compression")
    @classmethod
    def _known_codec(cls, value: str | None) -> str | None:
        if value is not None:
            codec, level = parse_parquet_compression(value)
            return codec if level is None else f"{codec}:{level}"
        return value


def compaction_rules(spec: TableSpec) -> list[RuleBreach]:
    """The partition_regex strategy and its regular expression go together."""
    compaction = spec.settings_of(CompactionSpec)
    if compaction is None:
        return []
    strategy, breaches = compaction.strategy, []
    if strategy.name == "partition_regex" and not strategy.partition_regex:
        breaches.append(
            RuleBreach(
                "compaction.strategy.name partition_regex needs strategy.partition_regex",
                "add 'partition_regex: <regular expression of the partitions to compact>'",
                (("compaction", "strategy", "name"), ("compaction",)),
            )
        )
    if strategy.partition_regex and strategy.name != "partition_regex":
        breaches.append(
            RuleBreach(
                f"compaction.strategy.partition_regex is only used with name: partition_regex "
                f"(name is {strategy.name})",
                "set strategy.name: partition_regex or remove partition_regex",
                (("compaction", "strategy", "partition_regex"), ("compaction",)),
            )
        )
    return breaches


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
