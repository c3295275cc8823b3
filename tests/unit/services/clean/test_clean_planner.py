"""The clean planner on synthetic table states: one test per rule, named after it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs, build_view
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.clean.planner import CleanInputs, CleanPlanResult, live_files, plan_clean
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.services.clean.scope import LastClean, ScanScope, choose_scope, partitions_in_window
from maintainer.storage import FileInfo

NOW = datetime(2025, 1, 2, 0, 0, tzinfo=timezone.utc)
FULL = ScanScope(True, "test")


def ts(n: int) -> str:
    """Instant n: 2025-01-01 00:00:00.000 + n minutes."""
    return f"202501010{n // 60:01d}{n % 60:02d}00000"


def base(file_id: str, n: int) -> str:
    return f"{file_id}_0-1-{n}_{ts(n)}.parquet"


def log(file_id: str, n: int, version: int = 1) -> str:
    return f".{file_id}_{ts(n)}.log.{version}_0-1-{n}"


def timeline(commits: Iterable[int], action: str = "commit", extra: Iterable[str] = ()) -> Timeline:
    names = []
    for n in commits:
        names += [f"{ts(n)}.{action}.requested", f"{ts(n)}.{action}.inflight", f"{ts(n)}.{action}"]
    return Timeline.from_file_names([*names, *extra], layout=1)


def listing(names: Iterable[str], partition: str = "p") -> dict[str, list[FileInfo]]:
    return {partition: [FileInfo(f"{partition}/{n}", 100, False) for n in names]}


def plan(
    tl: Timeline,
    files: dict[str, list[FileInfo]],
    settings: CleanSettings | None = None,
    inputs: ViewInputs | None = None,
    savepointed: frozenset[str] = frozenset(),
) -> CleanPlanResult:
    view = build_view(tl, files, inputs)
    return plan_clean(
        CleanInputs(tl, view, FULL, savepointed), settings or CleanSettings(commits_retained=2), NOW
    )


def deleted(result: CleanPlanResult) -> set[str]:
    return {f.name for f in result.files}


def test_nothing_to_clean_when_commits_do_not_exceed_retained() -> None:
    result = plan(timeline([1, 2]), listing([base("a", 1), base("a", 2)]))
    assert not result.has_changes
    assert result.earliest_commit_to_retain is None


def test_earliest_commit_to_retain_is_nth_newest_completed_commit() -> None:
    tl = timeline(range(1, 16))
    result = plan(tl, listing([base("a", 1)]), CleanSettings(commits_retained=10))
    assert result.earliest_commit_to_retain is not None
    assert result.earliest_commit_to_retain.timestamp == ts(6)


def test_slices_older_than_ectr_are_deleted_keeping_latest_before_ectr() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)]
    result = plan(timeline([1, 2, 3, 4]), listing(files))
    # ECTR = 3 (2 retained); slice 2 is the latest before it and is kept; slice 1 goes
    assert deleted(result) == {base("a", 1)}


def test_latest_slice_of_every_file_group_is_never_deleted() -> None:
    files = [base("a", 1), base("b", 1), base("b", 4)]
    result = plan(timeline([1, 2, 3, 4]), listing(files))
    assert base("a", 1) not in deleted(result)


def test_last_slice_before_ectr_is_kept_for_running_queries() -> None:
    files = [base("a", 1), base("a", 2), base("a", 5)]
    result = plan(timeline([1, 2, 3, 4, 5]), listing(files))
    # ECTR = 4: slice 2 is the latest before 4, slice 1 is older
    assert deleted(result) == {base("a", 1)}


def test_earliest_commit_to_retain_is_capped_by_earliest_pending_write() -> None:
    tl = timeline([1, 2, 3, 5, 6], extra=[f"{ts(4)}.commit.requested", f"{ts(4)}.inflight"])
    files = [base("a", n) for n in (1, 2, 3, 5, 6)]
    result = plan(tl, listing(files))
    assert result.earliest_commit_to_retain is not None
    assert result.earliest_commit_to_retain.timestamp == ts(3)
    assert "pending" in result.retention_reason
    assert deleted(result) == {base("a", 1)}


def test_savepointed_files_are_never_deleted() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)]
    result = plan(timeline([1, 2, 3, 4]), listing(files), savepointed=frozenset({base("a", 1)}))
    assert not result.has_changes


def test_slices_needed_by_pending_compaction_are_kept() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)]
    pending = {("p", "a"): PendingOperation(ts(5), "compaction", base_instant=ts(1))}
    result = plan(timeline([1, 2, 3, 4]), listing(files), inputs=ViewInputs(pending_compaction=pending))
    assert not result.has_changes


def test_slices_needed_by_pending_clustering_are_kept() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)]
    pending = {("p", "a"): PendingOperation(ts(5), "clustering", base_instant=ts(1))}
    result = plan(timeline([1, 2, 3, 4]), listing(files), inputs=ViewInputs(pending_clustering=pending))
    assert not result.has_changes


def test_mor_slices_are_deleted_with_their_log_files() -> None:
    tl = timeline([1, 2, 3, 4, 5], action="deltacommit")
    files = [base("a", 1), log("a", 1, 1), log("a", 1, 2), base("a", 2), base("a", 5)]
    result = plan(tl, listing(files))
    assert deleted(result) == {base("a", 1), log("a", 1, 1), log("a", 1, 2)}


def test_replaced_file_groups_before_ectr_are_deleted_whole() -> None:
    files = [base("a", 1), base("a", 2), base("b", 3)]
    inputs = ViewInputs(replaced_file_groups={("p", "a"): ts(3)})
    result = plan(timeline([1, 2, 3, 4, 5, 6]), listing(files), inputs=inputs)
    assert deleted(result) == {base("a", 1), base("a", 2)}
    assert all("replaced" in f.reason for f in result.files)


def test_replaced_file_groups_at_or_after_ectr_are_kept() -> None:
    files = [base("a", 1), base("b", 3)]
    inputs = ViewInputs(replaced_file_groups={("p", "a"): ts(3)})
    result = plan(timeline([1, 2, 3, 4]), listing(files), inputs=inputs)
    assert not result.has_changes


def test_keep_latest_file_versions_keeps_newest_n_slices() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4, 5)]
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=3)
    result = plan(timeline([1, 2, 3, 4, 5]), listing(files), settings)
    assert deleted(result) == {base("a", 1), base("a", 2)}
    assert result.earliest_commit_to_retain is None


def test_keep_latest_file_versions_counts_pending_compaction_as_a_version() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4, 5)]
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=3)
    pending = {("p", "a"): PendingOperation(ts(6), "compaction", base_instant=ts(5))}
    result = plan(timeline([1, 2, 3, 4, 5]), listing(files), settings, ViewInputs(pending_compaction=pending))
    # slices 5 (and the pending slice 6) are needed by the compaction and count as one version
    assert deleted(result) == {base("a", 1), base("a", 2)}


def test_keep_latest_by_hours_retains_commits_within_the_window() -> None:
    tl = timeline([1, 2, 3, 4])
    files = [base("a", n) for n in (1, 2, 3, 4)]
    now = datetime(2025, 1, 1, 0, 3, 30, tzinfo=timezone.utc)  # 30 s after commit 3
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_BY_HOURS, hours_retained=0)
    view = build_view(tl, listing(files))
    result = plan_clean(CleanInputs(tl, view, FULL), settings, now)
    assert result.earliest_commit_to_retain is not None
    assert result.earliest_commit_to_retain.timestamp == ts(4)
    assert deleted(result) == {base("a", 1), base("a", 2)}


def test_uncommitted_files_are_not_cleaned() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)] + [base("a", 9)]
    tl = timeline([1, 2, 3, 4], extra=[f"{ts(9)}.commit.requested"])
    result = plan(tl, listing(files))
    assert base("a", 9) not in deleted(result)


def test_emptied_partition_is_marked_for_deletion() -> None:
    files = listing([base("a", 1)], "old") | listing([base("b", 3), base("b", 4)], "new")
    inputs = ViewInputs(replaced_file_groups={("old", "a"): ts(2)})
    result = plan(timeline([1, 2, 3, 4, 5]), files, inputs=inputs)
    assert result.partitions_to_delete == ["old"]


def test_nothing_to_clean_means_no_changes() -> None:
    files = [base("a", 5), base("b", 5)]
    result = plan(timeline([1, 2, 3, 4, 5]), listing(files))
    assert not result.has_changes
    assert result.earliest_commit_to_retain is not None


def test_incremental_scope_uses_partitions_written_since_last_ectr() -> None:
    tl = timeline(range(1, 8), extra=[f"{ts(8)}.clean.requested", f"{ts(8)}.clean"])
    settings = CleanSettings(commits_retained=2)
    last = LastClean(ts(8), ts(3))
    ectr = tl.completed_commits()[-2]
    scope = choose_scope(tl, settings, ectr, last)
    assert not scope.full
    assert [i.timestamp for i in scope.window] == [ts(n) for n in (3, 4, 5)]
    written = {ts(3): ["a"], ts(4): ["b"], ts(6): ["c"]}
    assert partitions_in_window(scope.window, written) == ["a", "b"]


def test_incremental_falls_back_to_full_scan_without_previous_clean() -> None:
    scope = choose_scope(timeline([1, 2, 3]), CleanSettings(), None, None)
    assert scope.full
    assert "no earlier clean" in scope.reason


def test_incremental_falls_back_to_full_scan_when_last_ectr_was_archived() -> None:
    tl = timeline([5, 6, 7])
    scope = choose_scope(tl, CleanSettings(), tl.completed_commits()[-1], LastClean(ts(8), ts(2)))
    assert scope.full
    assert "archived" in scope.reason


def test_incremental_falls_back_to_full_scan_when_a_savepoint_was_deleted() -> None:
    tl = timeline([1, 2, 3, 4])
    scope = choose_scope(tl, CleanSettings(), tl.completed_commits()[-1], LastClean(ts(5), ts(2), (ts(1),)))
    assert scope.full
    assert "savepoint" in scope.reason


def test_file_versions_policy_always_scans_everything() -> None:
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS)
    assert choose_scope(timeline([1]), settings, None, LastClean(ts(2), ts(1))).full


def test_keep_latest_file_versions_counts_savepointed_slices_but_never_deletes_them() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4, 5)]
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=2)
    savepointed = frozenset({base("a", 4), base("a", 2)})
    result = plan(timeline([1, 2, 3, 4, 5]), listing(files), settings, savepointed=savepointed)
    # 5 and 4 are the two versions kept (4 counts although savepointed); 2 is savepointed
    assert deleted(result) == {base("a", 1), base("a", 3)}


def test_keep_latest_file_versions_counts_pending_log_compaction_as_a_version() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)]
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=2)
    pending = {("p", "a"): PendingOperation(ts(6), "logcompaction", base_instant=ts(4))}
    result = plan(
        timeline([1, 2, 3, 4]), listing(files), settings, ViewInputs(pending_log_compaction=pending)
    )
    assert deleted(result) == {base("a", 1), base("a", 2)}


def test_keep_latest_file_versions_counts_a_pending_clustering_slice_as_a_version() -> None:
    """CleanPlanner.getFilesToCleanKeepingLatestVersions: only slices a pending compaction or log
    compaction needs are set apart from the version count (and take one version); a pending
    clustering's slices count as versions like any other. (We still never delete a slice it reads.)"""
    files = [base("a", n) for n in (1, 2, 3, 4)]
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=2)
    pending = {("p", "a"): PendingOperation(ts(6), "clustering", base_instant=ts(4))}
    result = plan(timeline([1, 2, 3, 4]), listing(files), settings, ViewInputs(pending_clustering=pending))
    assert deleted(result) == {base("a", 1), base("a", 2)}


