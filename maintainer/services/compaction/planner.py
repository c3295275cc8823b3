"""The compaction planner: a pure function of the table's state, the settings and the instant
the compaction would get (HUDI.md §5, Hudi's ScheduleCompactionActionExecutor and
BaseHoodieCompactionPlanGenerator).

* a pending compaction already in the table is executed, not planned again;
* the trigger decides whether a compaction is due;
* table version 6 (layout 1): no pending write older than the compaction instant, and no
  completed commit or compaction at or after it;
* operations: the latest slice of every file group with log files, except file groups under a
  pending compaction, log compaction or clustering, and replaced file groups; on layout 2 only
  log files whose deltacommit completed before the compaction instant;
* the strategy filters partitions, then orders and cuts the operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from maintainer.artifact.model import CompactSlice, SliceFile
from maintainer.hudi.config.properties import MergeMode, TableConfig
from maintainer.hudi.file_groups.filemodel import FileGroup, LogFile
from maintainer.hudi.file_groups.fsview import FileSystemView, PendingOperation
from maintainer.hudi.instants.instant import (
    COMMIT_ACTIONS,
    Action,
)
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline, next_instant_time
from maintainer.hudi.table.state import TableState
from maintainer.services.compaction.model import (
    CompactionPlanResult,
    OperationsFound,
    PlanStatus,
    SkippedSlice,
    capture_metrics,
)
from maintainer.services.compaction.settings import CompactionSettings
from maintainer.services.compaction.strategy import filter_partitions, order_and_filter
from maintainer.services.compaction.trigger import TriggerDecision, evaluate_trigger

_SERVICE_REQUESTS = frozenset({Action.COMPACTION, Action.LOG_COMPACTION})
_CUSTOM_MERGE = (
    "the table merges records with a custom merger or payload class (merge mode CUSTOM), which "
    "maintainer cannot reproduce: compact it with Hudi itself"
)


@dataclass(frozen=True)
class CompactionInputs:
    """The table state a compaction is planned on."""

    timeline: Timeline
    view: FileSystemView
    config: TableConfig


def _pending_reason(op: PendingOperation) -> str:
    return f"file group is in the pending {op.action} {op.instant_time}"


def _logs_before(logs: tuple[LogFile, ...], timeline: Timeline, instant: str) -> tuple[LogFile, ...]:
    """Layout 2: only log files whose deltacommit completed before the compaction instant, its
    completion time taken from the archived timeline once archived; an unknown completion time
    is not before (``CompletionTimeQueryViewV2.isCompletedBefore``)."""
    kept = []
    for log_file in logs:
        completion = timeline.completion_time(log_file.instant_time)
        if completion is not None and completion < instant:
            kept.append(log_file)
    return tuple(kept)


def _candidate(
    group: FileGroup, inputs: CompactionInputs, settings: CompactionSettings, instant: str
) -> CompactSlice | SkippedSlice | None:
    pending = inputs.view.inputs.pending_operation((group.partition, group.file_id))
    if pending is not None:
        has_logs = any(s.log_files for s in group.slices)
        return SkippedSlice(group.partition, group.file_id, _pending_reason(pending)) if has_logs else None
    latest = group.latest_slice
    if latest is None or not latest.log_files:
        return None
    logs = latest.log_files
    if inputs.timeline.layout.records_completion_time:
        logs = _logs_before(logs, inputs.timeline, instant)
        if not logs:
            return SkippedSlice(group.partition, group.file_id, f"no log file completed before {instant}")
    base = latest.base_file
    if base is not None and base.name.endswith(".lance"):
        return SkippedSlice(
            group.partition, group.file_id, "Lance base file: maintainer cannot rewrite Lance files"
        )
    base_file = SliceFile(name=base.name, size=base.size) if base is not None else None
    log_files = tuple(SliceFile(name=f.name, size=f.size) for f in logs)
    metrics = capture_metrics(base_file, log_files, settings.parquet_max_file_size)
    return CompactSlice(
        partition=group.partition,
        file_id=group.file_id,
        base_instant=latest.base_instant,
        base_file=base_file,
        log_files=log_files,
        metrics=metrics,
    )


def find_operations(inputs: CompactionInputs, settings: CompactionSettings, instant: str) -> OperationsFound:
    """Every eligible slice of the partitions the strategy considers, and the slices left out."""
    partitions, _ = filter_partitions(inputs.view.partitions, settings)
    candidates: list[CompactSlice] = []
    skipped: list[SkippedSlice] = []
    for partition in partitions:
        for group in inputs.view.file_groups(partition):
            found = _candidate(group, inputs, settings, instant)
            if isinstance(found, CompactSlice):
                candidates.append(found)
            elif isinstance(found, SkippedSlice):
                skipped.append(found)
    return OperationsFound(tuple(candidates), tuple(skipped))


def v6_scheduling_conflicts(timeline: Timeline, instant: str) -> list[str]:
    """Hudi 0.x's rules for a new compaction instant on timeline layout 1 (single writer): the
    earliest pending commit, deltacommit or replacecommit must be later than it, and no completed
    write nor any compaction may be at or after it."""
    problems = []
    pending = [i for i in timeline.pending_writes() if i.timestamp <= instant]
    if pending:
        first = pending[0]
        problems.append(
            f"the pending {first.action.value} {first.timestamp} is older than the compaction instant "
            f"{instant}: table version 6 compacts only when no earlier write is in flight, so "
            "the compaction is planned once it is rolled back (by the rollback service, e.g. this "
            "plan's) or completed"
        )
    later = [
        i
        for i in timeline.instants
        if i.timestamp >= instant
        and ((i.is_completed and i.action in COMMIT_ACTIONS) or i.action in _SERVICE_REQUESTS)
    ]
    if later:
        problems.append(
            f"the {later[0].action.value} {later[0].timestamp} is at or after the compaction "
            f"instant {instant}"
        )
    return problems


def _execute_pending(timeline: Timeline, instant: str) -> CompactionPlanResult:
    pending = tuple(i.timestamp for i in timeline.pending_compactions())
    states = ", ".join(f"{i.timestamp} ({i.state.value.lower()})" for i in timeline.pending_compactions())
    return CompactionPlanResult(
        PlanStatus.EXECUTE_PENDING,
        instant,
        (
            f"the table has pending compaction(s) {states}: they are executed first, as Hudi "
            "does, and no new one is scheduled",
        ),
        pending_instants=pending,
    )


def plan_compaction(
    inputs: CompactionInputs,
    settings: CompactionSettings,
    now: datetime,
    instant_time: str | None = None,
) -> CompactionPlanResult:
    """What a compaction of this table would do at ``instant_time`` (default: from ``now``)."""
    timeline = inputs.timeline
    instant = instant_time or next_instant_time(timeline, now, inputs.config.timeline_timezone)
    if not inputs.config.is_mor:
        return CompactionPlanResult(PlanStatus.NO_OP, instant, ("copy-on-write table: nothing to compact",))
    if timeline.pending_compactions():
        return _execute_pending(timeline, instant)
    if inputs.config.merge_mode is MergeMode.CUSTOM:
        return CompactionPlanResult(PlanStatus.BLOCKED, instant, (_CUSTOM_MERGE,))
    trigger = evaluate_trigger(timeline, settings, instant)
    if not trigger.fires:
        return CompactionPlanResult(PlanStatus.NO_OP, instant, (trigger.reason,), trigger)
    if timeline.layout is TimelineLayout.V1:
        conflicts = v6_scheduling_conflicts(timeline, instant)
        if conflicts:
            return CompactionPlanResult(PlanStatus.BLOCKED, instant, (*conflicts, trigger.reason), trigger)
    return _schedule(inputs, settings, instant, trigger)


def _schedule(
    inputs: CompactionInputs, settings: CompactionSettings, instant: str, trigger: TriggerDecision
) -> CompactionPlanResult:
    _, partition_notes = filter_partitions(inputs.view.partitions, settings)
    found = find_operations(inputs, settings, instant)
    chosen, cut = order_and_filter(found.candidates, settings)
    skipped = found.skipped + tuple(cut)
    reasons = [
        trigger.reason,
        f"strategy {settings.strategy.value} ({settings.strategy_class})",
        *partition_notes,
    ]
    lance = [s for s in skipped if s.reason.startswith("Lance")]
    if chosen:
        status = PlanStatus.SCHEDULE
        reasons.append(f"{len(chosen)} file slice(s) to compact, {len(skipped)} left out")
    else:
        status = PlanStatus.BLOCKED if lance else PlanStatus.NO_OP
        if lance:
            reasons.insert(0, lance[0].reason)  # a blocked node leads with why
        else:
            reasons.append("no file slice with log files to compact")
    return CompactionPlanResult(
        status,
        instant,
        tuple(reasons),
        trigger=trigger,
        operations=tuple(chosen),
        skipped=skipped,
        strategy_class=settings.strategy_class,
    )


def inputs_of(table: TableState) -> CompactionInputs:
    """The planner's inputs from an opened table."""
    return CompactionInputs(table.snapshot.timeline, table.view, table.snapshot.config)
