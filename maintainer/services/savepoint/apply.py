"""Apply approved savepoint nodes: create the approved savepoints still savepointable, delete
the approved ones still there."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from maintainer.artifact.model import CreateSavepoint, DeleteSavepoint, NodePlan
from maintainer.clock import Clock, utc_now
from maintainer.executors.faults import Fault, maybe_fail, no_fault
from maintainer.executors.savepoint import create_savepoint, delete_savepoint
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.common.metadata_table import open_for_apply, with_dropped
from maintainer.services.common.outcome import drift, summary
from maintainer.services.savepoint.effects import SavepointCreateApplyEffects, SavepointDeleteApplyEffects
from maintainer.services.savepoint.node import (
    CREATE_SERVICE,
    plan_savepoint_result,
)
from maintainer.services.savepoint.planner import (
    why_not_savepointable,
)
from maintainer.services.savepoint.state import load_savepoint_inputs

DELETE_SERVICE = "savepoint_delete"


def execute_savepoint_create(ctx: NodeContext) -> NodeOutcome:
    table, dropped = open_for_apply(ctx)
    fault = functools.partial(maybe_fail, "savepoint_create")
    made = apply_savepoint_create_node(
        table, ctx.spec, ctx.node, plan_id=ctx.plan_id, fault=fault, clock=ctx.clock
    )
    done = [instant.timestamp for instant in made.created]
    effects = with_dropped(SavepointCreateApplyEffects(savepoints_created=tuple(done)), dropped)
    drifted = tuple(Drift(target, f"not savepointed: {why}") for target, why in sorted(made.refused.items()))
    return NodeOutcome(effects, drifted, summary(len(done), "savepoint(s) created", drifted))


def execute_savepoint_delete(ctx: NodeContext) -> NodeOutcome:
    table, dropped = open_for_apply(ctx)
    maybe_fail("savepoint_delete", "before_delete")
    removed = apply_savepoint_delete_node(table, ctx.spec, ctx.node, ctx.clock())
    deleted = sorted({name.split(".", 1)[0] for name in removed})
    effects = SavepointDeleteApplyEffects(
        savepoints_deleted=tuple(deleted), removed_instant_files=tuple(removed)
    )
    approved = [a.target for a in ctx.node.actions_of(DeleteSavepoint)]
    drifted = drift(approved, deleted, "already deleted since the plan")
    return NodeOutcome(
        with_dropped(effects, dropped), drifted, summary(len(deleted), "savepoint(s) deleted", drifted)
    )


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
    clock: Clock = utc_now,
) -> SavepointsCreated:
    """Create the approved savepoints still valid now (a completed commit of the active
    timeline, not older than a clean's earliest commit to retain, not savepointed since); the
    plan id goes into their comments (``maintainer.plan_id=<id>``), so the table records which
    plan made them. An approved savepoint stays valid when a newer commit (this plan's
    compaction, say) has since become the latest: the plan approved that instant, not "latest".
    ``clock`` times the savepoints (their completion time, ``savepointedAt``)."""
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
    created = tuple(create_savepoint(table, t, comments=comments, clock=clock, fault=fault) for t in due)
    return SavepointsCreated(created, refused)


def apply_savepoint_delete_node(
    table: TableState, spec: TableSpec, node: NodePlan, now: datetime
) -> list[str]:
    approved = {a.target for a in node.actions_of(DeleteSavepoint)}
    due = [
        a.instant_time for a in plan_savepoint_result(table, spec, now).delete if a.instant_time in approved
    ]
    return [name for t in due for name in delete_savepoint(table, t)]
