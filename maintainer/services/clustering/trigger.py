"""When a clustering is due: Hudi's ``max.commits`` trigger (``ClusteringPlanActionExecutor``).

The trigger counts the completed commits (commit, deltacommit, replacecommit; completed
compactions and clusterings too, as Hudi's commits timeline holds them) whose instant time is
after the last clustering instant, and fires once there are at least ``max_commits``:

* table version 8 and 9 (timeline layout 2, Hudi 1.x): the last clustering is the newest
  ``clustering`` instant or replacecommit whose requested plan is a CLUSTER one, in any state
  (``getLastClusteringInstant``);
* table version 6 (timeline layout 1, Hudi 0.14/0.15): the newest replacecommit in any state,
  clustering or not (an insert_overwrite counts).

Without one, every completed commit counts. ``max_commits`` 0 always fires: Hudi's
``run_clustering`` procedure and ``HoodieClusteringJob`` schedule without a trigger check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline
from maintainer.units import count

_REPLACE_ACTIONS = frozenset({Action.REPLACE_COMMIT, Action.CLUSTERING})


@dataclass(frozen=True, slots=True)
class TriggerDecision:
    """Whether the trigger fires, with what it counted and why."""

    fires: bool
    commits: int
    since: str | None
    """The last clustering instant counted from (None: none on the active timeline)."""
    reason: str


def last_clustering_instant(timeline: Timeline, is_clustering: Callable[[Instant], bool]) -> Instant | None:
    """The instant Hudi counts from: on layout 2 the newest clustering (``is_clustering`` tells a
    replacecommit's plan), on layout 1 the newest replacecommit, in any state."""
    replaces = [i for i in timeline.instants if i.action in _REPLACE_ACTIONS]
    if timeline.layout is TimelineLayout.V2:
        replaces = [i for i in replaces if i.action is Action.CLUSTERING or is_clustering(i)]
    return replaces[-1] if replaces else None


def evaluate_trigger(timeline: Timeline, last: Instant | None, max_commits: int) -> TriggerDecision:
    """Does the trigger schedule a clustering, counting from ``last`` (see
    :func:`last_clustering_instant`)?"""
    after = last.timestamp if last is not None else "0"
    commits = len([i for i in timeline.completed_commits() if i.timestamp > after])
    fires = commits >= max_commits
    what = "replacecommit" if timeline.layout is TimelineLayout.V1 else "clustering"
    origin = f"the last {what} {last.timestamp}" if last is not None else f"the first commit (no {what} yet)"
    counted = f"{count(commits, 'completed commit')} since {origin}"
    since = last.timestamp if last is not None else None
    if max_commits == 0:
        return TriggerDecision(True, commits, since, f"no trigger (max_commits 0): {counted}")
    counted += f" (max_commits {max_commits})"
    verdict = "fires" if fires else "does not fire"
    return TriggerDecision(fires, commits, since, f"trigger {verdict}: {counted}")
