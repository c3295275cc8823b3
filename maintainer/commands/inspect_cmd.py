"""``maintainer inspect PATH``: one table's state, read-only."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from maintainer.console import print_warning, stdout
from maintainer.hudi.inspection import describe
from maintainer.hudi.loading import open_table
from maintainer.hudi.logformat import LogBlock


@click.command("inspect")
@click.argument("path")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Text for people, one JSON object for scripts.",
)
@click.option(
    "--records", is_flag=True, help="Print the table's merged records as JSON lines instead of its state."
)
@click.option(
    "--as-of",
    "as_of",
    metavar="INSTANT",
    help="With --records: read the table as of this instant time (time travel).",
)
@click.option(
    "--read-optimized", is_flag=True, help="With --records: read base files only (MOR read-optimized view)."
)
def command(path: str, output_format: str, records: bool, as_of: str | None, read_optimized: bool) -> int:
    """Show one Hudi table's state: properties, timeline, pending instants, savepoints,
    partitions with their file groups and slices. Reads only; changes nothing.

    \b
    Examples:
      maintainer inspect /data/lake/trips
      maintainer inspect s3://bucket/lake/trips --format json | jq '.instants'
      maintainer inspect /data/lake/trips --records --as-of 20251220210123755
    """
    table = open_table(path, verify=False)  # shows a damaged table as it is
    if records:
        from maintainer.hudi.reader import read_records

        for row in read_records(table, as_of=as_of, read_optimized=read_optimized, on_corrupt=_warn_corrupt):
            stdout.out(json.dumps(row, sort_keys=True, default=str), highlight=False)
        return 0
    if as_of or read_optimized:
        raise click.UsageError("--as-of and --read-optimized go with --records")
    state = describe(table.snapshot, table.view)
    if output_format == "json":
        stdout.out(json.dumps(state, indent=2, sort_keys=True), highlight=False)
    else:
        _render_text(state)
    return 0


def _warn_corrupt(block: LogBlock) -> None:
    print_warning(
        f"{block.location}: corrupt log block skipped, as Hudi's readers do ({block.corrupt_reason})"
    )


def _render_text(state: dict[str, Any]) -> None:
    table = state["table"]
    stdout.print(
        f"[bold]{table['name']}[/bold]  {table['type']}  table version {table['version']} "
        f"(timeline layout {table['timeline_layout']})\n  {table['base_path']}"
    )
    stdout.print(
        f"  record key: {', '.join(table['record_key_fields']) or '-'}   ordering: "
        f"{', '.join(table['ordering_fields']) or '-'}   partitioned by: "
        f"{', '.join(table['partition_fields']) or '(not partitioned)'}"
    )
    mdt = state["metadata_table"]
    if mdt["exists"] or mdt["partitions"]:
        stdout.print(f"  metadata table: {', '.join(mdt['partitions']) or 'present'}")
    _render_timeline(state)
    _render_partitions(state)


def _render_timeline(state: dict[str, Any]) -> None:
    grid = Table(title="timeline", title_justify="left", show_edge=False)
    for column in ("instant", "action", "state", "completed at"):
        grid.add_column(column)
    for instant in state["instants"]:
        style = "yellow" if instant["state"] != "COMPLETED" else None
        grid.add_row(
            instant["timestamp"],
            instant["action"],
            instant["state"],
            instant["completion_time"] or "",
            style=style,
        )
    stdout.print(grid)
    if state["pending"]:
        stdout.print(f"[yellow]pending:[/yellow] {', '.join(state['pending'])}")
    stdout.print(f"savepoints: {', '.join(state['savepoints']) or 'none'}")


def _render_partitions(state: dict[str, Any]) -> None:
    tree = Tree(f"{len(state['partitions'])} partition(s)")
    for partition in state["partitions"]:
        node = tree.add(partition["path"] or "(table root)")
        for group in partition["file_groups"]:
            label = escape(group["file_id"]) + ("  [dim](replaced)[/dim]" if group["replaced"] else "")
            group_node = node.add(label)
            for file_slice in group["slices"]:
                group_node.add(_slice_label(file_slice))
    stdout.print(tree)
    if state["uncommitted_files"]:
        stdout.print(f"[yellow]uncommitted files:[/yellow] {len(state['uncommitted_files'])}")


def _slice_label(file_slice: dict[str, Any]) -> str:
    logs = len(file_slice["log_files"])
    parts = [file_slice["base_instant"], "base file" if file_slice["base_file"] else "no base file"]
    if logs:
        parts.append(f"{logs} log file(s)")
    parts.append(_size(file_slice["size"]))
    return "  ".join(parts)


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"
