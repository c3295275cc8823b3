"""The clustering planner: a pure function of the table's state (:class:`ClusteringInputs`), the
manifest's ``clustering`` block, the time and the instant the clustering would get (Hudi's
``ClusteringPlanActionExecutor`` with ``SparkSizeBasedClusteringPlanStrategy``):

* a requested payload that cannot be read blocks the plan, naming the instant;
* pending clusterings are executed, not planned again (two plans naming one file group block);
* the trigger (:mod:`.trigger`) decides whether a clustering is due;
* the partitions (:mod:`.partitions`), then the candidates and groups (:mod:`.grouping`): per
  partition at most ``max_num_groups``, and at most ``max_num_groups`` in all, in partition
  order; on table version 8+ the partitions that lost groups to a cap are the plan's
  ``missingSchedulePartitions``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from maintainer.artifact.model import ClusterGroup
from maintainer.hudi.config.properties import MergeMode
from maintainer.hudi.instants.instant import (
    Action,
    Instant,
)
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline, next_instant_time
from maintainer.services.clustering.grouping import build_groups, partition_candidates
from maintainer.services.clustering.model import (
    ClusteringInputs,
    ClusteringPlanResult,
    LeftOutSlice,
    PendingClustering,
    PlanStatus,
)
from maintainer.services.clustering.partitions import (
    MissingWrittenPartitions,
    PartitionChoice,
    PartitionContext,
    choose_partitions,
    recent_cutoff,
)
from maintainer.services.clustering.payload import CLUSTER_OPERATION
from maintainer.services.clustering.settings import ClusteringSpec, describe_partition_rule
from maintainer.services.clustering.trigger import TriggerDecision, evaluate_trigger, last_clustering_instant
from maintainer.units import count, human_bytes

_REPLACE_ACTIONS = frozenset({Action.REPLACE_COMMIT, Action.CLUSTERING})


def is_clustering(inputs: ClusteringInputs, instant: Instant) -> bool:
    """A ``clustering`` instant, or a replacecommit whose requested plan is a CLUSTER one
    (Hudi's ``ClusteringUtils.isClusteringInstant``)."""
    if instant.action is Action.CLUSTERING:
        return True
    if instant.action is not Action.REPLACE_COMMIT:
        return False
    requested = inputs.requested.get(instant.timestamp)
    return requested is not None and requested.operation_type == CLUSTER_OPERATION


def relevant_replaces(timeline: Timeline) -> list[Instant]:
    """The instants whose requested payloads the planner reads: every pending replacecommit or
    clustering, and the completed ones from the newest back to the newest ``clustering``
    instant (an older one cannot be the last clustering)."""
    replaces = [i for i in timeline.instants if i.action in _REPLACE_ACTIONS]
    pending = [i for i in replaces if i.is_pending]
    completed: list[Instant] = []
    for instant in reversed([i for i in replaces if i.is_completed]):
        completed.append(instant)
        if instant.action is Action.CLUSTERING:
            break
    return sorted([*pending, *completed], key=lambda i: i.timestamp)


def pending_clusterings(inputs: ClusteringInputs) -> list[Instant]:
    return [i for i in inputs.timeline.pending() if is_clustering(inputs, i)]


def last_completed_clustering(inputs: ClusteringInputs) -> Instant | None:
    done = [
        i for i in inputs.timeline.completed() if i.action in _REPLACE_ACTIONS and is_clustering(inputs, i)
    ]
    return done[-1] if done else None


def _unreadable(inputs: ClusteringInputs) -> list[str]:
    return [
        f"{path} cannot be read ({why}): maintainer cannot tell what clustering it holds or which "
        "file groups it covers; repair it (or roll that instant back with Hudi), then plan again"
        for path, why in sorted(inputs.unreadable.items())
    ]


def _pending_record(inputs: ClusteringInputs, instant: Instant) -> PendingClustering:
    requested = inputs.requested.get(instant.timestamp)
    plan = requested.clustering_plan if requested is not None else None
    return PendingClustering(
        instant_time=instant.timestamp,
        state=instant.state,
        file_groups=requested.file_groups() if requested is not None else frozenset(),
        groups=len(plan.input_groups or ()) if plan is not None else 0,
        sha256=inputs.requested_sha256.get(instant.timestamp, ""),
    )


def _duplicates(pending: Sequence[PendingClustering]) -> list[str]:
    seen: dict[tuple[str, str], str] = {}
    problems = []
    for item in pending:
        for key in sorted(item.file_groups):
            if key in seen:
                problems.append(
                    f"file group {'/'.join(k for k in key if k)} is in the pending clusterings "
                    f"{seen[key]} and {item.instant_time} (Hudi: Found duplicate file groups pending "
                    "clustering): roll one of them back with Hudi"
                )
            seen.setdefault(key, item.instant_time)
    return problems


def _execute_pending(
    inputs: ClusteringInputs, instants: Sequence[Instant], base: ClusteringPlanResult
) -> ClusteringPlanResult:
    pending = tuple(_pending_record(inputs, i) for i in instants)
    empty = [p.instant_time for p in pending if not p.file_groups]
    problems = _duplicates(pending) + [
        f"the pending clustering {t} has a requested plan without file slices: roll it back with Hudi"
        for t in empty
    ]
    if problems:
        return _with(base, PlanStatus.BLOCKED, tuple(problems), pending=pending)
    states = ", ".join(f"{p.instant_time} ({p.state.value.lower()})" for p in pending)
    reason = (
        f"the table has pending clustering(s) {states}: they are executed first, as Hudi does, "
        "and no new one is scheduled"
    )
    return _with(base, PlanStatus.EXECUTE_PENDING, (reason,), pending=pending)


def _with(
    base: ClusteringPlanResult, status: PlanStatus, reasons: tuple[str, ...], **changes: Any
) -> ClusteringPlanResult:
    return replace(base, status=status, reasons=reasons, **changes)


def plan_clustering(
    inputs: ClusteringInputs, spec: ClusteringSpec, now: datetime, instant_time: str | None = None
) -> ClusteringPlanResult:
    """What a clustering of this table would do at ``instant_time`` (default: from ``now``)."""
    timeline = inputs.timeline
    instant = instant_time or next_instant_time(timeline, now, inputs.config.timeline_timezone)
    base = ClusteringPlanResult(
        PlanStatus.NO_OP,
        instant,
        (),
        partition_rule=describe_partition_rule(spec),
        sort_columns=spec.sort_columns,
        layout=spec.layout,
    )
    unreadable = _unreadable(inputs)
    if unreadable:
        return _with(base, PlanStatus.BLOCKED, tuple(unreadable))
    pending = pending_clusterings(inputs)
    if pending:
        return _execute_pending(inputs, pending, base)
    last = last_clustering_instant(timeline, lambda i: is_clustering(inputs, i))
    trigger = evaluate_trigger(timeline, last, spec.max_commits)
    if not trigger.fires:
        return _with(base, PlanStatus.NO_OP, (trigger.reason,), trigger=trigger)
    try:
        choice = choose_partitions(_partition_context(inputs, spec, now, instant), spec)
    except MissingWrittenPartitions as exc:
        why = f"the partitions written by {exc.instant} were not read: plan again"
        return _with(base, PlanStatus.BLOCKED, (why,), trigger=trigger)
    return _schedule(inputs, spec, choice, _with(base, PlanStatus.NO_OP, (), trigger=trigger))


def _partition_context(
    inputs: ClusteringInputs, spec: ClusteringSpec, now: datetime, instant: str
) -> PartitionContext:
    last = last_completed_clustering(inputs) if inputs.timeline.layout is TimelineLayout.V2 else None
    requested = inputs.requested.get(last.timestamp) if last is not None else None
    plan = requested.clustering_plan if requested is not None else None
    written = inputs.written_partitions

    def partitions_of(commit: str) -> frozenset[str]:
        if commit not in written:
            raise MissingWrittenPartitions(commit)
        return written[commit]

    return PartitionContext(
        timeline=inputs.timeline,
        listed=inputs.view.partitions,
        is_mor=inputs.config.is_mor,
        instant_time=instant,
        last_completed=last,
        last_missing=tuple(plan.missing_schedule_partitions or ()) if plan is not None else (),
        written=partitions_of,
        is_clustering=lambda i: is_clustering(inputs, i),
        recent_cutoff=recent_cutoff(now, spec, inputs.config.timeline_timezone),
    )


@dataclass(frozen=True)
class _Grouped:
    groups: tuple[ClusterGroup, ...]
    left_out: tuple[LeftOutSlice, ...]
    capped_partitions: tuple[str, ...]
    large: int
    notes: tuple[str, ...]


def _capped(partition: str, file_ids: Sequence[str], spec: ClusteringSpec) -> list[LeftOutSlice]:
    why = f"over max_num_groups {spec.max_num_groups}: left for a later clustering"
    return [LeftOutSlice(partition, file_id, why) for file_id in file_ids]


def _group_partitions(inputs: ClusteringInputs, spec: ClusteringSpec, partitions: Sequence[str]) -> _Grouped:
    custom = inputs.config.merge_mode is MergeMode.CUSTOM
    groups: list[ClusterGroup] = []
    left_out: list[LeftOutSlice] = []
    capped: list[str] = []
    notes: list[str] = []
    large = 0
    for partition in partitions:
        if partition not in inputs.view.groups:
            notes.append(f"partition {partition or '(table root)'} is not in the table")
            continue
        found = partition_candidates(inputs.view, partition, spec, custom, inputs.projected_instants)
        left_out += found.left_out
        large += found.large
        built = build_groups(partition, found.slices, spec)
        if built.capped:
            capped.append(partition)
            left_out += _capped(partition, [s.file_id for s in built.capped], spec)
        if built.dropped_single is not None:
            notes.append(
                f"{partition or '(table root)'}: its one remaining small slice is not rewritten alone "
                "(single_group_clustering false, no sort columns)"
            )
        groups += built.groups
    kept, over = groups[: spec.max_num_groups], groups[spec.max_num_groups :]
    for group in over:
        left_out += _capped(group.partition, [s.file_id for s in group.slices], spec)
        capped.append(group.partition)
    return _Grouped(tuple(kept), tuple(left_out), tuple(dict.fromkeys(capped)), large, tuple(notes))


def _schedule(
    inputs: ClusteringInputs, spec: ClusteringSpec, choice: PartitionChoice, base: ClusteringPlanResult
) -> ClusteringPlanResult:
    trigger: TriggerDecision | None = base.trigger
    reasons = [trigger.reason] if trigger is not None else []
    reasons += [f"partitions: {base.partition_rule}", *choice.notes]
    incremental = inputs.timeline.layout is TimelineLayout.V2
    if not choice.partitions:
        reasons.append("no partition to cluster")
        missing = choice.missing if incremental else None
        return _with(base, PlanStatus.NO_OP, tuple(reasons), missing_partitions=missing)
    grouped = _group_partitions(inputs, spec, choice.partitions)
    missing = tuple(sorted({*choice.missing, *grouped.capped_partitions})) if incremental else None
    reasons += list(grouped.notes)
    if grouped.large:
        reasons.append(
            f"{count(grouped.large, 'file slice')} at or above the "
            f"{human_bytes(spec.small_file_limit)} small_file_limit stay as they are"
        )
    if not grouped.groups:
        reasons.append("no small file slice to cluster")
        return _with(
            base, PlanStatus.NO_OP, tuple(reasons), left_out=grouped.left_out, missing_partitions=missing
        )
    slices = sum(len(g.slices) for g in grouped.groups)
    reasons.append(
        f"{count(slices, 'file slice')} in {count(len(grouped.groups), 'group')} to cluster, "
        f"{len(grouped.left_out)} left out"
    )
    return _with(
        base,
        PlanStatus.SCHEDULE,
        tuple(reasons),
        groups=grouped.groups,
        left_out=grouped.left_out,
        missing_partitions=missing,
    )
