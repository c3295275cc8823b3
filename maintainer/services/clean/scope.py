"""Which partitions a clean must look at: all of them, or (incremental mode) only those
written since the last clean's earliest commit to retain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.clean.policy import CleanPolicy, CleanSettings


@dataclass(frozen=True, slots=True)
class LastClean:
    """What the last completed clean recorded."""

    instant_time: str
    earliest_commit_to_retain: str
    savepointed_timestamps: tuple[str, ...] | None = None
    last_completed_commit: str | None = None
    """Its ``lastCompletedCommitTimestamp`` (None: an empty clean file, which records nothing)."""


@dataclass(frozen=True, slots=True)
class ScanScope:
    full: bool
    reason: str
    window: tuple[Instant, ...] = ()
    """Incremental: the completed commits whose written partitions must be scanned."""


def choose_scope(
    timeline: Timeline, settings: CleanSettings, ectr: Instant | None, last_clean: LastClean | None
) -> ScanScope:
    """Incremental where Hudi would be; a full scan otherwise, with the reason."""
    if settings.policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS:
        return ScanScope(True, "KEEP_LATEST_FILE_VERSIONS always scans every partition")
    if not settings.incremental:
        return ScanScope(True, "incremental cleaning is disabled")
    if last_clean is None or not last_clean.earliest_commit_to_retain:
        return ScanScope(True, "no earlier clean recorded an earliest commit to retain")
    previous = last_clean.earliest_commit_to_retain
    if timeline.is_before_start(previous):
        return ScanScope(True, f"the last clean's earliest commit to retain {previous} was archived")
    current = {i.timestamp for i in timeline.savepoints()}
    recorded = set(last_clean.savepointed_timestamps or ())
    if recorded - current:
        removed = ", ".join(sorted(recorded - current))
        return ScanScope(True, f"savepoint(s) {removed} were deleted since the last clean")
    upper = ectr.timestamp if ectr else previous
    window = tuple(i for i in timeline.completed_commits() if previous <= i.timestamp < upper)
    return ScanScope(False, f"partitions written by commits from {previous} to before {upper}", window)


def partitions_in_window(window: Sequence[Instant], written: Mapping[str, Sequence[str]]) -> list[str]:
    """Partitions written (or replaced) by the window's commits; ``written`` maps instant
    time -> partitions from its commit metadata."""
    found: set[str] = set()
    for instant in window:
        found.update(written.get(instant.timestamp, ()))
    return sorted(found)
