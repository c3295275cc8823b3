"""When a compaction is due: Hudi's trigger strategies over the timeline (HUDI.md §5).

As Hudi's ``CompactionUtils`` counts: the deltacommits (requested, inflight or completed, as
Hudi's delta commit timeline holds them: a completed log compaction is a ``deltacommit`` there
and counts, a pending one does not) after the last completed compaction, i.e. the last
completed ``commit`` (Hudi 0.x / layout 1 also counts completed replacecommits), for
``num_commits``; after the last pending compaction request, else that completed compaction,
for ``num_commits_after_last_request``. Without one, every deltacommit counts from the first.
Time is measured from that instant to the new compaction instant.
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.instants.instant import Action, Instant, parse_instant_time
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.compaction.settings import CompactionSettings, TriggerStrategy

_COMMIT_TIMELINE = {1: frozenset({Action.COMMIT, Action.REPLACE_COMMIT}), 2: frozenset({Action.COMMIT})}
"""Hudi's ``getCommitTimeline()`` actions: 0.x has commit and replacecommit, 1.x commit only."""


@dataclass(frozen=True, slots=True)
class TriggerDecision:
    """Whether the trigger fires, with what it counted and why."""

    fires: bool
    delta_commits: int
    seconds_elapsed: int | None
    since: str | None
    """The instant counted from (last compaction, or first deltacommit); None: no deltacommit."""
    reason: str


def _last_completed_compaction(timeline: Timeline) -> Instant | None:
    """Hudi's ``getCommitTimeline().filterCompletedInstants().lastInstant()``: on a MOR table the
    completed commits are compactions (and, on 0.x, replacecommits of clustering or overwrites)."""
    actions = _COMMIT_TIMELINE.get(timeline.layout, _COMMIT_TIMELINE[2])
    done = [i for i in timeline.completed() if i.completed_action in actions]
    return done[-1] if done else None


def _last_pending_compaction(timeline: Timeline) -> Instant | None:
    pending = timeline.pending_compactions()
    return pending[-1] if pending else None


def _delta_commits(timeline: Timeline) -> list[Instant]:
    """Hudi's ``getDeltaCommitTimeline()``: instants whose file action is ``deltacommit``, so
    pending deltacommits and completed log compactions (``<t>.deltacommit``), not pending log
    compactions (``<t>.logcompaction.*``)."""
    return [
        i
        for i in timeline.instants
        if i.action is Action.DELTA_COMMIT or (i.is_completed and i.completed_action is Action.DELTA_COMMIT)
    ]


def _reference(timeline: Timeline, strategy: TriggerStrategy) -> tuple[Instant | None, list[Instant]]:
    """The instant counted from, and the deltacommits after it."""
    deltas = _delta_commits(timeline)
    anchor = None
    if strategy is TriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST:
        anchor = _last_pending_compaction(timeline)
    anchor = anchor or _last_completed_compaction(timeline)
    if anchor is None:
        return (deltas[0] if deltas else None), deltas
    return anchor, [i for i in deltas if i.timestamp > anchor.timestamp]


def _seconds_between(earlier: str, later: str) -> int:
    return int((parse_instant_time(later) - parse_instant_time(earlier)).total_seconds())


def evaluate_trigger(timeline: Timeline, settings: CompactionSettings, instant_time: str) -> TriggerDecision:
    """Does the configured trigger schedule a compaction at ``instant_time``?"""
    strategy = settings.trigger
    anchor, deltas = _reference(timeline, strategy)
    if anchor is None:
        return TriggerDecision(False, 0, None, None, "no deltacommit: nothing to compact")
    count = len(deltas)
    seconds = _seconds_between(anchor.timestamp, instant_time)
    by_num = count >= settings.max_delta_commits
    by_time = seconds >= settings.max_delta_seconds
    fires = {
        TriggerStrategy.NUM_COMMITS: by_num,
        TriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST: by_num,
        TriggerStrategy.TIME_ELAPSED: by_time,
        TriggerStrategy.NUM_AND_TIME: by_num and by_time,
        TriggerStrategy.NUM_OR_TIME: by_num or by_time,
    }[strategy]
    origin = (
        f"the {anchor.action.value} {anchor.timestamp}"
        if anchor.action is not Action.DELTA_COMMIT
        else f"the first deltacommit {anchor.timestamp} (no compaction yet)"
    )
    counted = f"{count} deltacommit(s) since {origin} (max_delta_commits {settings.max_delta_commits})"
    timed = f"{seconds}s elapsed since {anchor.timestamp} (max_delta_seconds {settings.max_delta_seconds})"
    detail = {
        TriggerStrategy.NUM_COMMITS: counted,
        TriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST: counted,
        TriggerStrategy.TIME_ELAPSED: timed,
        TriggerStrategy.NUM_AND_TIME: f"{counted} and {timed}",
        TriggerStrategy.NUM_OR_TIME: f"{counted} or {timed}",
    }[strategy]
    verdict = "fires" if fires else "does not fire"
    return TriggerDecision(
        fires, count, seconds, anchor.timestamp, f"trigger {strategy.value} {verdict}: {detail}"
    )
