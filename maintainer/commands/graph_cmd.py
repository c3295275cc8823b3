"""``maintainer graph``: the DAG of the selected nodes as mermaid, dot or json."""

from __future__ import annotations

import click

from maintainer.commands.options import CommonOptions, common_options, load_from_options
from maintainer.console import stdout
from maintainer.graph import FORMATS, render_graph


@click.command("graph")
@common_options()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="mermaid",
    show_default=True,
    help="mermaid (paste into markdown), dot (graphviz) or json.",
)
def command(options: CommonOptions, output_format: str) -> int:
    """Print the dependency graph of the selected (table, service) nodes. Reads no table.

    \b
    Inside a table: rollback -> compaction (MOR only) -> savepoint_create -> clean
    -> metadata (tables whose metadata table is kept in sync) -> archive
    -> savepoint_delete; depends_on makes a table wait for another.
    Examples:
      maintainer graph --format dot | dot -Tsvg > graph.svg
      maintainer graph --select +trips --format json
    """
    loaded = load_from_options(options)
    stdout.out(render_graph(loaded.selected_graph(), output_format), highlight=False, end="")
    return 0
