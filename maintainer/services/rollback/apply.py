"""Apply an approved rollback node: re-read the table (under the runner's table lock), drop
its metadata table first when the node says so, check the approved payloads, roll back what is
still due (with the fault points of ``MAINTAINER_FAULT_INJECT``) and report the rest as drift."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import (
    NodePlan,
    RollbackAction,
    SyncMetadataTable,
)
from maintainer.clock import Clock, utc_now
from maintainer.errors import PlanError
from maintainer.executors.common.rollback_requests import relative_path
from maintainer.executors.faults import Fault, maybe_fail, no_fault
from maintainer.executors.rollback.executor import RollbackOutcome, run_rollback
from maintainer.executors.rollback.model import DroppedPath, PlannedRollback, RollbackKind
from maintainer.hudi.instants.instant import State
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.common.metadata_table import open_for_apply, with_dropped
from maintainer.services.common.outcome import drift, summary
from maintainer.services.rollback.approval import intersect
from maintainer.services.rollback.effects import RollbackApplyEffects
from maintainer.services.rollback.node import (
    NEW_ROLLBACKS,
    listed_bytes,
    plan_rollback_result,
    rollback_action,
    rollback_payloads,
    rollback_plan_of,
)
from maintainer.services.rollback.state import completed_rollback_targets
from maintainer.tasks import IN_PROCESS, TaskRunner


def check_rollback_payloads(ctx: NodeContext, table: TableState) -> None:
    """The stored ``.rollback.requested`` payloads are the ones the approved body makes (already
    known when the up-front check of the plan passed them all on)."""
    if ctx.checked_payloads and all(name in ctx.checked_payloads for name in ctx.node.payloads):
        return
    rebuilt = rollback_payloads(ctx.node, table.storage, ctx.plan_id)
    for name, data in rebuilt.items():
        if ctx.payloads.get(name) != data:
            raise PlanError(
                f"payload {name} does not match the approved plan body",
                where=name,
                hint="plans are applied exactly as reviewed: make the plan again and review it",
            )


def _requested_bytes(table: TableState, planned: PlannedRollback) -> bytes | None:
    instant = planned.rollback_instant
    if instant is None:
        return None
    path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
    return table.storage.read_bytes(path) if table.storage.exists(path) else None


def _resumption(ctx: NodeContext, table: TableState, planned: PlannedRollback) -> RollbackAction | None:
    """An action approving the rest of this plan's own interrupted rollback of an approved
    target: its pending rollback carries the approved payload, or it completed and only the
    target's instant files are left."""
    approved = [
        a for a in ctx.node.actions_of(RollbackAction) if a.target == planned.target.timestamp and a.payload
    ]
    if not approved or approved[0].payload is None:
        return None
    if planned.kind is RollbackKind.FINISH_PENDING_ROLLBACK:
        if _requested_bytes(table, planned) != ctx.payloads.get(approved[0].payload):
            return None
    elif planned.kind is not RollbackKind.REMOVE_ROLLED_BACK_INSTANT:
        return None
    why = "finishes the rollback an interrupted apply of this plan started"
    return replace(rollback_action(planned, ctx.spec.name, table), reason=why)


def with_resumptions(ctx: NodeContext, table: TableState) -> NodePlan:
    """The approved node, plus the resumption of its own interrupted rollbacks."""
    current = plan_rollback_result(table, ctx.spec, ctx.clock()).rollbacks
    extra = [action for planned in current if (action := _resumption(ctx, table, planned)) is not None]
    return replace(ctx.node, actions=(*ctx.node.actions, *extra)) if extra else ctx.node


