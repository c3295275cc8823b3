"""The plan: per table and node, what maintenance would do, with reasons and effects.

Everything here is frozen data; ``plan.json`` is its JSON form (``dump_body``), read back
strictly (``read_body``: a wrong type, an unknown field or action kind is an error, never
coerced), and the runner executes exactly these objects. Actions and effects are tagged by
``kind``: their unions are derived from the records the installed catalog's services declare
(``ServiceDeclaration.records`` and ``effect``); the JSON Schema of the whole file is generated
from these models (``maintainer.artifact.plan_schema``).
"""

from __future__ import annotations

import json
import operator
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache, reduce
from typing import Annotated, Any, Protocol, TypeVar

from pydantic import Field, GetCoreSchemaHandler, TypeAdapter, ValidationError
from pydantic_core import CoreSchema

from maintainer.artifact.model.common import DropMetadataTable, SyncMetadataTable
from maintainer.artifact.model.records import PlanRecord
from maintainer.catalog import Catalog, installed

FORMAT_VERSION = 2
"""Version 2: typed actions and effects (version 1 had free-form ``details``/``effect``)."""


class ActionRecord(Protocol):
    """What every action record has (each service's are its declaration's ``records``)."""

    @property
    def kind(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def reason(self) -> str: ...


class EffectRecord(Protocol):
    """What every effect record has (each service's is its declaration's ``effect``)."""

    @property
    def kind(self) -> str: ...


def action_records(catalog: Catalog) -> tuple[type[Any], ...]:
    """The records of the plan's ``Action`` union: a dropped metadata table first, the
    services' in the catalog's order, the metadata table's update last."""
    return (DropMetadataTable, *catalog.action_records, SyncMetadataTable)


def effect_records(catalog: Catalog) -> tuple[type[Any], ...]:
    return catalog.effect_records


class _InstalledUnion:
    """Validates and describes a record as the union (tagged by ``kind``) of the records the
    installed catalog's services declare, when a schema is built (:func:`plan_adapter`)."""

    def __init__(self, members: Callable[[Catalog], tuple[type[Any], ...]]) -> None:
        self.members = members

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        union = reduce(operator.or_, self.members(installed()))
        return handler.generate_schema(Annotated[union, Field(discriminator="kind")])


Action = Annotated[ActionRecord, _InstalledUnion(action_records)]
Effect = Annotated[EffectRecord, _InstalledUnion(effect_records)]
A = TypeVar("A")


class NodeStatus(str, Enum):
    CHANGES = "changes"
    NO_OP = "no_op"
    BLOCKED = "blocked"


@dataclass(frozen=True, slots=True, kw_only=True)
class NodePlan(PlanRecord):
    """The plan of one (table, service) node."""

    table: str
    service: str
    status: NodeStatus
    reasons: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    effect: Effect | None = None
    payloads: tuple[str, ...] = ()
    """Names of the payload files (in the plan directory's ``payloads/``) apply writes for this
    node. Their sha256 live outside the hashed body (payloads carry the plan id)."""

    @property
    def id(self) -> str:
        return f"{self.table}.{self.service}"

    def actions_of(self, kind: type[A]) -> list[A]:
        """The node's actions of one record type, in plan order (a large node's actions are
        grouped by type once: a plan's review asks a clean of 50,000 files for each kind of
        action a dozen times)."""
        actions = self.actions
        if len(actions) < _GROUPED_FROM:
            return [action for action in actions if isinstance(action, kind)]
        matching = [members for type_, members in _grouped(actions).items() if issubclass(type_, kind)]
        if len(matching) <= 1:
            return list(matching[0]) if matching else []
        return [action for action in actions if isinstance(action, kind)]  # mixed types: plan order


_GROUPED_FROM = 256
_GROUPED_KEPT = 16
_grouped_actions: dict[int, tuple[tuple[Any, ...], dict[type, list[Any]]]] = {}
"""id of an actions tuple -> (the tuple, its actions by type): a few recent large nodes'."""
_grouped_lock = threading.Lock()


def _grouped(actions: tuple[Any, ...]) -> dict[type, list[Any]]:
    """``actions`` by record type, each in plan order (remembered for the last few tuples, held
    so their ids stay theirs)."""
    known = _grouped_actions.get(id(actions))
    if known is not None and known[0] is actions:
        return known[1]
    grouped: dict[type, list[Any]] = {}
    for action in actions:
        grouped.setdefault(type(action), []).append(action)
    with _grouped_lock:  # nodes are planned and reviewed on several threads
        if len(_grouped_actions) >= _GROUPED_KEPT:
            _grouped_actions.pop(next(iter(_grouped_actions)))
        _grouped_actions[id(actions)] = (actions, grouped)
    return grouped


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFingerprint(PlanRecord):
    """The table state a plan was made on: its instants (with states), savepoints and a
    checksum of its properties."""

    instants: tuple[str, ...]
    savepoints: tuple[str, ...]
    properties_checksum: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TablePlan(PlanRecord):
    name: str
    path: str
    table_type: str
    version: int
    fingerprint: TableFingerprint
    nodes: tuple[NodePlan, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan(PlanRecord):
    """The hashed body of ``plan.json`` (no plan id, no wall-clock values)."""

    format_version: int = FORMAT_VERSION
    project: str
    target: str
    tables: tuple[TablePlan, ...]

    @property
    def has_changes(self) -> bool:
        return any(n.status is NodeStatus.CHANGES for t in self.tables for n in t.nodes)

    def nodes(self) -> list[NodePlan]:
        return [node for table in self.tables for node in table.nodes]

    def payload_names(self) -> list[str]:
        return sorted(name for node in self.nodes() for name in node.payloads)

    def body(self) -> dict[str, Any]:
        """The JSON form of the body (what the plan id hashes)."""
        return dump_body(self)


def plan_adapter() -> TypeAdapter[Plan]:
    """The plan's adapter for the installed catalog (its actions and effects)."""
    return _plan_adapter(installed())


@lru_cache(maxsize=4)
def _plan_adapter(catalog: Catalog) -> TypeAdapter[Plan]:
    return TypeAdapter(Plan)


def dump_body(plan: Plan) -> dict[str, Any]:
    body: dict[str, Any] = plan_adapter().dump_python(plan, mode="json")
    return body


def read_body(data: dict[str, Any]) -> Plan:
    """The plan of a JSON body, read strictly; ``ValueError`` says what is wrong and where
    (e.g. ``tables.0.nodes.2.actions.0.delete_file.size: Input should be a valid integer``)."""
    return read_body_json(json.dumps(data))


def read_body_json(text: str | bytes) -> Plan:
    """:func:`read_body` of the body's JSON text (e.g. the canonical bytes the plan id hashed,
    which spares encoding the body again)."""
    try:
        # strict JSON mode: arrays for tuples and strings for enums, nothing coerced
        plan = plan_adapter().validate_json(text, strict=True)
    except ValidationError as exc:
        raise ValueError(_first_errors(exc)) from None
    _check_node_tables(plan)
    return plan


def _first_errors(exc: ValidationError, limit: int = 3) -> str:
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def _check_node_tables(plan: Plan) -> None:
    for table in plan.tables:
        for node in table.nodes:
            if node.table != table.name:
                raise ValueError(f"node {node.id} is listed under table {table.name}")
