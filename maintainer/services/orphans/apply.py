"""Apply an approved orphan-files node: list the table again (from storage, under the lock),
find its orphans again with the node's table settings and the clock of now, and remove only
the approved files that are still orphans of the size the plan saw; the rest is drift."""

from __future__ import annotations

import functools

from maintainer.artifact.model import NodePlan, OrphanEffect, RemoveOrphanFile
from maintainer.executors.faults import maybe_fail
from maintainer.executors.orphans import (
    OrphanToRemove,
    Removal,
    batch_name,
    delete_orphans,
    quarantine_orphans,
)
from maintainer.hudi.table.orphans import OrphanFile
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.common.checks import effect_of
from maintainer.services.common.metadata_table import open_for_apply, with_dropped
from maintainer.services.common.outcome import summary
from maintainer.services.orphans.effects import OrphanFilesApplyEffects
from maintainer.services.orphans.node import SERVICE, plan_orphan_result


def approved_still_orphans(
    node: NodePlan, found: dict[str, OrphanFile]
) -> tuple[list[OrphanToRemove], list[Drift]]:
    """The approved files that are orphans now, of the planned size; drift for the others."""
    due: list[OrphanToRemove] = []
    drifted: list[Drift] = []
    for action in node.actions_of(RemoveOrphanFile):
        now = found.get(action.target)
        if now is None:
            drifted.append(
                Drift(
                    action.target, "no longer an orphan to remove (gone, or an instant accounts for it now)"
                )
            )
        elif now.size != action.size:
            drifted.append(
                Drift(action.target, f"its size changed since the plan ({action.size} -> {now.size} bytes)")
            )
        else:
            due.append(OrphanToRemove(action.target, action.size))
    return due, drifted


def execute_orphan_files(ctx: NodeContext) -> NodeOutcome:
    planned = effect_of(ctx.node, OrphanEffect)
    table, dropped = open_for_apply(ctx, "removing orphan files")
    now = ctx.clock()
    found = {o.path: o for o in plan_orphan_result(table, ctx.spec, now).remove}
    due, drifted = approved_still_orphans(ctx.node, found)
    fault = functools.partial(maybe_fail, SERVICE)
    fault("before_remove")
    if planned.quarantine is None:
        removal = delete_orphans(table.storage, due)
    else:
        batch = f"{planned.quarantine}/{batch_name(now, ctx.plan_id)}"
        removal = quarantine_orphans(table.storage, due, batch, fault) if due else Removal()
    drifted += [Drift(path, "already gone") for path in removal.gone]
    drifted += [Drift(path, f"not removed: {why}") for path, why in removal.failed]
    effects = OrphanFilesApplyEffects(
        orphan_files_removed=len(removal.removed),
        orphan_bytes_removed=removal.bytes,
        quarantine_batch=removal.batch,
    )
    verb = "orphan file(s) quarantined" if removal.batch else "orphan file(s) deleted"
    told = summary(len(removal.removed), verb, tuple(drifted))
    return NodeOutcome(with_dropped(effects, dropped), tuple(drifted), told)
