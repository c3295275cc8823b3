"""Apply passes results on rather than computing them again (issue 32): preflight reads each
table's ``hoodie.properties`` and timeline once for all its checks (the applied check and the
stale check), and each payload is built once, by the up-front check of the plan, which hands it
on to its node (``NodeContext.checked_payloads``); the node still re-derives its actions from
the table as it is when it runs. Counted on a Storage that records what it reads and on the
services' payload builders."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from maintainer.artifact.directory import SavedPlan, read_plan, write_plan
from maintainer.artifact.model import NodeStatus
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.graph import NodeId
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.runner.apply import PlanRunner, apply_plan, preflight
from maintainer.runner.results import NodeRunStatus, RunResults
from maintainer.services.clean import payload as clean_payload
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction import apply as compaction_apply
from maintainer.services.compaction import node as compaction_node
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.services.rollback import apply as rollback_apply
from maintainer.services.rollback import node as rollback_node
from maintainer.services.rollback.settings import RollbackSpec
from tests.unit.planning.test_reads_once import reads, uri

__all__ = ["reads"]  # the fixture, shared with the planning side's test

SERVICES = ("rollback", "compaction", "clean")
BUILDERS = (
    (clean_payload, "cleaner_plan_for", "clean"),
    (compaction_node, "compaction_plan_bytes", "compaction"),
    (compaction_apply, "compaction_plan_bytes", "compaction"),
    (rollback_node, "rollback_payloads", "rollback"),
    (rollback_apply, "rollback_payloads", "rollback"),
)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Service -> times its payloads were built (wherever a module builds them)."""
    seen: Counter[str] = Counter()

    def counted(build: Callable[..., Any], service: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen[service] += 1
            return build(*args, **kwargs)

        return wrapper

    for module, name, service in BUILDERS:
        monkeypatch.setattr(module, name, counted(getattr(module, name), service))
    return seen


def table_spec(path: Path, name: str) -> TableSpec:
    return TableSpec.of(
        name=name,
        path=str(path),
        manifest="t.yml",
        line=1,
        rollback=RollbackSpec(min_age=timedelta(0)),
        compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)),
        clean=CleanSpec(commits_retained=1),
    )


def saved_plan(tmp_path: Path) -> tuple[SavedPlan, dict[str, TableSpec]]:
    """A plan of rollback, compaction and clean on a MOR table (version 6) and of rollback and
    clean on a COW one (version 8), each with a failed write; every service writes a payload."""
    specs = {}
    for name, kind, version in (("mor", "mor", 6), ("cow", "cow", 8)):
        workload = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=10, seed=version)
        generate(str(tmp_path / name), DatagenSpec(name, kind, version, workload, failed_write_at=2))
        specs[name] = table_spec(tmp_path / name, name)
    requests = [TableRequest(spec, SERVICES, mor_only=frozenset({"compaction"})) for spec in specs.values()]
    built = build_plan("proj", "dev", requests, {}, datetime.now(timezone.utc), threads=1)
    assert {n.service for n in built.plan.nodes() if n.payloads} == set(SERVICES), built.plan.nodes()
    write_plan(tmp_path / "plan", built.plan, built.payloads, "review", {})
    return read_plan(tmp_path / "plan"), specs


def one_build_per_node(saved: SavedPlan) -> Counter[str]:
    """Each node with payloads built them once (a rollback node all of its own in one go)."""
    return Counter(node.service for node in saved.plan.nodes() if node.payloads)


def succeeded(results: RunResults) -> bool:
    return all(r.status is NodeRunStatus.SUCCESS for r in results.nodes)


def graph_of(saved: SavedPlan) -> nx.DiGraph:
    graph = nx.DiGraph()
    for table in saved.plan.tables:
        nodes = [NodeId(n.table, n.service) for n in table.nodes]
        graph.add_nodes_from(nodes)
        graph.add_edges_from(itertools.pairwise(nodes), kind="service")
    return graph


def test_preflight_reads_each_table_once_and_each_payload_is_built_once(
    tmp_path: Path, reads: Counter[str], builds: Counter[str]
) -> None:
    saved, specs = saved_plan(tmp_path)
    runner = PlanRunner(saved, specs, lambda: None, engine="local")
    reads.clear()
    builds.clear()

    preflight(saved, runner)
    mor, cow = tmp_path / "mor", tmp_path / "cow"
    assert reads[uri(mor, ".hoodie/hoodie.properties")] == 1
    assert reads[uri(cow, ".hoodie/hoodie.properties")] == 1
    assert reads["LIST " + uri(mor, ".hoodie")] == 1
    assert reads["LIST " + uri(cow, ".hoodie/timeline")] == 1
    assert builds == one_build_per_node(saved)
    changing = [n for n in saved.plan.nodes() if n.status is NodeStatus.CHANGES]
    assert {node_id: set(p) for node_id, p in runner.checked_payloads.items()} == {
        n.id: set(n.payloads) for n in changing
    }

    results = apply_plan(saved, graph_of(saved), runner, checked=True)
    assert succeeded(results), results.nodes
    assert builds == one_build_per_node(saved), "a node built its payloads again"
    done = {r.id: r.effects for r in results.nodes}
    assert done["mor.compaction"]["slices_compacted"] and done["cow.clean"]["files_deleted"]
    assert done["mor.rollback"]["rollbacks"] and done["cow.rollback"]["rollbacks"]


def test_a_node_run_without_the_up_front_check_builds_and_compares_its_payloads(
    tmp_path: Path, builds: Counter[str]
) -> None:
    """The payloads are passed on only as checked: a runner no preflight checked (the node is
    all it has) rebuilds each payload and compares it with the stored bytes."""
    saved, specs = saved_plan(tmp_path)
    runner = PlanRunner(saved, specs, lambda: None, engine="local")
    builds.clear()
    results = apply_plan(saved, graph_of(saved), runner, checked=True)
    assert succeeded(results), results.nodes
    assert builds == one_build_per_node(saved)
