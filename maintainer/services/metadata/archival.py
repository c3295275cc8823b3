"""The metadata table's own timeline archival, as Hudi's metadata writer runs it (table
versions 8 and 9): ``writeClient.archive()`` on the metadata table, last of
``HoodieBackedTableMetadataWriter.performTableServices``, with the archival settings of the
metadata write config (``HoodieMetadataWriteUtils.createMetadataWriteConfig``):

* ``hoodie.keep.min.commits`` / ``hoodie.keep.max.commits`` = the data table's + 1 (21 and 31
  by default);
* the compaction trigger counts delta commits (NUM_COMMITS) with
  ``hoodie.metadata.compact.max.delta.commits`` (10), so the archiver keeps the delta commits the
  trigger still counts (``CompactionUtils.getEarliestInstantToRetainForCompaction``): the 10
  newest since the latest metadata compaction, else from that compaction on;
* ``hoodie.archive.beyond.savepoint`` is off, and the metadata table has no metadata table.

The rules are ``TimelineArchiverV2.getCommitInstantsToArchive`` (the data table's archive
planner, :func:`maintainer.services.archive.planner.plan_archive`) plus its metadata-table
branch: nothing at or after the instant ``TimelineUtils.getEarliestInstantForMetadataArchival``
finds on the data table's active timeline, the earlier of its first commit-like instant
(commit, deltacommit, replacecommit, clustering; any state) and its first pending instant (any
action). Metadata instants a data instant still on the active timeline may roll back stay
(``HoodieTableMetadataUtil.processRollbackMetadata``). The archived timeline is written as the
archive service writes it for the metadata table's version (the LSM history of 8 and 9).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from maintainer.executors.archive.executor import ArchiveOutcome, run_archive
from maintainer.executors.archive.selection import ArchivePlanResult, Boundary
from maintainer.executors.faults import Fault, no_fault
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.state import TableState
from maintainer.services.archive.planner import ArchiveInputs, plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import already_archived
from maintainer.services.common.clean_history import last_clean_ectr
from maintainer.storage import Storage

DEFAULT_COMPACT_MAX_DELTA_COMMITS = 10
"""``hoodie.metadata.compact.max.delta.commits``."""
_COMMIT_LIKE = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLUSTERING})
"""The actions of Hudi's commits timeline (``getCommitsTimeline``), by the file's action."""


@dataclass(frozen=True, slots=True)
class MetadataArchivalSettings:
    """The metadata table's archival settings (Hudi's names; defaults derived from the data
    table's: keep_min_commits 20 + 1, keep_max_commits 30 + 1)."""

    keep_min_commits: int = 21
    keep_max_commits: int = 31
    compact_max_delta_commits: int = DEFAULT_COMPACT_MAX_DELTA_COMMITS

    @classmethod
    def derived_from(
        cls, data: ArchiveSpec, compact_max_delta_commits: int = DEFAULT_COMPACT_MAX_DELTA_COMMITS
    ) -> MetadataArchivalSettings:
        return cls(data.keep_min_commits + 1, data.keep_max_commits + 1, compact_max_delta_commits)

    def spec(self) -> ArchiveSpec:
        return ArchiveSpec(
            keep_min_commits=self.keep_min_commits,
            keep_max_commits=self.keep_max_commits,
            archive_beyond_savepoint=False,
        )


@dataclass(frozen=True)
class MetadataArchivalPlan:
    """The metadata instants to archive (every state of each, oldest first) and why."""

    settings: MetadataArchivalSettings
    instants: tuple[Instant, ...] = ()
    reasons: tuple[str, ...] = ()
    boundaries: tuple[Boundary, ...] = ()
    result: ArchivePlanResult | None = field(default=None, compare=False, repr=False)

    @property
    def has_changes(self) -> bool:
        return bool(self.instants)

    @property
    def reason(self) -> str:
        """One line: what is archived, or why nothing is."""
        return "; ".join(self.reasons)


def _commit_like(instant: Instant) -> bool:
    action = instant.completed_action if instant.is_completed else instant.action
    return action in _COMMIT_LIKE


def data_table_boundary(data_timeline: Timeline) -> Boundary | None:
    """TimelineUtils.getEarliestInstantForMetadataArchival (archive beyond savepoint off): the
    earlier of the data table's first commit-like instant and its first pending instant."""
    commits = [i for i in data_timeline.instants if _commit_like(i)]
    pending = data_timeline.pending()
    candidates = [found[0] for found in (commits, pending) if found]
    if not candidates:
        return None
    earliest = min(candidates, key=lambda i: i.timestamp)
    kind = "pending instant" if earliest.is_pending else "commit"
    return Boundary(
        earliest.timestamp,
        f"the data table's earliest {kind} {earliest.timestamp} ({earliest.action.value}): metadata "
        "instants a data instant still on the active timeline may roll back stay",
    )


def _inputs(
    mdt_state: TableState, data_timeline: Timeline, settings: MetadataArchivalSettings
) -> ArchiveInputs:
    boundary = data_table_boundary(data_timeline)
    return ArchiveInputs(
        timeline=mdt_state.snapshot.timeline,
        last_clean_ectr=last_clean_ectr(mdt_state),
        already_archived=already_archived(mdt_state),
        compaction_max_delta_commits=settings.compact_max_delta_commits,
        extra_boundaries=(boundary,) if boundary else (),
    )


def plan_metadata_archival(
    mdt_state: TableState, data_timeline: Timeline, settings: MetadataArchivalSettings
) -> MetadataArchivalPlan:
    """What Hudi's archiver would archive from the metadata table's timeline now (reads only
    instant files: the last clean's, and the archived timeline's manifest for an interrupted run)."""
    result = plan_archive(_inputs(mdt_state, data_timeline, settings), settings.spec())
    return MetadataArchivalPlan(settings, result.instants, result.reasons, result.boundaries, result)


def run_metadata_archival(
    mdt_storage: Storage,
    mdt_state: TableState,
    data_timeline: Timeline,
    plan: MetadataArchivalPlan,
    *,
    fault: Fault = no_fault,
) -> ArchiveOutcome:
    """Archive the planned instants that the same rules still archive on ``mdt_state`` and
    ``data_timeline`` (as they are now); the archived timeline is written and read back before
    any instant file is deleted (requested, then inflight, then completed files, oldest first)."""
    current = plan_archive(_inputs(mdt_state, data_timeline, plan.settings), plan.settings.spec())
    approved = {(i.timestamp, i.action) for i in plan.instants}
    chosen = tuple(i for i in current.instants if (i.timestamp, i.action) in approved)
    return run_archive(mdt_storage, mdt_state.snapshot.config, replace(current, instants=chosen), fault=fault)
