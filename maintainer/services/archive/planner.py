"""The archive planner: a pure function of the timeline and the archival settings.

Hudi's rules (HUDI.md §5, TimelineArchiverV1/V2):
* archive only when the completed commits (commit, deltacommit, replacecommit, compaction and
  clustering included) exceed ``keep_max_commits``, and then the oldest ones down to
  ``keep_min_commits``;
* never at or past the greatest completed commit before the earliest pending instant of the
  write timeline (commit, deltacommit, replacecommit, compaction, log compaction, clustering):
  that commit stays, so the pending instant never falls "before the start of the timeline"
  where Hudi's readers would take its half-written files as committed (the pending instant
  itself is the boundary when no completed commit precedes it);
* MOR with compaction triggered by delta commits: never past the delta commits the trigger
  still counts (the ``max_delta_commits`` newest since the last compaction, else from it);
* never at or past the first replacecommit whose replaced files may not be cleaned yet (the first
  one at or after the last clean's earliest commit to retain; every one when nothing was cleaned);
* never at or past the first savepoint; with ``archive_beyond_savepoint`` savepointed commits
  are kept and later ones may go;
* with a metadata table, nothing until the metadata table has compacted, then only commits
  older than its latest compaction (by requested time on layout 1, by completion time on
  layout 2);
* completed clean and rollback instants older than the last archived commit go with them, except
  the latest clean (its earliest commit to retain guides incremental cleaning and this planner);
* all states of an instant are archived together; pending instants never are.
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.executors.archive.selection import ArchivePlanResult, Boundary
from maintainer.hudi.instants.instant import WRITE_ACTIONS, Action, Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.archive.settings import ArchiveSpec


@dataclass(frozen=True)
class ArchiveInputs:
    timeline: Timeline
    last_clean_ectr: str | None = None
    """The last completed clean's earliest commit to retain ("" or None: it recorded none)."""
    metadata_table_enabled: bool = False
    metadata_compaction: str | None = None
    """The metadata table's latest completed compaction: Hudi archives only instants older
    than it, and nothing while the metadata table has never compacted (TimelineArchiverV2)."""
    already_archived: frozenset[str] = frozenset()
    """Times of active instants the archived timeline already holds (an interrupted run)."""
    compaction_max_delta_commits: int | None = None
    """MOR with compaction triggered by delta commits (num_commits, num_and_time): its
    ``max_delta_commits``; None where compaction does not count delta commits."""
    extra_boundaries: tuple[Boundary, ...] = ()
    """Boundaries the caller adds (a metadata table's: the data table's earliest instant)."""


def _first(instants: list[Instant], reason: str) -> list[Boundary]:
    if not instants:
        return []
    first = min(instants, key=lambda i: i.timestamp)
    return [Boundary(first.timestamp, reason.format(ts=first.timestamp, action=first.action.value))]


def _replace_guard(inputs: ArchiveInputs) -> list[Boundary]:
    timeline = inputs.timeline
    replaces = [i for i in timeline.completed_commits() if i.completed_action is Action.REPLACE_COMMIT]
    clean = timeline.last_completed_clean()
    if clean is None:
        return _first(replaces, "replacecommit {ts}: no clean has removed the file groups it replaced")
    floor = inputs.last_clean_ectr or clean.timestamp
    return _first(
        [r for r in replaces if r.timestamp >= floor],
        "replacecommit {ts} is not older than the last clean's earliest commit to retain "
        f"({floor}): the file groups it replaced may not be cleaned yet",
    )


def _compaction_guard(inputs: ArchiveInputs) -> list[Boundary]:
    """Keep enough delta commits for the compaction trigger to see (CompactionUtils): the
    ``max_delta_commits`` newest since the last compaction, or from the last compaction (or the
    first delta commit) when there are fewer."""
    limit = inputs.compaction_max_delta_commits
    if limit is None:
        return []
    timeline = inputs.timeline
    compaction = timeline.last_completed(Action.COMPACTION)
    floor = compaction.timestamp if compaction else ""
    deltas = [i for i in timeline.completed() if i.action is Action.DELTA_COMMIT and i.timestamp > floor]
    if len(deltas) >= limit:
        keep = deltas[len(deltas) - limit]
    elif compaction is not None:
        keep = compaction
    elif deltas:
        keep = deltas[0]
    else:
        return []
    return [
        Boundary(
            keep.timestamp,
            f"{keep.action.value} {keep.timestamp}: the compaction trigger counts delta commits "
            f"from there (max_delta_commits {limit})",
        )
    ]


def _pending_guard(timeline: Timeline) -> list[Boundary]:
    """Hudi's ``earliestCommitToRetain`` (TimelineArchiverV1/V2.getCommitInstantsToArchive): the
    greatest completed commit before the earliest pending write-timeline instant stays, so the
    pending instant is never older than the start of the active timeline; with no completed
    commit before it, the pending instant itself is the boundary."""
    pending = timeline.pending_writes() + timeline.pending_table_services()
    if not pending:
        return []
    earliest = min(pending, key=lambda i: i.timestamp)
    kind = "write" if earliest.action in WRITE_ACTIONS else "table service"
    before = [c for c in timeline.completed_commits() if c.timestamp < earliest.timestamp]
    if not before:
        reason = f"the earliest pending {kind} {earliest.timestamp} ({earliest.action.value})"
        return [Boundary(earliest.timestamp, reason)]
    keep = before[-1]
    return [
        Boundary(
            keep.timestamp,
            f"{keep.action.value} {keep.timestamp}, the last completed commit before the earliest "
            f"pending {kind} {earliest.timestamp} ({earliest.action.value}): it stays so the pending "
            "instant is never older than the start of the active timeline",
        )
    ]


