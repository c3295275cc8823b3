"""The metadata node of a plan: the metadata table's own upkeep, in Hudi's order (clean, then
compaction, then archival of its timeline; ``HoodieBackedTableMetadataWriter.performTableServices``),
with the settings Hudi's metadata write config derives from the table's own (``clean`` and
``archive`` blocks, their defaults when the blocks are off)."""

from __future__ import annotations

from datetime import datetime

from maintainer.hudi.loading import TableState
from maintainer.hudi.metadata import compaction_plan as mcp
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.timeline import Timeline
from maintainer.plan.model import (
    METADATA_TABLE_PATH,
    Action,
    ArchiveMetadataTable,
    CleanMetadataTable,
    MetadataEffect,
    NodePlan,
    NodeStatus,
)
from maintainer.project.models import TableSpec
from maintainer.project.services import ArchiveSpec, CleanSpec, MetadataSpec
from maintainer.services.metadata.archival import (
    MetadataArchivalPlan,
    MetadataArchivalSettings,
    plan_metadata_archival,
)
from maintainer.services.metadata.clean import MetadataCleanPlan, MetadataCleanSettings, plan_metadata_clean
from maintainer.services.metadata.compaction import compaction_action, decide_compaction

SERVICE = "metadata"


def settings_of(spec: TableSpec) -> MetadataSpec:
    return spec.metadata or MetadataSpec()


def clean_settings(spec: TableSpec) -> MetadataCleanSettings:
    return MetadataCleanSettings.derived_from(spec.clean or CleanSpec())


def archival_settings(spec: TableSpec) -> MetadataArchivalSettings:
    return MetadataArchivalSettings.derived_from(
        spec.archive or ArchiveSpec(), settings_of(spec).compact_max_delta_commits
    )


def plan_clean(mdt: MetadataTable, spec: TableSpec, now: datetime) -> MetadataCleanPlan:
    return plan_metadata_clean(mdt.state, clean_settings(spec), now)


def plan_archival(mdt: MetadataTable, data_timeline: Timeline, spec: TableSpec) -> MetadataArchivalPlan:
    return plan_metadata_archival(mdt.state, data_timeline, archival_settings(spec))


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
