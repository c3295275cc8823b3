"""The rollback service's models: what the planner reads and what it decides (each rollback it
plans is a :class:`~maintainer.executors.rollback.model.PlannedRollback`, what the executor takes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from maintainer.executors.common.markers import Marker
from maintainer.executors.rollback.model import PlannedRollback
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
