"""The clustering node's records: the groups of small file slices rewritten together into new
file groups (the planner's ``HoodieClusteringGroup``s, as approved), pending clusterings to
execute, and the node's effect.

A ``ClusterGroup`` is the one model of "a clustering group": the planner makes it, plan.json
stores it, apply rebuilds the ``HoodieClusteringPlan`` payload from the approved ones (with the
table's absolute paths, as Hudi writes them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.compaction import SliceFile, slice_target
from maintainer.artifact.model.records import PlanRecord

Layout = Literal["linear", "z-order", "hilbert"]
"""``hoodie.layout.optimize.strategy``: how rows are ordered by the sort columns."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterSlice(PlanRecord):
    """One input file slice of a group: the latest slice of its file group, as listed."""

    file_id: str
    base_instant: str
    base_file: SliceFile | None
    """None: a slice of log files only (sized as ``hoodie.parquet.max.file.size`` by the plan)."""
    log_files: tuple[SliceFile, ...]

    @property
    def input_bytes(self) -> int:
        return sum(f.size for f in self.log_files) + (self.base_file.size if self.base_file else 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterGroup(PlanRecord):
    """Slices of one partition rewritten together into ``num_output_file_groups`` new file
    groups (Hudi's ``HoodieClusteringGroup``), with Hudi's metrics and why."""

    kind: Literal["cluster_group"] = "cluster_group"
    partition: str
    slices: tuple[ClusterSlice, ...]
    num_output_file_groups: int
    metrics: Mapping[str, float]
    reason: str = ""

    @property
    def target(self) -> str:
        """``<partition>/<first file id>`` and how many more (a group is named by its first slice)."""
        first = slice_target(self.partition, self.slices[0].file_id if self.slices else "")
        more = len(self.slices) - 1
        return f"{first} (+{more} more)" if more > 0 else first

    @property
    def file_groups(self) -> frozenset[tuple[str, str]]:
        return frozenset((self.partition, s.file_id) for s in self.slices)

    @property
    def input_bytes(self) -> int:
        return sum(s.input_bytes for s in self.slices)


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutePendingClustering(PlanRecord):
    """A clustering already requested in the table (ours or Hudi's): executed first, as Hudi
    does, only if its requested file is still these bytes (``sha256``)."""

    kind: Literal["execute_pending_clustering"] = "execute_pending_clustering"
    target: str
    """The pending instant's time."""
    reason: str
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteringEffect(PlanRecord):
    kind: Literal["clustering"] = "clustering"
    pending_instants: tuple[str, ...]
    groups: int
    input_slices: int
    input_files: int
    input_bytes: int
    output_file_groups: int
    sort_columns: tuple[str, ...]
    layout: Layout
    partitions: tuple[str, ...]
    """The partitions the clustering rewrites."""
    writers: str
    """What a pending clustering means to Hudi writers of this table (the update strategy
    rejects upserts into its file groups until it completes)."""
    partition_rule: str
    """Which partitions clustering may touch, as the manifest says (``all partitions``)."""
    missing_schedule_partitions: tuple[str, ...] | None = None
    """The plan's ``missingSchedulePartitions``: partitions left for the next clustering (table
    version 8+); None on table version 6, whose plans have no such field."""
