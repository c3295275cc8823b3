"""The rollback node of a plan, and applying an approved one.

Planning: the planner's result as actions (one per rollback, newest first, each with its reason,
the files it deletes and the log files that get a rollback block), the pending instants left
alone and why (live writes; pending compactions, log compactions and clusterings, which only the
job executing them rolls back), in the reasons and the effect, and one payload per new rollback:
the ``.rollback.requested`` bytes.

Applying: the table is planned again and only rollbacks that were approved and are still due
now are carried out (a write that finished, or got a live heartbeat, since the plan is dropped),
each with only the files both approved and re-derived from the table now (``approval.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from maintainer.artifact.model import (
    LeftAlone,
    NodePlan,
    NodeStatus,
    RollbackAction,
    RollbackEffect,
    RollbackRequestRecord,
)
from maintainer.artifact.model import RollbackKind as ActionKind
from maintainer.executors.common.rollback_requests import relative_path
from maintainer.executors.rollback.model import PlannedRollback, RollbackKind
from maintainer.hudi import payloads
from maintainer.hudi.payloads import InstantInfo, RollbackPlan, RollbackRequest
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.rollback.model import RollbackPlanResult
from maintainer.services.rollback.planner import plan_rollback
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.rollback.state import load_rollback_inputs
from maintainer.storage import Storage

SERVICE = "rollback"
NEW_ROLLBACKS = (RollbackKind.ROLLBACK,)
_KIND: dict[RollbackKind, ActionKind] = {
    RollbackKind.ROLLBACK: "rollback",
    RollbackKind.FINISH_PENDING_ROLLBACK: "finish_pending_rollback",
    RollbackKind.REMOVE_ROLLED_BACK_INSTANT: "remove_rolled_back_instant",
}


def payload_name(table: str, target: str) -> str:
    return f"{table}.{SERVICE}.{target}.requested"


def plan_rollback_result(table: TableState, spec: TableSpec, now: datetime) -> RollbackPlanResult:
    return plan_rollback(load_rollback_inputs(table), spec.settings_of(RollbackSpec) or RollbackSpec(), now)


def _request_record(request: RollbackRequest) -> RollbackRequestRecord:
    return RollbackRequestRecord(
        partition=request.partition_path,
        file_id=request.file_id,
        latest_base_instant=request.latest_base_instant,
        files_to_be_deleted=tuple(request.files_to_be_deleted),
        log_blocks_to_be_deleted=dict(request.log_blocks_to_be_deleted or {}),
    )


def _request_of(record: RollbackRequestRecord) -> RollbackRequest:
    return RollbackRequest(
        partition_path=record.partition,
        file_id=record.file_id,
        latest_base_instant=record.latest_base_instant,
        files_to_be_deleted=record.files_to_be_deleted,
        log_blocks_to_be_deleted=dict(record.log_blocks_to_be_deleted),
    )


def listed_bytes(table: TableState, paths: Iterable[str]) -> int:
    """Bytes of the table-relative ``paths`` as the table's listing has them (a path not listed
    counts 0: a file a marker names that was never written)."""
    wanted: dict[str, set[str]] = {}
    for path in paths:
        wanted.setdefault(path.rpartition("/")[0], set()).add(path)
    listings = table.snapshot.listings
    return sum(
        info.size
        for partition, names in wanted.items()
        if partition in listings
        for info in listings[partition]
        if info.path in names and not info.is_dir
    )


def rollback_action(planned: PlannedRollback, table: str, state: TableState) -> RollbackAction:
    """The plan's action for one planned rollback (paths relative to the table, their bytes as
    listed, requests and the payload name only for the kinds that write a new rollback)."""
    table_uri = state.storage.uri("")
    requests = planned.plan.rollback_requests or ()
    deleted = [relative_path(table_uri, p) or p for r in requests for p in r.files_to_be_deleted]
    blocks = [relative_path(table_uri, p) or p for r in requests for p in (r.log_blocks_to_be_deleted or {})]
    new = planned.kind in NEW_ROLLBACKS
    return RollbackAction(
        kind=_KIND[planned.kind],
        target=planned.target.timestamp,
        reason=planned.reason,
        action=planned.target.action.value,
        state=planned.target.state.value,
        source=planned.source,
        delete_files=tuple(sorted(deleted)),
        rollback_blocks_for=tuple(sorted(blocks)),
        rollback_instant=planned.rollback_instant.timestamp if planned.rollback_instant else None,
        requests=tuple(_request_record(r) for r in requests) if new else (),
        payload=payload_name(table, planned.target.timestamp) if new else None,
        delete_bytes=listed_bytes(state, deleted),
    )


def plan_rollback_service(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    result = plan_rollback_result(table, spec, now)
    actions = [rollback_action(p, spec.name, table) for p in result.rollbacks]
    reasons = [
        f"left alone: {s.instant.timestamp} ({s.instant.action.value}): {s.reason}" for s in result.skipped
    ]
    if not actions:
        reasons.append("no failed write to roll back")
    effect = RollbackEffect(
        rollbacks=tuple(a.target for a in actions),
        files=sum(len(a.delete_files) for a in actions),
        rollback_blocks=sum(len(a.rollback_blocks_for) for a in actions),
        bytes=sum(a.delete_bytes for a in actions),
        left_alone=tuple(LeftAlone(instant=s.instant.timestamp, reason=s.reason) for s in result.skipped),
    )
    return NodePlan(
        table=spec.name,
        service=SERVICE,
        status=NodeStatus.CHANGES if actions else NodeStatus.NO_OP,
        reasons=tuple(reasons),
        actions=tuple(actions),
        effect=effect,
        payloads=tuple(a.payload for a in actions if a.payload),
    )


def rollback_plan_of(action: RollbackAction) -> RollbackPlan:
    """The HoodieRollbackPlan an approved action writes into ``.rollback.requested``."""
    return RollbackPlan(
        instant_to_rollback=InstantInfo(commit_time=action.target, action=action.action),
        rollback_requests=tuple(_request_of(r) for r in action.requests),
    )


def rollback_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
    """The ``.rollback.requested`` bytes of each new rollback (HoodieRollbackPlan has no field
    for the plan id)."""
    return {
        a.payload: payloads.encode_avro(rollback_plan_of(a))
        for a in node.actions_of(RollbackAction)
        if a.payload
    }
