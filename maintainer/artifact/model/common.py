"""The actions any service's node may carry about the table's metadata table: dropping it
(first), or writing the node's own instant into it (last)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord

METADATA_TABLE_PATH = ".hoodie/metadata"


@dataclass(frozen=True, slots=True, kw_only=True)
class DropMetadataTable(PlanRecord):
    """``metadata_table: drop``: the metadata table is removed before the node's own work."""

    kind: Literal["drop_metadata_table"] = "drop_metadata_table"
    target: str = METADATA_TABLE_PATH
    reason: str
    partitions: tuple[str, ...]
    """The metadata table's partitions (completed and inflight) when the plan was made."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SyncMetadataTable(PlanRecord):
    """``metadata_table: sync``: the node's instant is written into the metadata table (a
    deltacommit with the same instant time, or the rollback of one) before it completes."""

    kind: Literal["sync_metadata_table"] = "sync_metadata_table"
    target: str = METADATA_TABLE_PATH
    reason: str
    """What is written into the metadata table, for the reviewer."""
    partitions: tuple[str, ...]
    """The metadata partitions written."""
