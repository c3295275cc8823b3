"""The DAG walk with fake node executors: order, concurrency, skips, fail-fast."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterable

import networkx as nx
import pytest

from maintainer.errors import ApplyError
from maintainer.executors.faults import clear_stop, maybe_fail, request_stop
from maintainer.graph import NodeId
from maintainer.runner.dag import walk
from maintainer.runner.results import NodeResult, NodeRunStatus
from maintainer.services.base import Drift, NodeOutcome
from maintainer.services.savepoint.effects import SavepointCreateApplyEffects

SERVICES = ("rollback", "clean", "archive")


def chain_graph(tables: Iterable[str], depends: Iterable[tuple[str, str]] = ()) -> nx.DiGraph:
    """Each table: rollback -> clean -> archive; (a, b): a's archive before b's rollback."""
    graph = nx.DiGraph()
    for table in tables:
        nodes = [NodeId(table, s) for s in SERVICES]
        graph.add_nodes_from(nodes)
        graph.add_edges_from(itertools.pairwise(nodes))
    for before, after in depends:
        graph.add_edge(NodeId(before, "archive"), NodeId(after, "rollback"))
    return graph


class Recorder:
    def __init__(self, fail: Iterable[str] = (), delay: float = 0.0) -> None:
        self.fail = set(fail)
        self.delay = delay
        self.started: list[str] = []
        self.running: set[str] = set()
        self.max_parallel = 0
        self.tables_overlapped = False
        self._lock = threading.Lock()

    def __call__(self, node: NodeId) -> NodeOutcome:
        with self._lock:
            self.started.append(str(node))
            if any(r.split(".")[0] == node.table for r in self.running):
                self.tables_overlapped = True
            self.running.add(str(node))
            self.max_parallel = max(self.max_parallel, len(self.running))
        time.sleep(self.delay)
        with self._lock:
            self.running.discard(str(node))
        if str(node) in self.fail:
            raise ApplyError(f"{node} broke")
        return NodeOutcome(
            SavepointCreateApplyEffects(savepoints_created=(str(node),)), (Drift("x", "y"),), "ok"
        )


def by_id(results: list[NodeResult]) -> dict[str, NodeResult]:
    return {r.id: r for r in results}


def test_dependencies_run_first_and_every_node_runs_once() -> None:
    graph = chain_graph(["a", "b"], depends=[("a", "b")])
    recorder = Recorder()
    results = walk(graph, recorder, threads=4)
    assert recorder.started == [
        "a.rollback", "a.clean", "a.archive", "b.rollback", "b.clean", "b.archive",
    ]  # fmt: skip
    assert all(r.status is NodeRunStatus.SUCCESS for r in results)
    assert by_id(results)["a.clean"].effects == {"savepoints_created": ["a.clean"]}  # as JSON
    assert by_id(results)["a.clean"].drift == (Drift("x", "y"),)


def test_different_tables_run_concurrently_up_to_threads_never_two_nodes_of_one_table() -> None:
    graph = chain_graph(["a", "b", "c", "d"])
    recorder = Recorder(delay=0.05)
    walk(graph, recorder, threads=2)
    assert recorder.max_parallel == 2
    assert not recorder.tables_overlapped


def test_same_table_nodes_without_edges_still_never_overlap() -> None:
    graph = nx.DiGraph()
    graph.add_nodes_from([NodeId("a", "clean"), NodeId("a", "archive"), NodeId("b", "clean")])
    recorder = Recorder(delay=0.05)
    walk(graph, recorder, threads=3)
    assert not recorder.tables_overlapped
    assert recorder.max_parallel == 2


def test_downstream_of_a_failed_node_is_skipped_and_other_tables_go_on() -> None:
    graph = chain_graph(["a", "b", "c"], depends=[("a", "c")])
    results = by_id(walk(graph, Recorder(fail=["a.rollback"]), threads=1))
    assert results["a.rollback"].status is NodeRunStatus.ERROR
    assert "a.rollback broke" in results["a.rollback"].message
    assert results["a.clean"].status is NodeRunStatus.SKIPPED
    assert results["a.clean"].message == "skipped: upstream node a.rollback failed"
    assert results["a.archive"].message == "skipped: upstream node a.clean was skipped"
    assert all(results[f"c.{s}"].status is NodeRunStatus.SKIPPED for s in SERVICES)
    assert all(results[f"b.{s}"].status is NodeRunStatus.SUCCESS for s in SERVICES)


def test_fail_fast_starts_nothing_after_the_first_failure() -> None:
    graph = chain_graph(["a", "b", "c"])
    recorder = Recorder(fail=["a.rollback"])
    results = by_id(walk(graph, recorder, threads=1, fail_fast=True))
    assert recorder.started == ["a.rollback"]
    assert results["a.rollback"].status is NodeRunStatus.ERROR
    assert results["b.rollback"].message == "skipped: not started after a failure (--fail-fast)"
    assert sum(r.status is NodeRunStatus.SKIPPED for r in results.values()) == 8


def test_a_node_with_nothing_to_run_is_skipped_without_skipping_downstream() -> None:
    graph = chain_graph(["a"])

    def run(node: NodeId) -> NodeOutcome:
        return (
            NodeOutcome(message="blocked in the plan", skipped=True)
            if node.service == "clean"
            else NodeOutcome()
        )

    results = by_id(walk(graph, run))
    assert results["a.clean"].status is NodeRunStatus.SKIPPED
    assert results["a.archive"].status is NodeRunStatus.SUCCESS


def test_unexpected_exceptions_become_node_errors_with_timing() -> None:
    def run(node: NodeId) -> NodeOutcome:
        raise KeyError("boom")

    graph = nx.DiGraph()
    graph.add_node(NodeId("a", "clean"))
    (result,) = walk(graph, run)
    assert result.status is NodeRunStatus.ERROR
    assert result.message == "unexpected error: KeyError: 'boom'"
    assert result.started_at is not None and result.finished_at is not None and result.timing_s >= 0


def test_events_report_each_start_and_finish() -> None:
    events: list[tuple[str, str]] = []
    walk(chain_graph(["a"]), Recorder(), events=lambda e, n, r: events.append((e, str(n))))
    assert events == [(e, f"a.{s}") for s in SERVICES for e in ("start", "finish")]


@pytest.mark.parametrize("threads", [1, 3])
def test_results_come_in_topological_order(threads: int) -> None:
    results = walk(chain_graph(["b", "a"]), Recorder(), threads=threads)
    assert [r.id for r in results] == [f"{t}.{s}" for t in ("a", "b") for s in SERVICES]


def test_a_cancel_starts_no_new_node_lets_the_running_one_finish_and_cancels_the_rest() -> None:
    graph = chain_graph(["a", "b"])
    cancel = threading.Event()
    started: list[str] = []

    def run_node(node: NodeId) -> NodeOutcome:
        started.append(str(node))
        if node == NodeId("a", "clean"):
            cancel.set()  # as a signal handler would, while the node runs
            time.sleep(0.05)
        return NodeOutcome(message="ok")

    results = by_id(walk(graph, run_node, threads=1, cancel=cancel))
    assert started == ["a.rollback", "a.clean"]
    assert results["a.clean"].status is NodeRunStatus.SUCCESS  # the running node finished
    cancelled = [r for r in results.values() if r.status is NodeRunStatus.CANCELLED]
    assert {r.id for r in cancelled} == {"a.archive", "b.rollback", "b.clean", "b.archive"}
    assert all(r.message.startswith("cancelled: not started") and r.started_at is None for r in cancelled)


def test_a_cancel_before_the_walk_starts_nothing() -> None:
    cancel = threading.Event()
    cancel.set()
    recorder = Recorder()
    results = walk(chain_graph(["a"]), recorder, threads=2, cancel=cancel)
    assert recorder.started == []
    assert [r.status for r in results] == [NodeRunStatus.CANCELLED] * 3


def test_a_cancel_lets_every_running_node_finish_with_several_threads() -> None:
    cancel = threading.Event()
    both_running = threading.Barrier(2)

    def run_node(node: NodeId) -> NodeOutcome:
        if node.service == "rollback":
            both_running.wait(timeout=5)
            cancel.set()
        return NodeOutcome(message="ok")

    results = by_id(walk(chain_graph(["a", "b"]), run_node, threads=2, cancel=cancel))
    assert results["a.rollback"].status is results["b.rollback"].status is NodeRunStatus.SUCCESS
    assert {r.id for r in results.values() if r.status is NodeRunStatus.CANCELLED} == {
        "a.clean", "a.archive", "b.clean", "b.archive",
    }  # fmt: skip


def test_a_node_stopped_at_a_safe_point_is_cancelled_not_failed() -> None:
    def run_node(node: NodeId) -> NodeOutcome:
        if node.service == "clean":
            request_stop()
            maybe_fail("clean", "after_inflight")
        return NodeOutcome(message="ok")

    try:
        results = by_id(walk(chain_graph(["a"]), run_node, threads=1))
    finally:
        clear_stop()
    assert results["a.clean"].status is NodeRunStatus.CANCELLED
    assert "stopped at a safe point (clean:after_inflight)" in results["a.clean"].message
    assert results["a.archive"].status is NodeRunStatus.CANCELLED  # a stopped node stops the walk


def test_a_failure_after_a_stop_was_asked_is_the_stop() -> None:
    def run_node(node: NodeId) -> NodeOutcome:
        request_stop()
        raise RuntimeError("Job 3 cancelled part of cancelled job group")  # a cancelled Spark job

    try:
        result = walk(chain_graph(["a"]), run_node, threads=1)[0]
    finally:
        clear_stop()
    assert result.status is NodeRunStatus.CANCELLED
    assert result.message.startswith("stopped while running, as asked: unexpected error: RuntimeError")
