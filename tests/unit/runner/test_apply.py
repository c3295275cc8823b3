"""apply_plan and PlanRunner with fake executors: what each node status does, refusals."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import cast

import networkx as nx
import pytest

from maintainer.artifact.directory import SavedPlan
from maintainer.artifact.model import NodeStatus, TableFingerprint
from maintainer.errors import ApplyError, PlanError
from maintainer.graph import NodeId
from maintainer.project.models import TableSpec
from maintainer.runner.apply import PlanRunner, apply_plan, plan_graph, refuse_other_target
from maintainer.runner.ledger import record_path
from maintainer.runner.lock import TableLock, epoch_ms, read_lock
from maintainer.runner.results import NodeRunStatus
from maintainer.services.base import NodeContext, NodeOutcome
from maintainer.storage import Storage
from tests.support.plans import node, plan, table_plan

FINGERPRINT = TableFingerprint(instants=(), savepoints=(), properties_checksum="0")


def saved_plan(tmp_path: Path, *nodes: tuple[str, str, NodeStatus]) -> SavedPlan:
    tables = []
    for name in sorted({table for table, _, _ in nodes}):
        (tmp_path / name / ".hoodie").mkdir(parents=True, exist_ok=True)
        node_plans = tuple(
            node(table, service, status=status, reasons=("why",))
            for table, service, status in nodes
            if table == name
        )
        tables.append(table_plan(name, node_plans, path=str(tmp_path / name), fingerprint=FINGERPRINT))
    return SavedPlan(plan(*tables), "f" * 64, {}, tmp_path / "plan")


def spec(tmp_path: Path, name: str, path: Path | None = None) -> TableSpec:
    return TableSpec.of(name=name, path=str(path or tmp_path / name), manifest="t.yml", line=1)


def graph_of(saved: SavedPlan) -> nx.DiGraph:
    graph = nx.DiGraph()
    order = {"rollback": 0, "clean": 1, "archive": 2}
    for table in saved.plan.tables:
        nodes = sorted((NodeId(n.table, n.service) for n in table.nodes), key=lambda n: order[n.service])
        graph.add_nodes_from(nodes)
        graph.add_edges_from(itertools.pairwise(nodes), kind="service")
    return graph


class FakeExecutors:
    def __init__(self, fail: str | None = None, archive: bool = False) -> None:
        self.fail = fail
        self.archive = archive
        self.ran: list[str] = []
        self.locked: list[bool] = []

    def __call__(self, service: str) -> object:
        if service == "archive" and not self.archive:
            return None

        def execute(ctx: NodeContext) -> NodeOutcome:
            self.ran.append(ctx.node.id)
            lock = read_lock(ctx.storage())
            self.locked.append(lock is not None and lock.data.binds(epoch_ms()))
            assert ctx.plan_id == "f" * 64 and cast(object, ctx.spark) == "spark"
            if ctx.node.id == self.fail:
                raise ApplyError("it broke")
            return NodeOutcome(message="done")

        return execute


def run(
    saved: SavedPlan, specs: dict[str, TableSpec], executors: FakeExecutors
) -> dict[str, tuple[NodeRunStatus, str]]:
    runner = PlanRunner(saved, specs, lambda: "spark", executors=executors)  # type: ignore[arg-type]
    results = apply_plan(saved, graph_of(saved), runner, threads=2)
    return {n.id: (n.status, n.message) for n in results.nodes}


def test_changes_run_under_the_lock_no_op_succeeds_blocked_is_not_run(tmp_path: Path) -> None:
    saved = saved_plan(
        tmp_path,
        ("a", "rollback", NodeStatus.NO_OP),
        ("a", "clean", NodeStatus.CHANGES),
        ("b", "clean", NodeStatus.BLOCKED),
    )
    executors = FakeExecutors()
    results = run(saved, {"a": spec(tmp_path, "a"), "b": spec(tmp_path, "b")}, executors)
    assert results == {
        "a.rollback": (NodeRunStatus.SUCCESS, "no changes"),
        "a.clean": (NodeRunStatus.SUCCESS, "done"),
        "b.clean": (NodeRunStatus.BLOCKED, "blocked in the plan: why"),
    }
    assert executors.ran == ["a.clean"] and executors.locked == [True]
    released = read_lock(Storage(str(tmp_path / "a")))
    assert released is not None and released.data.expired


def test_a_failed_node_skips_its_table_downstream_and_others_go_on(tmp_path: Path) -> None:
    saved = saved_plan(
        tmp_path,
        ("a", "rollback", NodeStatus.CHANGES),
        ("a", "clean", NodeStatus.CHANGES),
        ("b", "clean", NodeStatus.CHANGES),
    )
    results = run(
        saved, {"a": spec(tmp_path, "a"), "b": spec(tmp_path, "b")}, FakeExecutors(fail="a.rollback")
    )
    assert results["a.rollback"][0] is NodeRunStatus.ERROR and "it broke" in results["a.rollback"][1]
    assert results["a.clean"] == (NodeRunStatus.SKIPPED, "skipped: upstream node a.rollback failed")
    assert results["b.clean"][0] is NodeRunStatus.SUCCESS


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ({}, "not a table of the project"),
        ({"a": "elsewhere"}, "the project has the table at"),
    ],
)
def test_a_table_the_project_does_not_have_where_the_plan_says_is_refused_before_any_node(
    tmp_path: Path, specs: dict[str, str], message: str
) -> None:
    saved = saved_plan(tmp_path, ("a", "clean", NodeStatus.CHANGES), ("b", "clean", NodeStatus.CHANGES))
    table_specs = {name: spec(tmp_path, name, tmp_path / where) for name, where in specs.items()}
    table_specs["b"] = spec(tmp_path, "b")
    executors = FakeExecutors()
    with pytest.raises(PlanError, match=message):
        run(saved, table_specs, executors)
    assert executors.ran == []


def test_a_service_without_executor_fails_its_node(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "archive", NodeStatus.CHANGES))
    status, text = run(saved, {"a": spec(tmp_path, "a")}, FakeExecutors())["a.archive"]
    assert status is NodeRunStatus.ERROR and "cannot be applied by this version" in text


def test_a_table_locked_by_another_apply_is_refused_before_any_node(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "clean", NodeStatus.CHANGES), ("b", "clean", NodeStatus.CHANGES))
    executors = FakeExecutors()
    with TableLock(Storage(str(tmp_path / "b")), "other"), pytest.raises(ApplyError) as refused:
        run(saved, {"a": spec(tmp_path, "a"), "b": spec(tmp_path, "b")}, executors)
    message = str(refused.value)
    assert "locked by another apply or writer" in message and f"pid {os.getpid()}" in message
    assert executors.ran == []


def test_every_node_with_changes_is_recorded_and_a_fully_applied_plan_is_refused(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "rollback", NodeStatus.CHANGES), ("a", "clean", NodeStatus.NO_OP),
                       ("b", "archive", NodeStatus.CHANGES))  # fmt: skip
    specs = {"a": spec(tmp_path, "a"), "b": spec(tmp_path, "b")}
    executors = FakeExecutors(archive=True)
    run(saved, specs, executors)
    assert sorted(executors.ran) == ["a.rollback", "b.archive"]
    assert (tmp_path / "a" / record_path("f" * 64, "rollback")).is_file()
    assert not (tmp_path / "a" / record_path("f" * 64, "clean")).exists()
    assert (tmp_path / "b" / record_path("f" * 64, "archive")).is_file()
    with pytest.raises(PlanError, match="already applied: every node with changes is done"):
        run(saved, specs, executors)
    assert sorted(executors.ran) == ["a.rollback", "b.archive"]


def test_a_resume_runs_exactly_the_nodes_not_recorded(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "rollback", NodeStatus.CHANGES), ("a", "clean", NodeStatus.CHANGES))
    specs = {"a": spec(tmp_path, "a")}
    first = run(saved, specs, FakeExecutors(fail="a.clean"))
    assert first["a.clean"][0] is NodeRunStatus.ERROR
    executors = FakeExecutors()
    second = run(saved, specs, executors)
    assert executors.ran == ["a.clean"]
    assert second["a.rollback"][0] is NodeRunStatus.SKIPPED
    assert "already applied from this plan (recorded" in second["a.rollback"][1]


def test_plans_of_another_project_or_target_are_refused(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "clean", NodeStatus.CHANGES))
    refuse_other_target(saved, "proj", "dev")
    with pytest.raises(PlanError, match="target 'dev'; this is project 'proj', target 'prod'"):
        refuse_other_target(saved, "proj", "prod")


def test_the_graph_is_the_project_graph_restricted_to_the_plan(tmp_path: Path) -> None:
    saved = saved_plan(tmp_path, ("a", "rollback", NodeStatus.CHANGES), ("a", "clean", NodeStatus.CHANGES),
                       ("z", "clean", NodeStatus.CHANGES))  # fmt: skip
    project = nx.DiGraph()
    chain = [NodeId("a", s) for s in ("rollback", "compaction", "clean", "archive")]
    for before, after in itertools.pairwise(chain):
        project.add_edge(before, after, kind="service")
    graph = plan_graph(saved, project)
    assert set(graph) == {NodeId("a", "rollback"), NodeId("a", "clean"), NodeId("z", "clean")}
    assert graph.has_edge(NodeId("a", "rollback"), NodeId("a", "clean"))
