"""The archive service's glue: its catalog entry, planner, check, apply."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import NodePlan, SyncMetadataTable
from maintainer.executors.common.metadata_sync import nothing_written
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.archive import node
from maintainer.services.archive.apply import execute_archive
from maintainer.services.archive.declaration import DECLARATION
from maintainer.services.archive.validate import validate_archive
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.storage import Storage


class ArchiveService(ServiceDefaults):
    declaration = DECLARATION
    syncs_metadata_table = True
    reads_file_sizes = False  # archival reads the timeline only

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        return nothing_written("archival (it archives only instants older than its latest compaction)")

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        return ()  # archival reads the timeline only

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_archive_service(table, spec, now)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_archive(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_archive(ctx)
