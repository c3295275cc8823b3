"""The plan: what maintenance would do, per table and node, with reasons and effects.

Everything here is plain, frozen data with a JSON form; ``plan.json`` is its canonical
serialisation, and the runner executes exactly these objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

FORMAT_VERSION = 1


class NodeStatus(str, Enum):
    CHANGES = "changes"
    NO_OP = "no_op"
    BLOCKED = "blocked"


@dataclass(frozen=True, slots=True)
class PlannedAction:
    """One thing apply will do (``kind``), on what (``target``), and why."""

    kind: str
    target: str
    reason: str
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "target": self.target,
            "reason": self.reason,
            "details": dict(self.details),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlannedAction:
        return cls(data["kind"], data["target"], data["reason"], dict(data.get("details", {})))


@dataclass(frozen=True, slots=True)
class NodePlan:
    """The plan of one (table, service) node."""

    table: str
    service: str
    status: NodeStatus
    reasons: tuple[str, ...] = ()
    actions: tuple[PlannedAction, ...] = ()
    effect: Mapping[str, Any] = field(default_factory=dict)
    payloads: tuple[str, ...] = ()
    """Names of the payload files (in the plan directory's ``payloads/``) apply writes for this
    node. Their sha256 live outside the hashed body (payloads carry the plan id)."""

    @property
    def id(self) -> str:
        return f"{self.table}.{self.service}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "service": self.service,
            "status": self.status.value,
            "reasons": list(self.reasons),
            "actions": [a.to_json() for a in self.actions],
            "effect": dict(self.effect),
            "payloads": list(self.payloads),
        }

    @classmethod
    def from_json(cls, table: str, data: Mapping[str, Any]) -> NodePlan:
        return cls(
            table=table,
            service=data["service"],
            status=NodeStatus(data["status"]),
            reasons=tuple(data.get("reasons", ())),
            actions=tuple(PlannedAction.from_json(a) for a in data.get("actions", ())),
            effect=dict(data.get("effect", {})),
            payloads=tuple(data.get("payloads", ())),
        )


@dataclass(frozen=True, slots=True)
class TableFingerprint:
    """The table state a plan was made on: its instants (with states), savepoints and a
    checksum of its properties."""

    instants: tuple[str, ...]
    savepoints: tuple[str, ...]
    properties_checksum: str

    def to_json(self) -> dict[str, Any]:
        return {
            "instants": list(self.instants),
            "savepoints": list(self.savepoints),
            "properties_checksum": self.properties_checksum,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableFingerprint:
        return cls(tuple(data["instants"]), tuple(data["savepoints"]), data["properties_checksum"])


@dataclass(frozen=True, slots=True)
class TablePlan:
    name: str
    path: str
    table_type: str
    version: int
    fingerprint: TableFingerprint
    nodes: tuple[NodePlan, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "type": self.table_type,
            "version": self.version,
            "fingerprint": self.fingerprint.to_json(),
            "nodes": [n.to_json() for n in self.nodes],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TablePlan:
        return cls(
            name=data["name"],
            path=data["path"],
            table_type=data["type"],
            version=int(data["version"]),
            fingerprint=TableFingerprint.from_json(data["fingerprint"]),
            nodes=tuple(NodePlan.from_json(data["name"], n) for n in data["nodes"]),
        )


@dataclass(frozen=True, slots=True)
class Plan:
    project: str
    target: str
    tables: tuple[TablePlan, ...]
    format_version: int = FORMAT_VERSION

    @property
    def has_changes(self) -> bool:
        return any(n.status is NodeStatus.CHANGES for t in self.tables for n in t.nodes)

    def nodes(self) -> list[NodePlan]:
        return [node for table in self.tables for node in table.nodes]

    def payload_names(self) -> list[str]:
        return sorted(name for node in self.nodes() for name in node.payloads)

    def body(self) -> dict[str, Any]:
        """The hashed body (no plan id, no wall-clock values)."""
        return {
            "format_version": self.format_version,
            "project": self.project,
            "target": self.target,
            "tables": [t.to_json() for t in self.tables],
        }

    @classmethod
    def from_body(cls, data: Mapping[str, Any]) -> Plan:
        return cls(
            project=data["project"],
            target=data["target"],
            tables=tuple(TablePlan.from_json(t) for t in data["tables"]),
            format_version=int(data["format_version"]),
        )
