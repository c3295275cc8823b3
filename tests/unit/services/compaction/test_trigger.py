"""Trigger strategies, counted the way Hudi counts."""

from __future__ import annotations

from maintainer.services.compaction.settings import CompactionSettings, TriggerStrategy
from maintainer.services.compaction.trigger import evaluate_trigger

from .states import completed, deltas, pending, timeline, ts


def settings(strategy: TriggerStrategy, commits: int = 3, seconds: int = 3600) -> CompactionSettings:
    return CompactionSettings(trigger=strategy, max_delta_commits=commits, max_delta_seconds=seconds)


def test_num_commits_fires_at_max_delta_commits() -> None:
    tl = timeline(deltas(1, 2, 3))
    assert evaluate_trigger(tl, settings(TriggerStrategy.NUM_COMMITS, 3), ts(4)).fires
    assert not evaluate_trigger(tl, settings(TriggerStrategy.NUM_COMMITS, 4), ts(4)).fires


def test_num_commits_counts_deltacommits_after_last_completed_compaction_pending_ones_too() -> None:
    tl = timeline([*deltas(1, 2, 3), *completed(4, "compaction"), *deltas(5, 6), *pending(7)])
    decision = evaluate_trigger(tl, settings(TriggerStrategy.NUM_COMMITS), ts(8))
    assert decision.delta_commits == 3 and decision.since == ts(4) and decision.fires


def test_replacecommit_counts_as_last_compaction_on_layout_1_only() -> None:
    v6 = timeline([*deltas(1), *completed(2, "replacecommit"), *deltas(3)])
    assert evaluate_trigger(v6, settings(TriggerStrategy.NUM_COMMITS), ts(9)).since == ts(2)
    v8 = timeline(
        [*deltas(1, layout=2), *completed(2, "replacecommit", layout=2), *deltas(3, layout=2)], layout=2
    )
    decision = evaluate_trigger(v8, settings(TriggerStrategy.NUM_COMMITS), ts(9))
    assert decision.since == ts(1) and decision.delta_commits == 2


def test_num_commits_without_compaction_counts_from_first_deltacommit() -> None:
    decision = evaluate_trigger(timeline(deltas(1, 2)), settings(TriggerStrategy.NUM_COMMITS), ts(3))
    assert decision.since == ts(1) and decision.delta_commits == 2


def test_num_commits_after_last_request_counts_from_a_pending_request() -> None:
    tl = timeline([*deltas(1, 2, 3), *pending(4, "compaction", "requested"), *deltas(5, 6)])
    after_request = evaluate_trigger(tl, settings(TriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST), ts(9))
    assert after_request.delta_commits == 2 and after_request.since == ts(4)
    since_completed = evaluate_trigger(tl, settings(TriggerStrategy.NUM_COMMITS), ts(9))
    assert since_completed.delta_commits == 5


def test_time_elapsed_measures_from_last_compaction_to_new_instant() -> None:
    tl = timeline([*completed(0, "compaction"), *deltas(1)])
    assert not evaluate_trigger(tl, settings(TriggerStrategy.TIME_ELAPSED), ts(59)).fires
    decision = evaluate_trigger(tl, settings(TriggerStrategy.TIME_ELAPSED), ts(60))
    assert decision.fires and decision.seconds_elapsed == 3600


def test_num_and_time_needs_both() -> None:
    tl = timeline(deltas(1, 2, 3))
    assert not evaluate_trigger(tl, settings(TriggerStrategy.NUM_AND_TIME), ts(30)).fires
    assert not evaluate_trigger(tl, settings(TriggerStrategy.NUM_AND_TIME, commits=4), ts(90)).fires
    assert evaluate_trigger(tl, settings(TriggerStrategy.NUM_AND_TIME), ts(90)).fires


def test_num_or_time_needs_either() -> None:
    tl = timeline(deltas(1))
    assert not evaluate_trigger(tl, settings(TriggerStrategy.NUM_OR_TIME), ts(30)).fires
    assert evaluate_trigger(tl, settings(TriggerStrategy.NUM_OR_TIME), ts(90)).fires
    assert evaluate_trigger(tl, settings(TriggerStrategy.NUM_OR_TIME, commits=1), ts(2)).fires


def test_no_deltacommit_never_fires() -> None:
    tl = timeline(completed(1, "clean"))
    decision = evaluate_trigger(tl, settings(TriggerStrategy.NUM_OR_TIME, 1, 1), ts(90))
    assert not decision.fires and "nothing to compact" in decision.reason


def test_a_completed_log_compaction_counts_as_a_deltacommit_a_pending_one_does_not() -> None:
    """CompactionUtils.getDeltaCommitsSinceLatestCompaction (used by
    ScheduleCompactionActionExecutor.getLatestDeltaCommitInfo) counts getDeltaCommitTimeline():
    the instants whose action is ``deltacommit``. A log compaction completes as
    ``<t>.deltacommit``, so it counts once completed; while pending its action is
    ``logcompaction`` and it does not."""
    done_log_compaction = [
        f"{ts(3)}.logcompaction.requested",
        f"{ts(3)}.logcompaction.inflight",
        f"{ts(3)}.deltacommit",
    ]
    tl = timeline(
        [*completed(1, "compaction"), *deltas(2), *done_log_compaction, *pending(4, "logcompaction")]
    )
    decision = evaluate_trigger(tl, settings(TriggerStrategy.NUM_COMMITS, 2), ts(5))
    assert decision.delta_commits == 2 and decision.since == ts(1) and decision.fires
    v8 = timeline(
        [
            *completed(1, "compaction", layout=2),
            f"{ts(3)}.logcompaction.requested",
            f"{ts(3)}.logcompaction.inflight",
            f"{ts(3)}_{ts(4)}.deltacommit",
        ],
        layout=2,
    )
    assert evaluate_trigger(v8, settings(TriggerStrategy.NUM_COMMITS, 1), ts(5)).delta_commits == 1
