"""What a node executor gets: the approved node, its table, the project's spec, one Spark."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from maintainer.plan.model import NodePlan, TablePlan
from maintainer.project.models import TableSpec
from maintainer.storage import Storage


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class NodeContext:
    plan_id: str
    table: TablePlan
    node: NodePlan
    spec: TableSpec
    payloads: Mapping[str, bytes]
    """The plan directory's payloads (verified against plan.json), by name."""
    spark: Any
    storage_options: Mapping[str, Any] = field(default_factory=dict)
    clock: Callable[[], datetime] = utc_now

    def storage(self) -> Storage:
        return Storage(self.table.path, self.storage_options)

    def actions(self, kind: str) -> list[str]:
        """The targets of the node's actions of one kind, in plan order."""
        return [action.target for action in self.node.actions if action.kind == kind]