def test_a_pending_compaction_caps_the_earliest_commit_to_retain() -> None:
    """CleanerUtils.getEarliestCommitToRetain: the cap is the earliest pending instant of the
    commits-and-compaction timeline, so a pending compaction caps it like a pending write (the
    last completed commit before it is the ECTR); a pending log compaction is not on that
    timeline and does not."""
    files = [base("a", n) for n in (1, 2, 3, 5, 6)]
    compaction = timeline([1, 2, 3, 5, 6], extra=[f"{ts(4)}.compaction.requested"])
    result = plan(compaction, listing(files))
    assert result.earliest_commit_to_retain is not None
    assert result.earliest_commit_to_retain.timestamp == ts(3)
    assert "pending compaction" in result.retention_reason
    log_compaction = timeline([1, 2, 3, 5, 6], extra=[f"{ts(4)}.logcompaction.requested"])
    uncapped = plan(log_compaction, listing(files))
    assert uncapped.earliest_commit_to_retain is not None
    assert uncapped.earliest_commit_to_retain.timestamp == ts(5)


def test_a_pending_write_older_than_every_retained_candidate_leaves_no_ectr() -> None:
    """CleanerUtils.getEarliestCommitToRetain: with no completed commit before the earliest pending
    one, the ECTR is empty and nothing is cleaned by commits."""
    tl = timeline([2, 3, 4, 5], extra=[f"{ts(1)}.commit.requested", f"{ts(1)}.inflight"])
    result = plan(tl, listing([base("a", n) for n in (2, 3, 4, 5)]))
    assert result.earliest_commit_to_retain is None
    assert not result.has_changes


