"""``maintainer compile``: write target/manifest.json, the resolved specs and the graph.

The file is a :class:`~maintainer.graph.manifest.CompiledManifest` (shaped like dbt's
manifest.json; its fields are described there and its JSON Schema, generated from it, is
``schemas/manifest_json.v1.json``): metadata, nodes by unique_id, tables by name (resolved spec,
sources, checksum for ``--state``) and the graph.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from pathlib import Path

import click
import networkx as nx
from rich.markup import escape

from maintainer import __version__
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.console import stdout
from maintainer.errors import MaintainerError
from maintainer.graph import NodeId
from maintainer.graph.formats import graph_record
from maintainer.graph.manifest import (
    MANIFEST_JSON,
    MANIFEST_SCHEMA_VERSION,
    CompiledManifest,
    DependsOn,
    ManifestMetadata,
    ManifestNode,
    ManifestTable,
    dump_record,
    manifest_text,
)
from maintainer.graph.state import checksum_entry
from maintainer.project.loader import Project
from maintainer.secrets import redact_tree


@click.command("compile")
@common_options()
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Where to write (default: <target_path>/manifest.json in the project).",
)
def command(options: CommonOptions, output: str | None) -> int:
    """Resolve every selected table (inheritance, templates, Hudi defaults) and write
    target/manifest.json (dbt-shaped: metadata, nodes, tables): each option's value, where it
    came from and a checksum per table, and the graph. Reads no table. Keep it to select what
    changed later: `maintainer plan --select state:modified --state DIR`.
    """
    loaded = load_from_options(options)
    path = Path(output) if output else loaded.project.target_dir / MANIFEST_JSON
    write_compiled(loaded, path)
    tables = len({node.table for node in loaded.selected})
    stdout.print(f"wrote {escape(str(path))} ({tables} table(s), {len(loaded.selected)} node(s))")
    return 0


def unique_id(project_name: str, node: NodeId) -> str:
    return f"table.{project_name}.{node.table}.{node.service}"


def compiled_manifest(loaded: LoadedProject) -> CompiledManifest:
    project = loaded.project
    name = project.config.name
    graph = loaded.selected_graph()
    return CompiledManifest(
        metadata=ManifestMetadata(
            maintainer_schema_version=MANIFEST_SCHEMA_VERSION,
            maintainer_version=__version__,
            generated_at=datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z"),
            invocation_id=str(uuid.uuid4()),
            project_name=name,
            project=name,
            profile=project.target.profile,
            target=project.target.name,
            threads=loaded.threads,
            manifests=tuple(project.manifests),
        ),
        nodes={unique_id(name, node): _node(name, graph, node) for node in loaded.selected_order()},
        tables={table: _table(project, table) for table in sorted({node.table for node in loaded.selected})},
        graph=graph_record(graph),
    )


def _node(project_name: str, graph: nx.DiGraph, node: NodeId) -> ManifestNode:
    attributes = graph.nodes[node]
    return ManifestNode(
        unique_id=unique_id(project_name, node),
        name=str(node),
        table=node.table,
        service=node.service,
        block=attributes["block"],
        mor_only=attributes["mor_only"],
        tags=tuple(attributes["tags"]),
        original_file_path=attributes["manifest"],
        depends_on=DependsOn(tuple(sorted(unique_id(project_name, up) for up in graph.predecessors(node)))),
    )


def _table(project: Project, table: str) -> ManifestTable:
    spec = project.table(table)
    return ManifestTable(spec.as_json(), project.sources(table), checksum_entry(spec))


def write_compiled(loaded: LoadedProject, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        manifest = redact_tree(dump_record(compiled_manifest(loaded)))
        path.write_text(manifest_text(manifest), encoding="utf-8")
    except OSError as exc:
        raise MaintainerError(
            f"cannot write {path}: {exc}",
            where=str(path),
            hint="check the folder exists and is writable, or pass --output",
        ) from exc
