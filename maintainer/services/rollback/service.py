"""The rollback service's glue: its catalog entry, planner, payloads, projection, check, apply."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import NodePlan, RollbackAction, SyncMetadataTable
from maintainer.executors.common.metadata_sync import rollback_writes
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.rollback import node
from maintainer.services.rollback.apply import execute_rollback
from maintainer.services.rollback.declaration import DECLARATION
from maintainer.services.rollback.projection import project_after_rollback
from maintainer.services.rollback.validate import validate_rollback
from maintainer.storage import Storage


class RollbackService(ServiceDefaults):
    declaration = DECLARATION
    syncs_metadata_table = True
    reads_file_sizes = False  # only a failed write's files' sizes and times, asked of the listing

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        rolled_back = ("rollback", "finish_pending_rollback")
        targets = sorted({a.target for a in plan.actions_of(RollbackAction) if a.kind in rolled_back})
        writes = [rollback_writes(mdt, target) for target in targets]
        if not writes:
            return None
        return SyncMetadataTable(
            reason="; ".join(w.reason for w in writes),
            partitions=tuple(sorted({p for w in writes for p in w.partitions})),
        )

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_rollback_service(table, spec, now)

    def payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return node.rollback_payloads(plan, storage, plan_id)

    def project(self, table: TableState, plan: NodePlan) -> TableState:
        return project_after_rollback(table, plan)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_rollback(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_rollback(ctx)
