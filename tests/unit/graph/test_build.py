from __future__ import annotations

import itertools

import networkx as nx
import pytest

from maintainer.errors import ManifestError
from maintainer.graph import NodeId, build_graph, restrict, topological_order, without
from tests.unit.graph.specs import spec

ALL = ("rollback", "compaction", "clean", "archive", "savepoints")


def order_of(graph: nx.DiGraph) -> list[str]:
    return [str(node) for node in topological_order(graph)]


def test_services_of_one_table_run_in_hudi_order() -> None:
    graph = build_graph([spec("t", blocks=ALL)])

    assert order_of(graph) == [
        "t.rollback",
        "t.compaction",
        "t.savepoint_create",
        "t.clean",
        "t.archive",
        "t.savepoint_delete",
    ]
    assert all(kind == "order" for _, _, kind in graph.edges(data="kind"))
    assert nx.is_directed_acyclic_graph(graph)


def test_only_active_services_become_nodes_and_compaction_is_mor_only() -> None:
    graph = build_graph([spec("t", blocks=("clean", "compaction"))])

    assert order_of(graph) == ["t.compaction", "t.clean"]
    assert graph.nodes[NodeId("t", "compaction")]["mor_only"] is True
    assert graph.nodes[NodeId("t", "clean")]["mor_only"] is False


def test_depends_on_makes_every_node_wait_for_all_of_the_dependency() -> None:
    graph = build_graph([spec("b"), spec("a", depends_on=("b",)), spec("c")])

    for node_a, node_b in itertools.product(
        [n for n in graph if n.table == "a"], [n for n in graph if n.table == "b"]
    ):
        assert nx.has_path(graph, node_b, node_a), (node_b, node_a)
    assert graph.edges[NodeId("b", "archive"), NodeId("a", "rollback")]["kind"] == "depends_on"
    order = order_of(graph)
    assert order.index("b.archive") < order.index("a.rollback")
    assert not any(nx.has_path(graph, n, m) for n in graph if n.table == "c" for m in graph if m.table != "c")


def test_depends_on_passes_through_a_table_without_services() -> None:
    graph = build_graph([spec("a"), spec("b", depends_on=("a",), blocks=()), spec("c", depends_on=("b",))])

    assert nx.has_path(graph, NodeId("a", "archive"), NodeId("c", "rollback"))


def test_order_is_deterministic_whatever_the_input_order() -> None:
    tables = [spec("z"), spec("m", depends_on=("z",)), spec("a"), spec("q", depends_on=("a", "m"))]

    orders = {tuple(order_of(build_graph(permutation))) for permutation in itertools.permutations(tables)}

    assert len(orders) == 1
    assert next(iter(orders))[:4] == ("a.rollback", "a.compaction", "a.clean", "a.archive")


def test_cycle_is_reported_with_its_path() -> None:
    tables = [
        spec("a", depends_on=("c",)),
        spec("b", depends_on=("a",)),
        spec("c", depends_on=("b",)),
        spec("d"),
    ]

    with pytest.raises(ManifestError) as caught:
        build_graph(tables)

    assert caught.value.message == "depends_on cycle: a -> c -> b -> a"
    assert caught.value.where == "tables/a.yml:1"
    assert caught.value.hint and "a -> c" in caught.value.hint


def test_without_drops_compaction_but_keeps_the_order() -> None:
    graph = build_graph([spec("t")])

    cow = without(graph, [NodeId("t", "compaction")])

    assert order_of(cow) == ["t.rollback", "t.clean", "t.archive"]
    assert cow.edges[NodeId("t", "rollback"), NodeId("t", "clean")]["kind"] == "implied"


def test_restrict_keeps_transitive_order_across_tables() -> None:
    graph = build_graph([spec("b"), spec("a", depends_on=("b",))])

    sub = restrict(graph, [NodeId("a", "clean"), NodeId("b", "clean")])

    assert list(sub.edges) == [(NodeId("b", "clean"), NodeId("a", "clean"))]