def test_keep_latest_by_hours_takes_the_first_commit_of_the_timeline_when_it_is_in_the_window() -> None:
    """CleanerUtils.getEarliestCommitToRetain (KEEP_LATEST_BY_HOURS): the first completed commit at
    or after now - hours, even the first on the timeline; the commits-policy cap by pending
    instants does not apply to this policy."""
    tl = timeline([1, 3, 4], extra=[f"{ts(2)}.commit.requested", f"{ts(2)}.inflight"])
    settings = CleanSettings(policy=CleanPolicy.KEEP_LATEST_BY_HOURS, hours_retained=1)
    early = datetime(2025, 1, 1, 0, 30, tzinfo=timezone.utc)
    view = build_view(tl, listing([base("a", n) for n in (1, 3, 4)]))
    whole = plan_clean(CleanInputs(tl, view, FULL), settings, early)
    assert whole.earliest_commit_to_retain is not None
    assert whole.earliest_commit_to_retain.timestamp == ts(1)
    assert not whole.has_changes
    later = datetime(2025, 1, 1, 1, 3, 30, tzinfo=timezone.utc)  # the window starts after commit 3
    uncapped = plan_clean(CleanInputs(tl, view, FULL), settings, later)
    assert uncapped.earliest_commit_to_retain is not None
    assert uncapped.earliest_commit_to_retain.timestamp == ts(4)
    assert deleted(uncapped) == {base("a", 1)}


