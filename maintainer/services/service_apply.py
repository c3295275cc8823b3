"""The runner's entry points (``fn(ctx) -> NodeOutcome``) for rollback, archive and savepoint
nodes, whose services apply an approved node on an opened table.

Each one re-reads the table (under the runner's table lock), drops the metadata table first
when its node's first action says so (the first node of a table in execution order carries
that action), checks the approved payloads, calls the service's ``apply_*_node`` with the
fault points of ``MAINTAINER_FAULT_INJECT`` and reports what it did; an approved change that is
no longer due is drift, with the reason.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from maintainer.errors import ApplyError, PlanError
from maintainer.hudi.instant import State
from maintainer.hudi.loading import LoadedTable, open_table
from maintainer.plan.model import NodePlan, PlannedAction
from maintainer.runner.context import NodeContext
from maintainer.runner.dag import NodeOutcome
from maintainer.runner.faults import maybe_fail
from maintainer.runner.results import Drift
from maintainer.services.archive.node import apply_archive_node
from maintainer.services.clean.metadata_table import drop_metadata_table
from maintainer.services.rollback import deletes as rollback_deletes
from maintainer.services.rollback.model import PlannedRollback, RollbackKind
from maintainer.services.rollback.node import apply_rollback_node, plan_rollback_result, rollback_payloads
from maintainer.services.savepoint.node import apply_savepoint_create_node, apply_savepoint_delete_node

DROP_METADATA_TABLE = "drop_metadata_table"


def open_for_apply(ctx: NodeContext, effects: dict[str, Any]) -> LoadedTable:
    """The table as it is now, its metadata table dropped first when the plan says so (an
    unexpected metadata table fails the node: changing the table would leave it stale)."""
    table = open_table(ctx.table.path, ctx.storage_options)
    mdt = table.snapshot.metadata_table
    dropping = bool(ctx.actions(DROP_METADATA_TABLE))
    if not (mdt.partitions or mdt.inflight_partitions or (dropping and mdt.exists)):
        return table
    if not dropping:
        partitions = ", ".join(mdt.partitions + mdt.inflight_partitions) or "folder only"
        raise ApplyError(
            f"the table has a metadata table ({partitions}) that the plan does not drop",
            where=ctx.table.path,
            hint="changing the table without updating it would break readers: set "
            "`metadata_table: drop` in the manifest and make the plan again",
        )
    effects["metadata_table_dropped"] = drop_metadata_table(table.storage, ctx.clock())
    return open_table(ctx.table.path, ctx.storage_options)


def _approved(ctx: NodeContext, kind: str) -> list[str]:
    return ctx.actions(kind)


def _drift(approved: Iterable[str], done: Iterable[str], reason: str) -> tuple[Drift, ...]:
    finished = set(done)
    return tuple(Drift(target, reason) for target in approved if target not in finished)


def _summary(count: int, what: str, drift: tuple[Drift, ...]) -> str:
    text = f"{count} {what}" if count else "nothing to do"
    return text + (f", {len(drift)} drifted" if drift else "")


# -- rollback ------------------------------------------------------------------------------------


def check_rollback_payloads(ctx: NodeContext, table: LoadedTable) -> None:
    """The stored ``.rollback.requested`` payloads are the ones the approved body makes."""
    rebuilt = rollback_payloads(ctx.node, table.storage, ctx.plan_id)
    for name, data in rebuilt.items():
        if ctx.payloads.get(name) != data:
            raise PlanError(
                f"payload {name} does not match the approved plan body",
                where=name,
                hint="plans are applied exactly as reviewed: make the plan again and review it",
            )


def _requested_bytes(table: LoadedTable, planned: PlannedRollback) -> bytes | None:
    instant = planned.rollback_instant
    if instant is None:
        return None
    path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
    return table.storage.read_bytes(path) if table.storage.exists(path) else None


def _resumption(ctx: NodeContext, table: LoadedTable, planned: PlannedRollback) -> PlannedAction | None:
    """An action approving the rest of this plan's own interrupted rollback of an approved
    target: its pending rollback carries the approved payload, or it completed and only the
    target's instant files are left."""
    approved = [
        a for a in ctx.node.actions if a.target == planned.target.timestamp and a.details.get("payload")
    ]
    if not approved:
        return None
    if planned.kind is RollbackKind.FINISH_PENDING_ROLLBACK:
        if _requested_bytes(table, planned) != ctx.payloads.get(approved[0].details["payload"]):
            return None
    elif planned.kind is not RollbackKind.REMOVE_ROLLED_BACK_INSTANT:
        return None
    why = "finishes the rollback an interrupted apply of this plan started"
    return PlannedAction(planned.kind.value, planned.target.timestamp, why, {})


