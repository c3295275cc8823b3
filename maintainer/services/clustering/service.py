"""The clustering service's glue (after compaction, before the clean that later removes the
file groups it replaces): its catalog entry, planner, payload, check, apply. It plans on the
table as read: a file group this plan's compaction rewrites first is drift at apply (its slice
changed) and is clustered by a later plan."""

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
from maintainer.services.clustering.validate import validate_clustering
from maintainer.storage import Storage


class ClusteringService(ServiceDefaults):
    declaration = DECLARATION
    syncs_metadata_table = True

    def metadata_writes(self, mdt: MetadataTable, plan: NodePlan) -> SyncMetadataTable | None:
        groups = plan.actions_of(ClusterGroup)
        return clustering_writes(mdt, sum(g.num_output_file_groups for g in groups))

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_clustering_node(table, spec, now)

    def payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return node.clustering_payloads(plan, storage, plan_id)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_clustering(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_clustering(ctx)
