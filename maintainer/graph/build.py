"""Compile TableSpecs into a DAG of (table, service) nodes.

Inside a table the nodes run rollback -> compaction -> savepoint_create -> clean ->
metadata -> archive -> savepoint_delete (HUDI.md §5: failed writes cap everything; compaction
makes slices cleanable; savepoints must exist before the cleaner runs; the metadata table's own
upkeep after the services that write into it, and its compaction before the data table's
archival, which stops at it; clean before archive; savepoints are removed only after this run's
archive). ``depends_on: [B]`` makes every
node of a table wait for all of B's: an edge from B's last node to the table's first.
Compaction is marked ``mor_only``: ``plan`` drops it (keeping the order) for COW tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import pairwise
from typing import NamedTuple

import networkx as nx

from maintainer.catalog import installed
from maintainer.errors import ManifestError
from maintainer.project.models import TableSpec


class NodeId(NamedTuple):
    """A node of the graph: one service of one table."""

    table: str
    service: str

    def __str__(self) -> str:
        return f"{self.table}.{self.service}"


def node_sort_key(node: NodeId) -> tuple[str, int]:
    return node.table, installed().order.index(node.service)


def table_nodes(spec: TableSpec) -> list[NodeId]:
    """The table's nodes in execution order (only its active services)."""
    active = spec.services()
    return [NodeId(spec.name, s.name) for s in installed().services if s.block in active]


DependencyLocator = Callable[[str, int], str]
"""(table, index in its depends_on) -> where that entry is written (file:line:col)."""


def build_graph(tables: Sequence[TableSpec], locate: DependencyLocator | None = None) -> nx.DiGraph:
    """The DAG of every active (table, service); a depends_on cycle is a ManifestError
    (placed with ``locate`` when given, else at the table)."""
    by_name = {spec.name: spec for spec in tables}
    check_no_cycle(by_name, locate)
    graph = nx.DiGraph()
    chains: dict[str, list[NodeId]] = {}
    for name in sorted(by_name):
        spec = by_name[name]
        chains[name] = table_nodes(spec)
        for node in chains[name]:
            graph.add_node(
                node,
                table=name,
                service=node.service,
                block=installed().by_name[node.service].block,
                mor_only=installed().by_name[node.service].mor_only,
                manifest=spec.manifest,
                tags=spec.tags,
                owner=spec.owner or "",
            )
        graph.add_edges_from(pairwise(chains[name]), kind="order")

    @cache
    def finishing_nodes(name: str) -> frozenset[NodeId]:
        """The nodes whose end means ``name`` is done (through tables that have no node)."""
        if chains[name]:
            return frozenset({chains[name][-1]})
        return frozenset(
            node for dependency in by_name[name].depends_on for node in finishing_nodes(dependency)
        )

    for name in sorted(by_name):
        if not chains[name]:
            continue
        first = chains[name][0]
        for dependency in by_name[name].depends_on:
            for upstream in sorted(finishing_nodes(dependency), key=node_sort_key):
                graph.add_edge(upstream, first, kind="depends_on")
    return graph


def check_no_cycle(by_name: dict[str, TableSpec], locate: DependencyLocator | None = None) -> None:
    tables = nx.DiGraph()
    tables.add_nodes_from(sorted(by_name))
    for name in sorted(by_name):
        tables.add_edges_from(
            (name, dependency) for dependency in by_name[name].depends_on if dependency in by_name
        )
    try:
        cycle = nx.find_cycle(tables)
    except nx.NetworkXNoCycle:
        return
    path = [edge[0] for edge in cycle] + [cycle[0][0]]
    start = by_name[path[0]]
    where = locate(start.name, start.depends_on.index(path[1])) if locate else start.location
    raise ManifestError(
        f"depends_on cycle: {' -> '.join(path)}",
        where=where,
        hint=f"tables cannot wait for each other: remove one of these depends_on entries "
        f"({', '.join(f'{a} -> {b}' for a, b in pairwise(path))})",
    )


def topological_order(graph: nx.DiGraph) -> list[NodeId]:
    """A deterministic execution order: among ready nodes, by table name then service order."""
    return list(nx.lexicographical_topological_sort(graph, key=node_sort_key))


def restrict(graph: nx.DiGraph, keep: Iterable[NodeId]) -> nx.DiGraph:
    """The subgraph of ``keep`` that still orders u before v when v was reachable from u
    through dropped nodes (edge kind ``implied``)."""
    kept = set(keep)
    sub = nx.DiGraph()
    sub.add_nodes_from((node, graph.nodes[node]) for node in sorted(kept, key=node_sort_key))
    for node in sub:
        stack = list(graph.successors(node))
        seen: set[NodeId] = set()
        while stack:
            successor = stack.pop()
            if successor in seen:
                continue
            seen.add(successor)
            if successor in kept:
                kind = graph.edges[node, successor]["kind"] if graph.has_edge(node, successor) else "implied"
                sub.add_edge(node, successor, kind=kind)
            else:
                stack.extend(graph.successors(successor))
    return sub


def without(graph: nx.DiGraph, dropped: Iterable[NodeId]) -> nx.DiGraph:
    """The graph minus ``dropped`` nodes, order kept (e.g. compaction of a COW table)."""
    removed = set(dropped)
    return restrict(graph, (node for node in graph if node not in removed))
