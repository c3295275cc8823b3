"""The clustering service's glue (after compaction, before the clean that later removes the
file groups it replaces): its catalog entry, planner, payload, projection, check, apply. It
plans on the table as this plan's rollbacks and compaction leave it, and leaves out the slices
that compaction rewrites (clustered by a later plan: their new files' names and sizes are not
known yet); the clean after it plans on the table with the clustered groups replaced."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.artifact.model import ClusterGroup, NodePlan, SyncMetadataTable
from maintainer.executors.common.metadata_sync import clustering_writes
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.clustering import node
from maintainer.services.clustering.apply import execute_clustering
from maintainer.services.clustering.declaration import DECLARATION
from maintainer.services.clustering.projection import project_after_clustering
from maintainer.services.clustering.validate import validate_clustering
from maintainer.storage import Storage


class ClusteringService(ServiceDefaults):
    declaration = DECLARATION
    plans_on_projection = True
    syncs_metadata_table = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        groups = plan.actions_of(ClusterGroup)
        return clustering_writes(mdt, sum(g.num_output_file_groups for g in groups))

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_clustering_node(table, spec, now)

    def payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return node.clustering_payloads(plan, storage, plan_id)

    def project(self, table: TableState, plan: NodePlan) -> TableState:
        return project_after_clustering(table, plan)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_clustering(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_clustering(ctx)
