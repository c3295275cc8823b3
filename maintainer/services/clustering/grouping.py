"""Candidates and groups of a clustering (Hudi's ``ClusteringPlanStrategy
.getFileSlicesEligibleForClustering``, ``SparkSizeBasedClusteringPlanStrategy`` and
``PartitionAwareClusteringPlanStrategy.buildClusteringGroupsForPartition``):

* candidates: the latest slice of every file group that is not replaced and not under a pending
  compaction, log compaction or clustering, whose base file is smaller than
  ``small_file_limit`` (a slice of log files only always qualifies; log sizes do not count);
* per partition: the slices sorted by size, largest first, ties in listing order (a slice
  without a base file counts as ``parquet_max_file_size``); a group is closed before the slice
  that would take it over ``max_bytes_per_group``, into ``ceil(total / target_file_max_bytes)``
  new file groups, and the walk stops once the partition has ``max_num_groups``; the last open
  group is kept if it has more than one slice, or ``single_group_clustering`` is on, or sort
  columns are set;
* each group's metrics as Hudi's ``FileSliceMetricUtils`` counts them (whole MB of the group's
  totals).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from maintainer.artifact.model import ClusterGroup, ClusterSlice, SliceFile
from maintainer.hudi.file_groups.filemodel import FileGroup, FileSlice
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.payloads.compaction import (
    METRIC_TOTAL_IO_MB,
    METRIC_TOTAL_IO_READ_MB,
    METRIC_TOTAL_IO_WRITE_MB,
    METRIC_TOTAL_LOG_FILES,
    METRIC_TOTAL_LOG_FILES_SIZE,
)
from maintainer.services.clustering.model import LeftOutSlice
from maintainer.services.clustering.settings import ClusteringSpec, MiB
from maintainer.units import count, human_bytes

METRICS_ORDER = (
    METRIC_TOTAL_LOG_FILES,
    METRIC_TOTAL_IO_MB,
    METRIC_TOTAL_IO_READ_MB,
    METRIC_TOTAL_LOG_FILES_SIZE,
    METRIC_TOTAL_IO_WRITE_MB,
)
"""The order real Hudi plans hold a group's metrics in (Java HashMap order)."""


@dataclass(frozen=True)
class PartitionCandidates:
    """A partition's eligible slices in listing order, and what was left out before grouping."""

    slices: tuple[ClusterSlice, ...] = ()
    left_out: tuple[LeftOutSlice, ...] = ()
    large: int = 0
    """Latest slices whose base file is at or above the small-file limit."""


@dataclass(frozen=True)
class PartitionGroups:
    groups: tuple[ClusterGroup, ...] = ()
    capped: tuple[ClusterSlice, ...] = field(default=())
    """Slices not grouped because the partition reached ``max_num_groups``."""
    dropped_single: ClusterSlice | None = None
    """The last group's single slice, not rewritten alone (single_group_clustering off)."""


def _slice_record(latest: FileSlice) -> ClusterSlice:
    base = latest.base_file
    return ClusterSlice(
        file_id=latest.file_id,
        base_instant=latest.base_instant,
        base_file=SliceFile(name=base.name, size=base.size) if base is not None else None,
        log_files=tuple(SliceFile(name=f.name, size=f.size) for f in latest.log_files),
    )


def _why_not(latest: FileSlice, custom_merge: bool) -> str | None:
    base = latest.base_file
    if base is not None and base.name.endswith(".lance"):
        return "Lance base file: maintainer cannot rewrite Lance files"
    if custom_merge and latest.log_files:
        return (
            "log files of a table with a custom merger or payload class (merge mode CUSTOM), "
            "which maintainer cannot merge"
        )
    return None


def _latest_with_files(group: FileGroup) -> FileSlice | None:
    """The newest slice that has files (a pending compaction opens an empty one)."""
    return next((s for s in group.slices_newest_first() if not s.is_empty), None)


def _is_large(group: FileGroup, spec: ClusteringSpec) -> bool:
    latest = _latest_with_files(group)
    base = latest.base_file if latest is not None else None
    return base is not None and base.size >= spec.small_file_limit


PROJECTED_REASON = (
    "rewritten by this plan's compaction first (its new base file is projected): clustered by a later plan"
)


def _candidate(
    group: FileGroup,
    view: FileSystemView,
    spec: ClusteringSpec,
    custom_merge: bool,
    projected: frozenset[str] = frozenset(),
) -> ClusterSlice | LeftOutSlice | None:
    """The group's latest slice if it qualifies, a reason if it is left out, None if too large."""
    latest = _latest_with_files(group)
    if latest is None:
        return None
    base = latest.base_file
    if base is not None and base.size >= spec.small_file_limit:
        return None
    pending = view.inputs.pending_operation((group.partition, group.file_id))
    if pending is not None:
        reason = f"file group is in the pending {pending.action} {pending.instant_time}"
        return LeftOutSlice(group.partition, group.file_id, reason)
    if latest is not group.latest_slice:
        return None
    if latest.base_instant in projected:
        return LeftOutSlice(group.partition, group.file_id, PROJECTED_REASON)
    why = _why_not(latest, custom_merge)
    if why is not None:
        return LeftOutSlice(group.partition, group.file_id, why)
    return _slice_record(latest)


