"""The cleaner's policy and its earliest commit to retain (ECTR)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from maintainer.hudi.instants.instant import Instant, format_instant_time, wall_clock_in_timezone
from maintainer.hudi.instants.timeline import Timeline


class CleanPolicy(str, Enum):
    KEEP_LATEST_COMMITS = "KEEP_LATEST_COMMITS"
    KEEP_LATEST_FILE_VERSIONS = "KEEP_LATEST_FILE_VERSIONS"
    KEEP_LATEST_BY_HOURS = "KEEP_LATEST_BY_HOURS"

    @classmethod
    def parse(cls, text: str) -> CleanPolicy:
        return cls(text.upper())


@dataclass(frozen=True, slots=True)
class CleanSettings:
    """The cleaner options the planner needs (names and defaults are Hudi's)."""

    policy: CleanPolicy = CleanPolicy.KEEP_LATEST_COMMITS
    commits_retained: int = 10
    file_versions_retained: int = 3
    hours_retained: int = 24
    incremental: bool = True
    max_commits: int = 1
    """hoodie.clean.max.commits (trigger NUM_COMMITS)."""


@dataclass(frozen=True, slots=True)
class RetentionPoint:
    """The earliest commit to retain, and why it is where it is."""

    instant: Instant | None
    reason: str


def _cap_by_earliest_pending(timeline: Timeline, candidate: Instant) -> tuple[Instant | None, str]:
    """CleanerUtils.getEarliestCommitToRetain (KEEP_LATEST_COMMITS): never later than the earliest
    pending instant of the commits-and-compaction timeline (commit, deltacommit, replacecommit,
    clustering, compaction); else the last completed commit before it (none: no ECTR)."""
    pending = timeline.pending_writes() + timeline.pending_clustering() + timeline.pending_compactions()
    if not pending:
        return candidate, ""
    earliest = min(pending, key=lambda i: i.timestamp)
    if candidate.timestamp <= earliest.timestamp:
        return candidate, ""
    before = [i for i in timeline.completed_commits() if i.timestamp < earliest.timestamp]
    capped = before[-1] if before else None
    return capped, (
        f"; capped by the pending {earliest.action.value} {earliest.timestamp} (files it may "
        "still need are kept)"
    )


def earliest_commit_to_retain(
    timeline: Timeline, settings: CleanSettings, now: datetime, tz: str
) -> RetentionPoint:
    """Hudi's ECTR (CleanerUtils.getEarliestCommitToRetain): by commits, the N-th newest completed
    commit, never later than the earliest pending commit or compaction; by hours, the first
    completed commit within the retention window (not capped). None: nothing is old enough."""
    commits = timeline.completed_commits()
    if settings.policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS:
        return RetentionPoint(None, "KEEP_LATEST_FILE_VERSIONS keeps versions, not commits")
    if settings.policy is CleanPolicy.KEEP_LATEST_COMMITS:
        retained = settings.commits_retained
        if len(commits) <= retained:
            return RetentionPoint(
                None, f"{len(commits)} completed commits, not more than the {retained} retained"
            )
        candidate = commits[len(commits) - retained]
        capped, note = _cap_by_earliest_pending(timeline, candidate)
        return RetentionPoint(capped, f"the oldest of the {retained} most recent completed commits{note}")
    cutoff = format_instant_time(wall_clock_in_timezone(now, tz) - timedelta(hours=settings.hours_retained))
    within = [c for c in commits if c.timestamp >= cutoff]
    if not within:
        return RetentionPoint(None, f"no completed commit within the last {settings.hours_retained} hours")
    return RetentionPoint(
        within[0], f"the first completed commit within the last {settings.hours_retained} hours"
    )
