"""What the clustering planner reads (:class:`ClusteringInputs`: the table's timeline and view,
and the few instant payloads clustering needs, decoded beforehand so the planner stays pure) and
what it produces (:class:`ClusteringPlanResult`: groups of small slices with Hudi's metrics and
why, pending clusterings to execute, slices left out and why, and the plan's outcome)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from maintainer.artifact.model import ClusterGroup, ClusteringEffect, Layout
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.instants.instant import State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.services.clustering.trigger import TriggerDecision

WRITERS_NOTE = (
    "while the clustering is pending, Hudi writers with the default update strategy "
    "(SparkRejectUpdateStrategy) fail upserts into its file groups, and new inserts avoid them"
)
"""What a pending clustering means to the table's other writers (shown in the plan)."""


@dataclass(frozen=True)
class ClusteringInputs:
    """The table state a clustering is planned on.

    ``requested``: instant time -> the decoded requested-replace payload of the pending
    clusterings and replacecommits, and of the completed ones back to the last clustering (None:
    an empty requested file). ``requested_sha256``: the same instants' requested bytes, hashed.
    ``unreadable``: timeline file -> why it could not be read. ``written_partitions``:
    completed commit time -> the partitions its write stats name, for the commits the incremental
    window and ``skip_partitions_written_within`` look at. ``table_uri``: the table's absolute
    URI as Hudi records paths (``file:/abs/path`` locally)."""

    timeline: Timeline
    view: FileSystemView
    config: TableConfig
    table_uri: str = ""
    requested: Mapping[str, RequestedReplaceMetadata | None] = field(default_factory=dict)
    requested_sha256: Mapping[str, str] = field(default_factory=dict)
    unreadable: Mapping[str, str] = field(default_factory=dict)
    written_partitions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    projected_instants: frozenset[str] = frozenset()
    """Instants that exist only in the plan's projection (earlier nodes of the plan write them):
    slices based on them are left for a later clustering."""


@dataclass(frozen=True, slots=True)
class PendingClustering:
    """A clustering already requested in the table: executed, not planned again."""

    instant_time: str
    state: State
    file_groups: frozenset[tuple[str, str]]
    groups: int
    sha256: str = ""
    """Of its requested file (apply executes it only if it is still these bytes)."""


@dataclass(frozen=True, slots=True)
class LeftOutSlice:
    """A latest file slice clustering leaves alone, and why (pending services, the group cap)."""

    partition: str
    file_id: str
    reason: str


class PlanStatus(str, Enum):
    SCHEDULE = "schedule"
    """A new clustering with the groups below."""
    EXECUTE_PENDING = "execute_pending"
    """The table already has pending clusterings: execute them, schedule nothing."""
    NO_OP = "no_op"
    BLOCKED = "blocked"


@dataclass(frozen=True)
class ClusteringPlanResult:
    status: PlanStatus
    instant_time: str
    reasons: tuple[str, ...]
    trigger: TriggerDecision | None = None
    groups: tuple[ClusterGroup, ...] = ()
    left_out: tuple[LeftOutSlice, ...] = ()
    pending: tuple[PendingClustering, ...] = ()
    missing_partitions: tuple[str, ...] | None = None
    """The plan's ``missingSchedulePartitions``: partitions left for the next clustering
    (table version 8+; None on version 6, whose plans have no such field)."""
    partition_rule: str = "all partitions"
    sort_columns: tuple[str, ...] = ()
    layout: Layout = "linear"

    @property
    def has_changes(self) -> bool:
        return self.status in (PlanStatus.SCHEDULE, PlanStatus.EXECUTE_PENDING)

    @property
    def pending_instants(self) -> tuple[str, ...]:
        return tuple(p.instant_time for p in self.pending)

    @property
    def input_slices(self) -> int:
        return sum(len(g.slices) for g in self.groups)

    @property
    def input_files(self) -> int:
        return sum(len(s.log_files) + (1 if s.base_file else 0) for g in self.groups for s in g.slices)

    @property
    def input_bytes(self) -> int:
        return sum(g.input_bytes for g in self.groups)

    @property
    def output_file_groups(self) -> int:
        return sum(g.num_output_file_groups for g in self.groups)

    @property
    def partitions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g.partition for g in self.groups))

    def effect(self) -> ClusteringEffect:
        """The node's effect (totals for plan.json / plan.md)."""
        return ClusteringEffect(
            pending_instants=self.pending_instants,
            groups=len(self.groups),
            input_slices=self.input_slices,
            input_files=self.input_files,
            input_bytes=self.input_bytes,
            output_file_groups=self.output_file_groups,
            sort_columns=self.sort_columns,
            layout=self.layout,
            partitions=self.partitions,
            writers=WRITERS_NOTE,
            partition_rule=self.partition_rule,
            missing_schedule_partitions=self.missing_partitions,
        )
