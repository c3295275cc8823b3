"""``maintainer compile``: write target/manifest.json, the resolved specs and the graph.

The file is shaped like dbt's manifest.json (its JSON Schema is ``schemas/manifest_json.v1.json``):

- ``metadata``: ``maintainer_schema_version`` (the schema's URL), ``maintainer_version``,
  ``generated_at`` (UTC, ISO-8601 with ``Z``), ``invocation_id`` (a uuid4), ``project_name``,
  ``profile``, ``target``, ``threads`` and the manifest files read;
- ``nodes``: by ``unique_id`` (``table.<project>.<table>.<service>``), each selected node with
  its ``name``, ``table``, ``service``, ``tags``, ``original_file_path`` and ``depends_on.nodes``
  (the unique ids it waits for among the selected nodes);
- ``tables``: by name, each selected table's resolved ``spec``, the ``sources`` of its values and
  its ``checksum`` (``{name: sha256, checksum}``, see ``maintainer.graph.state``), which
  ``--state DIR`` compares for ``state:modified``;
- ``graph``: the selected graph as ``maintainer graph --format json`` prints it.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from maintainer import __version__
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.console import stdout
from maintainer.errors import MaintainerError
from maintainer.graph import NodeId, to_json
from maintainer.graph.state import checksum_entry
from maintainer.secrets import redact_tree

MANIFEST_JSON = "manifest.json"
MANIFEST_SCHEMA_FILE = "manifest_json.v1.json"
MANIFEST_SCHEMA_VERSION = "https://maintainer.dev/schemas/manifest_json/v1.json"
"""``metadata.maintainer_schema_version``: names schemas/manifest_json.v1.json (its ``$id``)."""


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


def compiled_manifest(loaded: LoadedProject) -> dict[str, Any]:
    project = loaded.project
    name = project.config.name
    names = sorted({node.table for node in loaded.selected})
    graph = loaded.selected_graph()
    return {
        "metadata": {
            "maintainer_schema_version": MANIFEST_SCHEMA_VERSION,
            "maintainer_version": __version__,
            "generated_at": datetime.now(timezone.utc)
            .isoformat(timespec="microseconds")
            .replace("+00:00", "Z"),
            "invocation_id": str(uuid.uuid4()),
            "project_name": name,
            "project": name,
            "profile": project.target.profile,
            "target": project.target.name,
            "threads": loaded.threads,
            "manifests": list(project.manifests),
        },
        "nodes": {
            unique_id(name, node): {
                "unique_id": unique_id(name, node),
                "name": str(node),
                "table": node.table,
                "service": node.service,
                "block": graph.nodes[node]["block"],
                "mor_only": graph.nodes[node]["mor_only"],
                "tags": list(graph.nodes[node]["tags"]),
                "original_file_path": graph.nodes[node]["manifest"],
                "depends_on": {"nodes": sorted(unique_id(name, up) for up in graph.predecessors(node))},
            }
            for node in loaded.selected_order()
        },
        "tables": {
            table: {
                "spec": project.table(table).model_dump(mode="json"),
                "sources": project.sources(table),
                "checksum": checksum_entry(project.table(table)),
            }
            for table in names
        },
        "graph": to_json(graph),
    }


def write_compiled(loaded: LoadedProject, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        manifest = redact_tree(compiled_manifest(loaded))
        path.write_text(json.dumps(manifest, sort_keys=True) + "\n", encoding="utf-8")
    except OSError as exc:
        raise MaintainerError(
            f"cannot write {path}: {exc}",
            where=str(path),
            hint="check the folder exists and is writable, or pass --output",
        ) from exc
