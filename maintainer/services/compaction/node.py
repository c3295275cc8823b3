"""A compaction node of the plan: the planner's result as actions (one per file slice, with
its input files and bytes, expected output and reason; or one per pending compaction to
execute), the effect apply rebuilds the ``HoodieCompactionPlan`` payload from, and totals.

The compaction instant is not in the plan (it is a wall-clock value): apply takes a fresh one
from the timeline writer and re-plans at it, keeping only the approved slices still valid."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import (
    Action,
    CompactionEffect,
    CompactSlice,
    ExecutePendingCompaction,
    NodePlan,
    NodeStatus,
    SkippedSliceRecord,
    slice_target,
)
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.compaction.inputs import verify_inputs
from maintainer.services.compaction.model import CompactionPlanResult, PlanStatus
from maintainer.services.compaction.payload import encode_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings, CompactionSpec
from maintainer.storage import Storage

SERVICE = "compaction"
_STATUS = {
    PlanStatus.SCHEDULE: NodeStatus.CHANGES,
    PlanStatus.EXECUTE_PENDING: NodeStatus.CHANGES,
    PlanStatus.NO_OP: NodeStatus.NO_OP,
    PlanStatus.BLOCKED: NodeStatus.BLOCKED,
}


def payload_name(table: str) -> str:
    return f"{table}.{SERVICE}.requested"


def settings_of(spec: TableSpec) -> CompactionSettings:
    return CompactionSettings.from_spec(spec.settings_of(CompactionSpec) or CompactionSpec())


def plan_compaction_node(table: TableState, spec: TableSpec, now: datetime) -> CompactionPlanResult:
    """The pure planner on an opened table with the manifest's settings."""
    return plan_compaction(inputs_of(table), settings_of(spec), now)


def approved_operations(node: NodePlan) -> list[CompactSlice]:
    """The file slices the node compacts, in plan order."""
    return node.actions_of(CompactSlice)


def _actions(result: CompactionPlanResult, requested: Mapping[str, str]) -> list[Action]:
    why = "the compaction is pending in the table: it is executed first, as Hudi does"
    pending: list[Action] = [
        ExecutePendingCompaction(target=i, reason=why, sha256=requested.get(i, ""))
        for i in result.pending_instants
    ]
    return [*pending, *result.operations]


def requested_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pending_requested_hashes(table: TableState, instants: Sequence[Instant]) -> dict[str, str]:
    """instant time -> sha256 of each pending compaction's ``.compaction.requested``: apply
    executes it only if it is still the plan that was reviewed."""
    timeline = table.snapshot.timeline
    return {
        i.timestamp: requested_sha256(table.storage.read_bytes(timeline.file_path(i, State.REQUESTED)))
        for i in instants
    }


def _effect(result: CompactionPlanResult) -> CompactionEffect:
    return CompactionEffect(
        pending_instants=result.pending_instants,
        slices=len(result.operations),
        log_files=result.log_files,
        input_bytes=result.input_bytes,
        expected_output_bytes=result.expected_output_bytes,
        strategy=result.strategy_class,
        skipped=tuple(
            SkippedSliceRecord(target=slice_target(s.partition, s.file_id), reason=s.reason)
            for s in result.skipped
        ),
    )


def node_from_result(
    table_name: str, result: CompactionPlanResult, requested: Mapping[str, str] | None = None
) -> NodePlan:
    """The node of a planner result; ``requested``: the hash of each pending compaction's plan."""
    return NodePlan(
        table=table_name,
        service=SERVICE,
        status=_STATUS[result.status],
        reasons=result.reasons,
        actions=tuple(_actions(result, requested or {})),
        effect=_effect(result),
        payloads=(payload_name(table_name),) if result.operations else (),
    )


def plan_compaction_service(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    """The compaction node of one table (the registry's planner); planned on a projection (after
    this plan's rollbacks), its reasons say so first. A base file it would read that is not
    complete Parquet raises CorruptTableError (the whole table is blocked)."""
    result = plan_compaction_node(table, spec, now)
    pending = [
        i for i in table.snapshot.timeline.pending_compactions() if i.timestamp in result.pending_instants
    ]
    verify_inputs(table, result.operations, pending)
    node = with_read_amplification(
        node_from_result(spec.name, result, pending_requested_hashes(table, pending)), table
    )
    if table.projection is None or node.status is NodeStatus.NO_OP:
        return node
    return replace(node, reasons=(table.projection.description, *node.reasons))


def read_amplification(log_bytes: int, base_bytes: int) -> float | None:
    return round(log_bytes / base_bytes, 4) if base_bytes else None


def with_read_amplification(node: NodePlan, table: TableState) -> NodePlan:
    """The node's effect with the table's read amplification (log bytes over base bytes of the
    latest slices) now and once its slices are compacted."""
    effect = node.effect
    if not isinstance(effect, CompactionEffect):
        return node
    slices = table.view.latest_slices()
    logs = sum(f.size for s in slices for f in s.log_files)
    bases = sum(s.base_file.size for s in slices if s.base_file is not None)
    compacted = approved_operations(node)
    logs_after = logs - sum(op.log_bytes for op in compacted)
    bases_after = bases + sum(
        op.expected_output_bytes - (op.base_file.size if op.base_file else 0) for op in compacted
    )
    return replace(
        node,
        effect=replace(
            effect,
            read_amplification_before=read_amplification(logs, bases),
            read_amplification_after=read_amplification(logs_after, bases_after),
        ),
    )


def compaction_partitions(
    storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, timezone: str
) -> tuple[str, ...] | None:
    """The partitions the planner needs listed: all of them (every file group with log files)."""
    return None


def compaction_plan_bytes(operations: Sequence[CompactSlice], plan_id: str) -> bytes:
    return encode_compaction_plan(operations, plan_id)


def compaction_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
    """The payload files of a compaction node: the ``.compaction.requested`` apply writes."""
    return {name: compaction_plan_bytes(approved_operations(node), plan_id) for name in node.payloads}