def with_resumptions(ctx: NodeContext, table: LoadedTable) -> NodePlan:
    """The approved node, plus the resumption of its own interrupted rollbacks."""
    current = plan_rollback_result(table, ctx.spec, ctx.clock()).rollbacks
    extra = [action for planned in current if (action := _resumption(ctx, table, planned)) is not None]
    return replace(ctx.node, actions=(*ctx.node.actions, *extra)) if extra else ctx.node


def execute_rollback(ctx: NodeContext) -> NodeOutcome:
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    check_rollback_payloads(ctx, table)
    node = with_resumptions(ctx, table)
    runner = (
        rollback_deletes.spark_runner(ctx.spark) if ctx.spark is not None else rollback_deletes.run_locally
    )
    fault = functools.partial(maybe_fail, "rollback")
    outcomes = apply_rollback_node(table, ctx.spec, node, ctx.clock(), runner=runner, fault=fault)
    rolled_back = [
        target
        for outcome in outcomes
        if outcome.metadata is not None
        for target in outcome.metadata.commits_rollback
    ]
    effects.update(
        rollbacks=[o.rollback_instant.timestamp for o in outcomes if o.rollback_instant is not None],
        rolled_back=rolled_back,
        files_deleted=sum(o.metadata.total_files_deleted for o in outcomes if o.metadata is not None),
        removed_instant_files=sorted(name for o in outcomes for name in o.removed_instant_files),
    )
    approved = sorted({a.target for a in ctx.node.actions if a.kind != DROP_METADATA_TABLE})
    drift = _drift(
        approved,
        [*rolled_back, *(t for o in outcomes for t in _targets_of_removal(o.removed_instant_files))],
        "no longer due: the write finished, was rolled back, or its writer is alive again",
    ) + tuple(
        Drift(d.path, f"left alone by the rollback of {d.target}: {d.reason}")
        for o in outcomes
        for d in o.dropped
    )
    return NodeOutcome(effects, drift, _summary(len(outcomes), "rollback(s) done", drift))


def _targets_of_removal(names: Iterable[str]) -> list[str]:
    return [name.split(".", 1)[0].split("_", 1)[0] for name in names]


# -- archive -------------------------------------------------------------------------------------


def execute_archive(ctx: NodeContext) -> NodeOutcome:
    """Archive the approved instants still archivable; the count is what this run archived (an
    approved instant already off the active timeline, e.g. archived by an interrupted apply of
    this plan, is reported as such, not counted again)."""
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    approved = _approved(ctx, "archive_instant")
    before = {i.timestamp for i in table.snapshot.timeline.instants if i.is_completed}
    fault = functools.partial(maybe_fail, "archive")
    outcome = apply_archive_node(table, ctx.spec, ctx.node, ctx.clock(), fault=fault)
    after = open_table(ctx.table.path, ctx.storage_options).snapshot.timeline
    still_active = {i.timestamp for i in after.instants if i.is_completed}
    archived = [t for t in approved if t in before and t not in still_active]
    gone_before = [t for t in approved if t not in before]
    effects.update(
        archive_file=outcome.archive_file,
        records_written=outcome.records_written,
        instants_archived=archived,
        already_archived=gone_before,
        deleted_files=list(outcome.deleted_files),
    )
    drift = _drift(
        [t for t in approved if t in before],
        archived,
        "no longer archivable (a pending write, savepoint or clean since the plan)",
    )
    message = _summary(len(archived), "instant(s) archived", drift)
    if gone_before:
        message += f"; {len(gone_before)} already archived before this run (off the active timeline)"
    return NodeOutcome(effects, drift, message)


# -- savepoints ----------------------------------------------------------------------------------


def execute_savepoint_create(ctx: NodeContext) -> NodeOutcome:
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    fault = functools.partial(maybe_fail, "savepoint_create")
    created = apply_savepoint_create_node(
        table, ctx.spec, ctx.node, ctx.clock(), plan_id=ctx.plan_id, fault=fault
    )
    done = [instant.timestamp for instant in created]
    effects["savepoints_created"] = done
    drift = _drift(
        _approved(ctx, "create_savepoint"),
        done,
        "no longer savepointable (cleaned or archived since the plan)",
    )
    return NodeOutcome(effects, drift, _summary(len(done), "savepoint(s) created", drift))


def execute_savepoint_delete(ctx: NodeContext) -> NodeOutcome:
    effects: dict[str, Any] = {}
    table = open_for_apply(ctx, effects)
    maybe_fail("savepoint_delete", "before_delete")
    removed = apply_savepoint_delete_node(table, ctx.spec, ctx.node, ctx.clock())
    deleted = sorted({name.split(".", 1)[0] for name in removed})
    effects.update(savepoints_deleted=deleted, removed_instant_files=removed)
    drift = _drift(_approved(ctx, "delete_savepoint"), deleted, "already deleted since the plan")
    return NodeOutcome(effects, drift, _summary(len(deleted), "savepoint(s) deleted", drift))
