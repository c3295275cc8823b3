"""The clustering planner on synthetic states: outcomes, pending clusterings, partitions
(incremental window, filter modes, recent writes) and the group caps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from maintainer.hudi.instants.instant import State
from maintainer.services.clustering.model import ClusteringInputs, PlanStatus
from maintainer.services.clustering.planner import plan_clustering
from maintainer.services.clustering.settings import ClusteringSpec

from .states import MB, base, cluster_plan, commits, completed, inputs, overwrite_plan, pending, ts

NOW = datetime(2025, 1, 1, 1, 0, tzinfo=timezone.utc)
ANY = ClusteringSpec(max_commits=0)
AT = ts(50)


def small_files(*partitions: str, per_partition: int = 2) -> dict[str, list[tuple[str, int]]]:
    return {p: [(base(f"{p}-{i}", 1), (i + 1) * MB) for i in range(per_partition)] for p in partitions}


def partitions_of(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [g.partition for g in result.groups]


def test_small_slices_of_each_partition_make_a_group() -> None:
    result = plan_clustering(inputs(commits(1, 2), small_files("p1", "p2")), ANY, NOW, AT)
    assert result.status is PlanStatus.SCHEDULE and result.instant_time == AT
    assert partitions_of(result) == ["p1", "p2"]
    assert [s.file_id for s in result.groups[0].slices] == ["p1-1", "p1-0"]
    assert result.missing_partitions == ()  # table version 8+: a list, empty
    assert result.reasons[0].startswith("no trigger (max_commits 0)")
    assert "partitions: all partitions" in result.reasons
    assert result.reasons[-1] == "4 file slices in 2 groups to cluster, 0 left out"
    effect = result.effect()
    assert (effect.groups, effect.input_slices, effect.input_files, effect.output_file_groups) == (2, 4, 4, 2)
    assert effect.input_bytes == 6 * MB and effect.partitions == ("p1", "p2")
    assert effect.partition_rule == "all partitions" and "SparkRejectUpdateStrategy" in effect.writers


def test_version_6_plans_have_no_missing_partitions() -> None:
    state = inputs(commits(1, layout=1), small_files("p1"), layout=1)
    result = plan_clustering(state, ANY, NOW, AT)
    assert result.status is PlanStatus.SCHEDULE and result.missing_partitions is None


def test_the_trigger_holds_the_plan_back() -> None:
    result = plan_clustering(inputs(commits(1, 2), small_files("p1")), ClusteringSpec(), NOW, AT)
    assert result.status is PlanStatus.NO_OP and not result.groups
    assert result.reasons == ("trigger does not fire: 2 completed commits since the first commit "
                              "(no clustering yet) (max_commits 4)",)  # fmt: skip


def test_nothing_small_is_a_no_op() -> None:
    files = {"p1": [(base("a", 1), 400 * MB)]}
    result = plan_clustering(inputs(commits(1), files), ANY, NOW, AT)
    assert result.status is PlanStatus.NO_OP
    assert "1 file slice at or above the 300.0 MiB small_file_limit stay as they are" in result.reasons
    assert result.reasons[-1] == "no small file slice to cluster"


def test_pending_clusterings_are_executed_and_nothing_is_scheduled() -> None:
    names = [*commits(1), *pending(2, "clustering", "inflight"), *pending(3)]
    requested = {ts(2): cluster_plan("p1", ["p1-0"]), ts(3): cluster_plan("p1", ["p1-1"])}
    result = plan_clustering(inputs(names, small_files("p1"), requested=requested), ANY, NOW, AT)
    assert result.status is PlanStatus.EXECUTE_PENDING and not result.groups
    assert result.pending_instants == (ts(2), ts(3))
    first = result.pending[0]
    assert (
        first.state is State.INFLIGHT
        and first.file_groups == {("p1", "p1-0")}
        and first.sha256 == f"sha-{ts(2)}"
    )
    assert "executed first" in result.reasons[0]


def test_two_pending_plans_of_one_file_group_block() -> None:
    names = [*commits(1), *pending(2), *pending(3)]
    requested = {ts(2): cluster_plan("p1", ["p1-0"]), ts(3): cluster_plan("p1", ["p1-0"])}
    result = plan_clustering(inputs(names, small_files("p1"), requested=requested), ANY, NOW, AT)
    assert result.status is PlanStatus.BLOCKED
    assert "file group p1/p1-0 is in the pending clusterings" in result.reasons[0]


def test_an_unreadable_requested_payload_blocks_naming_the_file() -> None:
    path = f".hoodie/timeline/{ts(2)}.clustering.requested"
    state = inputs([*commits(1), *pending(2)], small_files("p1"), unreadable={path: "not an Avro container"})
    result = plan_clustering(state, ANY, NOW, AT)
    assert result.status is PlanStatus.BLOCKED
    assert result.reasons[0].startswith(f"{path} cannot be read (not an Avro container)")


def test_version_6_pending_replacecommit_is_a_clustering_only_if_its_plan_says_so() -> None:
    names = [*commits(1, layout=1), *pending(2, "replacecommit")]
    clustering = inputs(
        names, small_files("p1"), layout=1, requested={ts(2): cluster_plan("p1", ["p1-0"], version=6)}
    )
    assert plan_clustering(clustering, ANY, NOW, AT).status is PlanStatus.EXECUTE_PENDING
    overwrite = inputs(names, small_files("p1"), layout=1, requested={ts(2): overwrite_plan()})
    assert plan_clustering(overwrite, ANY, NOW, AT).status is PlanStatus.SCHEDULE


def _after_clustering(
    written: dict[str, list[str]], missing: tuple[str, ...] = (), extra: list[str] | None = None
) -> ClusteringInputs:
    names = [*commits(1), *completed(3, "clustering"), *commits(4, 5), *(extra or [])]
    requested = {ts(3): cluster_plan("p9", ["x"], missing=missing)}
    return inputs(names, small_files("p1", "p2", "p3"), requested=requested, written=written)


def test_version_8_clusters_only_partitions_written_since_the_last_clustering() -> None:
    state = _after_clustering({ts(4): ["p2"], ts(5): ["p2"]}, missing=("p3",))
    result = plan_clustering(state, ANY, NOW, AT)
    assert partitions_of(result) == ["p2", "p3"]
    assert any(
        r.startswith(f"incremental: 2 partitions written since the last clustering {ts(3)}")
        for r in result.reasons
    )


def test_commits_completed_after_the_new_instant_are_outside_the_window() -> None:
    late = completed(6, "commit", done=60)
    state = _after_clustering({ts(4): ["p1"], ts(5): ["p1"], ts(6): ["p3"]}, extra=late)
    assert partitions_of(plan_clustering(state, ANY, NOW, AT)) == ["p1"]


def test_an_empty_window_schedules_nothing() -> None:
    state = _after_clustering({ts(4): [], ts(5): []})
    result = plan_clustering(state, ANY, NOW, AT)
    assert result.status is PlanStatus.NO_OP and result.reasons[-1] == "no partition to cluster"


def test_a_commit_whose_partitions_were_not_read_blocks() -> None:
    result = plan_clustering(_after_clustering({ts(4): ["p1"]}), ANY, NOW, AT)
    assert result.status is PlanStatus.BLOCKED and ts(5) in result.reasons[0]


def test_recent_days_takes_the_newest_after_skipping_and_leaves_the_skipped_missing() -> None:
    spec = ClusteringSpec(max_commits=0, partition_filter_mode="recent_days", skip_from_latest_partitions=1)
    result = plan_clustering(inputs(commits(1), small_files("d1", "d2", "d3", "d4")), spec, NOW, AT)
    assert partitions_of(result) == ["d3", "d2"]  # Hudi's order: newest first
    assert result.missing_partitions == ("d4",)


def test_selected_partitions_keeps_the_inclusive_range() -> None:
    spec = ClusteringSpec(
        max_commits=0, partition_filter_mode="selected_partitions", begin_partition="d2", end_partition="d3"
    )
    result = plan_clustering(inputs(commits(1), small_files("d1", "d2", "d3", "d4")), spec, NOW, AT)
    assert partitions_of(result) == ["d2", "d3"]


def test_listed_partitions_are_taken_as_given() -> None:
    spec = ClusteringSpec(max_commits=0, partitions=("d3", "d1", "nope"))
    result = plan_clustering(inputs(commits(1), small_files("d1", "d2", "d3")), spec, NOW, AT)
    assert partitions_of(result) == ["d3", "d1"]
    assert "partition nope is not in the table" in result.reasons


def test_the_regex_matches_whole_partition_paths() -> None:
    spec = ClusteringSpec(max_commits=0, partition_regex="d[12]")
    result = plan_clustering(inputs(commits(1), small_files("d1", "d2", "d3", "d12")), spec, NOW, AT)
    assert partitions_of(result) == ["d1", "d2"]


def test_partitions_written_recently_are_left_out_and_missing() -> None:
    spec = ClusteringSpec(max_commits=0, skip_partitions_written_within=timedelta(minutes=30))
    names = commits(10, 40)  # 00:10 and 00:40; now is 01:00, so 00:30 is the cutoff
    state = inputs(names, small_files("p1", "p2"), written={ts(40): ["p1"]})
    result = plan_clustering(state, spec, NOW, AT)
    assert partitions_of(result) == ["p2"] and result.missing_partitions == ("p1",)
    assert any("skip_partitions_written_within 30m: 1 partition written since" in r for r in result.reasons)
    assert result.partition_rule == "partitions not written within 30m"


def test_max_num_groups_caps_each_partition_and_the_plan() -> None:
    spec = ClusteringSpec(max_commits=0, max_num_groups=1, max_bytes_per_group=MB)
    result = plan_clustering(inputs(commits(1), small_files("p1", "p2")), spec, NOW, AT)
    assert partitions_of(result) == ["p1"] and [s.file_id for s in result.groups[0].slices] == ["p1-1"]
    assert result.missing_partitions == ("p1", "p2")
    assert {(s.partition, s.file_id) for s in result.left_out} == {
        ("p1", "p1-0"),
        ("p2", "p2-0"),
        ("p2", "p2-1"),
    }
    assert all("over max_num_groups 1" in s.reason for s in result.left_out)
