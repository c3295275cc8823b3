"""Apply approved savepoint nodes: create the approved savepoints still savepointable, delete
the approved ones still there."""

from __future__ import annotations

import functools
from typing import Any

from maintainer.plan.model import DeleteSavepoint
from maintainer.services.base import Drift, NodeContext, NodeOutcome, maybe_fail
from maintainer.services.common.metadata_table import open_for_apply
from maintainer.services.common.outcome import drift, summary
from maintainer.services.savepoint.node import apply_savepoint_create_node, apply_savepoint_delete_node


def execute_savepoint_create(ctx: NodeContext) -> NodeOutcome:
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    fault = functools.partial(maybe_fail, "savepoint_create")
    made = apply_savepoint_create_node(table, ctx.spec, ctx.node, plan_id=ctx.plan_id, fault=fault)
    done = [instant.timestamp for instant in made.created]
    effects["savepoints_created"] = done
    drifted = tuple(Drift(target, f"not savepointed: {why}") for target, why in sorted(made.refused.items()))
    return NodeOutcome(effects, drifted, summary(len(done), "savepoint(s) created", drifted))


def execute_savepoint_delete(ctx: NodeContext) -> NodeOutcome:
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    maybe_fail("savepoint_delete", "before_delete")
    removed = apply_savepoint_delete_node(table, ctx.spec, ctx.node, ctx.clock())
    deleted = sorted({name.split(".", 1)[0] for name in removed})
    effects.update(savepoints_deleted=deleted, removed_instant_files=removed)
    approved = [a.target for a in ctx.node.actions_of(DeleteSavepoint)]
    drifted = drift(approved, deleted, "already deleted since the plan")
    return NodeOutcome(effects, drifted, summary(len(deleted), "savepoint(s) deleted", drifted))
