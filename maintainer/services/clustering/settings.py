"""The manifest's ``clustering`` block (:class:`ClusteringSpec`): when a clustering is scheduled
and which small file slices it rewrites together, with Hudi's names and defaults
(``HoodieClusteringConfig``, ``SparkSizeBasedClusteringPlanStrategy``), the rules the options
keep with each other (:func:`clustering_rules`), and the one-line description of the partitions a
clustering may touch (:func:`describe_partition_rule`).

Sizes are written as in the gates (``300MiB``, ``2GiB`` or a byte count); durations as
everywhere else (``2d``, ``6h``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from maintainer.catalog import RuleBreach
from maintainer.project.durations import format_duration
from maintainer.project.gates import ByteSize
from maintainer.project.models import TableSpec
from maintainer.project.settings_types import Duration, FrozenModel, NonNegativeInt, PositiveInt, RegexPattern

MiB = 1024 * 1024
GiB = 1024 * MiB
DEFAULT_SMALL_FILE_LIMIT = 300 * MiB
"""hoodie.clustering.plan.strategy.small.file.limit."""
DEFAULT_MAX_BYTES_PER_GROUP = 2 * GiB
"""hoodie.clustering.plan.strategy.max.bytes.per.group."""
DEFAULT_TARGET_FILE_MAX_BYTES = 1 * GiB
"""hoodie.clustering.plan.strategy.target.file.max.bytes."""
DEFAULT_PARQUET_MAX_FILE_SIZE = 120 * MiB
"""hoodie.parquet.max.file.size: the size Hudi counts for a slice without a base file."""

PositiveByteSize = Annotated[ByteSize, Field(ge=1)]
Layout = Literal["linear", "z-order", "hilbert"]
PartitionFilterMode = Literal["none", "recent_days", "selected_partitions"]


class ClusteringSpec(FrozenModel):
    """Rewrite small file slices of a partition together into fewer, larger file groups
    (Hudi's clustering: a ``replacecommit`` that replaces the input file groups)."""

    enabled: bool = True
    max_commits: NonNegativeInt = 4
    """hoodie.clustering.inline.max.commits / hoodie.clustering.async.max.commits: a clustering
    is scheduled once at least this many commits completed after the last clustering. 0: plan
    whenever there are slices to cluster (as Hudi's run_clustering does, which has no trigger)."""
    small_file_limit: ByteSize = DEFAULT_SMALL_FILE_LIMIT
    """hoodie.clustering.plan.strategy.small.file.limit: a slice whose base file is smaller is
    clustered (a slice of log files only always is)."""
    max_bytes_per_group: PositiveByteSize = DEFAULT_MAX_BYTES_PER_GROUP
    """hoodie.clustering.plan.strategy.max.bytes.per.group: slices rewritten together."""
    target_file_max_bytes: PositiveByteSize = DEFAULT_TARGET_FILE_MAX_BYTES
    """hoodie.clustering.plan.strategy.target.file.max.bytes: the size of each new file."""
    max_num_groups: PositiveInt = 30
    """hoodie.clustering.plan.strategy.max.num.groups: groups per partition and per clustering."""
    single_group_clustering: bool = True
    """hoodie.clustering.plan.strategy.single.group.clustering.enabled: a partition's last group
    is rewritten even when it is a single slice."""
    sort_columns: tuple[str, ...] = ()
    """hoodie.clustering.plan.strategy.sort.columns: rows of the new files are ordered by these."""
    layout: Layout = "linear"
    """hoodie.layout.optimize.strategy: linear (a plain sort), z-order or hilbert (space-filling
    curves over two or more sort columns)."""
    partition_filter_mode: PartitionFilterMode = "none"
    """hoodie.clustering.plan.partition.filter.mode."""
    lookback_partitions: NonNegativeInt = 2
    """hoodie.clustering.plan.strategy.daybased.lookback.partitions (recent_days; 0: all)."""
    skip_from_latest_partitions: NonNegativeInt = 0
    """hoodie.clustering.plan.strategy.daybased.skipfromlatest.partitions (recent_days)."""
    begin_partition: str | None = None
    """hoodie.clustering.plan.strategy.cluster.begin.partition (selected_partitions, inclusive)."""
    end_partition: str | None = None
    """hoodie.clustering.plan.strategy.cluster.end.partition (selected_partitions, inclusive)."""
    partition_regex: RegexPattern | None = None
    """hoodie.clustering.plan.strategy.partition.regex.pattern: partitions whose whole path
    matches this regular expression."""
    partitions: tuple[str, ...] = ()
    """hoodie.clustering.plan.strategy.partition.selected: exactly these partitions."""
    parquet_max_file_size: PositiveByteSize = DEFAULT_PARQUET_MAX_FILE_SIZE
    """hoodie.parquet.max.file.size: the size a slice of log files only counts for."""
    skip_partitions_written_within: Duration | None = None
    """Leave out partitions that a commit, deltacommit or replacecommit wrote within this long
    before planning (e.g. 2d): Hudi writers (default update strategy) fail an upsert into a file
    group under a pending clustering, so partitions still written to are better left alone."""

    @field_validator("sort_columns")
    @classmethod
    def _column_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for column in value:
            if not column.strip() or "," in column:
                raise ValueError(f"'{column}' is not a column name: give one column per list item")
        duplicated = sorted({c for c in value if value.count(c) > 1})
        if duplicated:
            raise ValueError(f"sort column(s) {', '.join(duplicated)} given more than once")
        return value

    @field_validator("partitions")
    @classmethod
    def _partition_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for partition in value:
            if "," in partition or partition != partition.strip("/"):
                raise ValueError(
                    f"'{partition}' is not a partition path: give one relative path per list item "
                    "(e.g. 'region=eu', 'dt=2024-01-15')"
                )
        return value


def _layout_breaches(spec: ClusteringSpec) -> list[RuleBreach]:
    if spec.layout == "linear":
        return []
    if not spec.sort_columns:
        return [
            RuleBreach(
                f"clustering.layout {spec.layout} orders rows by the sort columns, but sort_columns is empty",
                "add 'sort_columns: [<column>, <column>]' or set layout: linear",
                (("clustering", "layout"), ("clustering", "sort_columns"), ("clustering",)),
            )
        ]
    if len(spec.sort_columns) == 1:
        return [
            RuleBreach(
                f"clustering.layout {spec.layout} needs at least two sort_columns (a space-filling "
                f"curve over one column is a plain sort)",
                "add a second sort column or set layout: linear",
                (("clustering", "sort_columns"), ("clustering", "layout"), ("clustering",)),
            )
        ]
    return []


def _selected_breaches(spec: ClusteringSpec) -> list[RuleBreach]:
    bounds = spec.begin_partition is not None or spec.end_partition is not None
    mode = spec.partition_filter_mode
    if bounds and mode != "selected_partitions":
        return [
            RuleBreach(
                f"clustering.begin_partition / end_partition are only used with partition_filter_mode: "
                f"selected_partitions (it is {mode})",
                "set partition_filter_mode: selected_partitions or remove begin_partition and end_partition",
                (("clustering", "begin_partition"), ("clustering", "end_partition"), ("clustering",)),
            )
        ]
    if mode == "selected_partitions" and not bounds:
        return [
            RuleBreach(
                "clustering.partition_filter_mode selected_partitions needs begin_partition and/or "
                "end_partition",
                "add 'begin_partition: <first partition>' and/or 'end_partition: <last partition>' "
                "(both inclusive)",
                (("clustering", "partition_filter_mode"), ("clustering",)),
            )
        ]
    begin, end = spec.begin_partition, spec.end_partition
    if begin is not None and end is not None and begin > end:
        return [
            RuleBreach(
                f"clustering.begin_partition '{begin}' comes after end_partition '{end}': no partition is "
                "between them",
                "swap them (partitions are compared as text, both bounds inclusive)",
                (("clustering", "begin_partition"), ("clustering", "end_partition"), ("clustering",)),
            )
        ]
    return []


def _regex_breaches(spec: ClusteringSpec) -> list[RuleBreach]:
    if spec.partitions and spec.partition_regex:
        return [
            RuleBreach(
                "clustering.partition_regex is not applied when clustering.partitions lists the partitions",
                "remove one of them: partitions names exactly the partitions to cluster",
                (("clustering", "partition_regex"), ("clustering", "partitions"), ("clustering",)),
            )
        ]
    return []


def clustering_breaches(spec: ClusteringSpec) -> list[RuleBreach]:
    """The rules a clustering block breaks across its options."""
    return [*_layout_breaches(spec), *_selected_breaches(spec), *_regex_breaches(spec)]


def clustering_rules(spec: TableSpec) -> list[RuleBreach]:
    """The catalog's table rule: :func:`clustering_breaches` of the table's clustering block."""
    clustering = spec.settings_of(ClusteringSpec)
    return clustering_breaches(clustering) if clustering is not None else []


def _mode_phrase(spec: ClusteringSpec) -> str:
    mode = spec.partition_filter_mode
    if mode == "recent_days":
        newest = (
            "all partitions"
            if spec.lookback_partitions == 0
            else f"the {spec.lookback_partitions} newest partitions"
        )
        skipped = (
            f" after skipping {spec.skip_from_latest_partitions}" if spec.skip_from_latest_partitions else ""
        )
        return f"{newest}{skipped} (recent_days)"
    if mode == "selected_partitions":
        begin, end = spec.begin_partition, spec.end_partition
        if begin is not None and end is not None:
            return f"partitions from '{begin}' to '{end}'"
        return f"partitions from '{begin}'" if begin is not None else f"partitions up to '{end}'"
    return "all partitions"


def _selection(spec: ClusteringSpec) -> str | None:
    if spec.partitions:
        more = len(spec.partitions) - 3
        return "the partitions " + ", ".join(spec.partitions[:3]) + (f" and {more} more" if more > 0 else "")
    return f"partitions matching {spec.partition_regex!r}" if spec.partition_regex else None


def describe_partition_rule(spec: ClusteringSpec) -> str:
    """Which partitions clustering may touch, in one line (``all partitions``, ``the 2 newest
    partitions after skipping 1 (recent_days)``, ``partitions not written within 2d``)."""
    selection, mode = _selection(spec), _mode_phrase(spec)
    if selection is None:
        text = mode
    elif spec.partition_filter_mode == "none":
        text = selection
    else:
        text = f"{mode} of {selection}"
    within = spec.skip_partitions_written_within
    if within is not None and within.total_seconds() > 0:
        if text == "all partitions":
            return f"partitions not written within {format_duration(within)}"
        return f"{text}, not written within {format_duration(within)}"
    return text
