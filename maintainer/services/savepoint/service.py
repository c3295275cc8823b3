"""The savepoint services' glue (create before clean, delete after archive): their catalog
entries, planners, projection, checks, applies."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import NodePlan, SyncMetadataTable
from maintainer.executors.common.metadata_sync import nothing_written
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.savepoint import node
from maintainer.services.savepoint.apply import execute_savepoint_create, execute_savepoint_delete
from maintainer.services.savepoint.declaration import CREATE, DELETE
from maintainer.services.savepoint.projection import project_after_savepoint_create
from maintainer.services.savepoint.validate import validate_savepoint_create, validate_savepoint_delete


class SavepointCreateService(ServiceDefaults):
    declaration = CREATE
    syncs_metadata_table = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        return nothing_written("a savepoint")

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_savepoint_create_service(table, spec, now)

    def project(self, table: TableState, plan: NodePlan) -> TableState:
        return project_after_savepoint_create(table, plan)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_savepoint_create(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_savepoint_create(ctx)


class SavepointDeleteService(ServiceDefaults):
    declaration = DELETE
    syncs_metadata_table = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        return nothing_written("a savepoint's deletion")

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_savepoint_delete_service(table, spec, now)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_savepoint_delete(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_savepoint_delete(ctx)
