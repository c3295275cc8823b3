"""The metadata service's glue: its catalog entry, planner, check, apply.

It is the one service that uses others' code (the clean and archive planners and executors,
run on the metadata table); no service imports it (import-linter)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import NodePlan, SyncMetadataTable
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.metadata import node
from maintainer.services.metadata.apply import execute_metadata
from maintainer.services.metadata.declaration import DECLARATION
from maintainer.services.metadata.validate import validate_metadata
from maintainer.storage import Storage


class MetadataService(ServiceDefaults):
    declaration = DECLARATION
    syncs_metadata_table = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        return None  # it maintains the metadata table itself

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        return ()  # reads the metadata table, not the data table's partitions

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_metadata_service(table, spec, now)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_metadata(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_metadata(ctx)
