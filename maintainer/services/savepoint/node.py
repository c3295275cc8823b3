"""The savepoint nodes of a plan (``savepoint_create`` and ``savepoint_delete``), and applying
approved ones.

Planning: one action per savepoint to create or delete, with its reason; a listed instant that
cannot be savepointed is in the reasons (the node is ``blocked`` when nothing else is left to
do). Applying: the table is planned again and only approved changes still valid now are made.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import CreateSavepoint, DeleteSavepoint, NodePlan, NodeStatus, SavepointEffect
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.savepoint.planner import (
    SavepointAction,
    SavepointPlanResult,
    plan_savepoints,
)
from maintainer.services.savepoint.settings import SavepointsSpec
from maintainer.services.savepoint.state import load_savepoint_inputs

CREATE_SERVICE = "savepoint_create"
DELETE_SERVICE = "savepoint_delete"


def plan_savepoint_result(table: TableState, spec: TableSpec, now: datetime) -> SavepointPlanResult:
    return plan_savepoints(
        load_savepoint_inputs(table), spec.settings_of(SavepointsSpec) or SavepointsSpec(), now
    )


def _node(
    spec: TableSpec,
    service: str,
    kind: type[CreateSavepoint] | type[DeleteSavepoint],
    changes: tuple[SavepointAction, ...],
    reasons: list[str],
) -> NodePlan:
    actions = tuple(kind(target=a.instant_time, reason=a.reason) for a in changes)
    status = NodeStatus.CHANGES if actions else NodeStatus.NO_OP
    return NodePlan(
        table=spec.name,
        service=service,
        status=status,
        reasons=tuple(reasons),
        actions=actions,
        effect=SavepointEffect(savepoints=tuple(a.instant_time for a in changes)),
    )


def plan_savepoint_create_service(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    result = plan_savepoint_result(table, spec, now)
    reasons = [f"cannot savepoint {b.instant_time}: {b.reason}" for b in result.blocked]
    if result.kept:
        reasons.append(f"savepoints kept: {', '.join(result.kept)}")
    node = _node(spec, CREATE_SERVICE, CreateSavepoint, result.create, reasons)
    if result.blocked and not result.create:
        return replace(node, status=NodeStatus.BLOCKED)
    return node


def plan_savepoint_delete_service(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    result = plan_savepoint_result(table, spec, now)
    return _node(spec, DELETE_SERVICE, DeleteSavepoint, result.delete, [])
