"""``maintainer inspect PATH|NAME``: one table's state, read-only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.tree import Tree

from maintainer.clock import utc_now
from maintainer.commands.options import DURATION, table_storage_options
from maintainer.console import literal, print_warning, stdout
from maintainer.errors import TableFormatError
from maintainer.hudi.file_groups.integrity import find_interrupted_completions, inspect_table
from maintainer.hudi.instants.time_travel import as_of_instant, check_time_travel
from maintainer.hudi.logformat import LogBlock
from maintainer.hudi.metadata.check import MetadataCheck, check_metadata_table
from maintainer.hudi.metadata.inspection import describe_metadata_table
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.inspection import describe
from maintainer.hudi.table.orphans import find_orphans
from maintainer.hudi.table.state import TableState, open_table
from maintainer.project.durations import format_duration

ORPHANS_SHOWN = 10


@click.command("inspect")
@click.argument("path", metavar="PATH|NAME")
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
    help="With --records: read the table as of this time (time travel), as Hudi takes it: "
    "yyyyMMddHHmmss[SSS], 'yyyy-MM-dd HH:mm:ss[.SSS]' or yyyy-MM-dd. A time before the earliest "
    "commit the cleaner retained, or one in the archived timeline, is refused.",
)
@click.option(
    "--read-optimized", is_flag=True, help="With --records: read base files only (MOR read-optimized view)."
)
@click.option(
    "--orphan-min-age",
    "orphan_min_age",
    type=DURATION,
    default="7d",
    show_default=True,
    metavar="DURATION",
    help="Orphan files younger than this are not listed (a writer may not have committed them yet).",
)
@table_storage_options(by_name=True)
@click.option(
    "--check-metadata",
    is_flag=True,
    help="Check the metadata table against the table: its timeline is in step, its own files are "
    "all there at their committed sizes, its `files` partition lists exactly the committed data "
    "files on storage, with their sizes, `column_stats` and `partition_stats` cover every file "
    "and partition, `record_index` holds exactly the record keys, each at its file group, and every "
    "index agrees with the data: `column_stats` and `bloom_filters` with each base file's footer, "
    "`partition_stats` with its partition's column stats, secondary indexes with the records. "
    "Exit 1 with the differences; a table without a metadata table has nothing to check (exit 0, said so).",
)
def command(
    path: str,
    output_format: str,
    orphan_min_age: timedelta,
    records: bool,
    as_of: str | None,
    read_optimized: bool,
    check_metadata: bool,
    storage_options: dict[str, Any],
    project_tables: dict[str, str],
) -> int:
    """Show one Hudi table's state: properties, timeline, pending instants, savepoints,
    partitions with their file groups and slices. Reads only; changes nothing. With
    --project-dir (or $MAINTAINER_PROJECT_DIR), NAME is a table of the project (a local path
    of that name that exists wins).

    \b
    Examples:
      maintainer inspect /data/lake/trips
      maintainer inspect s3://bucket/lake/trips --format json | jq '.instants'
      maintainer inspect /data/lake/trips --records --as-of 20251220210123755
      maintainer inspect /data/lake/trips --check-metadata
      maintainer inspect s3://lake/trips --storage-option endpoint_override=http://127.0.0.1:8333
      maintainer inspect s3://lake/trips --project-dir . --target prod
      maintainer inspect trips --project-dir . --target prod     # by the manifest's name
    """
    path = table_path(path, project_tables)
    table = open_table(path, storage_options, verify=False)  # shows a damaged table as it is
    _warn_interrupted_writes(table)
    if records:
        from maintainer.hudi.records.reader import read_records

        instant = _time_travel_instant(table, as_of) if as_of is not None else None
        rows = read_records(table, as_of=instant, read_optimized=read_optimized, on_corrupt=_warn_corrupt)
        for row in rows:
            stdout.out(json.dumps(row, sort_keys=True, default=str), highlight=False)
        return 0
    if as_of is not None or read_optimized:
        raise click.UsageError("--as-of and --read-optimized go with --records")
    state = describe(table.snapshot, table.view)
    state["orphans"] = _describe_orphans(table, orphan_min_age)
    check = _describe_metadata_table(table, state, check_metadata)
    if output_format == "json":
        stdout.out(json.dumps(state, indent=2, sort_keys=True), highlight=False)
    else:
        _render_text(state)
    return 0 if check is None or check.passed else 1


def table_path(argument: str, project_tables: Mapping[str, str]) -> str:
    """The table's path: ``argument`` itself, or the path of the project's table of that name
    when ``argument`` is not an existing local path (a URI is never a name)."""
    if argument in project_tables and "://" not in argument and not Path(argument).exists():
        return project_tables[argument]
    return argument


def _time_travel_instant(table: TableState, as_of: str) -> str:
    """The instant ``--as-of`` names, refused where Hudi's time travel refuses it."""
    instant = as_of_instant(as_of)
    check_time_travel(table, instant)
    return instant


