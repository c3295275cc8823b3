"""The graph as text: mermaid (for markdown and PRs), dot (graphviz) and json."""

from __future__ import annotations

import json
import re
from typing import Any, cast

import networkx as nx

from maintainer.graph.build import NodeId, node_sort_key, topological_order
from maintainer.graph.manifest import EdgeKind, GraphEdge, GraphJson, GraphNode, graph_adapter

FORMATS = ("mermaid", "dot", "json")


def render_graph(graph: nx.DiGraph, output_format: str) -> str:
    if output_format == "mermaid":
        return to_mermaid(graph)
    if output_format == "dot":
        return to_dot(graph)
    if output_format == "json":
        return json.dumps(to_json(graph), indent=2, sort_keys=True)
    raise ValueError(f"unknown graph format {output_format!r}")


def _edges(graph: nx.DiGraph) -> list[tuple[NodeId, NodeId, str]]:
    return sorted(
        ((u, v, str(kind)) for u, v, kind in graph.edges(data="kind")),
        key=lambda edge: (node_sort_key(edge[0]), node_sort_key(edge[1])),
    )


def _mermaid_id(node: NodeId) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", f"{node.table}__{node.service}")


def to_mermaid(graph: nx.DiGraph) -> str:
    lines = ["flowchart LR"]
    tables: dict[str, list[NodeId]] = {}
    for node in sorted(graph, key=node_sort_key):
        tables.setdefault(node.table, []).append(node)
    for table, nodes in tables.items():
        lines.append(f'  subgraph {_mermaid_id(NodeId(table, "t"))}["{table}"]')
        for node in nodes:
            label = node.service + (" (MOR only)" if graph.nodes[node].get("mor_only") else "")
            lines.append(f'    {_mermaid_id(node)}["{label}"]')
        lines.append("  end")
    for u, v, kind in _edges(graph):
        arrow = "-.->" if kind == "depends_on" else "-->"
        lines.append(f"  {_mermaid_id(u)} {arrow} {_mermaid_id(v)}")
    return "\n".join(lines) + "\n"


def to_dot(graph: nx.DiGraph) -> str:
    lines = ["digraph maintainer {", "  rankdir=LR;", "  node [shape=box];"]
    for node in sorted(graph, key=node_sort_key):
        style = ', style="dashed"' if graph.nodes[node].get("mor_only") else ""
        lines.append(f'  "{node}" [label="{node.table}\\n{node.service}"{style}];')
    for u, v, kind in _edges(graph):
        style = ' [style="dashed"]' if kind == "depends_on" else ""
        lines.append(f'  "{u}" -> "{v}"{style};')
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_record(graph: nx.DiGraph) -> GraphJson:
    """The graph as manifest.json keeps it (and ``--format json`` prints it)."""
    return GraphJson(
        nodes=tuple(
            GraphNode(
                id=str(node),
                table=node.table,
                service=node.service,
                block=graph.nodes[node]["block"],
                mor_only=graph.nodes[node]["mor_only"],
                manifest=graph.nodes[node]["manifest"],
                tags=tuple(graph.nodes[node]["tags"]),
            )
            for node in sorted(graph, key=node_sort_key)
        ),
        edges=tuple(GraphEdge(str(u), str(v), cast(EdgeKind, kind)) for u, v, kind in _edges(graph)),
        order=tuple(str(node) for node in topological_order(graph)),
    )


def to_json(graph: nx.DiGraph) -> dict[str, Any]:
    data: dict[str, Any] = graph_adapter().dump_python(graph_record(graph), mode="json", by_alias=True)
    return data
