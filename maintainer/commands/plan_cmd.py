"""``maintainer plan``: read the selected tables and write the reviewable plan directory.

Never starts a JVM and never writes into a table: it lists partitions (only those a service
needs: incremental where Hudi would be), runs each service's pure planner and writes
plan.json, plan.md and the Avro payloads apply will write.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import click

from maintainer import __version__
from maintainer.artifact.directory import plan_key, write_plan
from maintainer.artifact.model import NodeStatus
from maintainer.clock import utc_now
from maintainer.commands.compile_cmd import write_compiled
from maintainer.commands.options import (
    BYTE_SIZE,
    CommonOptions,
    LoadedProject,
    common_options,
    load_from_options,
)
from maintainer.commands.progress import TableProgress
from maintainer.commands.provenance import MANIFEST_FILE, review_context
from maintainer.console import settings, stdout, summary
from maintainer.errors import MaintainerError
from maintainer.logs import fields, get_logger
from maintainer.planning.builder import BuiltPlan, build_plan
from maintainer.planning.review_context import ReviewContext
from maintainer.planning.terminal import render_markdown, render_text, summary_line
from maintainer.units import count

log = get_logger(__name__)

PLAN_DIR = "plan"


EXIT_OK, EXIT_FAILURE, EXIT_CHANGES, EXIT_BLOCKED = 0, 1, 2, 3


def make_plan(loaded: LoadedProject, now: datetime, budget_bytes: int | None = None) -> BuiltPlan:
    """Plan the selected nodes, reporting the tables read (a bar at a terminal, lines in a log).
    ``budget_bytes``: the fleet's compaction budget (default: the project's ``budget:``)."""
    project = loaded.project
    budget = project.config.budget
    if budget_bytes is None and budget is not None:
        budget_bytes = budget.compaction_bytes
    requests = loaded.table_requests()
    with TableProgress(len(requests)).shown() as done:
        return build_plan(
            project.config.name,
            project.target.name,
            requests,
            project.target.settings.storage_options,
            now,
            threads=loaded.threads,
            on_table_done=done,
            budget=budget_bytes,
        )


def save(built: BuiltPlan, directory: Path, loaded: LoadedProject, review: ReviewContext) -> None:
    """Write the plan directory, signed when a plan key is set (the key itself goes nowhere):
    plan.json, plan.md, the payloads, plan_meta.json (with the review context) and the
    manifest.json of the planned tables (apply keeps it as the last applied state)."""
    key = plan_key()
    meta = {
        "maintainer_version": __version__,
        "format": "maintainer plan directory",
        "signed": key is not None,
        **review.to_json(),
    }
    markdown = render_markdown(built.plan, built.plan_id, review)
    try:
        write_plan(
            directory, built.plan, built.payloads, markdown, meta, key, body=built.body, plan_id=built.plan_id
        )
        write_compiled(loaded, directory / MANIFEST_FILE)
    except OSError as exc:
        raise MaintainerError(
            f"cannot write the plan to {directory}: {exc}",
            where=str(directory),
            hint="check the folder is writable, or pass --out",
        ) from exc


def plan_fields(built: BuiltPlan, review: ReviewContext) -> dict[str, object]:
    """The plan in figures, for ``--log-format json``; ``maintenance_changes``: the tables whose
    maintenance the manifest changes since the baseline alter, by most severe kind."""
    statuses = Counter(node.status.value for node in built.plan.nodes())
    maintenance = {kind.value: n for kind, n in review.maintenance.items()}
    return {
        "plan_id": built.plan_id,
        "nodes": dict(statuses),
        "errors": len(built.errors),
        "maintenance_changes": maintenance,
    }


@click.command("plan")
@common_options()
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="The plan directory to write (default: <target_path>/plan in the project).",
)
@click.option(
    "--detailed-exitcode",
    is_flag=True,
    help="Exit 0 when there is nothing to do, 2 when the plan has changes or the manifest "
    "changes since the last applied state alter maintenance (destructive or rewrite, even when "
    "no file is touched today), 3 when a node is blocked (nothing hides held-back work: blocked "
    "wins over changes), 1 on error. A table that cannot be read exits 3 with or without this flag.",
)
@click.option(
    "--budget-bytes",
    "budget_bytes",
    type=BYTE_SIZE,
    metavar="SIZE",
    help="The fleet's compaction budget for this plan (bytes read, e.g. 200GiB): the file slices "
    "worth most per byte read go first, the rest are deferred and listed (overrides the "
    "project's budget: compaction_bytes).",
)
@click.option(
    "--verbose",
    is_flag=True,
    help="Print every table in full, every file and every table a manifest change applies to "
    "(without it, a large plan is summarised: plan.json and plan_meta.json have everything).",
)
def command(
    options: CommonOptions, out: str | None, detailed_exitcode: bool, budget_bytes: int | None, verbose: bool
) -> int:
    """Read the selected tables and write what maintenance would do, without changing anything:
    plan.json (hashed), plan.md (for review) and the Hudi payloads apply will write. A table that
    cannot be read (missing, damaged, unsupported, unreachable) blocks only its own nodes: the
    plan of the others is written all the same.

    \b
    Exit codes (the same table as apply's):
      0  written; nothing to do (or, without --detailed-exitcode, any plan)
      1  an error of the run itself (bad project, bad arguments): no plan written
      2  with --detailed-exitcode: the plan has changes, or the manifests changed what
         maintenance does since the last applied state (a lower retention, compaction settings)
      3  a table could not be read (always), or a node is blocked (with --detailed-exitcode)

    \b
    Examples:
      maintainer plan
      maintainer plan --select tag:nightly --out target/plan --detailed-exitcode
    """
    loaded = load_from_options(options)
    directory = Path(out) if out else loaded.project.target_dir / PLAN_DIR
    now = utc_now()
    review = review_context(loaded, options, now)
    built = make_plan(loaded, now, budget_bytes)
    save(built, directory, loaded, review)
    if settings.json or settings.quiet:  # the closing line alone, and each table's error
        why = f"see why in {directory / 'plan.md'}"
        headline = summary_line(built.plan, why, maintenance=review.maintenance_line())
        line = f"{headline} Written to {directory} (plan {built.plan_id[:12]})."
        summary(line, plan_dir=str(directory), **plan_fields(built, review))
        for message in built.errors:
            log.error(message, extra=fields(plan_id=built.plan_id, event="plan_error"))
    else:  # the text names each table's error already: said once
        text = render_text(built.plan, built.plan_id, review, verbose=verbose)
        stdout.out(text, highlight=False, end="")
        log.info(f"wrote {directory}", extra=fields(plan_id=built.plan_id, event="plan_written"))
        if built.errors:
            failed = count(len(built.errors), "table")
            log.error(
                f"{failed} could not be planned, every node blocked (why above)",
                extra=fields(plan_id=built.plan_id, event="plan_error"),
            )
    if built.errors:  # tables that could not be read: their nodes are blocked, the rest is planned
        return EXIT_BLOCKED
    if detailed_exitcode and any(node.status is NodeStatus.BLOCKED for node in built.plan.nodes()):
        return EXIT_BLOCKED
    if detailed_exitcode and (built.plan.has_changes or review.alters_maintenance):
        return EXIT_CHANGES
    return EXIT_OK
