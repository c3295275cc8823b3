"""The metadata node of a plan: the metadata table's own upkeep, in Hudi's order (clean, then
compaction, then archival of its timeline; ``HoodieBackedTableMetadataWriter.performTableServices``),
one action each with what the planner (:mod:`.planner`) found, and the node's effect."""

from __future__ import annotations

from datetime import datetime

from maintainer.artifact.model import (
    METADATA_TABLE_PATH,
    Action,
    ArchiveMetadataTable,
    CleanMetadataTable,
    CompactMetadataTable,
    MetadataEffect,
    NodePlan,
    NodeStatus,
)
from maintainer.executors.metadata import CompactionDecision
from maintainer.hudi.metadata import compaction_plan as mcp
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.metadata.archival import (
    MetadataArchivalPlan,
)
from maintainer.services.metadata.clean import MetadataCleanPlan
from maintainer.services.metadata.planner import decide_compaction, plan_archival, plan_clean, settings_of
from maintainer.services.metadata.settings import MetadataSpec

SERVICE = "metadata"


def compaction_action(decision: CompactionDecision) -> CompactMetadataTable | None:
    if decision.instant is None:
        return None
    logs = [log for op in decision.operations for log in op.log_files]
    return CompactMetadataTable(
        target=METADATA_TABLE_PATH,
        reason=decision.reason,
        instant=decision.instant,
        pending=decision.pending,
        file_groups=len(decision.operations),
        log_files=len(logs),
        log_bytes=sum(log.size for log in logs),
    )


def latest_log_files(mdt: MetadataTable) -> int:
    return sum(
        len(group.latest_slice.log_files)
        for partition in mdt.state.view.partitions
        for group in mdt.state.view.file_groups(partition)
        if group.latest_slice is not None
    )


def metadata_effect(mdt: MetadataTable, settings: MetadataSpec) -> MetadataEffect:
    timeline = mdt.state.snapshot.timeline
    last = mcp.last_compaction(timeline)
    return MetadataEffect(
        deltacommits_since_compaction=mcp.deltacommits_since_compaction(timeline),
        max_delta_commits=settings.compact_max_delta_commits,
        last_compaction=last.timestamp if last is not None else "",
        active_instants=len(timeline.instants),
        log_files=latest_log_files(mdt),
    )


def clean_action(plan: MetadataCleanPlan) -> CleanMetadataTable | None:
    if not plan.has_changes:
        return None
    pending = f"finish the pending clean(s) {', '.join(plan.pending_cleans)}; " if plan.pending_cleans else ""
    return CleanMetadataTable(
        target=METADATA_TABLE_PATH,
        reason=pending + plan.reason,
        files=tuple(f.path for f in plan.files),
        pending=plan.pending_cleans,
    )


def archive_action(plan: MetadataArchivalPlan) -> ArchiveMetadataTable | None:
    if not plan.has_changes:
        return None
    instants = tuple(dict.fromkeys(i.timestamp for i in plan.instants))
    return ArchiveMetadataTable(
        target=METADATA_TABLE_PATH,
        reason=f"{len(instants)} instant(s) older than the instants kept: {plan.reason}",
        instants=instants,
    )


def plan_metadata_service(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    settings = settings_of(spec)
    mdt = open_metadata_table(table)
    if mdt is None:
        return NodePlan(
            table=spec.name,
            service=SERVICE,
            status=NodeStatus.NO_OP,
            reasons=("the table has no metadata table",),
        )
    cleaning = plan_clean(mdt, spec, now)
    decision = decide_compaction(mdt, table.snapshot.timeline, now, settings.compact_max_delta_commits)
    archival = plan_archival(mdt, table.snapshot.timeline, spec)
    found = (clean_action(cleaning), compaction_action(decision), archive_action(archival))
    actions: tuple[Action, ...] = tuple(a for a in found if a is not None)
    reasons = (
        f"compaction: {decision.reason}",
        f"clean: {cleaning.reason}",
        f"archival: {archival.reason or 'nothing to archive'}",
    )
    return NodePlan(
        table=spec.name,
        service=SERVICE,
        status=NodeStatus.CHANGES if actions else NodeStatus.NO_OP,
        reasons=reasons,
        actions=actions,
        effect=metadata_effect(mdt, settings),
    )
