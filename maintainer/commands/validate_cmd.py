"""``maintainer validate``: parse, render and validate the project; reads no table."""

from __future__ import annotations

import click

from maintainer.commands.options import CommonOptions, common_options, load_from_options
from maintainer.console import summary


@click.command("validate")
@common_options(selection=False)
def command(options: CommonOptions) -> int:
    """Check the project file, the profile and every manifest: YAML, templates, options, Hudi's
    rules between options, table names, depends_on and cycles. Reads no table.

    \b
    Errors give file:line:column and a hint; the exit code is 1 when anything is invalid.
    """
    loaded = load_from_options(options)
    project = loaded.project
    summary(
        f"ok: project '{project.config.name}' (target {project.target.name}): "
        f"{len(project.tables)} table(s) in {len(project.manifests)} manifest(s), {len(loaded.graph)} node(s)"
    )
    return 0