def test_no_clean_until_max_commits_since_the_last_clean() -> None:
    """CleanPlanActionExecutor.needsCleaning / getCommitsSinceLastCleaning (NUM_COMMITS): a clean is
    scheduled only when the completed commits after the last clean's lastCompletedCommitTimestamp
    reach hoodie.clean.max.commits (default 1); without a last clean every completed commit
    counts; the plan says why nothing is cleaned."""
    tl = timeline(
        [1, 2, 3, 4, 5], extra=[f"{ts(6)}.clean.requested", f"{ts(6)}.clean.inflight", f"{ts(6)}.clean"]
    )
    files = listing([base("a", n) for n in (1, 2, 3, 4, 5)])
    view = build_view(tl, files)
    settings = CleanSettings(commits_retained=2)
    after_all = LastClean(ts(6), ts(3), None, last_completed_commit=ts(5))
    idle = plan_clean(CleanInputs(tl, view, FULL, last_clean=after_all), settings, NOW)
    assert not idle.has_changes
    assert "0 completed commit(s) since the last clean" in idle.not_triggered
    after_four = LastClean(ts(6), ts(3), None, last_completed_commit=ts(4))
    assert plan_clean(CleanInputs(tl, view, FULL, last_clean=after_four), settings, NOW).has_changes
    two = CleanSettings(commits_retained=2, max_commits=2)
    assert plan_clean(CleanInputs(tl, view, FULL, last_clean=after_four), two, NOW).not_triggered
    empty_file = LastClean(ts(6), "", None, last_completed_commit=None)
    assert plan_clean(CleanInputs(tl, view, FULL, last_clean=empty_file), two, NOW).has_changes
    assert plan_clean(
        CleanInputs(tl, view, FULL), CleanSettings(commits_retained=2, max_commits=6), NOW
    ).not_triggered


def test_live_files_are_latest_slices_savepointed_and_pending_compaction_slices() -> None:
    files = [base("a", n) for n in (1, 2, 3, 4)] + [base("b", 1), base("b", 2), base("c", 1), base("c", 3)]
    pending = {("p", "a"): PendingOperation(ts(5), "compaction", base_instant=ts(2))}
    inputs = ViewInputs(pending_compaction=pending, replaced_file_groups={("p", "c"): ts(3)})
    view = build_view(timeline([1, 2, 3, 4]), listing(files), inputs)
    live = live_files(view, frozenset({base("b", 1)}))
    assert live == {
        f"p/{base('a', 4)}": "it is in the latest slice of its file group",
        f"p/{base('a', 2)}": f"the pending compaction {ts(5)} needs it",
        f"p/{base('a', 3)}": f"the pending compaction {ts(5)} needs it",
        f"p/{base('b', 2)}": "it is in the latest slice of its file group",
        f"p/{base('b', 1)}": "it is savepointed",
    }, "a replaced file group has no live slice"
