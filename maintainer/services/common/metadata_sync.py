"""``metadata_table: sync`` in the services: what a node tells the reviewer it writes into the
metadata table, and the write itself, right before the node's data instant completes."""

from __future__ import annotations

from maintainer.plan.model import SyncMetadataTable


def nothing_written(what: str) -> SyncMetadataTable:
    """The action of a node Hudi writes nothing into the metadata table for (savepoints)."""
    return SyncMetadataTable(
        reason=f"nothing: Hudi writes nothing into the metadata table for {what}, which stays in sync",
        partitions=(),
    )
