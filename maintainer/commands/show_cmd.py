"""``maintainer show [DIR]``: render a saved plan (verified first: hash, version, payloads, and
the signature when a plan key is configured; a signed plan shown without one is said unverified)."""

from __future__ import annotations

from pathlib import Path

import click

from maintainer.artifact.directory import plan_key, read_meta, read_plan
from maintainer.console import print_warning, stdout
from maintainer.planning.review_context import ReviewContext
from maintainer.planning.terminal import render

DEFAULT_PLAN_DIR = "target/plan"
"""Where ``maintainer plan`` writes by default (run from the project folder)."""


@click.command("show")
@click.argument("directory", default=DEFAULT_PLAN_DIR, type=click.Path(file_okay=False))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text for the terminal, markdown for a pull-request comment, json for scripts.",
)
@click.option(
    "--verbose",
    is_flag=True,
    help="text: every table in full, every file and every table a manifest change applies to.",
)
def command(directory: str, output_format: str, verbose: bool) -> int:
    """Render the plan saved in DIRECTORY (default: target/plan, where `maintainer plan` writes
    it in the project folder); checks it was not changed since it was made.

    \b
    Examples:
      maintainer show
      maintainer show target/plan --format markdown > comment.md
    """
    saved = read_plan(Path(directory), plan_key(), allow_unverified=True, allow_unsigned=True)  # shown only
    for warning in saved.warnings:
        print_warning(warning)
    review = ReviewContext.from_json(read_meta(Path(directory)))
    text = render(saved.plan, saved.plan_id, saved.payloads, output_format, review, verbose=verbose)
    stdout.out(text, highlight=False, end="")
    return 0
