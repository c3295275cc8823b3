"""Hudi's max.commits trigger: what the last clustering is on each layout, and what is counted."""

from __future__ import annotations

from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.clustering.trigger import evaluate_trigger, last_clustering_instant

from .states import commits, completed, pending, ts


def _timeline(names: list[str], layout: int = 2) -> Timeline:
    return Timeline.from_file_names(names, layout, ".hoodie" if layout == 1 else ".hoodie/timeline")


def _never(_: Instant) -> bool:
    return False


def test_counts_completed_commits_after_the_last_clustering() -> None:
    tl = _timeline(
        [*commits(1, 2), *completed(3, "clustering"), *commits(4, 5), *pending(6, "commit", "inflight")]
    )
    last = last_clustering_instant(tl, _never)
    assert last is not None and last.timestamp == ts(3)
    decision = evaluate_trigger(tl, last, 2)
    assert decision.fires and decision.commits == 2 and decision.since == ts(3)
    assert not evaluate_trigger(tl, last, 3).fires
    assert "2 completed commits since the last clustering" in decision.reason


def test_a_pending_clustering_is_the_last_one_too() -> None:
    tl = _timeline([*commits(1), *completed(2, "clustering"), *commits(3), *pending(4), *commits(5)])
    last = last_clustering_instant(tl, _never)
    assert last is not None and last.timestamp == ts(4)
    assert evaluate_trigger(tl, last, 1).commits == 1


def test_layout_2_counts_from_a_replacecommit_only_if_its_plan_clusters() -> None:
    tl = _timeline([*commits(1), *completed(2, "replacecommit"), *commits(3, 4)])
    assert last_clustering_instant(tl, _never) is None
    overwrite_counts = evaluate_trigger(tl, None, 4)
    assert overwrite_counts.commits == 4 and overwrite_counts.fires  # the replacecommit counts as a commit
    last = last_clustering_instant(tl, lambda i: i.timestamp == ts(2))
    assert last is not None and evaluate_trigger(tl, last, 4).commits == 2


def test_layout_1_counts_from_any_replacecommit() -> None:
    tl = _timeline([*commits(1, layout=1), *completed(2, "replacecommit", 1), *commits(3, layout=1)], 1)
    last = last_clustering_instant(tl, _never)
    assert last is not None and last.timestamp == ts(2)
    decision = evaluate_trigger(tl, last, 1)
    assert decision.fires and "last replacecommit" in decision.reason


def test_completed_compactions_count() -> None:
    tl = _timeline(
        [*completed(1, "clustering"), *commits(2, action="deltacommit"), *completed(3, "compaction")]
    )
    last = last_clustering_instant(tl, _never)
    assert evaluate_trigger(tl, last, 2).commits == 2


def test_max_commits_zero_always_fires() -> None:
    tl = _timeline([*completed(1, "clustering")])
    decision = evaluate_trigger(tl, last_clustering_instant(tl, _never), 0)
    assert decision.fires and decision.commits == 0 and "no trigger" in decision.reason


def test_without_a_clustering_every_commit_counts() -> None:
    tl = _timeline(commits(1, 2, 3))
    decision = evaluate_trigger(tl, None, 4)
    assert not decision.fires and decision.since is None and "no clustering yet" in decision.reason
