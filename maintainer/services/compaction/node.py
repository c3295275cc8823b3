"""A compaction node of the plan: the planner's result as actions (one per file slice, with
its input files and bytes, expected output and reason; or one per pending compaction to
execute), the effect apply rebuilds the ``HoodieCompactionPlan`` payload from, and totals.

The compaction instant is not in the plan (it is a wall-clock value): apply takes a fresh one
from the timeline writer and re-plans at it, keeping only the approved slices still valid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from maintainer.hudi.loading import LoadedTable
from maintainer.hudi.timeline import Timeline
from maintainer.plan.model import NodePlan, NodeStatus, PlannedAction
from maintainer.project.models import TableSpec
from maintainer.project.services import CompactionSpec
from maintainer.services.compaction.inputs import verify_inputs
from maintainer.services.compaction.model import CompactionPlanResult, PlannedOperation, PlanStatus, SliceFile
from maintainer.services.compaction.payload import encode_compaction_plan
from maintainer.services.compaction.planner import inputs_of, plan_compaction
from maintainer.services.compaction.settings import CompactionSettings
from maintainer.storage import Storage

SERVICE = "compaction"
COMPACT_SLICE = "compact_slice"
EXECUTE_PENDING = "execute_pending_compaction"
_STATUS = {
    PlanStatus.SCHEDULE: NodeStatus.CHANGES,
    PlanStatus.EXECUTE_PENDING: NodeStatus.CHANGES,
    PlanStatus.NO_OP: NodeStatus.NO_OP,
    PlanStatus.BLOCKED: NodeStatus.BLOCKED,
}


def payload_name(table: str) -> str:
    return f"{table}.{SERVICE}.requested"


def settings_of(spec: TableSpec) -> CompactionSettings:
    return CompactionSettings.from_spec(spec.compaction or CompactionSpec())


def plan_compaction_node(table: LoadedTable, spec: TableSpec, now: datetime) -> CompactionPlanResult:
    """The pure planner on an opened table with the manifest's settings."""
    return plan_compaction(inputs_of(table), settings_of(spec), now)


def slice_target(op: PlannedOperation) -> str:
    return f"{op.partition}/{op.file_id}" if op.partition else op.file_id


def operation_json(op: PlannedOperation) -> dict[str, Any]:
    return {
        "partition": op.partition,
        "file_id": op.file_id,
        "base_instant": op.base_instant,
        "base_file": {"name": op.base_file.name, "size": op.base_file.size} if op.base_file else None,
        "log_files": [{"name": f.name, "size": f.size} for f in op.log_files],
        "metrics": dict(op.metrics),
    }


def operation_from_json(data: Mapping[str, Any]) -> PlannedOperation:
    base = data.get("base_file")
    return PlannedOperation(
        partition=data["partition"],
        file_id=data["file_id"],
        base_instant=data["base_instant"],
        base_file=SliceFile(base["name"], int(base["size"])) if base else None,
        log_files=tuple(SliceFile(f["name"], int(f["size"])) for f in data["log_files"]),
        metrics={k: float(v) for k, v in data["metrics"].items()},
    )


def approved_operations(effect: Mapping[str, Any]) -> list[PlannedOperation]:
    return [operation_from_json(op) for op in effect.get("operations", ())]


def _actions(result: CompactionPlanResult) -> list[PlannedAction]:
    why = "the compaction is pending in the table: it is executed first, as Hudi does"
    actions = [PlannedAction(EXECUTE_PENDING, instant, why, {}) for instant in result.pending_instants]
    for op in result.operations:
        details = {
            "base_file": op.base_file.name if op.base_file else None,
            "log_files": [f.name for f in op.log_files],
            "input_bytes": op.input_bytes,
            "expected_output_bytes": op.expected_output_bytes,
            "partition": op.partition,
        }
        actions.append(PlannedAction(COMPACT_SLICE, slice_target(op), op.reason, details))
    return actions


def _effect(result: CompactionPlanResult) -> dict[str, Any]:
    return {
        "operations": [operation_json(op) for op in result.operations],
        "pending_instants": list(result.pending_instants),
        "slices": len(result.operations),
        "log_files": result.log_files,
        "input_bytes": result.input_bytes,
        "expected_output_bytes": result.expected_output_bytes,
        "strategy": result.strategy_class,
        "skipped": [
            {"target": f"{s.partition}/{s.file_id}".lstrip("/"), "reason": s.reason} for s in result.skipped
        ],
    }


def node_from_result(table_name: str, result: CompactionPlanResult) -> NodePlan:
    return NodePlan(
        table=table_name,
        service=SERVICE,
        status=_STATUS[result.status],
        reasons=result.reasons,
        actions=tuple(_actions(result)),
        effect=_effect(result),
        payloads=(payload_name(table_name),) if result.operations else (),
    )


def plan_compaction_service(table: LoadedTable, spec: TableSpec, now: datetime) -> NodePlan:
    """The compaction node of one table (the registry's planner); planned on a projection (after
    this plan's rollbacks), its reasons say so first. A base file it would read that is not
    complete Parquet raises CorruptTableError (the whole table is blocked)."""
    result = plan_compaction_node(table, spec, now)
    pending = [
        i for i in table.snapshot.timeline.pending_compactions() if i.timestamp in result.pending_instants
    ]
    verify_inputs(table, result.operations, pending)
    node = node_from_result(spec.name, result)
    if table.projection is None or node.status is NodeStatus.NO_OP:
        return node
    return replace(node, reasons=(table.projection.description, *node.reasons))


def compaction_partitions(
    storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, timezone: str
) -> tuple[str, ...] | None:
    """The partitions the planner needs listed: all of them (every file group with log files)."""
    return None


def compaction_plan_bytes(operations: Sequence[PlannedOperation], plan_id: str) -> bytes:
    return encode_compaction_plan(operations, plan_id)


def compaction_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
    """The payload files of a compaction node: the ``.compaction.requested`` apply writes."""
    return {name: compaction_plan_bytes(approved_operations(node.effect), plan_id) for name in node.payloads}
