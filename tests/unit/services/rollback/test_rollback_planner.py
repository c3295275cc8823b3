"""Rollback planner rules on synthetic table states."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from maintainer.executors.common.markers import Marker, read_markers
from maintainer.executors.common.rollback_requests import absolute_path, relative_path
from maintainer.executors.rollback.model import RollbackKind
from maintainer.hudi.file_groups.filemodel import BaseFile, LogFile
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName, MarkerType
from maintainer.hudi.instants.instant import Action, State, instant_time_to_epoch_ms
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import InstantInfo, RollbackPlan
from maintainer.services.rollback.model import RollbackInputs
from maintainer.services.rollback.planner import plan_rollback
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.storage import Storage

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
NOW_MS = int(NOW.timestamp() * 1000)
OLD = "20260101090000000"  # 3 hours before NOW
OLDER = "20260101080000000"
YOUNG = "20260101115930000"  # 30 s before NOW
COMMITTED = "20260101070000000"
URI = "file:/data/t"
EAGER = RollbackSpec(min_age=timedelta(hours=1))
LAZY = RollbackSpec(failed_writes_policy="lazy", min_age=timedelta(minutes=5))


def timeline(*names: str, layout: int = 1) -> Timeline:
    return Timeline.from_file_names(names, layout)


def base(partition: str, file_id: str, instant: str, size: int = 100) -> BaseFile:
    name = BaseFileName(file_id, "0-1-2", instant).name
    return BaseFile(partition, name, size, file_id, instant)


def log(partition: str, file_id: str, instant: str, version: int = 1, size: int = 50) -> LogFile:
    parsed = LogFileName(file_id, instant, version, "0-1-2")
    return LogFile(partition, parsed.name, size, file_id, instant, version, "0-1-2")


def inputs(tl: Timeline, **kwargs: object) -> RollbackInputs:
    defaults: dict[str, object] = {"table_version": 6, "is_mor": False, "table_uri": URI}
    defaults.update(kwargs)
    return RollbackInputs(timeline=tl, **defaults)  # type: ignore[arg-type]


def commits(*pending: str) -> Timeline:
    names = [f"{COMMITTED}.commit.requested", f"{COMMITTED}.inflight", f"{COMMITTED}.commit"]
    for ts in pending:
        names += [f"{ts}.commit.requested", f"{ts}.inflight"]
    return timeline(*names)


def test_eager_rolls_back_every_pending_write_older_than_min_age_and_says_why_it_skips() -> None:
    result = plan_rollback(inputs(commits(OLD, YOUNG)), EAGER, NOW)
    assert [(p.kind, p.target.timestamp) for p in result.rollbacks] == [(RollbackKind.ROLLBACK, OLD)]
    assert "eager" in result.rollbacks[0].reason
    assert [s.instant.timestamp for s in result.skipped] == [YOUNG]
    assert "younger than min_age" in result.skipped[0].reason


def test_lazy_rolls_back_only_writes_whose_heartbeat_expired() -> None:
    beats = {
        OLD: NOW_MS - 10_000,  # live: 10 s ago, expiry is 120 s
        OLDER: NOW_MS - 600_000,  # expired
    }
    result = plan_rollback(inputs(commits(OLDER, OLD), heartbeats=beats), LAZY, NOW)
    assert [p.target.timestamp for p in result.rollbacks] == [OLDER]
    assert "heartbeat expired" in result.rollbacks[0].reason
    assert [(s.instant.timestamp, "heartbeat is live" in s.reason) for s in result.skipped] == [(OLD, True)]


def test_lazy_treats_a_missing_heartbeat_as_expired_but_still_respects_min_age() -> None:
    result = plan_rollback(inputs(commits(OLD, YOUNG)), LAZY, NOW)
    assert [p.target.timestamp for p in result.rollbacks] == [OLD]
    assert [s.instant.timestamp for s in result.skipped] == [YOUNG]


def test_heartbeat_expiry_is_interval_times_tolerable_misses() -> None:
    settings = RollbackSpec(
        failed_writes_policy="lazy",
        min_age=timedelta(0),
        heartbeat_interval_ms=1000,
        heartbeat_tolerable_misses=3,
    )
    live = plan_rollback(inputs(commits(OLD), heartbeats={OLD: NOW_MS - 3000}), settings, NOW)
    expired = plan_rollback(inputs(commits(OLD), heartbeats={OLD: NOW_MS - 3001}), settings, NOW)
    assert not live.rollbacks and expired.rollbacks


def test_newest_failed_instant_first() -> None:
    result = plan_rollback(inputs(commits(OLDER, OLD)), EAGER, NOW)
    assert [p.target.timestamp for p in result.rollbacks] == [OLD, OLDER]


def test_instant_ages_honour_the_table_timezone() -> None:
    local_old = plan_rollback(inputs(commits(OLD), timezone="LOCAL"), EAGER, NOW)
    age_ms = NOW_MS - instant_time_to_epoch_ms(OLD, "LOCAL")
    assert bool(local_old.rollbacks) == (age_ms >= 3_600_000)


def test_markers_give_files_to_delete_and_log_blocks_to_roll_back() -> None:
    failed_base = base("p", "f1", OLD)
    appended = log("p", "f2", COMMITTED, version=2, size=777)
    markers = (
        Marker("p", failed_base.name, MarkerType.CREATE),
        Marker("p", base("p", "f3", OLD).name, MarkerType.MERGE),
        Marker("p", appended.name, MarkerType.APPEND),
    )
    state = inputs(commits(OLD), is_mor=True, files=(failed_base, appended), markers={OLD: markers})
    planned = plan_rollback(state, EAGER, NOW).rollbacks[0]
    assert planned.source == "markers"
    plan = planned.plan
    assert plan.instant_to_rollback == InstantInfo(commit_time=OLD, action="commit")
    requests = plan.rollback_requests or ()
    deleted = sorted(p for r in requests for p in r.files_to_be_deleted)
    assert deleted == sorted([f"/data/t/p/{failed_base.name}", f"/data/t/p/{base('p', 'f3', OLD).name}"])
    append = [r for r in requests if r.log_blocks_to_be_deleted]
    assert len(append) == 1
    assert append[0].file_id == "f2" and append[0].latest_base_instant == COMMITTED
    assert append[0].log_blocks_to_be_deleted == {f"file:/data/t/p/{appended.name}": 777}


def test_without_markers_files_are_found_by_listing() -> None:
    failed_base = base("p", "f1", OLD)
    committed_base = base("p", "f2", COMMITTED)
    v6_log = log("p", "f2", COMMITTED, version=3)
    other_log = log("p", "f2", COMMITTED, version=2)
    state = inputs(
        commits(OLD),
        is_mor=True,
        files=(failed_base, committed_base, v6_log, other_log),
        log_block_instants={v6_log.path: frozenset({OLD}), other_log.path: frozenset({COMMITTED})},
    )
    planned = plan_rollback(state, EAGER, NOW).rollbacks[0]
    assert planned.source == "listing"
    requests = planned.plan.rollback_requests or ()
    assert [p for r in requests for p in r.files_to_be_deleted] == [f"/data/t/p/{failed_base.name}"]
    assert [list(r.log_blocks_to_be_deleted or {}) for r in requests if r.log_blocks_to_be_deleted] == [
        [f"file:/data/t/{v6_log.path}"]
    ]


def test_v8_log_files_of_the_failed_deltacommit_are_deleted_by_listing() -> None:
    names = [f"{COMMITTED}.deltacommit.requested", f"{COMMITTED}_{COMMITTED[:-1]}1.deltacommit"]
    names += [f"{OLD}.deltacommit.requested", f"{OLD}.deltacommit.inflight"]
    failed_log = log("", "f1", OLD)
    state = inputs(timeline(*names, layout=2), table_version=8, is_mor=True, files=(failed_log,))
    planned = plan_rollback(state, EAGER, NOW).rollbacks[0]
    assert [p for r in planned.plan.rollback_requests or () for p in r.files_to_be_deleted] == [
        f"/data/t/{failed_log.name}"
    ]


def test_a_pending_rollback_is_finished_with_its_own_instant_first() -> None:
    rollback_time = "20260101100000000"
    tl = timeline(
        *[f"{COMMITTED}.commit.requested", f"{COMMITTED}.commit"],
        f"{OLDER}.commit.requested",
        f"{OLDER}.inflight",
        f"{OLD}.commit.requested",
        f"{OLD}.inflight",
        f"{rollback_time}.rollback.requested",
        f"{rollback_time}.rollback.inflight",
    )
    plan = RollbackPlan(instant_to_rollback=InstantInfo(commit_time=OLDER, action="commit"))
    result = plan_rollback(inputs(tl, pending_rollback_plans={rollback_time: plan}), EAGER, NOW)
    first, second = result.rollbacks
    assert first.kind is RollbackKind.FINISH_PENDING_ROLLBACK
    assert first.rollback_instant is not None and first.rollback_instant.timestamp == rollback_time
    assert first.rollback_instant.state is State.INFLIGHT and first.plan is plan
    assert first.target.timestamp == OLDER
    assert (second.kind, second.target.timestamp) == (RollbackKind.ROLLBACK, OLD)


def test_a_completed_rollback_whose_target_remains_only_removes_the_target() -> None:
    rollback_time = "20260101100000000"
    tl = timeline(
        f"{COMMITTED}.commit",
        f"{OLD}.commit.requested",
        f"{OLD}.inflight",
        f"{rollback_time}.rollback.requested",
        f"{rollback_time}.rollback",
    )
    result = plan_rollback(inputs(tl, completed_rollback_targets={OLD: rollback_time}), EAGER, NOW)
    (planned,) = result.rollbacks
    assert planned.kind is RollbackKind.REMOVE_ROLLED_BACK_INSTANT
    assert planned.rollback_instant is not None and planned.rollback_instant.timestamp == rollback_time


def test_pending_table_services_are_left_to_their_executor_however_old() -> None:
    """BaseHoodieTableServiceClient.getInstantsToRollback reads only
    getInflightTimelineExcludeCompactionAndClustering: getCommitsTimeline (commit, deltacommit,
    replacecommit, and on layout 2 clustering) less pending compactions and clustering instants.
    A pending compaction or log compaction (requested or inflight, far older than min_age) is
    never a failed write: the compactor rolls back its own failed attempt (compact ->
    HoodieTable.rollbackInflightCompaction), and the plan says why each is left."""
    requested_only = "20260101085000000"
    log_compaction = "20260101084000000"
    tl = timeline(
        f"{COMMITTED}.deltacommit",
        f"{OLDER}.compaction.requested",
        f"{OLDER}.compaction.inflight",
        f"{log_compaction}.logcompaction.requested",
        f"{log_compaction}.logcompaction.inflight",
        f"{requested_only}.compaction.requested",
        f"{OLD}.deltacommit.requested",
        f"{OLD}.deltacommit.inflight",
    )
    result = plan_rollback(inputs(tl, is_mor=True), EAGER, NOW)
    assert [(p.kind, p.target.timestamp) for p in result.rollbacks] == [(RollbackKind.ROLLBACK, OLD)]
    left = {s.instant.timestamp: s.reason for s in result.skipped}
    assert sorted(left) == sorted([OLDER, log_compaction, requested_only])
    assert left[OLDER].startswith("inflight compaction is a table service, not a failed write")
    assert "only the job that executes it rolls back a failed attempt" in left[OLDER]
    assert left[log_compaction].startswith("inflight logcompaction is a table service")
    assert left[requested_only].startswith("requested compaction is a table service")


def test_layout2_pending_clustering_is_left_to_its_executor() -> None:
    """BaseHoodieTableServiceClient.getInflightTimelineExcludeCompactionAndClustering drops
    ClusteringUtils.isClusteringInstant: a layout-2 ``clustering`` instant is never rolled back
    as a failed write."""
    tl = timeline(
        f"{COMMITTED}_{COMMITTED}.commit",
        f"{OLD}.clustering.requested",
        f"{OLD}.clustering.inflight",
        layout=2,
    )
    result = plan_rollback(inputs(tl, table_version=8), EAGER, NOW)
    assert not result.rollbacks
    assert [(s.instant.timestamp, s.instant.action) for s in result.skipped] == [(OLD, Action.CLUSTERING)]


def test_layout1_clustering_replacecommit_is_left_but_an_overwrite_is_a_failed_write() -> None:
    """getInflightTimelineExcludeCompactionAndClustering keeps a pending replacecommit only when
    ClusteringUtils.getClusteringPlan finds no clustering plan (an insert_overwrite)."""
    tl = timeline(
        f"{COMMITTED}.commit",
        f"{OLDER}.replacecommit.requested",
        f"{OLDER}.replacecommit.inflight",
        f"{OLD}.replacecommit.requested",
        f"{OLD}.replacecommit.inflight",
    )
    result = plan_rollback(inputs(tl, clustering_replacecommits=frozenset({OLDER})), EAGER, NOW)
    assert [(p.kind, p.target.timestamp) for p in result.rollbacks] == [(RollbackKind.ROLLBACK, OLD)]
    (left,) = result.skipped
    assert left.instant.timestamp == OLDER and "clustering replacecommit is a table service" in left.reason


def test_a_pending_rollback_of_a_compaction_is_left_to_the_compactor() -> None:
    """BaseHoodieTableServiceClient.getPendingRollbackInfos(ignoreCompactionAndClusteringInstants
    = true), as rollbackFailedWrites calls it, skips rollbacks whose target is a compaction or a
    clustering: the compactor finishes it (getPendingRollbackInfo(..., false)) before re-running."""
    rollback_time = "20260101100000000"
    tl = timeline(
        f"{COMMITTED}.deltacommit",
        f"{OLD}.compaction.requested",
        f"{OLD}.compaction.inflight",
        f"{rollback_time}.rollback.requested",
    )
    plan = RollbackPlan(instant_to_rollback=InstantInfo(commit_time=OLD, action="compaction"))
    result = plan_rollback(inputs(tl, is_mor=True, pending_rollback_plans={rollback_time: plan}), EAGER, NOW)
    assert not result.rollbacks
    left = {s.instant.timestamp: s.reason for s in result.skipped}
    assert sorted(left) == [OLD, rollback_time]
    assert "the job that executes the compaction finishes it" in left[rollback_time]


def test_completed_instants_clean_and_savepoint_are_never_candidates() -> None:
    tl = timeline(f"{COMMITTED}.commit", f"{OLD}.clean.requested", f"{OLDER}.savepoint.inflight")
    result = plan_rollback(inputs(tl), EAGER, NOW)
    assert not result.has_changes and not result.skipped


def test_absolute_and_relative_paths_round_trip() -> None:
    assert absolute_path(URI, "p/a.parquet") == "/data/t/p/a.parquet"
    assert relative_path(URI, "/data/t/p/a.parquet") == "p/a.parquet"
    assert relative_path(URI, "file:/data/t/p/.a.log.1_0-1-2") == "p/.a.log.1_0-1-2"
    assert relative_path(URI, "/elsewhere/a.parquet") is None
    assert absolute_path("s3://b/t", "p/a") == "s3://b/t/p/a"


def test_markers_of_both_kinds_are_read(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    storage.write_bytes(f".hoodie/.temp/{OLD}/p/a_0-1-2_{OLD}.parquet.marker.CREATE", b"")
    storage.write_bytes(f".hoodie/.temp/{OLD}/p/q/.f_1.log.1_0-1-2.marker.APPEND", b"")
    direct = read_markers(storage, OLD)
    assert sorted((m.partition, m.file_name, m.marker_type.value) for m in direct) == [
        ("p", f"a_0-1-2_{OLD}.parquet", "CREATE"),
        ("p/q", ".f_1.log.1_0-1-2", "APPEND"),
    ]
    storage.write_bytes(f".hoodie/.temp/{OLDER}/MARKERS.type", b"TIMELINE_SERVER_BASED")
    storage.write_bytes(f".hoodie/.temp/{OLDER}/MARKERS0", b"p/b_0-1-2_1.parquet.marker.MERGE\n")
    storage.write_bytes(f".hoodie/.temp/{OLDER}/MARKERS1", b"c_0-1-2_1.parquet.marker.CREATE\n\n")
    server = read_markers(storage, OLDER)
    assert sorted((m.partition, m.file_name, m.marker_type.value) for m in server) == [
        ("", "c_0-1-2_1.parquet", "CREATE"),
        ("p", "b_0-1-2_1.parquet", "MERGE"),
    ]
    assert read_markers(storage, YOUNG) == ()


def test_a_reverted_compaction_is_not_touched_again_by_its_completed_rollback() -> None:
    """A compaction reverted to requested by a completed rollback, then retried (inflight
    again), stays the compactor's: the rollback service neither removes it as a leftover target
    nor rolls back the new attempt (getInflightTimelineExcludeCompactionAndClustering)."""
    rollback_time = "20260101100000000"
    tl = timeline(
        f"{COMMITTED}.deltacommit",
        f"{OLD}.compaction.requested",
        f"{rollback_time}.rollback.requested",
        f"{rollback_time}.rollback",
    )
    result = plan_rollback(
        inputs(tl, is_mor=True, completed_rollback_targets={OLD: rollback_time}), EAGER, NOW
    )
    assert not result.rollbacks
    retried = timeline(*tl_names(tl), f"{OLD}.compaction.inflight")
    again = plan_rollback(
        inputs(retried, is_mor=True, completed_rollback_targets={OLD: rollback_time}), EAGER, NOW
    )
    assert not again.rollbacks
    assert [s.instant.timestamp for s in again.skipped] == [OLD]


def tl_names(tl: Timeline) -> list[str]:
    return [name for entry in tl.entries for name in entry.state_files.values()]


def test_appends_to_one_file_group_make_one_request_so_one_rollback_block() -> None:
    first = log("p", "f2", COMMITTED, version=2, size=10)
    second = log("p", "f2", COMMITTED, version=3, size=20)
    markers = (Marker("p", first.name, MarkerType.APPEND), Marker("p", second.name, MarkerType.APPEND))
    state = inputs(commits(OLD), is_mor=True, files=(first, second), markers={OLD: markers})
    (request,) = plan_rollback(state, EAGER, NOW).rollbacks[0].plan.rollback_requests or ()
    assert request.log_blocks_to_be_deleted == {
        f"file:/data/t/{first.path}": 10,
        f"file:/data/t/{second.path}": 20,
    }
