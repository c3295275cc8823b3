"""What a table's metadata table does to its plan, per ``metadata_table`` policy.

- ``refuse``: every node is blocked, saying why and what to do (the default for table version
  6: no independent reader here can verify a version-6 metadata table);
- ``drop``: the first node that runs drops it (:mod:`maintainer.planning.builder`);
- ``sync`` (the default for versions 8 and 9): the metadata table is read and must be in step
  with the table; each node that changes the table says, in its last action, what it writes
  into it. A node whose service cannot keep it in sync yet is blocked before it is planned, so
  later nodes never plan on a change that will not happen.
"""

from __future__ import annotations

from dataclasses import replace

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.hudi.metadata.fitness import SYNC_FROM_VERSION
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.snapshot import MetadataTableInfo
from maintainer.services.base import TableService


def refuse_reason(info: MetadataTableInfo, table_version: int, explicit: bool) -> str:
    partitions = ", ".join(info.partitions + info.inflight_partitions) or "none listed"
    why = (
        "`metadata_table: refuse` in the manifest"
        if explicit
        else f"maintainer does not sync metadata tables of table version {table_version}: no "
        "independent reader here can verify one"
    )
    return (
        f"the table has a metadata table (partitions: {partitions}) and {why}. Set "
        "`metadata_table: drop` for this table to remove it first (as Hudi's delete_metadata_table "
        "does; the next Hudi writer rebuilds it)"
        + ("" if table_version < SYNC_FROM_VERSION else ", or `metadata_table: sync` to keep it in sync")
    )


def unsupported_under_sync(service: str) -> str:
    return (
        f"maintainer does not keep the metadata table in sync for {service} yet; set "
        "`metadata_table: drop` for this table to remove the metadata table first, or leave "
        f"{service} to Hudi's own services"
    )


def with_sync_action(node: NodePlan, service: TableService, mdt: MetadataTable) -> NodePlan:
    """The node with its metadata update as last action (nodes that change the table only)."""
    if node.status is not NodeStatus.CHANGES:
        return node
    action = service.metadata_writes(mdt, node)
    if action is None:
        return node
    return replace(node, actions=(*node.actions, action))