def execute_rollback(ctx: NodeContext) -> NodeOutcome:
    table, dropped = open_for_apply(ctx)
    check_rollback_payloads(ctx, table)
    node = with_resumptions(ctx, table)
    runner = ctx.task_runner()
    fault = functools.partial(maybe_fail, "rollback")
    sync = bool(ctx.node.actions_of(SyncMetadataTable))
    outcomes = apply_rollback_node(
        table, ctx.spec, node, ctx.clock(), runner=runner, fault=fault, sync_metadata=sync, clock=ctx.clock
    )
    rolled_back = [
        target
        for outcome in outcomes
        if outcome.metadata is not None
        for target in outcome.metadata.commits_rollback
    ]
    approved = sorted({a.target for a in ctx.node.actions_of(RollbackAction)})
    # done before this run (an apply stopped before its ledger record, or a writer's own
    # rollback), read from the completed rollbacks' metadata: not drift
    before = completed_rollback_targets(table, set(approved) - set(rolled_back))
    effects = RollbackApplyEffects(
        rollbacks=tuple(o.rollback_instant.timestamp for o in outcomes if o.rollback_instant is not None),
        rolled_back=tuple(rolled_back),
        files_deleted=sum(o.metadata.total_files_deleted for o in outcomes if o.metadata is not None),
        bytes_deleted=listed_bytes(table, _deleted_paths(table, outcomes)),
        removed_instant_files=tuple(sorted(name for o in outcomes for name in o.removed_instant_files)),
        rolled_back_before=tuple(sorted(before)),
    )
    drifted = drift(
        approved,
        [*rolled_back, *before, *(t for o in outcomes for t in _targets_of_removal(o.removed_instant_files))],
        "no longer due: the write finished, was rolled back, or its writer is alive again",
    ) + tuple(
        Drift(d.path, f"left alone by the rollback of {d.target}: {d.reason}")
        for o in outcomes
        for d in o.dropped
    )
    text = summary(len(outcomes), "rollback(s) done", drifted)
    if before:
        text += f"; {len(before)} already rolled back before this run ({', '.join(sorted(before))})"
    return NodeOutcome(with_dropped(effects, dropped), drifted, text)


def _targets_of_removal(names: Iterable[str]) -> list[str]:
    return [name.split(".", 1)[0].split("_", 1)[0] for name in names]


def _deleted_paths(table: TableState, outcomes: Iterable[RollbackOutcome]) -> list[str]:
    """Table-relative paths of the files the rollbacks deleted (their metadata's successes)."""
    table_uri = table.storage.uri("")
    return [
        relative_path(table_uri, path) or path
        for outcome in outcomes
        if outcome.metadata is not None
        for partition in outcome.metadata.partition_metadata.values()
        for path in partition.success_delete_files
    ]


def approved_rollbacks(
    node: NodePlan, current: Iterable[PlannedRollback], table_uri: str, table_version: int
) -> tuple[list[PlannedRollback], list[DroppedPath]]:
    """Rollbacks due now that the node approved (same target, same kind), and what they drop.

    A new rollback carries out the intersection of the approved requests and those re-derived
    from the table now (``approval.intersect``): the plan is a request, never authority, so
    apply deletes nothing the review did not see and nothing the table does not yield for the
    instant rolled back. A pending rollback is finished with its own plan, from the table."""
    approved = {(a.target, a.kind): a for a in node.actions_of(RollbackAction)}
    chosen: list[PlannedRollback] = []
    dropped: list[DroppedPath] = []
    for planned in current:
        action = approved.get((planned.target.timestamp, planned.kind.value))
        if action is None:
            continue
        if planned.kind in NEW_ROLLBACKS:
            plan, left = intersect(rollback_plan_of(action), planned.plan, table_uri, table_version)
            chosen.append(replace(planned, plan=plan))
            dropped += left
        else:
            chosen.append(planned)
    return chosen, dropped


def apply_rollback_node(
    table: TableState,
    spec: TableSpec,
    node: NodePlan,
    now: datetime,
    *,
    runner: TaskRunner = IN_PROCESS,
    fault: Fault = no_fault,
    sync_metadata: bool = False,
    clock: Clock = utc_now,
) -> Sequence[RollbackOutcome]:
    """Carry out the approved rollbacks that are still due; the others are drift. Every
    rollback of the node is checked against the table before the first one writes anything;
    what a rollback drops of its approved paths is in its outcome's ``dropped``. ``clock`` times
    the rollback instants written."""
    current = plan_rollback_result(table, spec, now).rollbacks
    config = table.snapshot.config
    chosen, dropped = approved_rollbacks(node, current, table.storage.uri(""), config.version)
    outcomes = []
    for planned in chosen:
        outcome = run_rollback(
            table.storage,
            config,
            planned,
            runner=runner,
            fault=fault,
            sync_metadata=sync_metadata,
            clock=clock,
        )
        mine = tuple(d for d in dropped if d.target == planned.target.timestamp)
        outcomes.append(replace(outcome, dropped=mine))
    return outcomes