def _describe_metadata_table(
    table: TableState, state: dict[str, Any], check_it: bool
) -> MetadataCheck | None:
    """Adds the metadata table's description to ``state``; returns the check when asked."""
    try:
        mdt = open_metadata_table(table)
    except TableFormatError as exc:
        if check_it:
            raise
        state["metadata_table"]["error"] = str(exc)  # shown as it is, like a damaged table
        return None
    if mdt is None:
        if check_it:  # nothing to disagree with storage: not an error, and said so
            state["metadata_table"]["check"] = {"passed": True, "skipped": NO_METADATA_TABLE}
        return None
    check = check_metadata_table(table, mdt) if check_it else None
    state["metadata_table"].update(describe_metadata_table(mdt, table.snapshot.timeline, check))
    return check


NO_METADATA_TABLE = "no metadata table to check"


def _warn_interrupted_writes(table: TableState) -> None:
    """What a killed writer left that the next apply finishes (the table is shown as it is)."""
    problem = table.snapshot.config.properties_problem
    if problem is not None:
        print_warning(
            f"hoodie.properties is unusable ({problem}): read from hoodie.properties.backup, as "
            "Hudi reads it; the next apply recovers hoodie.properties from it"
        )
    for item in find_interrupted_completions(table.storage, table.snapshot.timeline):
        print_warning(item.describe())


def _warn_corrupt(block: LogBlock) -> None:
    print_warning(
        f"{block.location}: corrupt log block skipped, as Hudi's readers do ({block.corrupt_reason})"
    )


def _render_text(state: dict[str, Any]) -> None:
    table = state["table"]
    stdout.print(
        f"[bold]{literal(str(table['name']))}[/bold]  {literal(str(table['type']))}  table version "
        f"{literal(str(table['version']))} (timeline layout {literal(str(table['timeline_layout']))})\n"
        f"  {literal(str(table['base_path']))}"
    )
    stdout.print(
        f"  record key: {_joined(table['record_key_fields']) or '-'}   ordering: "
        f"{_joined(table['ordering_fields']) or '-'}   partitioned by: "
        f"{_joined(table['partition_fields']) or '(not partitioned)'}"
    )
    _render_timeline(state)
    _render_partitions(state)
    _render_orphans(state["orphans"])
    _render_metadata_table(state["metadata_table"])


def _describe_orphans(table: TableState, min_age: timedelta) -> dict[str, Any]:
    """The table's orphan files (:mod:`maintainer.hudi.table.orphans`), as inspect's JSON has them."""
    referenced = inspect_table(table.storage, table.snapshot).referenced
    found = find_orphans(table, referenced, utc_now(), min_age)
    return {
        "files": len(found.orphans),
        "bytes": found.bytes,
        "min_age": format_duration(min_age),
        "left_alone": {"pending": found.pending, "archived": found.archived, "young": found.young},
        "list": [
            {"path": o.path, "size": o.size, "age_seconds": o.age_seconds, "kind": o.kind, "reason": o.reason}
            for o in found.orphans
        ],
    }


def _render_orphans(orphans: dict[str, Any]) -> None:
    if not orphans["files"]:
        return
    stdout.print(
        f"[yellow]orphan files:[/yellow] {orphans['files']} ({_size(orphans['bytes'])}), older than "
        f"{orphans['min_age']}; no instant accounts for them (--format json lists why)"
    )
    for orphan in orphans["list"][:ORPHANS_SHOWN]:
        stdout.print(f"  {literal(orphan['path'])} ({_size(orphan['size'])}): {literal(orphan['reason'])}")


def _render_timeline(state: dict[str, Any]) -> None:
    grid = Table(title="timeline", title_justify="left", show_edge=False)
    for column in ("instant", "action", "state", "completed at"):
        grid.add_column(column)
    for instant in state["instants"]:
        style = "yellow" if instant["state"] != "COMPLETED" else None
        grid.add_row(
            literal(str(instant["timestamp"])),
            literal(str(instant["action"])),
            literal(str(instant["state"])),
            literal(str(instant["completion_time"] or "")),
            style=style,
        )
    stdout.print(grid)
    if state["pending"]:
        stdout.print(f"[yellow]pending:[/yellow] {_joined(state['pending'])}")
    stdout.print(f"savepoints: {_joined(state['savepoints']) or 'none'}")


