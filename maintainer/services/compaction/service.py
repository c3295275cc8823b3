"""The compaction service's glue: its catalog entry, planner, payloads, projection, check, apply."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import CompactSlice, ExecutePendingCompaction, NodePlan, SyncMetadataTable
from maintainer.executors.common.metadata_sync import compaction_writes
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.compaction import node
from maintainer.services.compaction.apply import compaction_not_written_by_plan, execute_compaction
from maintainer.services.compaction.declaration import DECLARATION
from maintainer.services.compaction.projection import project_after_compaction
from maintainer.services.compaction.validate import validate_compaction
from maintainer.storage import Storage


class CompactionService(ServiceDefaults):
    declaration = DECLARATION
    plans_on_projection = True
    syncs_metadata_table = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        pending = plan.actions_of(ExecutePendingCompaction)
        return compaction_writes(mdt, len(plan.actions_of(CompactSlice)) + len(pending))

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        return node.compaction_partitions(storage, timeline, spec, now, tz)

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_compaction_service(table, spec, now)

    def payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return node.compaction_payloads(plan, storage, plan_id)

    def project(self, table: TableState, plan: NodePlan) -> TableState:
        return project_after_compaction(table, plan)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_compaction(plan, table_uri)

    def not_written_by_plan(
        self, plan: NodePlan, storage: Storage, timeline: Timeline, instant: Instant, plan_id: str
    ) -> str | None:
        return compaction_not_written_by_plan(plan, storage, timeline, instant, plan_id)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_compaction(ctx)
