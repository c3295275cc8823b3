"""The savepoint nodes of a plan (``savepoint_create`` and ``savepoint_delete``), and applying
approved ones.

Planning: one action per savepoint to create or delete, with its reason; a listed instant that
cannot be savepointed is in the reasons (the node is ``blocked`` when nothing else is left to
do). Applying: the table is planned again and only approved changes still valid now are made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from maintainer.hudi.instant import Instant
from maintainer.hudi.loading import TableState
from maintainer.plan.model import CreateSavepoint, DeleteSavepoint, NodePlan, NodeStatus, SavepointEffect
from maintainer.project.models import TableSpec
from maintainer.project.services import SavepointsSpec
from maintainer.services.base import Fault, no_fault
from maintainer.services.savepoint.executor import create_savepoint, delete_savepoint
from maintainer.services.savepoint.planner import (
    SavepointAction,
    SavepointPlanResult,
    plan_savepoints,
    why_not_savepointable,
)
from maintainer.services.savepoint.state import load_savepoint_inputs

CREATE_SERVICE = "savepoint_create"
DELETE_SERVICE = "savepoint_delete"


def plan_savepoint_result(table: TableState, spec: TableSpec, now: datetime) -> SavepointPlanResult:
    return plan_savepoints(load_savepoint_inputs(table), spec.savepoints or SavepointsSpec(), now)


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


@dataclass(frozen=True, slots=True)
class SavepointsCreated:
    """What applying a savepoint_create node did: the savepoints made, and why each approved
    one that was not made is not valid now (the instant or clean that stands in the way)."""

    created: tuple[Instant, ...]
    refused: Mapping[str, str]


def apply_savepoint_create_node(
    table: TableState,
    spec: TableSpec,
    node: NodePlan,
    *,
    plan_id: str = "",
    fault: Fault = no_fault,
) -> SavepointsCreated:
    """Create the approved savepoints still valid now (a completed commit of the active
    timeline, not older than a clean's earliest commit to retain, not savepointed since); the
    plan id goes into their comments (``maintainer.plan_id=<id>``), so the table records which
    plan made them. An approved savepoint stays valid when a newer commit (this plan's
    compaction, say) has since become the latest: the plan approved that instant, not "latest"."""
    inputs = load_savepoint_inputs(table)
    existing = {instant.timestamp for instant in inputs.timeline.savepoints()}
    refused: dict[str, str] = {}
    due: list[str] = []
    for target in sorted({a.target for a in node.actions_of(CreateSavepoint)}):
        why_not = why_not_savepointable(inputs, target)
        if target in existing:
            refused[target] = f"{target} already has a savepoint (made by another writer since the plan)"
        elif why_not is not None:
            refused[target] = why_not
        else:
            due.append(target)
    comments = f"maintainer.plan_id={plan_id}" if plan_id else f"maintainer {CREATE_SERVICE}"
    created = tuple(create_savepoint(table, t, comments=comments, fault=fault) for t in due)
    return SavepointsCreated(created, refused)


def apply_savepoint_delete_node(
    table: TableState, spec: TableSpec, node: NodePlan, now: datetime
) -> list[str]:
    approved = {a.target for a in node.actions_of(DeleteSavepoint)}
    due = [
        a.instant_time for a in plan_savepoint_result(table, spec, now).delete if a.instant_time in approved
    ]
    return [name for t in due for name in delete_savepoint(table, t)]
