"""The orphan-files service's glue (after clean and the metadata table's upkeep, before
archival moves the instants its rules read): its catalog entry, planner, checks, apply. It
writes no instant and nothing into the metadata table (which lists none of the files it
removes: a listed one is never removed), and it needs the table listed from storage, where the
orphans are (the metadata table lists only what instants account for)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import NodePlan, SyncMetadataTable
from maintainer.executors.common.metadata_sync import nothing_written
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.orphans.apply import execute_orphan_files
from maintainer.services.orphans.declaration import DECLARATION
from maintainer.services.orphans.node import plan_orphan_files_node
from maintainer.services.orphans.validate import validate_orphan_files


class OrphanFilesService(ServiceDefaults):
    declaration = DECLARATION
    syncs_metadata_table = True
    lists_storage = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        return nothing_written("removing orphan files")

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return plan_orphan_files_node(table, spec, now)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_orphan_files(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_orphan_files(ctx)
