"""The action any service's node may carry first: dropping the table's metadata table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maintainer.plan.model.records import PlanRecord

METADATA_TABLE_PATH = ".hoodie/metadata"


@dataclass(frozen=True, slots=True, kw_only=True)
class DropMetadataTable(PlanRecord):
    """``metadata_table: drop``: the metadata table is removed before the node's own work."""

    kind: Literal["drop_metadata_table"] = "drop_metadata_table"
    target: str = METADATA_TABLE_PATH
    reason: str
    partitions: tuple[str, ...]
    """The metadata table's partitions (completed and inflight) when the plan was made."""
