"""``maintainer compile``: write target/manifest.json, the resolved specs and the graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from maintainer import __version__
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.console import stdout
from maintainer.errors import MaintainerError
from maintainer.graph import to_json

MANIFEST_JSON = "manifest.json"


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
    target/manifest.json: each option's value and where it came from, and the graph.
    Reads no table.
    """
    loaded = load_from_options(options)
    path = Path(output) if output else loaded.project.target_dir / MANIFEST_JSON
    write_compiled(loaded, path)
    tables = len({node.table for node in loaded.selected})
    stdout.print(f"wrote {escape(str(path))} ({tables} table(s), {len(loaded.selected)} node(s))")
    return 0


def compiled_manifest(loaded: LoadedProject) -> dict[str, Any]:
    project = loaded.project
    names = sorted({node.table for node in loaded.selected})
    return {
        "metadata": {
            "maintainer_version": __version__,
            "project": project.config.name,
            "profile": project.target.profile,
            "target": project.target.name,
            "threads": loaded.threads,
            "manifests": list(project.manifests),
        },
        "tables": {
            name: {
                "spec": project.table(name).model_dump(mode="json"),
                "sources": project.sources(name),
            }
            for name in names
        },
        "graph": to_json(loaded.selected_graph()),
    }


def write_compiled(loaded: LoadedProject, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(compiled_manifest(loaded), sort_keys=True) + "\n", encoding="utf-8")
    except OSError as exc:
        raise MaintainerError(
            f"cannot write {path}: {exc}",
            where=str(path),
            hint="check the folder exists and is writable, or pass --output",
        ) from exc