def partition_candidates(
    view: FileSystemView,
    partition: str,
    spec: ClusteringSpec,
    custom_merge: bool,
    projected: frozenset[str] = frozenset(),
) -> PartitionCandidates:
    """The eligible latest slices of one partition (replaced file groups are not in the view);
    ``projected``: instants that exist only in the plan's projection (a slice based on one is
    written by an earlier node of the plan, its real file names and sizes unknown)."""
    slices: list[ClusterSlice] = []
    left_out: list[LeftOutSlice] = []
    large = 0
    groups = view.file_groups(partition) if partition in view.groups else []
    for group in groups:
        found = _candidate(group, view, spec, custom_merge, projected)
        if isinstance(found, ClusterSlice):
            slices.append(found)
        elif isinstance(found, LeftOutSlice):
            left_out.append(found)
        else:
            large += _is_large(group, spec)
    return PartitionCandidates(tuple(slices), tuple(left_out), large)


def plan_size(piece: ClusterSlice, spec: ClusteringSpec) -> int:
    """The size Hudi sorts and sums a slice by: its base file, else ``parquet_max_file_size``."""
    return piece.base_file.size if piece.base_file is not None else spec.parquet_max_file_size


def group_metrics(slices: Sequence[ClusterSlice], spec: ClusteringSpec) -> dict[str, float]:
    """Hudi's group metrics: whole MB (integer division) of the group's totals, log size in bytes."""
    log_sizes = [f.size for s in slices for f in s.log_files]
    base_total = sum(s.base_file.size for s in slices if s.base_file is not None)
    log_total = sum(size for size in log_sizes if size >= 0)
    read_mb = (base_total + log_total) // MiB
    write_mb = sum(plan_size(s, spec) for s in slices) // MiB
    values = {
        METRIC_TOTAL_LOG_FILES: float(len(log_sizes)),
        METRIC_TOTAL_IO_MB: float(read_mb + write_mb),
        METRIC_TOTAL_IO_READ_MB: float(read_mb),
        METRIC_TOTAL_LOG_FILES_SIZE: float(log_total),
        METRIC_TOTAL_IO_WRITE_MB: float(write_mb),
    }
    return {key: values[key] for key in METRICS_ORDER}


def _group_reason(slices: Sequence[ClusterSlice], outputs: int, spec: ClusteringSpec) -> str:
    small = [s for s in slices if s.base_file is not None]
    log_only = len(slices) - len(small)
    parts = []
    if small:
        limit = human_bytes(spec.small_file_limit)
        parts.append(f"{count(len(small), 'file slice')} under the {limit} small-file limit")
    if log_only:
        parts.append(f"{count(log_only, 'slice')} of log files only")
    total = sum(s.input_bytes for s in slices)
    target = f"{count(outputs, 'file group')} of at most {human_bytes(spec.target_file_max_bytes)}"
    order = f", sorted by {', '.join(spec.sort_columns)} ({spec.layout})" if spec.sort_columns else ""
    return f"{' and '.join(parts)}, {human_bytes(total)}, into {target}{order}"


def make_group(partition: str, slices: Sequence[ClusterSlice], spec: ClusteringSpec) -> ClusterGroup:
    total = sum(plan_size(s, spec) for s in slices)
    outputs = math.ceil(total / spec.target_file_max_bytes)
    return ClusterGroup(
        partition=partition,
        slices=tuple(slices),
        num_output_file_groups=outputs,
        metrics=group_metrics(slices, spec),
        reason=_group_reason(slices, outputs, spec),
    )


def _keeps_single(spec: ClusteringSpec) -> bool:
    """Hudi's ``shouldClusteringSingleGroup``."""
    return spec.single_group_clustering or bool(spec.sort_columns)


def build_groups(partition: str, slices: Sequence[ClusterSlice], spec: ClusteringSpec) -> PartitionGroups:
    """One partition's groups, as Hudi's size-based strategy builds them."""
    ordered = sorted(slices, key=lambda s: plan_size(s, spec), reverse=True)  # stable: ties keep order
    closed: list[list[ClusterSlice]] = []
    current: list[ClusterSlice] = []
    total = 0
    for index, piece in enumerate(ordered):
        size = plan_size(piece, spec)
        if current and total + size > spec.max_bytes_per_group:
            closed.append(current)
            current, total = [], 0
            if len(closed) >= spec.max_num_groups:
                return PartitionGroups(
                    tuple(make_group(partition, g, spec) for g in closed), tuple(ordered[index:])
                )
        current.append(piece)
        total += size
    dropped = None
    if current:
        if len(current) > 1 or _keeps_single(spec):
            closed.append(current)
        else:
            dropped = current[0]
    return PartitionGroups(tuple(make_group(partition, g, spec) for g in closed), (), dropped)
