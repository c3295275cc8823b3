"""Archive planner rules on synthetic timelines."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.state import TableState
from maintainer.services.archive.planner import ArchiveInputs, plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import compaction_max_delta_commits
from maintainer.services.compaction.settings import CompactionSpec

SETTINGS = ArchiveSpec(keep_min_commits=3, keep_max_commits=5)


def ts(index: int) -> str:
    return f"202601010000{index:02d}000"


def commit_files(index: int, action: str = "commit") -> list[str]:
    inflight = f"{ts(index)}.inflight" if action == "commit" else f"{ts(index)}.{action}.inflight"
    return [f"{ts(index)}.{action}.requested", inflight, f"{ts(index)}.{action}"]


def timeline(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 1)


def commits(count: int, start: int = 1) -> list[str]:
    return [name for index in range(start, start + count) for name in commit_files(index)]


def archived_times(tl: Timeline, settings: ArchiveSpec = SETTINGS, **kwargs: object) -> list[str]:
    result = plan_archive(ArchiveInputs(tl, **kwargs), settings)  # type: ignore[arg-type]
    return [i.timestamp for i in result.instants]


def test_nothing_until_completed_commits_exceed_keep_max() -> None:
    result = plan_archive(ArchiveInputs(timeline(*commits(5))), SETTINGS)
    assert not result.has_changes
    assert "not more than keep_max_commits (5)" in result.reasons[0]


def test_archives_the_oldest_commits_down_to_keep_min() -> None:
    assert archived_times(timeline(*commits(6))) == [ts(1), ts(2), ts(3)]


def test_keeps_the_last_completed_commit_before_the_earliest_pending_write() -> None:
    """TimelineArchiverV1/V2.getCommitInstantsToArchive: ``earliestCommitToRetain`` is the greatest
    completed commit before the earliest pending instant of the write timeline; only commits
    strictly before it are archived, so the pending write never precedes the active timeline
    (HoodieFileGroup.isFileSliceCommitted would then take its files as committed)."""
    names = [*commits(8), f"{ts(4)}.commit.requested", f"{ts(4)}.inflight"]
    names = [n for n in names if not n.startswith(ts(4)) or not n.endswith(".commit")]
    result = plan_archive(ArchiveInputs(timeline(*names)), SETTINGS)
    assert [i.timestamp for i in result.instants] == [ts(1), ts(2)]
    assert result.boundaries[0].timestamp == ts(3)
    assert "last completed commit before the earliest pending write" in result.boundaries[0].reason


def test_a_pending_write_older_than_every_completed_commit_is_the_boundary() -> None:
    """TimelineArchiverV2.getCommitInstantsToArchive: with no completed commit before the earliest
    pending instant, that pending instant itself is ``earliestCommitToRetain``."""
    names = [*commits(8, start=2), f"{ts(1)}.commit.requested", f"{ts(1)}.inflight"]
    result = plan_archive(ArchiveInputs(timeline(*names)), SETTINGS)
    assert not result.has_changes
    assert result.boundaries[0].timestamp == ts(1)


def test_a_pending_compaction_keeps_the_commit_before_it() -> None:
    """TimelineArchiverV1/V2.getCommitInstantsToArchive: the write timeline includes compaction
    and log compaction, so a pending one keeps the last completed commit before it."""
    names = [n for i in range(1, 9) for n in commit_files(i, "deltacommit")]
    pending_at_4 = [n for n in names if not n.startswith(ts(4))] + [f"{ts(4)}.compaction.requested"]
    assert archived_times(timeline(*pending_at_4)) == [ts(1), ts(2)]
    pending_at_3 = [n for n in names if not n.startswith(ts(3))] + [f"{ts(3)}.logcompaction.requested"]
    assert archived_times(timeline(*pending_at_3)) == [ts(1)]


def test_a_pending_clustering_keeps_the_commit_before_it_in_both_layouts() -> None:
    """TimelineArchiverV2.getCommitInstantsToArchive (layout 2 ``clustering``) and
    TimelineArchiverV1 (layout 1 pending ``replacecommit``): both are on the write timeline."""
    v1 = [n for n in commits(8) if not n.startswith(ts(4))] + [f"{ts(4)}.replacecommit.requested"]
    assert archived_times(timeline(*v1)) == [ts(1), ts(2)]
    v2_names = [
        name
        for i in range(1, 9)
        if i != 4
        for name in (f"{ts(i)}.commit.requested", f"{ts(i)}.inflight", f"{ts(i)}_{ts(i)[:-3]}500.commit")
    ]
    v2 = Timeline.from_file_names([*v2_names, f"{ts(4)}.clustering.requested"], 2)
    assert archived_times(v2) == [ts(1), ts(2)]


def test_completed_compaction_counts_as_a_commit_and_goes_with_all_its_states() -> None:
    names = [n for i in range(2, 8) for n in commit_files(i, "deltacommit")]
    names += [f"{ts(1)}.compaction.requested", f"{ts(1)}.compaction.inflight", f"{ts(1)}.commit"]
    result = plan_archive(ArchiveInputs(timeline(*names)), SETTINGS)
    assert next((i.timestamp, i.action) for i in result.instants) == (ts(1), Action.COMPACTION)
    assert len(result.instants) == 4


def test_replacecommit_stays_until_a_clean_covers_it() -> None:
    names = commits(8)
    names = [n for n in names if not n.startswith(ts(2))] + commit_files(2, "replacecommit")
    assert archived_times(timeline(*names)) == [ts(1)]
    clean = [f"{ts(9)}.clean.requested", f"{ts(9)}.clean.inflight", f"{ts(9)}.clean"]
    covered = timeline(*names, *clean)
    assert archived_times(covered, last_clean_ectr=ts(4)) == [ts(1), ts(2), ts(3), ts(4), ts(5)]
    assert archived_times(covered, last_clean_ectr=ts(2)) == [ts(1)]


def test_stops_at_the_first_savepoint_unless_archiving_beyond_it() -> None:
    names = [*commits(8), f"{ts(3)}.savepoint.inflight", f"{ts(3)}.savepoint"]
    tl = timeline(*names)
    assert archived_times(tl) == [ts(1), ts(2)]
    beyond = ArchiveSpec(keep_min_commits=3, keep_max_commits=5, archive_beyond_savepoint=True)
    assert archived_times(tl, beyond) == [ts(1), ts(2), ts(4), ts(5), ts(6)]


def test_cleans_and_rollbacks_older_than_the_last_archived_commit_go_too_but_not_the_latest_clean() -> None:
    extra = []
    for index, action in ((11, "clean"), (12, "rollback"), (13, "clean"), (14, "rollback")):
        time = f"202601010000{index - 10:02d}500"
        extra += [f"{time}.{action}.requested", f"{time}.{action}.inflight", f"{time}.{action}"]
    pending_clean = "20260101000002700.clean.requested"
    tl = timeline(*commits(8), *extra, pending_clean)
    archived = archived_times(tl, last_clean_ectr=ts(7))
    commits_archived = [ts(i) for i in range(1, 6)]
    assert [t for t in archived if t.endswith("000")] == commits_archived
    assert sorted(t for t in archived if t.endswith("500")) == [
        "20260101000001500",
        "20260101000002500",
        "20260101000004500",
    ]
    assert "20260101000002700" not in archived
    assert "20260101000003500" not in archived  # the latest clean stays


def test_a_metadata_table_that_never_compacted_blocks_archival() -> None:
    result = plan_archive(ArchiveInputs(timeline(*commits(8)), metadata_table_enabled=True), SETTINGS)
    assert not result.has_changes and "metadata table has never compacted" in result.reasons[0]


def test_archival_stops_before_the_metadata_tables_latest_compaction() -> None:
    inputs = ArchiveInputs(timeline(*commits(8)), metadata_table_enabled=True, metadata_compaction=ts(3))
    result = plan_archive(inputs, SETTINGS)
    assert [i.timestamp for i in result.instants] == [ts(1), ts(2)]
    assert f"the metadata table's latest compaction {ts(3)}" in result.reasons[-2]
    later = ArchiveInputs(timeline(*commits(8)), metadata_table_enabled=True, metadata_compaction=ts(9))
    without = ArchiveInputs(timeline(*commits(8)))
    assert plan_archive(later, SETTINGS).instants == plan_archive(without, SETTINGS).instants


def test_instants_an_interrupted_run_archived_always_finish() -> None:
    tl = timeline(*commits(4))
    archived = archived_times(tl, already_archived=frozenset({ts(1), ts(2)}))
    assert archived == [ts(1), ts(2)]


def test_mor_keeps_the_delta_commits_the_compaction_trigger_counts() -> None:
    deltas = [n for i in range(1, 9) for n in commit_files(i, "deltacommit")]
    tl = timeline(*deltas)
    assert archived_times(tl, compaction_max_delta_commits=4) == [ts(1), ts(2), ts(3), ts(4)]
    assert archived_times(tl, compaction_max_delta_commits=6) == [ts(1), ts(2)]
    assert archived_times(tl, compaction_max_delta_commits=20) == []
    compacted = [n for n in deltas if not n.startswith(ts(3))]
    compacted += [f"{ts(3)}.compaction.requested", f"{ts(3)}.compaction.inflight", f"{ts(3)}.commit"]
    # 5 delta commits since the compaction at 3: fewer than 20, so keep from the compaction
    assert archived_times(timeline(*compacted), compaction_max_delta_commits=20) == [ts(1), ts(2)]
    assert archived_times(timeline(*compacted), compaction_max_delta_commits=2) == [
        ts(1),
        ts(2),
        ts(3),
        ts(4),
        ts(5),
    ]


def _table(is_mor: bool) -> TableState:
    config = SimpleNamespace(is_mor=is_mor)
    return cast(TableState, SimpleNamespace(snapshot=SimpleNamespace(config=config)))


def test_the_compaction_window_guard_holds_on_every_mor_table() -> None:
    """TimelineArchiverV1/V2.getCommitInstantsToArchive: the guard of
    CompactionUtils.getEarliestInstantToRetainForCompaction applies to every MOR table whose
    trigger strategy counts delta commits; Hudi's default is NUM_COMMITS with 5, so a manifest
    without a compaction block (or with compaction off) still keeps that window."""
    assert compaction_max_delta_commits(_table(True), None) == 5
    assert compaction_max_delta_commits(_table(True), CompactionSpec(enabled=False)) == 5
    custom = CompactionSpec.model_validate({"trigger": {"max_delta_commits": 8}})
    assert compaction_max_delta_commits(_table(True), custom) == 8
    timed = CompactionSpec.model_validate({"trigger": {"strategy": "time_elapsed"}})
    assert compaction_max_delta_commits(_table(True), timed) is None
    assert compaction_max_delta_commits(_table(False), None) is None


def layout2_commit(index: int, completed: str) -> list[str]:
    return [f"{ts(index)}.commit.requested", f"{ts(index)}.inflight", f"{ts(index)}_{completed}.commit"]


def test_on_layout_2_the_metadata_compaction_bounds_archival_by_completion_time() -> None:
    """TimelineArchiverV2.getCommitInstantsToArchive: the metadata table's latest compaction
    bounds archival at ``findInstantsModifiedAfterByCompletionTime(compaction)``, the first
    commit completed after it; a commit requested before the compaction but completed after it
    stays (a requested-time comparison would archive it)."""
    names = layout2_commit(1, "20260101000001500") + layout2_commit(2, "20260101000004500")
    names += [n for i in range(3, 9) for n in layout2_commit(i, ts(i)[:-3] + "500")]
    tl = Timeline.from_file_names(names, 2)
    inputs = ArchiveInputs(tl, metadata_table_enabled=True, metadata_compaction=ts(3))
    result = plan_archive(inputs, SETTINGS)
    assert [i.timestamp for i in result.instants] == [ts(1)]
    assert (
        f"commit {ts(2)}, the first commit completed after the metadata table's latest compaction"
        in (result.reasons[1])
    )
    # every commit completed before the compaction: nothing of it bounds archival
    early = ArchiveInputs(tl, metadata_table_enabled=True, metadata_compaction=ts(9))
    assert plan_archive(early, SETTINGS).instants == plan_archive(ArchiveInputs(tl), SETTINGS).instants
