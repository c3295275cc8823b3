"""``maintainer show DIR``: render a saved plan (verified first: hash, version, payloads)."""

from __future__ import annotations

from pathlib import Path

import click

from maintainer.console import stdout
from maintainer.plan.artifact import read_plan
from maintainer.planning.render import render


@click.command("show")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text for the terminal, markdown for a pull-request comment, json for scripts.",
)
def command(directory: str, output_format: str) -> int:
    """Render the plan saved in DIRECTORY (checks it was not changed since it was made).

    \b
    Examples:
      maintainer show target/plan
      maintainer show target/plan --format markdown > comment.md
    """
    saved = read_plan(Path(directory))
    stdout.out(render(saved.plan, saved.plan_id, saved.payloads, output_format), highlight=False, end="")
    return 0
