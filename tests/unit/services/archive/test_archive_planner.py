"""Archive planner rules on synthetic timelines."""

from __future__ import annotations

from maintainer.hudi.instant import Action
from maintainer.hudi.timeline import Timeline
from maintainer.services.archive.planner import ArchiveInputs, ArchiveSettings, plan_archive

SETTINGS = ArchiveSettings(keep_min_commits=3, keep_max_commits=5)


def ts(index: int) -> str:
    return f"202601010000{index:02d}000"


def commit_files(index: int, action: str = "commit") -> list[str]:
    inflight = f"{ts(index)}.inflight" if action == "commit" else f"{ts(index)}.{action}.inflight"
    return [f"{ts(index)}.{action}.requested", inflight, f"{ts(index)}.{action}"]


def timeline(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 1)


def commits(count: int, start: int = 1) -> list[str]:
    return [name for index in range(start, start + count) for name in commit_files(index)]


def archived_times(tl: Timeline, settings: ArchiveSettings = SETTINGS, **kwargs: object) -> list[str]:
    result = plan_archive(ArchiveInputs(tl, **kwargs), settings)  # type: ignore[arg-type]
    return [i.timestamp for i in result.instants]


def test_nothing_until_completed_commits_exceed_keep_max() -> None:
    result = plan_archive(ArchiveInputs(timeline(*commits(5))), SETTINGS)
    assert not result.has_changes
    assert "not more than keep_max_commits (5)" in result.reasons[0]


def test_archives_the_oldest_commits_down_to_keep_min() -> None:
    assert archived_times(timeline(*commits(6))) == [ts(1), ts(2), ts(3)]


def test_never_past_the_earliest_pending_write() -> None:
    names = [*commits(8), f"{ts(3)}.commit.requested", f"{ts(3)}.inflight"]
    names = [n for n in names if not n.startswith(ts(3)) or not n.endswith(".commit")]
    result = plan_archive(ArchiveInputs(timeline(*names)), SETTINGS)
    assert [i.timestamp for i in result.instants] == [ts(1), ts(2)]
    assert "pending write" in result.boundaries[0].reason and result.boundaries[0].timestamp == ts(3)


def test_a_pending_compaction_blocks_archival() -> None:
    names = [n for i in range(1, 9) for n in commit_files(i, "deltacommit")]
    names += [f"{ts(4)}.compaction.requested"]
    assert archived_times(timeline(*names)) == [ts(1), ts(2), ts(3)]
    names_mid = [*names[:-1], f"{ts(3)}.compaction.requested"]
    assert archived_times(timeline(*names_mid)) == [ts(1), ts(2)]


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
    beyond = ArchiveSettings(3, 5, archive_beyond_savepoint=True)
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


def test_a_metadata_table_blocks_archival() -> None:
    result = plan_archive(ArchiveInputs(timeline(*commits(8)), metadata_table_enabled=True), SETTINGS)
    assert not result.has_changes and "metadata table" in result.reasons[0]


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
