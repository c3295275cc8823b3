"""Is a metadata table in step with its data table's timeline?

Every data-table action that changes files (commits, compactions, clustering, cleans) writes a
metadata deltacommit with its own instant time before it completes, and a rollback rolls back
the metadata deltacommit of the instant it undoes. So, on the active timelines:

- **behind**: a completed data instant newer than the metadata table's first instant has no
  completed metadata deltacommit (something wrote the data table with the metadata table
  disabled; Hudi's readers would miss its files);
- **failed**: a pending metadata deltacommit whose data instant is no longer pending (the
  metadata write failed; Hudi's next writer rolls it back);
- **ahead**: a completed metadata deltacommit whose data instant is pending (the data write
  failed after its metadata write; readers ignore its blocks until a rollback removes them).
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.instants import SOLO_COMMIT_TIMESTAMP

SYNCED_ACTIONS = frozenset(
    {
        Action.COMMIT,
        Action.DELTA_COMMIT,
        Action.REPLACE_COMMIT,
        Action.COMPACTION,
        Action.LOG_COMPACTION,
        Action.CLUSTERING,
        Action.CLEAN,
    }
)
"""Data-table actions that write a metadata deltacommit at their own instant time."""


@dataclass(frozen=True)
class SyncStatus:
    behind: tuple[Instant, ...]
    """Completed data instants without a completed metadata deltacommit."""
    failed: tuple[Instant, ...]
    """Pending metadata deltacommits whose data instant is not pending."""
    ahead: tuple[Instant, ...]
    """Completed metadata deltacommits whose data instant is pending."""

    @property
    def in_sync(self) -> bool:
        return not (self.behind or self.failed)

    def problems(self) -> list[str]:
        found = [
            f"data instant {i.timestamp} ({i.action.value}) is not in the metadata table" for i in self.behind
        ]
        found += [
            f"metadata deltacommit {i.timestamp} is {i.state.value.lower()} but its data instant "
            "is not pending (a failed metadata write)"
            for i in self.failed
        ]
        return found


def sync_status(data: Timeline, metadata: Timeline) -> SyncStatus:
    deltacommits = {i.timestamp: i for i in metadata.instants if i.action is Action.DELTA_COMMIT}
    start = _first_synced_time(metadata)
    data_pending = {i.timestamp for i in data.pending()}
    behind = tuple(
        i
        for i in data.completed()
        if i.action in SYNCED_ACTIONS
        and start is not None
        and i.timestamp >= start
        and not _completed(deltacommits.get(i.timestamp))
    )
    failed = tuple(
        i
        for i in deltacommits.values()
        if i.is_pending
        and not i.timestamp.startswith(SOLO_COMMIT_TIMESTAMP)
        and i.timestamp not in data_pending
    )
    ahead = tuple(i for i in deltacommits.values() if i.is_completed and i.timestamp in data_pending)
    return SyncStatus(behind, failed, ahead)


def _completed(instant: Instant | None) -> bool:
    return instant is not None and instant.is_completed


def _first_synced_time(metadata: Timeline) -> str | None:
    """The first metadata deltacommit that mirrors a data instant (bootstrap ones do not)."""
    times = [
        i.timestamp
        for i in metadata.instants
        if i.action is Action.DELTA_COMMIT and not i.timestamp.startswith(SOLO_COMMIT_TIMESTAMP)
    ]
    return min(times) if times else None
