"""The whole plan, checked before its first node runs.

The plan id is an unkeyed hash: whoever can edit ``plan.json`` can recompute it. Each executor
re-derives from the table and refuses what does not match, but only when its node runs, after
earlier nodes changed their tables. So apply first checks every node with changes of every
table, without touching any: its service is one maintainer applies, its table is the project's,
every path it names lies inside the table (relative, no ``..``, not under ``.hoodie/`` unless
it is the metadata table it drops), every file it deletes or reads is a Hudi file of the kind
the service expects, every instant is well-formed, and its payloads are byte for byte what the
service builds from the node's body. The executors keep their own checks (defence in depth),
except the payloads: the check hands those it found equal on to their node (``validate_plan``
returns them; ``NodeContext.checked_payloads``), which then does not build them again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.artifact.directory import PLAN_FILE, SavedPlan
from maintainer.artifact.model import NodePlan, NodeStatus, TablePlan
from maintainer.errors import PlanError
from maintainer.project.models import TableSpec
from maintainer.services.base import BuiltPayload
from maintainer.services.registry import service_for
from maintainer.storage import Storage

MAX_LISTED = 5


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with one node: in which action (or payload), on which path, and why."""

    node: str
    action: str
    path: str
    reason: str

    def __str__(self) -> str:
        return f"node {self.node}, {self.action}: {self.path!r}: {self.reason}"


# -- a node, a plan ------------------------------------------------------------------------------


Checked = tuple[list[Problem], dict[str, BuiltPayload]]
"""The problems of a node, and its payloads found equal to what its body builds, by name."""


def checked_payloads(node: NodePlan, storage: Storage, plan_id: str, stored: Mapping[str, bytes]) -> Checked:
    """The node's payloads are exactly what its service builds from the node's body: the
    problems, and the payloads found equal (as built, to pass on to the node)."""
    entry = service_for(node.service)
    if entry is None:
        return [], {}
    rebuilt = entry.built_payloads(node, storage, plan_id)
    problems = [
        Problem(node.id, f"payload {name}", name, "not named by the node's body")
        for name in sorted(set(node.payloads) - set(rebuilt))
    ]
    equal: dict[str, BuiltPayload] = {}
    for name, built in sorted(rebuilt.items()):
        if name not in node.payloads or stored.get(name) != built.data:
            problems.append(
                Problem(node.id, f"payload {name}", name, "does not match what the node's body builds")
            )
        else:
            equal[name] = built
    return problems, equal


def payload_problems(
    node: NodePlan, storage: Storage, plan_id: str, stored: Mapping[str, bytes]
) -> list[Problem]:
    """The node's payloads are exactly what its service builds from the node's body."""
    return checked_payloads(node, storage, plan_id, stored)[0]


def checked_node(node: NodePlan, table: TablePlan, plan_id: str, payloads: Mapping[str, bytes],
                 storage_options: Mapping[str, Any]) -> Checked:  # fmt: skip
    """Everything wrong with one node with changes (empty: it may run), and its payloads
    found equal to what its body builds."""
    service = service_for(node.service)
    if service is None:
        return [Problem(node.id, "service", node.service, "not a service this maintainer applies")], {}
    storage = Storage(table.path, storage_options)
    table_uri = storage.uri("")
    problems = [
        Problem(node.id, where, str(value), reason)
        for where, value, reason in service.validate(node, table_uri)
        if reason is not None
    ]
    wrong, equal = checked_payloads(node, storage, plan_id, payloads)
    return problems + wrong, equal


def node_problems(node: NodePlan, table: TablePlan, plan_id: str, payloads: Mapping[str, bytes],
                  storage_options: Mapping[str, Any]) -> list[Problem]:  # fmt: skip
    """Everything wrong with one node with changes (empty: it may run)."""
    return checked_node(node, table, plan_id, payloads, storage_options)[0]


def _table_problems(table: TablePlan, specs: Mapping[str, TableSpec] | None) -> list[Problem]:
    if specs is None:
        return []
    spec = specs.get(table.name)
    if spec is None:
        return [Problem(table.name, "table", table.path, "not a table of the project")]
    if spec.path.rstrip("/") != table.path.rstrip("/"):
        return [Problem(table.name, "table", table.path, f"the project has the table at {spec.path}")]
    return []


CheckedPayloads = dict[str, dict[str, BuiltPayload]]
"""Node id -> the node's payloads found equal to what its body builds, by name."""


def checked_plan(
    saved: SavedPlan, specs: Mapping[str, TableSpec] | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> tuple[list[Problem], CheckedPayloads]:  # fmt: skip
    """Everything wrong with the plan's nodes with changes, table by table, and the payloads
    of each node found equal."""
    problems: list[Problem] = []
    equal: CheckedPayloads = {}
    for table in saved.plan.tables:
        changing = [node for node in table.nodes if node.status is NodeStatus.CHANGES]
        if not changing:
            continue
        problems += _table_problems(table, specs)
        for node in changing:
            wrong, built = checked_node(node, table, saved.plan_id, saved.payloads, storage_options or {})
            problems += wrong
            equal[node.id] = built
    return problems, equal


def plan_problems(saved: SavedPlan, specs: Mapping[str, TableSpec] | None = None,
                  storage_options: Mapping[str, Any] | None = None) -> list[Problem]:  # fmt: skip
    """Everything wrong with the plan's nodes with changes, table by table."""
    return checked_plan(saved, specs, storage_options)[0]


def validate_plan(saved: SavedPlan, specs: Mapping[str, TableSpec] | None = None,
                  storage_options: Mapping[str, Any] | None = None) -> CheckedPayloads:  # fmt: skip
    """PlanError naming every problem (up to a few) before anything runs; else each node's
    payloads as checked (the runner hands them on to the node, which need not build them again)."""
    problems, equal = checked_plan(saved, specs, storage_options)
    if not problems:
        return equal
    listed = "; ".join(str(p) for p in problems[:MAX_LISTED])
    more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
    raise PlanError(
        f"the plan is refused before any node runs, no table was touched: {listed}{more}",
        where=str(saved.directory / PLAN_FILE),
        hint="plans are applied as reviewed: make the plan again and review it",
    )
