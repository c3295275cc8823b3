"""The archive node of a plan, and applying an approved one.

Planning: one action per instant to archive (oldest first, with its action and state files),
the reasons (thresholds, the boundary that stops archival) and the effect. Applying: the table
is planned again and only instants both approved and still archivable now are archived, so
archival never goes past the approved range.
"""

from __future__ import annotations

from datetime import datetime

from maintainer.artifact.model import ArchiveBoundary, ArchiveEffect, ArchiveInstant, NodePlan, NodeStatus
from maintainer.executors.archive.selection import ArchivePlanResult
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.archive.planner import plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.archive.state import load_archive_inputs
from maintainer.services.common.neighbour_settings import compaction_of

SERVICE = "archive"


def plan_archive_result(table: TableState, spec: TableSpec) -> ArchivePlanResult:
    inputs = load_archive_inputs(table, compaction_of(spec))
    return plan_archive(inputs, spec.settings_of(ArchiveSpec) or ArchiveSpec())


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
