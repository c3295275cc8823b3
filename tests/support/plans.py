"""Small builders of plan records for tests (keyword-only records, sensible defaults)."""

from __future__ import annotations

from collections.abc import Mapping

from maintainer.artifact.model import (
    Action,
    CleanEffect,
    CompactSlice,
    DeleteFile,
    Effect,
    NodePlan,
    NodeStatus,
    Plan,
    SliceFile,
    TableFingerprint,
    TablePlan,
)

FINGERPRINT = TableFingerprint(instants=("1.commit.COMPLETED",), savepoints=(), properties_checksum="0" * 64)
NO_FINGERPRINT = TableFingerprint(instants=(), savepoints=(), properties_checksum="")


def delete_file(path: str, size: int, reason: str = "older than the ECTR") -> DeleteFile:
    partition = path.rsplit("/", 1)[0] if "/" in path else ""
    return DeleteFile(target=path, reason=reason, size=size, partition=partition)


def clean_effect(files: int = 0, size: int = 0, **changes: object) -> CleanEffect:
    fields: dict[str, object] = {
        "files": files,
        "bytes": size,
        "policy": "KEEP_LATEST_COMMITS",
        "scan": "full",
        "earliest_commit_to_retain": None,
        "earliest_commit_to_retain_action": None,
        "last_completed_commit": "1",
        "savepointed_timestamps": (),
        **changes,
    }
    return CleanEffect(**fields)  # type: ignore[arg-type]


def node(
    table: str,
    service: str,
    actions: tuple[Action, ...] = (),
    *,
    status: NodeStatus | None = None,
    reasons: tuple[str, ...] = (),
    effect: Effect | None = None,
    payloads: tuple[str, ...] = (),
) -> NodePlan:
    return NodePlan(
        table=table,
        service=service,
        status=status or (NodeStatus.CHANGES if actions else NodeStatus.NO_OP),
        reasons=reasons,
        actions=actions,
        effect=effect,
        payloads=payloads,
    )


def blocked(table: str, service: str, reason: str) -> NodePlan:
    return node(table, service, status=NodeStatus.BLOCKED, reasons=(reason,))


def table_plan(
    name: str,
    nodes: tuple[NodePlan, ...],
    *,
    path: str | None = None,
    table_type: str = "COPY_ON_WRITE",
    version: int = 6,
    fingerprint: TableFingerprint = FINGERPRINT,
) -> TablePlan:
    return TablePlan(
        name=name,
        path=path or f"/{name}",
        table_type=table_type,
        version=version,
        fingerprint=fingerprint,
        nodes=nodes,
    )


def plan(*tables: TablePlan, project: str = "proj", target: str = "dev") -> Plan:
    return Plan(project=project, target=target, tables=tables)


def slice_file(name: str, size: int) -> SliceFile:
    return SliceFile(name=name, size=size)


def compact_slice(
    partition: str,
    file_id: str,
    base_instant: str,
    base_file: SliceFile | None,
    log_files: tuple[SliceFile, ...],
    metrics: Mapping[str, float],
    reason: str = "",
) -> CompactSlice:
    return CompactSlice(
        partition=partition,
        file_id=file_id,
        base_instant=base_instant,
        base_file=base_file,
        log_files=log_files,
        metrics=metrics,
        reason=reason,
    )


def clean_effect_of(planned: NodePlan) -> CleanEffect:
    """The clean node's effect (failing the test when it has another)."""
    assert isinstance(planned.effect, CleanEffect), planned.effect
    return planned.effect


def files_to_delete(planned: NodePlan) -> set[str]:
    """The table-relative paths a clean node deletes."""
    return {action.target for action in planned.actions_of(DeleteFile)}
