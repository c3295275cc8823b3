"""``maintainer discover PATH|URI``: the Hudi tables under a prefix, which of them no manifest
covers, and (``--write FILE``) manifest entries for those."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import yaml

from maintainer.commands.options import table_storage_options
from maintainer.console import literal, stdout, summary
from maintainer.errors import MaintainerError
from maintainer.hudi.table.discovery import MAX_DEPTH, MAX_FOLDERS, FoundTable, covering_table, discover

EXIT_OK, EXIT_UNCOVERED = 0, 2
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")


def entry_name(found: FoundTable, taken: set[str]) -> str:
    """A manifest name: the table's hoodie.table.name (else its folder), made a valid name and
    unique among ``taken``."""
    base = found.name or found.relative.rpartition("/")[2] or "table"
    name = _NAME_CHARS.sub("_", base).strip("_-") or "table"
    if not name[0].isalpha() and name[0] != "_":
        name = f"t_{name}"
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name}_{n}", n + 1
    taken.add(unique)
    return unique


def manifest_text(found: list[FoundTable], taken: set[str], prefix: str) -> str:
    lines = [
        "# Tables found by `maintainer discover` under " + prefix.replace("\n", " "),
        "# Each takes the project's and its folder's defaults; review the names before you commit.",
        "version: 1",
        "tables:",
    ]
    for table in found:
        name = entry_name(table, taken)
        kind = f"{table.table_type}, table version {table.version}"
        lines.append(f"  - name: {name}")
        lines.append(f"    path: {_scalar(table.uri)}")
        lines.append(f"    description: {_scalar(f'{kind} (found by maintainer discover)')}")
        lines.append("    tags: [discovered]")
    return "\n".join(lines) + "\n"


def _scalar(value: str) -> str:
    dumped: str = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    return dumped.removesuffix("\n...").strip()


@click.command("discover")
@click.argument("prefix", metavar="PATH|URI")
@table_storage_options(by_name=True)
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="Text for people, one JSON object for scripts.",
)  # fmt: skip
@click.option(
    "--write",
    "write",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write manifest entries for the tables no manifest covers to FILE (a new file, e.g. "
    "tables/discovered.yml; an existing one is never overwritten).",
)
@click.option("--max-depth", type=click.IntRange(0, 64), default=MAX_DEPTH, show_default=True,
              help="How many folder levels below PATH are listed.")  # fmt: skip
@click.option("--max-folders", type=click.IntRange(1), default=MAX_FOLDERS, show_default=True,
              help="Stop after listing this many folders (and say so).")  # fmt: skip
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when a table no manifest covers is found.")
def command(
    prefix: str,
    output_format: str,
    write: str | None,
    max_depth: int,
    max_folders: int,
    detailed_exitcode: bool,
    storage_options: dict[str, Any],
    project_tables: dict[str, str],
) -> int:
    """Find the Hudi tables under PATH (a folder, or an s3://, gs://... prefix): every folder
    with .hoodie/hoodie.properties, never looking inside a table. With --project-dir, say which
    of them no manifest of the project covers (by path); --write FILE writes manifest entries
    for those (name, path, type and version; the project's defaults apply). A PATH inside a
    table's folder is refused. Reads only.

    \b
    Examples:
      maintainer discover /data/lake --project-dir .
      maintainer discover s3://lake/warehouse --project-dir . --write tables/discovered.yml
      maintainer discover s3://lake/raw --storage-option endpoint_override=http://127.0.0.1:8333
    """
    found = discover(prefix, storage_options, max_depth=max_depth, max_folders=max_folders)
    coverage = {t.uri: covering_table(t, project_tables, storage_options) for t in found.tables}
    uncovered = [t for t in found.tables if coverage[t.uri] is None]
    if output_format == "json":
        stdout.out(json.dumps(_json(found.tables, coverage, found.truncated), indent=2, sort_keys=True))
    else:
        _print(found.tables, coverage, bool(project_tables))
    if found.truncated:
        stdout.out(f"note: {literal(found.truncated)}", highlight=False)
    if write is not None and uncovered:
        _write(Path(write), manifest_text(uncovered, set(project_tables), prefix))
    line = f"{len(found.tables)} Hudi tables under {prefix} ({found.folders} folders listed)"
    if project_tables:
        line += f", {len(uncovered)} not in any manifest"
    if write is not None:
        line += f"; wrote {len(uncovered)} entries to {write}" if uncovered else "; nothing to write"
    summary(line + ".", tables=len(found.tables), uncovered=len(uncovered))
    return EXIT_UNCOVERED if detailed_exitcode and uncovered else EXIT_OK


def _json(
    tables: tuple[FoundTable, ...], coverage: dict[str, str | None], truncated: str | None
) -> dict[str, Any]:
    return {
        "tables": [
            {
                "path": t.uri,
                "relative": t.relative,
                "name": t.name,
                "table_type": t.table_type,
                "version": t.version,
                "problem": t.problem,
                "manifest_table": coverage[t.uri],
            }
            for t in tables
        ],
        "truncated": truncated,
    }


def _print(tables: tuple[FoundTable, ...], coverage: dict[str, str | None], with_project: bool) -> None:
    for table in tables:
        kind = f"{table.table_type} v{table.version}" if not table.problem else f"unreadable: {table.problem}"
        where = ""
        if with_project:
            name = coverage[table.uri]
            where = f"  manifest table {name}" if name else "  NOT IN ANY MANIFEST"
        stdout.out(
            f"{literal(table.uri)}  {literal(table.name or '-')}  {literal(kind)}{where}", highlight=False
        )


def _write(path: Path, text: str) -> None:
    if path.exists():
        raise MaintainerError(
            f"{path} exists; discover never overwrites a file",
            where=str(path),
            hint="give a new file name (e.g. tables/discovered.yml), or move the existing one away",
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise MaintainerError(
            f"cannot write {path}: {exc}", where=str(path), hint="check the folder is writable"
        ) from exc
