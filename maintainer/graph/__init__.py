"""TableSpecs -> a DAG of (table, service) nodes; dbt-style selection; rendering."""

from maintainer.graph.build import (
    NodeId,
    build_graph,
    node_sort_key,
    restrict,
    table_nodes,
    topological_order,
    without,
)
from maintainer.graph.formats import FORMATS, render_graph, to_json
from maintainer.graph.select import SelectionResult, parse_selector, select_nodes

__all__ = [
    "FORMATS",
    "NodeId",
    "SelectionResult",
    "build_graph",
    "node_sort_key",
    "parse_selector",
    "render_graph",
    "restrict",
    "select_nodes",
    "table_nodes",
    "to_json",
    "topological_order",
    "without",
]
