"""Apply a saved plan: verify it, refuse it when already applied, walk its DAG on one Spark.

The plan is read (format version, plan id, signature and payload hashes verified by
``read_plan``), then every node is validated before the first one runs (``validate.py``). The
table itself is the ledger: every node with changes is recorded there once done (``ledger.py``);
a plan whose every such node is recorded is refused; after an interrupted apply, the nodes
already done are skipped and the rest runs (pending instants of the plan are finished by their
executors). The nodes are
the project graph restricted to the plan's nodes; nodes of different tables run concurrently
(``threads``), each under its table's lock, through the executor its service registers.
``no_op`` nodes succeed at once, ``blocked`` ones are skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from maintainer.artifact.directory import SavedPlan, plan_key
from maintainer.artifact.model import NodePlan, NodeStatus, TablePlan
from maintainer.clock import Clock, utc_now
from maintainer.errors import ApplyError, MaintainerError, PlanAlreadyAppliedError, PlanError
from maintainer.executors.faults import maybe_fail
from maintainer.graph import NodeId, restrict
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.recovery import recover_interrupted_writes
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.logs import fields, get_logger
from maintainer.project.models import TableSpec
from maintainer.runner.dag import EventSink, walk
from maintainer.runner.engine import runs_on_spark
from maintainer.runner.ledger import (
    NodeRecord,
    check_record,
    ledger_actions,
    payload_hashes,
    read_record,
    write_record,
)
from maintainer.runner.lock import TableLock, check_free
from maintainer.runner.plan_checks import CheckedPayloads, validate_plan
from maintainer.runner.reads import TableReads
from maintainer.runner.results import RunResults, utc_timestamp
from maintainer.runner.stale import refuse_stale, table_changes
from maintainer.runner.summary import told
from maintainer.services.base import NodeContext, NodeOutcome
from maintainer.services.common.ledger import is_applied
from maintainer.services.registry import service_for
from maintainer.storage import Storage

log = get_logger(__name__)

NodeExecutor = Callable[[NodeContext], NodeOutcome]
Recheck = Callable[[NodePlan, TableSpec, TablePlan], tuple[str, ...]]
"""Why today's manifests no longer allow a planned node (empty: they do); see
:mod:`maintainer.planning.stricter`, which the commands pass in."""
STRICTER = "the current manifests are stricter than the plan"


def executor_for(service: str) -> NodeExecutor | None:
    """The apply of the service's ``TableService`` (None: this version has none)."""
    registered = service_for(service)
    return registered.apply if registered is not None else None


def _recorded(node: NodePlan) -> bool:
    """Is the node recorded in its table once applied? Every node with changes is."""
    return node.status is NodeStatus.CHANGES


def _read_timeline(storage: Storage) -> Timeline:
    return load_timeline(storage, load_config(storage))


def expected_record(plan_id: str, node: NodePlan, payloads: Mapping[str, bytes]) -> NodeRecord:
    """What the node's ledger record must say (its time and summary aside)."""
    return NodeRecord(plan_id, node.table, node.service, "", "", payload_hashes(node.payloads, payloads))


def _applied_how(
    storage: Storage, plan_id: str, node: NodePlan, payloads: Mapping[str, bytes],
    read_timeline: Callable[[], Timeline] | None = None,
) -> str | None:  # fmt: skip
    """How the table shows the node applied from this plan: its ledger record (believed only
    when it records this node, see :func:`check_record`), else (clean and compaction, recorded by
    Hudi instants too) a completed instant carrying the plan id. ``read_timeline``: the table's
    timeline as this check reads it (default: read now)."""
    record = read_record(storage, plan_id, node.service)
    if record is not None:
        check_record(storage, record, expected_record(plan_id, node, payloads), plan_key())
        return f"recorded {record.finished_at}"
    actions = ledger_actions(node.service)
    if not actions or not node.payloads:
        return None
    try:
        timeline = read_timeline() if read_timeline is not None else _read_timeline(storage)
    except MaintainerError:
        return None  # unreadable now: the node fails with the reason when it runs
    instant = is_applied(storage, timeline, plan_id, actions)
    if instant is None:
        return None
    refuse_if_not_written_by_plan(storage, timeline, node, instant, plan_id)
    return f"{instant.action.value} {instant.timestamp}"


