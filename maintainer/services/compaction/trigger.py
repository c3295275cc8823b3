"""When a compaction is due: Hudi's trigger strategies over the timeline (HUDI.md §5).

Hudi counts the completed deltacommits after the last completed compaction (``num_commits``)
or after the last compaction request in any state (``num_commits_after_last_request``); time
is measured from that compaction (or, when there is none, from the first deltacommit) to the
new compaction instant.
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.instant import Action, Instant, parse_instant_time
from maintainer.hudi.timeline import Timeline
from maintainer.services.compaction.settings import CompactionSettings, TriggerStrategy

_COMPLETED_COMMIT_ACTIONS = frozenset({Action.COMMIT, Action.REPLACE_COMMIT})


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
    completed commits are compactions (and replacecommits of clustering or overwrites)."""
    done = [i for i in timeline.completed() if i.completed_action in _COMPLETED_COMMIT_ACTIONS]
    return done[-1] if done else None


def _last_compaction_request(timeline: Timeline) -> Instant | None:
    requests = timeline.of_action(Action.COMPACTION)
    return requests[-1] if requests else None


def _reference(timeline: Timeline, strategy: TriggerStrategy) -> tuple[Instant | None, list[Instant]]:
    """The instant counted from, and the completed deltacommits after it."""
    deltas = [i for i in timeline.completed() if i.action is Action.DELTA_COMMIT]
    anchor = (
        _last_compaction_request(timeline)
        if strategy is TriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST
        else _last_completed_compaction(timeline)
    )
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
        return TriggerDecision(False, 0, None, None, "no completed deltacommit: nothing to compact")
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
    counted = (
        f"{count} completed deltacommit(s) since {origin} (max_delta_commits {settings.max_delta_commits})"
    )
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
