"""The active timeline built from timeline directory names, both layouts."""

from __future__ import annotations

import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.instant import Action, Instant, State
from maintainer.hudi.instants.timeline import Timeline

T1, T2, T3, T4, T5 = (f"2024010100000{i}000" for i in range(1, 6))
C1, C2, C3, C4, C5 = (f"2024010100000{i}500" for i in range(1, 6))


def test_layout1_groups_states_of_one_instant() -> None:
    names = [f"{T1}.commit.requested", f"{T1}.inflight", f"{T1}.commit", "hoodie.properties"]
    timeline = Timeline.from_file_names(names, 1)
    assert timeline.instants == (Instant(T1, Action.COMMIT, State.COMPLETED),)
    entry = timeline.entry(T1, Action.COMMIT)
    assert entry is not None
    assert entry.state_files == {
        State.REQUESTED: f"{T1}.commit.requested",
        State.INFLIGHT: f"{T1}.inflight",
        State.COMPLETED: f"{T1}.commit",
    }


def test_layout2_completed_has_completion_time() -> None:
    names = [f"{T1}.deltacommit.requested", f"{T1}.deltacommit.inflight", f"{T1}_{C1}.deltacommit"]
    timeline = Timeline.from_file_names(names, 2, ".hoodie/timeline")
    assert timeline.instants == (Instant(T1, Action.DELTA_COMMIT, State.COMPLETED, C1),)
    assert timeline.completion_times() == {T1: C1}
    assert timeline.file_path(timeline.instants[0], State.INFLIGHT) == (
        f".hoodie/timeline/{T1}.deltacommit.inflight"
    )


def test_completed_commit_with_compaction_requested_is_a_compaction() -> None:
    for layout, done in ((1, f"{T2}.commit"), (2, f"{T2}_{C2}.commit")):
        names = [f"{T2}.compaction.requested", f"{T2}.compaction.inflight", done]
        timeline = Timeline.from_file_names(names, layout)
        (instant,) = timeline.instants
        assert instant.action is Action.COMPACTION and instant.is_completed
        assert instant.completed_action is Action.COMMIT
        assert timeline.pending_compactions() == []
        assert timeline.completed_commits() == [instant]
        assert timeline.file_path(instant).endswith(done)


def test_completed_replacecommit_with_clustering_requested_is_clustering() -> None:
    names = [f"{T3}.clustering.requested", f"{T3}.clustering.inflight", f"{T3}_{C3}.replacecommit"]
    (instant,) = Timeline.from_file_names(names, 2).instants
    assert instant.action is Action.CLUSTERING and instant.completion_time == C3


def test_completed_deltacommit_with_logcompaction_requested_is_a_log_compaction() -> None:
    names = [f"{T3}.logcompaction.requested", f"{T3}.deltacommit"]
    (instant,) = Timeline.from_file_names(names, 1).instants
    assert instant.action is Action.LOG_COMPACTION and instant.is_completed


def test_plain_commit_stays_a_commit() -> None:
    names = [f"{T1}.commit.requested", f"{T1}.inflight", f"{T1}.commit"]
    (instant,) = Timeline.from_file_names(names, 1).instants
    assert instant.action is Action.COMMIT


def test_savepoint_at_the_same_time_as_a_commit_is_a_separate_instant() -> None:
    names = [f"{T1}.commit", f"{T1}.savepoint.inflight", f"{T1}.savepoint"]
    timeline = Timeline.from_file_names(names, 1)
    assert len(timeline) == 2
    assert timeline.savepoints() == [Instant(T1, Action.SAVEPOINT, State.COMPLETED)]
    assert timeline.completed_commits() == [Instant(T1, Action.COMMIT, State.COMPLETED)]


def test_layout2_completed_file_without_completion_time_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="no completion time") as info:
        Timeline.from_file_names([f"{T1}.commit"], 2, ".hoodie/timeline")
    assert info.value.where == f".hoodie/timeline/{T1}.commit"


