"""The clean service's glue: its catalog entry, planner, payloads, check, apply."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import (
    DeleteFile,
    DeletePartition,
    FinishPendingClean,
    NodePlan,
    SyncMetadataTable,
)
from maintainer.executors.common.metadata_sync import clean_writes
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import BuiltPayload, Check, NodeContext, NodeOutcome, Prepared, ServiceDefaults
from maintainer.services.clean import node
from maintainer.services.clean.apply import clean_not_written_by_plan, execute_clean
from maintainer.services.clean.declaration import DECLARATION
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import prepare_clean
from maintainer.services.clean.validate import validate_clean
from maintainer.storage import Storage


class CleanService(ServiceDefaults):
    declaration = DECLARATION
    plans_on_projection = True
    syncs_metadata_table = True
    reads_file_sizes = False  # names decide; the deleted files' sizes are asked on demand

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        files = len(plan.actions_of(DeleteFile)) + sum(
            len(a.paths) for a in plan.actions_of(FinishPendingClean)
        )
        return clean_writes(mdt, files, bool(plan.actions_of(DeletePartition)))

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        return self.prepare(storage, timeline, spec, now, tz).partitions

    def prepare(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> Prepared:
        partitions, scope = prepare_clean(
            storage, timeline, spec.settings_of(CleanSpec) or CleanSpec(), now, tz
        )
        return Prepared(partitions, scope)

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_clean_service(table, spec, now)

    def plan_prepared(
        self, table: TableState, spec: TableSpec, now: datetime, worked_out: object
    ) -> NodePlan:
        return node.plan_clean_service(table, spec, now, worked_out)

    def payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return node.clean_payloads(plan, storage, plan_id)

    def built_payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, BuiltPayload]:
        return node.built_clean_payloads(plan, storage, plan_id)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_clean(plan, table_uri)

    def not_written_by_plan(
        self, plan: NodePlan, storage: Storage, timeline: Timeline, instant: Instant, plan_id: str
    ) -> str | None:
        return clean_not_written_by_plan(plan, storage, timeline, instant)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_clean(ctx)
