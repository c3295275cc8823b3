"""A clean node of the plan: the planner's result as actions (each with its reason), the
effect (files and bytes) and the payload apply writes into ``.clean.requested``."""

from __future__ import annotations

import hashlib
import operator
from dataclasses import dataclass
from datetime import datetime

from maintainer.artifact.model import (
    Action,
    CleanEffect,
    DeleteFile,
    DeletePartition,
    FinishPendingClean,
    NodePlan,
    NodeStatus,
)
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import BuiltPayload
from maintainer.services.clean.payload import node_cleaner_plan, node_cleaner_plan_bytes, partition_of
from maintainer.services.clean.planner import CleanPlanResult, FileToDelete
from maintainer.services.clean.state import plan_clean_node
from maintainer.storage import Storage

SERVICE = "clean"


def payload_name(table: str) -> str:
    return f"{table}.{SERVICE}.requested"


@dataclass(frozen=True, slots=True)
class PendingClean:
    """A clean requested or inflight in the table, and what its plan deletes."""

    instant_time: str
    paths: frozenset[str]
    partitions: frozenset[str]
    sha256: str = ""
    """Of its ``.clean.requested`` bytes: apply finishes it only if they are still these."""


def requested_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _pending_clean(storage: Storage, table: TableState, instant: Instant) -> PendingClean:
    path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
    data = storage.read_bytes(path)
    plan = payloads.decode_cleaner_plan(data, storage.uri(path))
    paths: set[str] = set()
    for partition, infos in ((plan.file_paths_to_be_deleted_per_partition or {}) if plan else {}).items():
        for info in infos:
            name = (info.file_path or "").rsplit("/", 1)[-1]
            paths.add(f"{partition}/{name}" if partition else name)
    for partition, names in ((plan.files_to_be_deleted_per_partition or {}) if plan else {}).items():
        paths.update(f"{partition}/{name}" if partition else name for name in names)
    emptied = frozenset(plan.partitions_to_be_deleted or ()) if plan else frozenset()
    return PendingClean(instant.timestamp, frozenset(paths), emptied, requested_sha256(data))


def pending_cleans(table: TableState) -> list[PendingClean]:
    return [_pending_clean(table.storage, table, i) for i in table.snapshot.timeline.pending_cleans()]


def _reasons(result: CleanPlanResult, files: list[FileToDelete]) -> tuple[str, ...]:
    ectr = result.earliest_commit_to_retain
    retention = (
        f"earliest commit to retain: {ectr.timestamp} ({result.retention_reason})"
        if ectr
        else f"no earliest commit to retain: {result.retention_reason}"
    )
    scan = "full scan" if result.scope.full else "incremental scan"
    reasons = [f"policy {result.policy.value}", retention, f"{scan}: {result.scope.reason}"]
    if result.savepoint_times:
        reasons.append(f"files of savepoints {', '.join(result.savepoint_times)} are kept")
    if result.not_triggered:
        reasons.append(result.not_triggered)
    elif not files and not result.partitions_to_delete:
        reasons.append("nothing to clean: no file slice is old enough to delete")
    return tuple(reasons)


def _effect(result: CleanPlanResult, files: list[FileToDelete], table: TableState) -> CleanEffect:
    """The node's effect; ``savepointed_timestamps`` as Hudi records them in the clean plan
    (none for a non-partitioned table, whose cleans never scan incrementally by savepoint);
    ``projected_instants`` when planned on a projection (apply resolves them)."""
    ectr = result.earliest_commit_to_retain
    partitioned = table.snapshot.config.is_partitioned
    return CleanEffect(
        files=len(files),
        bytes=sum(f.size for f in files),
        policy=result.policy.value,
        scan="full" if result.scope.full else "incremental",
        earliest_commit_to_retain=ectr.timestamp if ectr else None,
        earliest_commit_to_retain_action=ectr.completed_action.value if ectr else None,
        last_completed_commit=result.last_completed_commit,
        savepointed_timestamps=tuple(result.savepoint_times) if partitioned else (),
        projected_instants=tuple(table.projection.instants) if table.projection else (),
    )


def _projection_reasons(table: TableState) -> tuple[str, ...]:
    return (table.projection.description,) if table.projection else ()


_BY_PATH = operator.attrgetter("path")


def _actions(pending: list[PendingClean], files: list[FileToDelete], emptied: list[str]) -> list[Action]:
    actions: list[Action] = [
        FinishPendingClean(
            target=p.instant_time,
            reason=f"clean {p.instant_time} was left pending; it is finished first, as Hudi does",
            paths=tuple(sorted(p.paths)),
            sha256=p.sha256,
        )
        for p in pending
    ]
    actions += DeleteFile.many((f.path, f.reason, f.size, f.partition) for f in files)
    why = "no file group is left in the partition"
    actions += [DeletePartition(target=p, reason=why) for p in emptied]
    return actions


def plan_clean_service(
    table: TableState, spec: TableSpec, now: datetime, worked_out: object = None
) -> NodePlan:
    """The clean node of one table: files already in a pending clean's plan are left to it.
    ``worked_out``: what choosing the partitions to list worked out (its scope), if anything."""
    result = plan_clean_node(table, spec, now, worked_out)
    pending = pending_cleans(table)
    taken = {path for p in pending for path in p.paths}
    taken_partitions = {part for p in pending for part in p.partitions}
    files = sorted((f for f in result.files if f.path not in taken), key=_BY_PATH)
    emptied = sorted(p for p in result.partitions_to_delete if p not in taken_partitions)
    actions = _actions(pending, files, emptied)
    return NodePlan(
        table=spec.name,
        service=SERVICE,
        status=NodeStatus.CHANGES if actions else NodeStatus.NO_OP,
        reasons=(*_projection_reasons(table), *_reasons(result, files)),
        actions=tuple(actions),
        effect=_effect(result, files, table),
        payloads=(payload_name(spec.name),) if files or emptied else (),
    )


def clean_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
    """The payload files of a clean node (none when it writes no new clean)."""
    return {name: node_cleaner_plan_bytes(node, storage, plan_id) for name in node.payloads}


def built_clean_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, BuiltPayload]:
    """:func:`clean_payloads` with the clean plan each encodes (built once for all of them)."""
    if not node.payloads:
        return {}
    plan, data = node_cleaner_plan(node, storage, plan_id)
    return {name: BuiltPayload(data, plan) for name in node.payloads}


__all__ = [
    "clean_payloads",
    "partition_of",
    "payload_name",
    "pending_cleans",
    "plan_clean_service",
    "requested_sha256",
]