def test_views_of_a_mixed_timeline() -> None:
    names = [
        f"{T1}.commit",
        f"{T2}.clean.requested",
        f"{T2}.clean.inflight",
        f"{T2}.clean",
        f"{T3}.compaction.requested",
        f"{T4}.deltacommit.requested",
        f"{T4}.deltacommit.inflight",
        f"{T5}.replacecommit.requested",
        f"{T5}.rollback.requested",
    ]
    timeline = Timeline.from_file_names(names, 1)
    assert [i.timestamp for i in timeline.completed()] == [T1, T2]
    assert [(i.timestamp, i.action) for i in timeline.pending_writes()] == [
        (T4, Action.DELTA_COMMIT),
        (T5, Action.REPLACE_COMMIT),
    ]
    assert [i.timestamp for i in timeline.pending_compactions()] == [T3]
    assert [i.timestamp for i in timeline.pending_table_services()] == [T3]
    assert [i.timestamp for i in timeline.pending_replacecommits()] == [T5]
    assert [i.timestamp for i in timeline.pending_rollbacks()] == [T5]
    assert timeline.last_completed_clean() == Instant(T2, Action.CLEAN, State.COMPLETED)
    assert timeline.completed_commit_times() == {T1}
    assert timeline.pending()[0] == Instant(T3, Action.COMPACTION, State.REQUESTED)
    assert timeline.of_action(Action.CLEAN) == [Instant(T2, Action.CLEAN, State.COMPLETED)]


def test_before_the_start_of_the_timeline_counts_as_committed() -> None:
    timeline = Timeline.from_file_names([f"{T2}.commit", f"{T3}.commit.requested"], 1)
    assert timeline.first_instant_time() == T2
    assert timeline.is_before_start(T1)
    assert timeline.is_committed_write(T1)
    assert timeline.is_committed_write(T2)
    assert not timeline.is_committed_write(T3)
    assert not timeline.is_committed_write(T4)
    assert not Timeline.from_file_names([], 1).is_before_start(T1)


def test_the_write_timeline_starts_at_the_first_write_not_at_an_older_clean() -> None:
    # archival keeps cleans, rollbacks and savepoints by their own rules: commits between
    # the surviving clean T1 and the first commit T4 were archived, their files are committed
    names = [f"{T1}.clean", f"{T2}.rollback", f"{T3}.savepoint", f"{T4}.commit"]
    timeline = Timeline.from_file_names(names, 1)
    assert timeline.first_instant_time() == T1
    assert timeline.write_timeline_start() == T4
    assert timeline.is_before_start(T2) and timeline.is_committed_write(T3)


def test_a_pending_write_starts_the_write_timeline() -> None:
    # the leftovers of a failed write older than every completed commit stay uncommitted
    timeline = Timeline.from_file_names(
        [f"{T2}.commit.requested", f"{T3}.compaction.requested", f"{T4}.commit"], 1
    )
    assert timeline.write_timeline_start() == T2
    assert not timeline.is_committed_write(T2)
    assert timeline.is_committed_write(T1)


def test_max_instant_time_includes_completion_times() -> None:
    timeline = Timeline.from_file_names([f"{T1}_{C4}.commit", f"{T2}.commit.requested"], 2)
    assert timeline.max_instant_time() == C4
    assert Timeline.from_file_names([], 2).max_instant_time() is None


def test_as_of_keeps_instants_at_or_before() -> None:
    timeline = Timeline.from_file_names([f"{T1}.commit", f"{T2}.commit", f"{T3}.commit"], 1)
    assert [i.timestamp for i in timeline.as_of(T2)] == [T1, T2]
    assert list(timeline.as_of("20000101000000000")) == []


def test_entries_are_sorted_by_time_then_state() -> None:
    names = [f"{T3}.commit", f"{T1}.deltacommit.requested", f"{T2}.clean", f"{T1}.savepoint"]
    timeline = Timeline.from_file_names(names, 1)
    assert [(i.timestamp, i.action) for i in timeline] == [
        (T1, Action.DELTA_COMMIT),
        (T1, Action.SAVEPOINT),
        (T2, Action.CLEAN),
        (T3, Action.COMMIT),
    ]


def test_file_path_of_a_state_without_file_uses_the_layout_name() -> None:
    timeline = Timeline.from_file_names([f"{T1}.commit"], 1)
    instant = timeline.instants[0]
    assert timeline.file_path(instant, State.INFLIGHT) == f".hoodie/{T1}.inflight"
    assert timeline.file_path(instant) == f".hoodie/{T1}.commit"


def test_a_file_named_with_an_impossible_date_is_corrupt_naming_its_path() -> None:
    names = ["20240101000000000.commit", "20241301000000000.commit.requested"]
    with pytest.raises(CorruptFileError, match=r"month must be in 1\.\.12") as raised:
        Timeline.from_file_names(names, 1, ".hoodie")
    assert raised.value.where == ".hoodie/20241301000000000.commit.requested"
