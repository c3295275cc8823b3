"""Apply a saved plan: verify it, refuse it when already applied, walk its DAG on one Spark.

The plan is read (format version, plan id and payload hashes verified by ``read_plan``). The
table itself is the ledger: a plan whose every recording node already completed an instant
carrying its id is refused; after an interrupted apply, the nodes already done are skipped and
the rest runs (pending instants of the plan are finished by their executors). The nodes are
the project graph restricted to the plan's nodes; nodes of different tables run concurrently
(``threads``), each under its table's lock, through the executor its service registers.
``no_op`` nodes succeed at once, ``blocked`` ones are skipped.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from maintainer.errors import ApplyError, MaintainerError, PlanError
from maintainer.graph import NodeId, restrict
from maintainer.hudi.instant import Instant
from maintainer.hudi.table import load_config, load_timeline
from maintainer.plan.artifact import SavedPlan
from maintainer.plan.model import NodePlan, NodeStatus
from maintainer.project.models import TableSpec
from maintainer.runner.context import NodeContext, utc_now
from maintainer.runner.dag import EventSink, NodeOutcome, walk
from maintainer.runner.ledger import SERVICE_ACTIONS, is_applied
from maintainer.runner.lock import TableLock
from maintainer.runner.results import RunResults, utc_timestamp
from maintainer.storage import Storage

NodeExecutor = Callable[[NodeContext], NodeOutcome]
FALLBACK_EXECUTORS: Mapping[str, str] = {"clean": "maintainer.services.clean.executor:execute_clean"}


def _import(path: str) -> NodeExecutor:
    module_name, _, function = path.partition(":")
    executor: NodeExecutor = getattr(importlib.import_module(module_name), function)
    return executor


def executor_for(service: str) -> NodeExecutor | None:
    """The service's executor: from the service registry, else maintainer's built-in ones."""
    from maintainer.services.registry import resolve_executor

    registered = resolve_executor(service)
    if registered is not None:
        return registered
    fallback = FALLBACK_EXECUTORS.get(service)
    return _import(fallback) if fallback else None


def _writes_ledger(node: NodePlan) -> bool:
    """Does applying the node write an instant carrying the plan id (its payload)?"""
    return node.status is NodeStatus.CHANGES and node.service in SERVICE_ACTIONS and bool(node.payloads)


def applied_nodes(saved: SavedPlan, storage_options: Mapping[str, Any]) -> dict[NodeId, Instant]:
    """The plan's nodes that a table already shows as applied from this plan (a completed
    instant of the node's service carries the plan id), with that instant."""
    applied: dict[NodeId, Instant] = {}
    for table in saved.plan.tables:
        nodes = [node for node in table.nodes if _writes_ledger(node)]
        if not nodes:
            continue
        storage = Storage(table.path, storage_options)
        try:
            timeline = load_timeline(storage, load_config(storage))
        except MaintainerError:
            continue  # unreadable now: its nodes fail with the reason when they run
        for node in nodes:
            instant = is_applied(storage, timeline, saved.plan_id, SERVICE_ACTIONS[node.service])
            if instant is not None:
                applied[NodeId(node.table, node.service)] = instant
    return applied


def refuse_if_applied(saved: SavedPlan, storage_options: Mapping[str, Any]) -> dict[NodeId, Instant]:
    """PlanError when every node that records the plan in its table was applied already; else
    the nodes already applied (an interrupted apply: they are skipped, the rest runs)."""
    applied = applied_nodes(saved, storage_options)
    ledger = [NodeId(n.table, n.service) for n in saved.plan.nodes() if _writes_ledger(n)]
    if ledger and all(node in applied for node in ledger):
        node, instant = sorted(applied.items())[0]
        raise PlanError(
            f"plan {saved.plan_id[:12]} was already applied to table {node.table} "
            f"({instant.action.value} {instant.timestamp})",
            where=str(saved.directory),
            hint="a plan is applied once; make a new plan for the table's current state",
        )
    return applied


