"""The compaction planner on synthetic states: exclusions, scheduling rules, pending compactions."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from maintainer.hudi.config.properties import MergeMode
from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs
from maintainer.hudi.instants.timeline import next_instant_time
from maintainer.services.compaction.model import PlanStatus
from maintainer.services.compaction.planner import (
    find_operations,
    plan_compaction,
    v6_scheduling_conflicts,
)
from maintainer.services.compaction.settings import CompactionSettings, StrategyName

from .states import MB, base, completed, deltas, log, pending, state, timeline, ts

NOW = datetime(2025, 1, 2, tzinfo=timezone.utc)
EVERY = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)


def two_groups(extra: list[str] | None = None, layout: int = 1, inputs: ViewInputs | None = None):  # type: ignore[no-untyped-def]
    names = [*deltas(1, 2, 3, layout=layout), *(extra or [])]
    logs = (
        [(log("a", 1), 10), (log("a", 1, 2), 20)] if layout == 1 else [(log("a", 2), 10), (log("a", 3), 20)]
    )
    files = {"p": [(base("a", 1), 3 * MB), *logs, (base("b", 1), MB)]}
    return state(names, files, layout, inputs)


def test_latest_slice_with_log_files_is_an_operation_with_hudis_metrics() -> None:
    result = plan_compaction(two_groups(), EVERY, NOW, ts(10))
    assert result.status is PlanStatus.SCHEDULE
    (op,) = result.operations
    assert (op.partition, op.file_id, op.base_instant) == ("p", "a", ts(1))
    assert op.base_file is not None and op.base_file.name == base("a", 1)
    assert [f.name for f in op.log_files] == [log("a", 1), log("a", 1, 2)]
    assert op.metrics == {
        "TOTAL_IO_READ_MB": 3.0, "TOTAL_IO_WRITE_MB": 3.0, "TOTAL_IO_MB": 6.0,
        "TOTAL_LOG_FILES_SIZE": 30.0, "TOTAL_LOG_FILES": 2.0,
    }  # fmt: skip
    assert op.reason


def test_log_only_slice_assumes_max_parquet_size_for_writing() -> None:
    inputs = state(deltas(1), {"p": [(log("c", 1), 5 * MB)]})
    (op,) = plan_compaction(inputs, EVERY, NOW, ts(5)).operations
    assert (
        op.base_file is None
        and op.metrics["TOTAL_IO_WRITE_MB"] == 120.0
        and op.metrics["TOTAL_IO_READ_MB"] == 5.0
    )


def test_file_group_in_pending_compaction_is_excluded() -> None:
    inputs = two_groups(
        inputs=ViewInputs(pending_compaction={("p", "a"): PendingOperation(ts(4), "compaction", ts(1))})
    )
    found = find_operations(inputs, EVERY, ts(10))
    assert not found.candidates and "pending compaction" in found.skipped[0].reason


def test_file_group_in_pending_clustering_is_excluded() -> None:
    inputs = two_groups(
        pending(4, "replacecommit", "requested"),
        inputs=ViewInputs(pending_clustering={("p", "a"): PendingOperation(ts(4), "clustering", ts(1))}),
    )
    found = find_operations(inputs, EVERY, ts(10))
    assert not found.candidates and "pending clustering" in found.skipped[0].reason


def test_file_group_in_pending_log_compaction_is_excluded() -> None:
    pending_log = {("p", "a"): PendingOperation(ts(4), "logcompaction", ts(1))}
    result = plan_compaction(
        two_groups(inputs=ViewInputs(pending_log_compaction=pending_log)), EVERY, NOW, ts(10)
    )
    assert result.status is PlanStatus.NO_OP and "pending logcompaction" in result.skipped[0].reason


def test_replaced_file_group_is_excluded() -> None:
    inputs = two_groups(inputs=ViewInputs(replaced_file_groups={("p", "a"): ts(3)}))
    assert plan_compaction(inputs, EVERY, NOW, ts(10)).status is PlanStatus.NO_OP


def test_layout2_takes_only_logs_completed_before_the_compaction_instant() -> None:
    names = [*completed(1, layout=2), *completed(2, layout=2, done=3), *completed(5, layout=2, done=20)]
    files = {"p": [(base("a", 1), MB), (log("a", 2), 10), (log("a", 5), 20)]}
    inputs = state(names, files, layout=2)
    (op,) = plan_compaction(inputs, EVERY, NOW, ts(10)).operations
    assert [f.name for f in op.log_files] == [log("a", 2)]


def test_layout2_slice_whose_logs_all_complete_later_is_left_out() -> None:
    names = [*completed(1, layout=2), *completed(2, layout=2, done=30)]
    inputs = state(names, {"p": [(base("a", 1), MB), (log("a", 2), 10)]}, layout=2)
    result = plan_compaction(inputs, EVERY, NOW, ts(10))
    assert result.status is PlanStatus.NO_OP and "completed before" in result.skipped[0].reason


def test_v6_pending_write_older_than_the_compaction_blocks_it() -> None:
    result = plan_compaction(two_groups(pending(5)), EVERY, NOW, ts(10))
    assert result.status is PlanStatus.BLOCKED and any("pending deltacommit" in r for r in result.reasons)


def test_v6_instant_at_or_after_the_compaction_blocks_it() -> None:
    result = plan_compaction(two_groups(deltas(12)), EVERY, NOW, ts(10))
    assert result.status is PlanStatus.BLOCKED and any("at or after" in r for r in result.reasons)


def test_v8_has_no_v6_scheduling_constraints() -> None:
    names = [*completed(1, layout=2), *completed(2, layout=2), *pending(5)]
    inputs = state(names, {"p": [(base("a", 1), MB), (log("a", 2), 10)]}, layout=2)
    assert plan_compaction(inputs, EVERY, NOW, ts(10)).status is PlanStatus.SCHEDULE


def test_pending_compaction_in_the_table_is_executed_not_planned_again() -> None:
    result = plan_compaction(two_groups(pending(5, "compaction", "requested")), EVERY, NOW, ts(10))
    assert result.status is PlanStatus.EXECUTE_PENDING and result.pending_instants == (ts(5),)
    assert not result.operations and result.has_changes


def test_trigger_not_reached_is_a_no_op() -> None:
    result = plan_compaction(two_groups(), CompactionSettings(max_delta_commits=4), NOW, ts(10))
    assert result.status is PlanStatus.NO_OP and "does not fire" in result.reasons[0]


def test_copy_on_write_table_is_a_no_op() -> None:
    inputs = state(deltas(1), {"p": [(base("a", 1), MB)]}, table_type="cow")
    assert plan_compaction(inputs, EVERY, NOW, ts(10)).status is PlanStatus.NO_OP


def test_lance_base_file_blocks_the_operation() -> None:
    lance = "a_0-1-1_" + ts(1) + ".lance"
    result = plan_compaction(state(deltas(1, 2), {"p": [(lance, MB), (log("a", 1), 10)]}), EVERY, NOW, ts(10))
    assert result.status is PlanStatus.BLOCKED and "Lance" in result.reasons[0]


def test_instant_time_defaults_to_now_after_every_time_in_the_timeline() -> None:
    tl = timeline(deltas(1))
    assert next_instant_time(tl, datetime(2025, 1, 1, 5, tzinfo=timezone.utc), "UTC") == "20250101050000000"
    assert next_instant_time(tl, datetime(2024, 1, 1, tzinfo=timezone.utc), "UTC") == "20250101000100001"


def test_custom_merge_mode_blocks_compaction() -> None:
    inputs = two_groups()
    custom = replace(inputs, config=replace(inputs.config, merge_mode=MergeMode.CUSTOM))
    result = plan_compaction(custom, EVERY, NOW, ts(10))
    assert result.status is PlanStatus.BLOCKED and "custom" in result.reasons[0]


def test_v6_completed_replacecommit_or_pending_compaction_after_the_instant_blocks_it() -> None:
    tl = timeline([*deltas(1), *completed(12, "replacecommit")])
    assert "replacecommit" in v6_scheduling_conflicts(tl, ts(10))[0]
    assert (
        "compaction" in v6_scheduling_conflicts(timeline([*deltas(1), *pending(12, "compaction")]), ts(10))[0]
    )
    result = plan_compaction(two_groups(), EVERY, NOW, ts(3))
    assert result.status is PlanStatus.BLOCKED and f"deltacommit {ts(3)}" in result.reasons[0]


def test_layout2_metrics_count_only_the_operations_log_files() -> None:
    """BaseHoodieCompactionPlanGenerator.generateCompactionPlan filters the slice's log files to
    those whose deltacommit completed before the compaction instant (FileSlice.filterLogFiles)
    and passes that filtered slice to CompactionStrategy.captureMetrics, so TOTAL_LOG_FILES,
    TOTAL_LOG_FILES_SIZE and the IO metrics match the operation's deltaFilePaths (apache/hudi
    #14362; Hudi 1.0.x measured the whole slice, pending logs included)."""
    names = [*completed(1, layout=2), *completed(2, layout=2, done=3), *completed(5, layout=2, done=20)]
    files = {"p": [(base("a", 1), MB), (log("a", 2), 10), (log("a", 5), 2 * MB)]}
    (op,) = plan_compaction(state(names, files, layout=2), EVERY, NOW, ts(10)).operations
    assert [f.name for f in op.log_files] == [log("a", 2)]
    assert op.metrics == {
        "TOTAL_IO_READ_MB": 1.0, "TOTAL_IO_WRITE_MB": 1.0, "TOTAL_IO_MB": 2.0,
        "TOTAL_LOG_FILES_SIZE": 10.0, "TOTAL_LOG_FILES": 1.0,
    }  # fmt: skip
