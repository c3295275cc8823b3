"""The archive node of a plan, and applying an approved one.

Planning: one action per instant to archive (oldest first, with its action and state files),
the reasons (thresholds, the boundary that stops archival) and the effect. Applying: the table
is planned again and only instants both approved and still archivable now are archived, so
archival never goes past the approved range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from maintainer.hudi.loading import TableState
from maintainer.plan.model import ArchiveBoundary, ArchiveEffect, ArchiveInstant, NodePlan, NodeStatus
from maintainer.project.models import TableSpec
from maintainer.project.services import ArchiveSpec
from maintainer.services.archive.executor import ArchiveOutcome, run_archive
from maintainer.services.archive.planner import ArchivePlanResult, plan_archive
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.base import Fault, no_fault

SERVICE = "archive"


def plan_archive_result(table: TableState, spec: TableSpec) -> ArchivePlanResult:
    inputs = load_archive_inputs(table, spec.compaction)
    return plan_archive(inputs, spec.archive or ArchiveSpec())


def plan_archive_service(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    result = plan_archive_result(table, spec)
    timeline = table.snapshot.timeline
    actions = []
    for instant in result.instants:
        entry = timeline.entry(instant.timestamp, instant.action)
        files = tuple(sorted(entry.state_files.values())) if entry else ()
        actions.append(
            ArchiveInstant(
                target=instant.timestamp,
                reason="older than the instants kept",
                action=instant.action.value,
                state_files=files,
            )
        )
    effect = ArchiveEffect(
        instants=tuple(i.timestamp for i in result.instants),
        commits=len(result.commits),
        archived_timeline=table.snapshot.config.archive_dir,
        stops_before=tuple(ArchiveBoundary(instant=b.timestamp, reason=b.reason) for b in result.boundaries),
    )
    return NodePlan(
        table=spec.name,
        service=SERVICE,
        status=NodeStatus.CHANGES if actions else NodeStatus.NO_OP,
        reasons=result.reasons,
        actions=tuple(actions),
        effect=effect,
    )


@dataclass(frozen=True, slots=True)
class ArchiveApplied:
    """What applying an archive node did, and why each approved instant left on the active
    timeline is not archivable now (the boundary or rule that keeps it)."""

    outcome: ArchiveOutcome
    refused: Mapping[str, str]


def why_kept(current: ArchivePlanResult, timestamp: str) -> str:
    """Why the current plan keeps an instant active: the first boundary at or before it, else
    the count rule (keep_min/keep_max commits)."""
    stops = [b for b in current.boundaries if b.timestamp <= timestamp]
    if stops:
        return f"archival now stops before {stops[0].reason}"
    return f"kept by the current timeline: {current.reasons[0]}" if current.reasons else "kept"


def apply_archive_node(
    table: TableState, spec: TableSpec, node: NodePlan, *, fault: Fault = no_fault
) -> ArchiveApplied:
    """Archive the approved instants that are still archivable; the others are drift."""
    approved = {a.target for a in node.actions_of(ArchiveInstant)}
    current = plan_archive_result(table, spec)
    chosen = tuple(i for i in current.instants if i.timestamp in approved)
    outcome = run_archive(
        table.storage, table.snapshot.config, replace(current, instants=chosen), fault=fault
    )
    taken = {i.timestamp for i in chosen}
    refused = {t: why_kept(current, t) for t in sorted(approved - taken)}
    return ArchiveApplied(outcome, refused)