def boundaries(inputs: ArchiveInputs, settings: ArchiveSpec) -> list[Boundary]:
    timeline = inputs.timeline
    found = _pending_guard(timeline)
    found += _replace_guard(inputs)
    found += _compaction_guard(inputs)
    found += inputs.extra_boundaries
    if not settings.archive_beyond_savepoint:
        found += _first(timeline.savepoints(), "the savepoint {ts} (archive_beyond_savepoint is off)")
    if inputs.metadata_table_enabled and inputs.metadata_compaction is not None:
        found += _metadata_compaction_guard(timeline, inputs.metadata_compaction)
    return sorted(found, key=lambda b: b.timestamp)


def _metadata_compaction_guard(timeline: Timeline, compaction: str) -> list[Boundary]:
    """Nothing the metadata table's latest compaction has not absorbed is archived.

    Layout 1 (TimelineArchiverV1.getInstantsToArchive): instants requested before the
    compaction. Layout 2 (TimelineArchiverV2.getCommitInstantsToArchive with
    ``findInstantsModifiedAfterByCompletionTime``): archival stops at the first completed commit
    that completed after the compaction's time (other than one requested at that very time),
    so a commit requested before the compaction but completed after it stays."""
    if not timeline.layout.records_completion_time:
        reason = f"the metadata table's latest compaction {compaction}: Hudi archives only instants before it"
        return [Boundary(compaction, reason)]
    later = [
        c
        for c in timeline.completed_commits()
        if (c.completion_time or c.timestamp) > compaction and c.timestamp != compaction
    ]
    return _first(
        later,
        "{action} {ts}, the first commit completed after the metadata table's latest compaction "
        f"{compaction}: Hudi archives only commits completed before it",
    )


def _cleans_and_rollbacks(timeline: Timeline, last_archived: str) -> list[Instant]:
    latest_clean = timeline.last_completed_clean()
    return [
        i
        for i in timeline.completed()
        if i.action in (Action.CLEAN, Action.ROLLBACK)
        and i.timestamp < last_archived
        and (latest_clean is None or i.timestamp != latest_clean.timestamp)
    ]


def plan_archive(inputs: ArchiveInputs, settings: ArchiveSpec) -> ArchivePlanResult:
    """The instants to archive, and why; instants an interrupted run archived always finish."""
    planned = _plan_by_rules(inputs, settings)
    leftovers = [
        i
        for i in inputs.timeline.completed()
        if i.timestamp in inputs.already_archived and i not in planned.instants
    ]
    if not leftovers:
        return planned
    reason = (
        f"{len(leftovers)} instants already in the archived timeline (an interrupted archival) are removed"
    )
    instants = tuple(sorted((*planned.instants, *leftovers), key=lambda i: i.sort_key()))
    return ArchivePlanResult(instants, (*planned.reasons, reason), planned.boundaries)


def _plan_by_rules(inputs: ArchiveInputs, settings: ArchiveSpec) -> ArchivePlanResult:
    commits = inputs.timeline.completed_commits()
    keep_min, keep_max = settings.keep_min_commits, settings.keep_max_commits
    if inputs.metadata_table_enabled and inputs.metadata_compaction is None:
        return ArchivePlanResult(
            reasons=("the table's metadata table has never compacted: Hudi archives nothing until it has",)
        )
    if len(commits) <= keep_max:
        return ArchivePlanResult(
            reasons=(f"{len(commits)} completed commits, not more than keep_max_commits ({keep_max})",)
        )
    limits = boundaries(inputs, settings)
    stop = limits[0].timestamp if limits else None
    savepointed = {s.timestamp for s in inputs.timeline.savepoints()}
    eligible = [
        c
        for c in commits
        if (stop is None or c.timestamp < stop)
        and not (settings.archive_beyond_savepoint and c.timestamp in savepointed)
    ]
    chosen = eligible[: len(commits) - keep_min]
    reasons = [
        f"{len(commits)} completed commits exceed keep_max_commits ({keep_max}): archive down to "
        f"keep_min_commits ({keep_min})"
    ]
    if limits:
        reasons.append(f"archival stops before {limits[0].reason}")
    if not chosen:
        return ArchivePlanResult(reasons=tuple(reasons), boundaries=tuple(limits))
    others = _cleans_and_rollbacks(inputs.timeline, chosen[-1].timestamp)
    instants = tuple(sorted(chosen + others, key=lambda i: i.sort_key()))
    reasons.append(
        f"{len(chosen)} commits ({chosen[0].timestamp} .. {chosen[-1].timestamp}) and "
        f"{len(others)} clean/rollback instants older than the last of them"
    )
    return ArchivePlanResult(instants, tuple(reasons), tuple(limits))
