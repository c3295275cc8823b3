"""The typed, frozen settings of each table service, with Hudi's defaults (HUDI.md §5).

Option names are Hudi's config keys in snake_case. Every block also takes
``enabled`` (default true): a service runs for a table when its block is present
(from the defaults or the table itself) and not ``enabled: false``.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from maintainer.project.durations import DURATION_PATTERN, format_duration, parse_duration

Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema({"type": "string", "pattern": DURATION_PATTERN, "examples": ["30m", "1h", "7d"]}),
]
PositiveInt = Annotated[int, Field(ge=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]
INSTANT_PATTERN = r"^\d{14}(\d{3})?$"


class FrozenModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class RollbackSpec(FrozenModel):
    """Roll back failed writes (pending commits and deltacommits whose writer is gone)."""

    enabled: bool = True
    """false turns the service off for this table."""
    failed_writes_policy: Literal["eager", "lazy"] = "eager"
    """hoodie.clean.failed.writes.policy: eager rolls back every pending write older than min_age;
    lazy only those whose heartbeat expired."""
    min_age: Duration = timedelta(hours=1)
    """A pending write younger than this is never rolled back, whatever the policy. The default (1h)
    leaves a writer that is still running alone; 0s rolls back like Hudi's eager writer."""
    heartbeat_interval_ms: PositiveInt = 60000
    """hoodie.client.heartbeat.interval_in_ms."""
    heartbeat_tolerable_misses: NonNegativeInt = 2
    """hoodie.client.heartbeat.tolerable.misses: a heartbeat older than interval x misses has expired."""

    @property
    def heartbeat_expiry_ms(self) -> int:
        return self.heartbeat_interval_ms * self.heartbeat_tolerable_misses


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
    partition_regex: str | None = None
    """Partitions to compact, for name: partition_regex (Python regular expression, full match)."""

    @field_validator("partition_regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"'{value}' is not a valid regular expression: {exc}") from exc
        return value


PARQUET_CODEC_LEVELS = {"gzip": (1, 9), "zstd": (1, 22), "snappy": None, "uncompressed": None}
"""The codecs ``compaction.parquet_compression`` takes (Hudi's names) and their level ranges."""


def parse_parquet_compression(text: str) -> tuple[str, int | None]:
    """``codec`` or ``codec:level`` (e.g. ``gzip``, ``zstd:3``) as (codec, level or None)."""
    codec, _, level_text = text.strip().lower().partition(":")
    codecs = ", ".join(PARQUET_CODEC_LEVELS)
    if codec not in PARQUET_CODEC_LEVELS:
        raise ValueError(f"'{text}' is not a Parquet codec maintainer writes: use one of {codecs}")
    if not level_text:
        return codec, None
    levels = PARQUET_CODEC_LEVELS[codec]
    if levels is None:
        raise ValueError(f"'{text}': {codec} takes no level (levels: gzip:1-9, zstd:1-22)")
    if not level_text.isdigit() or not levels[0] <= int(level_text) <= levels[1]:
        raise ValueError(
            f"'{text}': the {codec} level must be a whole number from {levels[0]} to {levels[1]}"
        )
    return codec, int(level_text)


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


CleanPolicy = Literal["keep_latest_commits", "keep_latest_file_versions", "keep_latest_by_hours"]
POLICY_BY_RETAINED_KEY = {
    "file_versions_retained": "keep_latest_file_versions",
    "hours_retained": "keep_latest_by_hours",
    "commits_retained": "keep_latest_commits",
}


class CleanSpec(FrozenModel):
    """Delete file slices no query needs any more. Without a policy, it is inferred (as Hudi does)
    from the one *_retained option given, else keep_latest_commits."""

    enabled: bool = True
    policy: CleanPolicy = "keep_latest_commits"
    """hoodie.clean.policy."""
    commits_retained: PositiveInt = 10
    """hoodie.clean.commits.retained."""
    file_versions_retained: PositiveInt = 3
    """hoodie.clean.fileversions.retained."""
    hours_retained: PositiveInt = 24
    """hoodie.clean.hours.retained."""
    incremental: bool = True
    """hoodie.cleaner.incremental.mode."""
    trigger_strategy: Literal["num_commits"] = "num_commits"
    """hoodie.clean.trigger.strategy (NUM_COMMITS is Hudi's only one)."""
    max_commits: PositiveInt = 1
    """hoodie.clean.max.commits: completed commits since the last clean's last completed commit
    needed before a new clean is planned."""

    @model_validator(mode="before")
    @classmethod
    def _infer_policy(cls, data: Any) -> Any:
        if isinstance(data, dict) and "policy" not in data:
            given = [key for key in POLICY_BY_RETAINED_KEY if key in data]
            if len(given) == 1:
                return {**data, "policy": POLICY_BY_RETAINED_KEY[given[0]]}
        return data


class MetadataSpec(FrozenModel):
    """Keep the metadata table healthy as Hudi's metadata writer does after its writes: clean it,
    compact it and archive its timeline (only tables with ``metadata_table: sync`` and a metadata
    table; the plan leaves the node out for the others). The data table's archival never goes
    past the metadata table's latest compaction, so without this a table only maintainer
    maintains stops archiving."""

    enabled: bool = True
    compact_max_delta_commits: PositiveInt = 10
    """hoodie.metadata.compact.max.delta.commits: compact once this many deltacommits have
    completed since the last compaction. The clean and archival settings are derived from the
    table's own ``clean`` and ``archive`` blocks as Hudi's metadata write config derives them
    (retention 1.2 times the table's, at least 20 commits; keep_min/max_commits + 1)."""


class ArchiveSpec(FrozenModel):
    """Move old instants from the active timeline to the archived timeline."""

    enabled: bool = True
    keep_min_commits: PositiveInt = 20
    """hoodie.keep.min.commits."""
    keep_max_commits: PositiveInt = 30
    """hoodie.keep.max.commits."""
    archive_beyond_savepoint: bool = False
    """hoodie.archive.beyond.savepoint."""


class RollingSavepoints(FrozenModel):
    """A savepoint on the latest completed commit once every ``every``; the newest ``keep`` rolling
    savepoints are kept and older ones (not listed in ``instants``) are deleted."""

    every: Duration = timedelta(days=1)
    keep: PositiveInt = 7

    @field_validator("every")
    @classmethod
    def _at_least_a_minute(cls, value: timedelta) -> timedelta:
        if value < timedelta(minutes=1):
            raise ValueError("rolling savepoints need 'every' of at least 1m")
        return value


InstantTime = Annotated[
    str,
    BeforeValidator(
        lambda value: str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    ),
    Field(pattern=INSTANT_PATTERN),
]


class SavepointsSpec(FrozenModel):
    """The savepoints the table must have: fixed instants (completed commit times) and/or a rolling one."""

    enabled: bool = True
    instants: tuple[InstantTime, ...] = ()
    """Instant times (yyyyMMddHHmmss[SSS]) of completed commits that must stay savepointed."""
    rolling: RollingSavepoints | None = None

    @field_validator("instants")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({item for item in value if value.count(item) > 1})
        if repeated:
            raise ValueError(f"instant {repeated[0]} is listed twice")
        return value


ServiceSpec = RollbackSpec | CompactionSpec | CleanSpec | ArchiveSpec | SavepointsSpec
