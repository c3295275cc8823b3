"""Apply a saved plan: verify it, refuse it when already applied, walk its DAG on one Spark.

The plan is read (format version, plan id and payload hashes verified by ``read_plan``); the
table itself is the ledger, so a plan a table already carries in a completed instant is
refused. The nodes are the project graph restricted to the plan's nodes; nodes of different
tables run concurrently (``threads``), each under its table's lock, through the executor its
service registers. ``no_op`` nodes succeed at once, ``blocked`` ones are skipped.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from maintainer.errors import ApplyError, MaintainerError, PlanError
from maintainer.graph import NodeId, restrict
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


def refuse_if_applied(saved: SavedPlan, storage_options: Mapping[str, Any]) -> None:
    """PlanError when any table of the plan already carries it in a completed instant."""
    for table in saved.plan.tables:
        if not any(node.status is NodeStatus.CHANGES for node in table.nodes):
            continue
        storage = Storage(table.path, storage_options)
        try:
            timeline = load_timeline(storage, load_config(storage))
        except MaintainerError:
            continue  # unreadable now: its nodes fail with the reason when they run
        applied = is_applied(storage, timeline, saved.plan_id)
        if applied is not None:
            raise PlanError(
                f"plan {saved.plan_id[:12]} was already applied to table {table.name} "
                f"({applied.action.value} {applied.timestamp})",
                where=str(saved.directory),
                hint="a plan is applied once; make a new plan for the table's current state",
            )


def refuse_node_applied(ctx: NodeContext) -> None:
    """Under the table lock: ApplyError when this node's service already completed this plan
    on the table (a concurrent apply of the same plan got there first)."""
    actions = SERVICE_ACTIONS.get(ctx.node.service)
    if actions is None:
        return
    storage = ctx.storage()
    try:
        timeline = load_timeline(storage, load_config(storage))
    except MaintainerError:
        return  # unreadable: the executor reports why
    applied = is_applied(storage, timeline, ctx.plan_id, actions)
    if applied is not None:
        raise ApplyError(
            f"{ctx.node.id} was already applied from this plan ({applied.action.value} {applied.timestamp}), "
            "by a concurrent apply",
            where=ctx.table.path,
            hint="nothing more to do for this node; make a new plan for the table's current state",
        )


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
            refuse_node_applied(ctx)
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