def refuse_if_not_written_by_plan(
    storage: Storage, timeline: Timeline, node: NodePlan, instant: Instant, plan_id: str
) -> None:
    """PlanError naming the instant when a completed instant carrying the plan id is not one
    this node's apply writes (the id alone proves nothing: a forgery would make the node look
    done and the plan "nothing to do")."""
    registered = service_for(node.service)
    why = registered.not_written_by_plan(node, storage, timeline, instant, plan_id) if registered else None
    if why is None:
        return
    raise PlanError(
        f"the completed {instant.action.value} {instant.timestamp} carries this plan's id but is not "
        f"what its node {node.table}.{node.service} approved: {why}",
        where=storage.uri(timeline.file_path(instant, State.REQUESTED)),
        hint="this plan did not write it, so the node may never have run: find out who did, then make "
        "the plan again and review it",
    )


def applied_nodes(
    saved: SavedPlan, storage_options: Mapping[str, Any], reads: TableReads | None = None
) -> dict[NodeId, str]:
    """The plan's nodes with changes that their table already shows as applied from this plan,
    with how it shows it (``reads``: each table's timeline, read at most once)."""
    reads = reads if reads is not None else TableReads(storage_options)
    applied: dict[NodeId, str] = {}
    for table in saved.plan.tables:
        storage = reads.storage(table.path)
        read_once = functools.partial(reads.timeline, table.path)
        for node in table.nodes:
            how = (
                _applied_how(storage, saved.plan_id, node, saved.payloads, read_once)
                if _recorded(node)
                else None
            )
            if how is not None:
                applied[NodeId(node.table, node.service)] = how
    return applied


def refuse_if_applied(
    saved: SavedPlan, storage_options: Mapping[str, Any], reads: TableReads | None = None
) -> dict[NodeId, str]:
    """PlanError when every node with changes was applied already; else the nodes already
    applied (an interrupted apply: they are skipped, the rest runs)."""
    applied = applied_nodes(saved, storage_options, reads)
    recorded = [NodeId(n.table, n.service) for n in saved.plan.nodes() if _recorded(n)]
    if recorded and all(node in applied for node in recorded):
        node, how = sorted(applied.items())[0]
        raise PlanAlreadyAppliedError(
            f"plan {saved.plan_id[:12]} was already applied: every node with changes is done "
            f"({len(recorded)} node(s); {node} {how})",
            where=str(saved.directory),
            hint="a plan is applied once; make a new plan for the table's current state",
        )
    return applied


def node_applied(ctx: NodeContext) -> str | None:
    """Under the table lock: how the table shows this node already applied from this plan (by
    an earlier, interrupted apply, or a concurrent one), else None."""
    return _applied_how(ctx.storage(), ctx.plan_id, ctx.node, ctx.payloads) if _recorded(ctx.node) else None


def record_node(ctx: NodeContext, summary: str) -> None:
    """Under the table lock, once the node's work is done: the ledger record (the fault point
    ``<service>:before_record`` lets tests crash between the two)."""
    maybe_fail(ctx.node.service, "before_record")
    expected = expected_record(ctx.plan_id, ctx.node, ctx.payloads)
    record = dataclasses.replace(expected, finished_at=utc_timestamp(), summary=summary)
    write_record(ctx.storage(), record.signed(plan_key()))