def node_applied(ctx: NodeContext) -> Instant | None:
    """Under the table lock: the completed instant showing this node was already applied from
    this plan (by an earlier, interrupted apply, or a concurrent one), else None."""
    actions = SERVICE_ACTIONS.get(ctx.node.service)
    if actions is None or not _writes_ledger(ctx.node):
        return None
    storage = ctx.storage()
    try:
        timeline = load_timeline(storage, load_config(storage))
    except MaintainerError:
        return None  # unreadable: the executor reports why
    return is_applied(storage, timeline, ctx.plan_id, actions)


def refuse_other_target(saved: SavedPlan, project: str, target: str) -> None:
    """PlanError for a plan made for another project or target (its tables may be elsewhere)."""
    plan = saved.plan
    if (plan.project, plan.target) != (project, target):
        raise PlanError(
            f"the plan was made for project {plan.project!r}, target {plan.target!r}; "
            f"this is project {project!r}, target {target!r}",
            where=str(saved.directory),
            hint="apply with the same project and --target, or make the plan again",
        )


def plan_graph(saved: SavedPlan, project_graph: nx.DiGraph) -> nx.DiGraph:
    """The project graph restricted to the plan's nodes (plan nodes the project no longer
    has stay, unconnected: they fail when run)."""
    nodes = [NodeId(node.table, node.service) for node in saved.plan.nodes()]
    known = [node for node in nodes if node in project_graph]
    graph = restrict(project_graph, known)
    graph.add_nodes_from(node for node in nodes if node not in project_graph)
    return graph


@dataclass
class PlanRunner:
    """Runs the nodes of one saved plan (``run_node`` is the DAG walk's callback)."""

    saved: SavedPlan
    specs: Mapping[str, TableSpec]
    spark: Callable[[], Any]
    storage_options: Mapping[str, Any] = field(default_factory=dict)
    executors: Callable[[str], NodeExecutor | None] = executor_for
    lock_options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.nodes: dict[NodeId, NodePlan] = {
            NodeId(node.table, node.service): node for node in self.saved.plan.nodes()
        }
        self.tables = {table.name: table for table in self.saved.plan.tables}

    def run_node(self, node_id: NodeId) -> NodeOutcome:
        node = self.nodes[node_id]
        if node.status is NodeStatus.NO_OP:
            return NodeOutcome(message="no changes")
        if node.status is NodeStatus.BLOCKED:
            return NodeOutcome(message="blocked in the plan: " + "; ".join(node.reasons), skipped=True)
        executor = self.executors(node.service)
        if executor is None:
            raise ApplyError(f"{node.service} cannot be applied by this version of maintainer yet")
        spec = self.specs.get(node.table)
        if spec is None:
            raise ApplyError(
                f"table {node.table} is in the plan but not in the project",
                hint="apply the plan with the project it was made from, or make the plan again",
            )
        table = self.tables[node.table]
        if spec.path.rstrip("/") != table.path.rstrip("/"):
            raise ApplyError(
                f"table {node.table} is at {spec.path} in the project but at {table.path} in the plan",
                hint="apply the plan with the project and target it was made with, or make the plan again",
            )
        ctx = NodeContext(self.saved.plan_id, table, node, spec, self.saved.payloads, self.spark(),
                          self.storage_options, utc_now)  # fmt: skip
        with TableLock(ctx.storage(), self.saved.plan_id, **self.lock_options):
            applied = node_applied(ctx)
            if applied is not None:
                return NodeOutcome(
                    message=f"already applied from this plan ({applied.action.value} {applied.timestamp})",
                    skipped=True,
                )
            return executor(ctx)


def needs_spark(saved: SavedPlan) -> bool:
    return any(node.status is NodeStatus.CHANGES for node in saved.plan.nodes())


def apply_plan(
    saved: SavedPlan,
    project_graph: nx.DiGraph,
    runner: PlanRunner,
    *,
    threads: int = 1,
    fail_fast: bool = False,
    events: EventSink | None = None,
) -> RunResults:
    """Refuse an applied plan, then run every node; the results say what happened to each."""
    started = utc_timestamp()
    refuse_if_applied(saved, runner.storage_options)
    graph = plan_graph(saved, project_graph)
    kwargs: dict[str, Any] = {"events": events} if events is not None else {}
    results = walk(graph, runner.run_node, threads=threads, fail_fast=fail_fast, **kwargs)
    return RunResults(saved.plan_id, started, utc_timestamp(), tuple(results))
