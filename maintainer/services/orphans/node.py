"""The ``orphan_files`` node of a plan: one ``remove_orphan_file`` action per file no instant
accounts for that is older than ``min_age`` (with its size, age and why it is an orphan), and
counts of the files found but left alone, with why."""

from __future__ import annotations

from datetime import datetime

from maintainer.artifact.model import NodePlan, NodeStatus, OrphanEffect, RemoveOrphanFile
from maintainer.hudi.table.orphans import OrphanFile
from maintainer.hudi.table.state import TableState
from maintainer.project.durations import format_duration
from maintainer.project.models import TableSpec
from maintainer.services.orphans.planner import OrphanPlanResult, left_alone_reasons, plan_orphans
from maintainer.services.orphans.settings import OrphanFilesSpec
from maintainer.services.orphans.state import load_orphan_inputs
from maintainer.units import human_bytes

SERVICE = "orphan_files"


def orphan_settings(spec: TableSpec) -> OrphanFilesSpec:
    return spec.settings_of(OrphanFilesSpec) or OrphanFilesSpec()


def plan_orphan_result(table: TableState, spec: TableSpec, now: datetime) -> OrphanPlanResult:
    return plan_orphans(load_orphan_inputs(table, now, orphan_settings(spec).min_age))


def _age_text(seconds: int | None) -> str:
    """``10d old``, ``5h old``, ``40m old``: the largest whole unit."""
    if seconds is None:
        return "age unknown"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} old"
    return f"{seconds}s old"


def _told(orphan: OrphanFile) -> str:
    """``840.2 KiB, 10d old: <why>``: what a reviewer weighs before approving the removal."""
    return f"{human_bytes(orphan.size)}, {_age_text(orphan.age_seconds)}: {orphan.reason}"


def plan_orphan_files_node(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    settings = orphan_settings(spec)
    if table.referenced is None:
        reason = (
            "the table was read without its integrity check: which files its instants account for is unknown"
        )
        return NodePlan(table=spec.name, service=SERVICE, status=NodeStatus.BLOCKED, reasons=(reason,))
    result = plan_orphan_result(table, spec, now)
    min_age = format_duration(settings.min_age)
    actions = tuple(
        RemoveOrphanFile(
            target=o.path, reason=o.reason, size=o.size, age_seconds=o.age_seconds, orphan=o.kind
        )
        for o in result.remove
    )
    quarantine = settings.quarantine_folder()
    reasons = left_alone_reasons(result, min_age)
    if actions:
        where = f"moved into {quarantine}/" if quarantine else "deleted"
        reasons.insert(0, f"{len(actions)} orphan file(s) older than {min_age} {where}")
    effect = OrphanEffect(
        files=len(actions),
        bytes=result.bytes,
        quarantine=quarantine,
        min_age=min_age,
        left_pending=result.left_pending,
        left_archived=result.left_archived,
        left_young=result.left_young,
        left_listed=result.left_listed,
    )
    status = NodeStatus.CHANGES if actions else NodeStatus.NO_OP
    return NodePlan(
        table=spec.name,
        service=SERVICE,
        status=status,
        reasons=tuple(reasons),
        actions=actions,
        effect=effect,
    )
