"""The rollback service's models: what the planner reads and what it decides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from maintainer.executors.common.markers import Marker
from maintainer.hudi.file_groups.filemodel import BaseFile, LogFile
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import RollbackPlan


@dataclass(frozen=True)
class RollbackInputs:
    """The table state a rollback is planned on.

    ``files`` are every data file listed (committed or not); ``markers`` maps an instant time to
    its markers (absent: the instant left none, so its files are found by listing);
    ``log_block_instants`` maps a (v6) log file path to the INSTANT_TIMEs of its blocks, for
    listing-based rollbacks of appends; ``table_uri`` is the absolute URI of the table base path
    (``file:/...`` locally), as Hudi records paths in rollback payloads.
    """

    timeline: Timeline
    table_version: int
    is_mor: bool
    table_uri: str
    files: tuple[BaseFile | LogFile, ...] = ()
    markers: Mapping[str, tuple[Marker, ...]] = field(default_factory=dict)
    heartbeats: Mapping[str, int] = field(default_factory=dict)
    log_block_instants: Mapping[str, frozenset[str]] = field(default_factory=dict)
    pending_rollback_plans: Mapping[str, RollbackPlan] = field(default_factory=dict)
    """Pending rollback instant time -> its requested plan."""
    completed_rollback_targets: Mapping[str, str] = field(default_factory=dict)
    """Instant time rolled back by a completed rollback -> that rollback's time."""
    clustering_replacecommits: frozenset[str] = frozenset()
    """Pending replacecommits (layout 1) that are clusterings: table services, not writes (Hudi's
    ``ClusteringUtils.isClusteringInstant``)."""
    timezone: str = "UTC"


class RollbackKind(str, Enum):
    ROLLBACK = "rollback"
    """Roll back a failed write: delete its files, then its instant."""
    FINISH_PENDING_ROLLBACK = "finish_pending_rollback"
    """Finish a rollback that was started before (with its own instant and plan)."""
    REMOVE_ROLLED_BACK_INSTANT = "remove_rolled_back_instant"
    """A completed rollback's target is still on the timeline: only remove its files."""


@dataclass(frozen=True, slots=True)
class PlannedRollback:
    """One rollback apply will carry out."""

    kind: RollbackKind
    target: Instant
    reason: str
    plan: RollbackPlan
    rollback_instant: Instant | None = None
    """The existing rollback instant (pending, or completed for REMOVE_ROLLED_BACK_INSTANT)."""
    source: str = "markers"
    """How the files were found: ``markers`` or ``listing`` (or ``plan`` for a pending rollback)."""

    @property
    def reverts_to_requested(self) -> bool:
        return self.target.action.value in _SERVICE_ACTIONS


_SERVICE_ACTIONS = frozenset({"compaction", "logcompaction", "clustering"})


@dataclass(frozen=True, slots=True)
class SkippedWrite:
    """A pending instant left alone (a live write, a table service), and why."""

    instant: Instant
    reason: str


@dataclass(frozen=True)
class RollbackPlanResult:
    rollbacks: tuple[PlannedRollback, ...] = ()
    skipped: tuple[SkippedWrite, ...] = ()

    @property
    def has_changes(self) -> bool:
        return bool(self.rollbacks)
