"""The metadata node of a plan: the metadata table's own upkeep, in Hudi's order (clean, then
compaction, then archival of its timeline; ``HoodieBackedTableMetadataWriter.performTableServices``),
and applying an approved node."""

from __future__ import annotations

from datetime import datetime

from maintainer.hudi.loading import TableState
from maintainer.hudi.metadata import compaction as mc
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.plan.model import Action, MetadataEffect, NodePlan, NodeStatus
from maintainer.project.models import TableSpec
from maintainer.project.services import MetadataSpec
from maintainer.services.metadata.compaction import compaction_action, decide_compaction

SERVICE = "metadata"


def settings_of(spec: TableSpec) -> MetadataSpec:
    return spec.metadata or MetadataSpec()


def latest_log_files(mdt: MetadataTable) -> int:
    return sum(
        len(group.latest_slice.log_files)
        for partition in mdt.state.view.partitions
        for group in mdt.state.view.file_groups(partition)
        if group.latest_slice is not None
    )


def metadata_effect(mdt: MetadataTable, settings: MetadataSpec) -> MetadataEffect:
    timeline = mdt.state.snapshot.timeline
    last = mc.last_compaction(timeline)
    return MetadataEffect(
        deltacommits_since_compaction=mc.deltacommits_since_compaction(timeline),
        max_delta_commits=settings.compact_max_delta_commits,
        last_compaction=last.timestamp if last is not None else "",
        active_instants=len(timeline.instants),
        log_files=latest_log_files(mdt),
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
    actions: list[Action] = []
    reasons: list[str] = []
    decision = decide_compaction(mdt, table.snapshot.timeline, now, settings.compact_max_delta_commits)
    reasons.append(f"compaction: {decision.reason}")
    compaction = compaction_action(decision)
    if compaction is not None:
        actions.append(compaction)
    return NodePlan(
        table=spec.name,
        service=SERVICE,
        status=NodeStatus.CHANGES if actions else NodeStatus.NO_OP,
        reasons=tuple(reasons),
        actions=tuple(actions),
        effect=metadata_effect(mdt, settings),
    )