def _render_partitions(state: dict[str, Any]) -> None:
    tree = Tree(f"{len(state['partitions'])} partition(s)")
    for partition in state["partitions"]:
        node = tree.add(literal(partition["path"]) or "(table root)")
        for group in partition["file_groups"]:
            label = literal(group["file_id"]) + ("  [dim](replaced)[/dim]" if group["replaced"] else "")
            group_node = node.add(label)
            for file_slice in group["slices"]:
                group_node.add(_slice_label(file_slice))
    stdout.print(tree)
    if state["uncommitted_files"]:
        stdout.print(f"[yellow]uncommitted files:[/yellow] {len(state['uncommitted_files'])}")


def _slice_label(file_slice: dict[str, Any]) -> str:
    logs = len(file_slice["log_files"])
    parts = [
        literal(str(file_slice["base_instant"])),
        "base file" if file_slice["base_file"] else "no base file",
    ]
    if logs:
        parts.append(f"{logs} log file(s)")
    parts.append(_size(file_slice["size"]))
    return "  ".join(parts)


def _joined(values: list[Any]) -> str:
    """Values read from the table, joined for rich (markup escaped: a name holds any text)."""
    return literal(", ".join(map(str, values)))


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _render_metadata_table(mdt: dict[str, Any]) -> None:
    if not (mdt["exists"] or mdt["partitions"]):
        skipped = (mdt.get("check") or {}).get("skipped")
        stdout.print("metadata table: none" + (f" ({skipped})" if skipped else ""))
        return
    if "error" in mdt:
        stdout.print(f"metadata table: [red]cannot be read:[/red] {literal(mdt['error'])}")
        return
    if "table_version" not in mdt:
        stdout.print(f"metadata table: {_joined(mdt['partitions']) or 'folder only'}")
        return
    grid = Table(title="metadata table", title_justify="left", show_edge=False)
    for column in ("partition", "kind", "file groups", "files"):
        grid.add_column(column)
    for partition in mdt["partitions"]:
        grid.add_row(
            literal(str(partition["name"])),
            literal(str(partition["kind"])),
            str(partition["file_groups"]),
            str(partition["files"]),
        )
    stdout.print(grid)
    stdout.print(
        f"  latest compaction: {literal(str(mdt['latest_compaction'] or 'none'))} "
        f"({mdt['deltacommits_since_compaction']} deltacommits since)   instants: "
        f"{mdt['instants']}   pending: {_joined(mdt['pending']) or 'none'}"
    )
    if mdt["inflight_partitions"]:
        stdout.print(f"  [yellow]partitions being built:[/yellow] {_joined(mdt['inflight_partitions'])}")
    _render_sync(mdt)


def _render_sync(mdt: dict[str, Any]) -> None:
    check = mdt.get("check")
    if mdt["in_sync"] and (check is None or check["passed"]):
        checked = f" ({check['files_checked']} files match storage)" if check else ""
        stdout.print(f"  [green]in sync[/green]{checked}{_record_index_line(check)}")
        _render_index_comparison(check)
        return
    stdout.print("  [red]out of sync or damaged:[/red]")
    problems = mdt["sync_problems"] + (check["problems"] if check else [])
    for problem in problems:
        stdout.print(f"    - {literal(problem)}")
    _render_index_comparison(check)


def _render_index_comparison(check: dict[str, Any] | None) -> None:
    indexes = (check or {}).get("indexes")
    if not indexes:
        return
    stdout.print(
        f"  index values compared with the data: {indexes['footers_read']} base file footer(s) "
        f"(column_stats, bloom_filters), {indexes['partition_stats_compared']} partition_stats "
        f"record(s), {indexes['secondary_index_records_compared']} record(s) of secondary indexes"
    )
    for note in indexes["not_compared"]:
        stdout.print(f"    [dim]not compared:[/dim] {literal(note)}")


def _record_index_line(check: dict[str, Any] | None) -> str:
    index = (check or {}).get("record_index")
    if not index:
        return ""
    if index["skipped"]:
        return f"; record_index not checked ({literal(index['skipped'])})"
    return f"; record_index holds the {index['keys_checked']} record keys, each at its file group"