def refuse_other_target(saved: SavedPlan, project: str, target: str) -> None:
    """PlanError for a plan made for another project or target (its tables may be elsewhere)."""
    plan = saved.plan
    if (plan.project, plan.target) != (project, target):
        raise PlanError(
            f"the plan was made for project {plan.project!r}, target {plan.target!r}; "
            f"this is project {project!r}, target {target!r}",
            where=str(saved.directory),
            hint="apply with the project the plan was made with, on its target (apply without "
            "--target takes the plan's), or make the plan again",
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
    refuse_stale: bool = False
    """Refuse the whole plan when a table it changes moved since it was made."""
    engine: str = "spark"
    """``auto``: small nodes in process (see :mod:`maintainer.runner.engine`); ``local``; ``spark``."""
    clock: Clock = utc_now
    """What the instants the nodes write are timed by."""
    recheck: Recheck | None = None
    """Today's safety settings against each node (None: not checked, as in unit tests)."""
    checked_payloads: CheckedPayloads = field(default_factory=dict)
    """Each node's payloads as :func:`preflight` checked them, handed on to the node (a node
    without them rebuilds and compares its payloads itself)."""

    def __post_init__(self) -> None:
        self.nodes: dict[NodeId, NodePlan] = {
            NodeId(node.table, node.service): node for node in self.saved.plan.nodes()
        }
        self._recovered: set[str] = set()
        self._recovered_lock = threading.Lock()
        self.tables = {table.name: table for table in self.saved.plan.tables}

    def run_node(self, node_id: NodeId) -> NodeOutcome:
        plan_id = self.saved.plan_id
        log.debug("%s: started", node_id, extra=fields(node=node_id, plan_id=plan_id, event="node_run"))
        outcome = self._run_node(node_id)
        log.debug("%s: %s", node_id, outcome.message, extra=fields(node=node_id, plan_id=plan_id,
                  event="node_done", skipped=outcome.skipped, blocked=outcome.blocked))  # fmt: skip
        return outcome

    def _run_node(self, node_id: NodeId) -> NodeOutcome:
        node = self.nodes[node_id]
        if node.status is NodeStatus.NO_OP:
            return NodeOutcome(message="no changes")
        if node.status is NodeStatus.BLOCKED:
            return NodeOutcome(
                message="blocked in the plan: " + "; ".join(node.reasons), skipped=True, blocked=True
            )
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
        stricter = self.recheck(node, spec, table) if self.recheck is not None else ()
        if stricter:
            return NodeOutcome(
                message=f"blocked: {STRICTER}: " + "; ".join(stricter), skipped=True, blocked=True
            )
        checked = self.checked_payloads.get(node.id, {})
        ctx = NodeContext(self.saved.plan_id, table, node, spec, self.saved.payloads, None,
                          self.storage_options, self.clock, checked)  # fmt: skip
        with TableLock(ctx.storage(), self.saved.plan_id, **self.lock_options):
            self._recover_once(ctx, node_id)
            applied = node_applied(ctx)
            if applied is not None:
                record_node(ctx, f"found applied ({applied})")
                return NodeOutcome(message=f"already applied from this plan ({applied})", skipped=True)
            if runs_on_spark(node, self.engine):  # under the lock: a locked table starts no JVM
                ctx = dataclasses.replace(ctx, spark=self.spark())
            maybe_fail(node.service, "before_start")
            outcome = executor(ctx)
            outcome = dataclasses.replace(outcome, message=told(outcome.message, outcome.effects.to_json()))
            if _recorded(node) and not outcome.skipped:
                record_node(ctx, outcome.message)
            return outcome

    def _recover_once(self, ctx: NodeContext, node_id: NodeId) -> None:
        """Under the table lock, before the table's first node of this apply: finish or undo
        what killed writers left (:mod:`maintainer.hudi.table.recovery`)."""
        with self._recovered_lock:
            if ctx.table.name in self._recovered:
                return
        for done in recover_interrupted_writes(ctx.storage()):
            log.warning(
                f"{node_id}: {done}", extra=fields(node=node_id, plan_id=ctx.plan_id, event="recovered")
            )
        with self._recovered_lock:
            self._recovered.add(ctx.table.name)


def check_locks(saved: SavedPlan, storage_options: Mapping[str, Any]) -> None:
    """ApplyError when another apply holds the lock of a table the plan changes."""
    for table in saved.plan.tables:
        if any(node.status is NodeStatus.CHANGES for node in table.nodes):
            check_free(Storage(table.path, storage_options))


def check_stale(
    saved: SavedPlan, runner: PlanRunner, done: Mapping[NodeId, str], reads: TableReads | None = None
) -> None:
    """Tables that moved since the plan: refused (``refuse_stale``) or named before anything
    starts, each node then skipping as drift what is no longer valid. Tables an interrupted
    apply of this plan already changed are left to the nodes' own checks."""
    resumed = {node.table for node in done}
    changes = table_changes(saved, runner.storage_options, resumed, reads)
    if runner.refuse_stale:
        refuse_stale(saved, changes)
    for change in changes:
        log.warning(
            f"the plan is stale for table {change.describe()}; applying it anyway: what is no longer "
            "valid is skipped as drift (--refuse-stale stops instead)",
            extra=fields(table=change.table, plan_id=saved.plan_id, event="stale"),
        )


def check_stricter(saved: SavedPlan, runner: PlanRunner) -> None:
    """Nodes today's manifests no longer allow: the plan refused (``refuse_stale``) or each named
    before anything starts (the node then skips when its turn comes)."""
    if runner.recheck is None:
        return
    found: list[tuple[NodeId, str]] = []
    for table in saved.plan.tables:
        for node in table.nodes:
            spec = runner.specs.get(node.table)
            reasons = runner.recheck(node, spec, table) if spec is not None else ()
            found += [(NodeId(node.table, node.service), reason) for reason in reasons]
    if found and runner.refuse_stale:
        raise PlanError(
            f"the plan is stale: {STRICTER}: " + "; ".join(f"{node}: {reason}" for node, reason in found),
            where=str(saved.directory),
            hint="make the plan again under the current manifests and review it",
        )
    for node_id, reason in found:
        log.warning(
            f"{STRICTER}; the node will be skipped: {node_id}: {reason}",
            extra=fields(node=node_id, plan_id=saved.plan_id, event="stricter"),
        )


def preflight(saved: SavedPlan, runner: PlanRunner) -> dict[NodeId, str]:
    """Before Spark, before any lock and any write: the whole plan is valid, not applied already,
    not stale (or stale and allowed), and no table is locked by another apply; the nodes done by
    an interrupted apply. Each table's ``hoodie.properties`` and timeline are read once for all
    these checks; the payloads checked are handed on to the nodes (``runner.checked_payloads``).
    The table state read here is not: each node re-reads its table under its lock, since a
    writer may commit between now and then (Spark starting, other tables' nodes running)."""
    runner.checked_payloads = validate_plan(saved, runner.specs, runner.storage_options)
    reads = TableReads(runner.storage_options)
    done = refuse_if_applied(saved, runner.storage_options, reads)
    check_stale(saved, runner, done, reads)
    check_stricter(saved, runner)
    check_locks(saved, runner.storage_options)
    return done


def apply_plan(
    saved: SavedPlan,
    project_graph: nx.DiGraph,
    runner: PlanRunner,
    *,
    threads: int = 1,
    fail_fast: bool = False,
    events: EventSink | None = None,
    checked: bool = False,
    cancel: threading.Event | None = None,
) -> RunResults:
    """Check the plan (``preflight``, unless the caller did: ``checked``), then run every node;
    the results say what happened to each (``cancel``: see :func:`walk`)."""
    started = utc_timestamp()
    if not checked:
        preflight(saved, runner)
    graph = plan_graph(saved, project_graph)
    kwargs: dict[str, Any] = {"events": events} if events is not None else {}
    results = walk(graph, runner.run_node, threads=threads, fail_fast=fail_fast, cancel=cancel, **kwargs)
    return RunResults(saved.plan_id, started, utc_timestamp(), tuple(results))
