from __future__ import annotations

import networkx as nx
import pytest

from maintainer.errors import UsageError
from maintainer.graph import build_graph, parse_selector, select_nodes
from tests.unit.graph.specs import spec


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return build_graph(
        [
            spec("raw", tags=("bronze",), manifest="tables/bronze/raw.yml"),
            spec(
                "clean_trips",
                depends_on=("raw",),
                tags=("silver", "core"),
                manifest="tables/silver/trips.yml",
            ),
            spec(
                "daily",
                depends_on=("clean_trips",),
                tags=("gold", "core"),
                manifest="tables/gold/daily.yml",
                blocks=("clean", "archive", "savepoints"),
            ),
            spec(
                "weekly",
                depends_on=("daily",),
                tags=("gold",),
                manifest="tables/gold/weekly.yml",
                blocks=("clean",),
            ),
        ]
    )


def chosen(graph: nx.DiGraph, select: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> set[str]:
    return {str(node) for node in select_nodes(graph, select, exclude).nodes}


def tables(graph: nx.DiGraph, select: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> set[str]:
    return {node.table for node in select_nodes(graph, select, exclude).nodes}


def test_no_selector_selects_everything(graph: nx.DiGraph) -> None:
    assert chosen(graph) == {str(node) for node in graph}


def test_name_glob_and_single_node(graph: nx.DiGraph) -> None:
    assert tables(graph, ("daily",)) == {"daily"}
    assert tables(graph, ("*ly",)) == {"daily", "weekly"}
    assert chosen(graph, ("daily.clean",)) == {"daily.clean"}
    assert chosen(graph, ("table:raw",)) == {"raw.rollback", "raw.compaction", "raw.clean", "raw.archive"}


def test_tag_path_and_service_methods(graph: nx.DiGraph) -> None:
    assert tables(graph, ("tag:core",)) == {"clean_trips", "daily"}
    assert tables(graph, ("path:tables/gold",)) == {"daily", "weekly"}
    assert tables(graph, ("path:./tables/silver/trips.yml",)) == {"clean_trips"}
    assert tables(graph, ("path:tables/*/raw.yml",)) == {"raw"}
    assert chosen(graph, ("service:savepoints",)) == {"daily.savepoint_create", "daily.savepoint_delete"}
    assert chosen(graph, ("service:compaction",)) == {"raw.compaction", "clean_trips.compaction"}


def test_upstream_and_downstream_operators(graph: nx.DiGraph) -> None:
    assert tables(graph, ("+daily",)) == {"raw", "clean_trips", "daily"}
    assert tables(graph, ("clean_trips+",)) == {"clean_trips", "daily", "weekly"}
    assert tables(graph, ("+clean_trips+",)) == {"raw", "clean_trips", "daily", "weekly"}
    assert chosen(graph, ("daily.savepoint_delete+1",)) == {"daily.savepoint_delete", "weekly.clean"}
    assert "raw.archive" in chosen(graph, ("+daily.clean",))


def whole(graph: nx.DiGraph, *names: str) -> set[str]:
    return {str(node) for node in graph if node.table in names}


def test_depth_counts_table_hops_and_a_reached_table_comes_whole(graph: nx.DiGraph) -> None:
    assert chosen(graph, ("1+weekly",)) == whole(graph, "daily", "weekly")
    assert chosen(graph, ("2+weekly",)) == whole(graph, "clean_trips", "daily", "weekly")
    assert chosen(graph, ("3+weekly",)) == chosen(graph, ("+weekly",)) == {str(node) for node in graph}
    assert chosen(graph, ("raw+1",)) == whole(graph, "raw", "clean_trips")
    assert chosen(graph, ("0+weekly",)) == whole(graph, "weekly")


def test_operators_on_one_service_add_its_own_table_first_without_a_hop(graph: nx.DiGraph) -> None:
    assert chosen(graph, ("0+daily.clean",)) == {"daily.savepoint_create", "daily.clean"}
    assert chosen(graph, ("1+daily.clean",)) == {"daily.savepoint_create", "daily.clean"} | whole(
        graph, "clean_trips"
    )
    assert chosen(graph, ("daily.archive+",)) == {"daily.archive", "daily.savepoint_delete", "weekly.clean"}
    assert chosen(graph, ("clean_trips.compaction+0",)) == {
        "clean_trips.compaction",
        "clean_trips.clean",
        "clean_trips.archive",
    }
    assert chosen(graph, ("service:clean+1",)) == {
        str(node) for node in graph if node.service in ("clean", "archive", "savepoint_delete")
    } | whole(graph, "clean_trips", "daily", "weekly")


def test_at_operator_adds_descendants_and_their_ancestors(graph: nx.DiGraph) -> None:
    assert tables(graph, ("@clean_trips",)) == {"raw", "clean_trips", "daily", "weekly"}


def test_space_is_union_and_comma_is_intersection(graph: nx.DiGraph) -> None:
    assert tables(graph, ("raw weekly",)) == {"raw", "weekly"}
    assert tables(graph, ("raw", "weekly")) == {"raw", "weekly"}
    assert chosen(graph, ("tag:core,service:clean",)) == {"clean_trips.clean", "daily.clean"}
    assert tables(graph, ("tag:gold,+weekly",)) == {"daily", "weekly"}


def test_exclude_wins(graph: nx.DiGraph) -> None:
    assert tables(graph, ("tag:core",), ("daily",)) == {"clean_trips"}
    assert tables(graph, (), ("tag:gold service:compaction",)) == {"raw", "clean_trips"}
    assert "raw.compaction" not in chosen(graph, (), ("service:compaction",))


def test_unmatched_selector_is_reported_with_a_suggestion(graph: nx.DiGraph) -> None:
    result = select_nodes(graph, ("dialy", "tag:gld"))

    assert not result.nodes
    assert any("'dialy' matched no node" in m and "did you mean 'daily'" in m for m in result.unmatched)
    assert any("did you mean 'gold'" in m for m in result.unmatched)


@pytest.mark.parametrize("text", ["colour:red", "tag:", "@+x", "a+b+c"])
def test_invalid_selectors_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_selector(text)

    assert caught.value.exit_code == 64
    assert caught.value.hint


def test_parse_depths() -> None:
    [[atom]] = parse_selector("2+path:tables/a.yml+")
    assert (atom.method, atom.value, atom.parents, atom.children) == ("path", "tables/a.yml", 2, -1)
