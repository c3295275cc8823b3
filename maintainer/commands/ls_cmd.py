"""``maintainer ls``: the selected (table, service) nodes, in execution order."""

from __future__ import annotations

import json
from typing import Any

import click
import networkx as nx

from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.console import stdout
from maintainer.graph import NodeId


@click.command("ls")
@common_options()
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="One node per line, or a JSON list for scripts.",
)
@click.option(
    "--tables", "tables_only", is_flag=True, help="List the selected tables instead of their nodes."
)
def command(options: CommonOptions, output: str, tables_only: bool) -> int:
    """List the (table, service) nodes that would run, in execution order. Reads no table.

    \b
    Examples:
      maintainer ls --select tag:core
      maintainer ls --select +trips --exclude service:archive --output json
    """
    loaded = load_from_options(options)
    if tables_only:
        rows = _table_rows(loaded)
    else:
        graph = loaded.selected_graph()
        rows = [_node_row(loaded, graph, node) for node in loaded.selected_order()]
    if output == "json":
        stdout.out(json.dumps(rows, indent=2, sort_keys=True), highlight=False)
    else:
        for row in rows:
            stdout.out(row["name"] if tables_only else row["id"], highlight=False)
    return 0


def _node_row(loaded: LoadedProject, graph: nx.DiGraph, node: NodeId) -> dict[str, Any]:
    spec = loaded.project.table(node.table)
    return {
        "id": str(node),
        "table": node.table,
        "service": node.service,
        "path": spec.path,
        "manifest": spec.manifest,
        "tags": list(spec.tags),
        "mor_only": loaded.graph.nodes[node]["mor_only"],
        "depends_on": sorted(str(upstream) for upstream in graph.predecessors(node)),
    }


def _table_rows(loaded: LoadedProject) -> list[dict[str, Any]]:
    names = sorted({node.table for node in loaded.selected})
    rows = []
    for name in names:
        spec = loaded.project.table(name)
        rows.append(
            {
                "name": name,
                "path": spec.path,
                "manifest": spec.location,
                "tags": list(spec.tags),
                "services": list(spec.services()),
                "depends_on": list(spec.depends_on),
            }
        )
    return rows
