"""Walk a DAG of nodes: dependencies first, different tables concurrently up to ``threads``.

Nodes of one table never run at the same time (they share the table's lock and timeline).
A failed node makes every node downstream of it ``skipped``; the others go on, unless
``fail_fast``, which starts nothing new after the first failure. Once ``cancel`` is set (an
interrupt), no new node starts: the running ones finish, the others are ``cancelled``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

import networkx as nx

from maintainer.errors import MaintainerError
from maintainer.executors.faults import Stopped, stop_requested
from maintainer.graph import NodeId, topological_order
from maintainer.runner.results import NodeResult, NodeRunStatus, utc_timestamp
from maintainer.services.base import NodeOutcome

NodeRunner = Callable[[NodeId], NodeOutcome]
EventSink = Callable[[str, NodeId, NodeResult | None], None]
"""Called with ("start", node, None) and ("finish", node, result)."""
CANCELLED = "cancelled: not started, the apply was interrupted"


def _ignore(event: str, node: NodeId, result: NodeResult | None) -> None:
    return None


def _status_of(outcome: NodeOutcome) -> NodeRunStatus:
    if outcome.blocked:
        return NodeRunStatus.BLOCKED
    return NodeRunStatus.SKIPPED if outcome.skipped else NodeRunStatus.SUCCESS


def run_one(run_node: NodeRunner, node: NodeId) -> NodeResult:
    """Run one node, turning any failure into an ``error`` result (``cancelled`` when the apply
    was told to stop now); never raises."""
    started = utc_timestamp()
    clock = time.perf_counter()
    status, message = NodeRunStatus.SUCCESS, ""
    outcome = NodeOutcome()
    try:
        outcome = run_node(node)
        status = _status_of(outcome)
        message = outcome.message
    except Stopped as exc:
        status, message = NodeRunStatus.CANCELLED, str(exc)
    except Exception as exc:
        status, message = _failed(exc)
    return NodeResult(
        id=str(node),
        status=status,
        started_at=started,
        finished_at=utc_timestamp(),
        timing_s=time.perf_counter() - clock,
        effects=outcome.effects.to_json(),
        drift=outcome.drift,
        message=message,
    )


def _failed(exc: Exception) -> tuple[NodeRunStatus, str]:
    """A failure is the node's error, unless the apply was told to stop now: then the stop
    (a Spark job it cancelled, a write it cut short) is what ended the node."""
    told = str(exc) if isinstance(exc, MaintainerError) else f"unexpected error: {type(exc).__name__}: {exc}"
    if stop_requested():
        return NodeRunStatus.CANCELLED, f"stopped while running, as asked: {told}"
    return NodeRunStatus.ERROR, told


class _Walk:
    def __init__(self, graph: nx.DiGraph, run_node: NodeRunner, threads: int, fail_fast: bool,
                 events: EventSink, cancel: threading.Event) -> None:  # fmt: skip
        self.graph = graph
        self.run_node = run_node
        self.threads = max(1, threads)
        self.fail_fast = fail_fast
        self.events = events
        self.cancel = cancel
        self.order = topological_order(graph)
        self.results: dict[NodeId, NodeResult] = {}
        self.running: dict[Future[NodeResult], NodeId] = {}
        self.stopping = False

    def _finish(self, node: NodeId, result: NodeResult) -> None:
        self.results[node] = result
        self.events("finish", node, result)
        if result.status is NodeRunStatus.ERROR and self.fail_fast:
            self.stopping = True
        if result.status is NodeRunStatus.CANCELLED:  # stopped at a safe point: the apply is stopping
            self.cancel.set()

    def _skip_reason(self, node: NodeId) -> str | None:
        for upstream in self.graph.predecessors(node):
            result = self.results.get(upstream)
            if result is not None and result.status is NodeRunStatus.ERROR:
                return f"skipped: upstream node {upstream} failed"
            if result is not None and result.message.startswith("skipped: upstream"):
                return f"skipped: upstream node {upstream} was skipped"
        return "skipped: not started after a failure (--fail-fast)" if self.stopping else None

    def _ready(self, node: NodeId) -> bool:
        return all(upstream in self.results for upstream in self.graph.predecessors(node))

    def _busy_tables(self) -> set[str]:
        return {node.table for node in self.running.values()}

    def _schedule(self, pool: ThreadPoolExecutor) -> None:
        changed = True
        while changed:
            changed = False
            for node in self.order:
                if node in self.results or node in self.running.values() or not self._ready(node):
                    continue
                reason = self._skip_reason(node)
                if reason is not None:
                    self._finish(node, NodeResult(str(node), NodeRunStatus.SKIPPED, message=reason))
                    changed = True
                elif self.cancel.is_set():
                    self._finish(node, NodeResult(str(node), NodeRunStatus.CANCELLED, message=CANCELLED))
                    changed = True
                elif len(self.running) < self.threads and node.table not in self._busy_tables():
                    self.events("start", node, None)
                    self.running[pool.submit(run_one, self.run_node, node)] = node

    def run(self) -> list[NodeResult]:
        with ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="maintainer-node") as pool:
            self._schedule(pool)
            while self.running:
                done, _ = wait(list(self.running), return_when=FIRST_COMPLETED)
                for future in done:
                    self._finish(self.running.pop(future), future.result())
                self._schedule(pool)
        return [self.results[node] for node in self.order]


def walk(
    graph: nx.DiGraph,
    run_node: NodeRunner,
    *,
    threads: int = 1,
    fail_fast: bool = False,
    events: EventSink = _ignore,
    cancel: threading.Event | None = None,
) -> list[NodeResult]:
    """Run every node of ``graph`` (NodeIds) once, in dependency order; results in
    topological order. Setting ``cancel`` (from a signal handler or another thread) starts no
    new node: the running ones finish, the rest are ``cancelled``."""
    return _Walk(graph, run_node, threads, fail_fast, events, cancel or threading.Event()).run()
