"""``maintainer apply [DIR]``: carry out a reviewed plan on Spark, never more than the plan.

``--auto-approve`` plans the selected nodes and applies that plan in one go (for schedulers).
What happened to each node goes to the terminal and to ``<target_path>/run_results.json``.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from maintainer.clock import utc_now
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.commands.plan_cmd import PLAN_DIR, make_plan, save
from maintainer.commands.review import keep_last_applied, review_context
from maintainer.console import print_error, print_warning, stderr, stdout
from maintainer.errors import UsageError
from maintainer.graph import NodeId
from maintainer.plan.artifact import SavedPlan, plan_key, read_plan
from maintainer.plan.model import NodeStatus
from maintainer.runner.apply import PlanRunner, apply_plan, preflight, refuse_other_target
from maintainer.runner.results import NodeResult, NodeRunStatus, RunResults, write_run_results
from maintainer.runner.spark import LazySpark
from maintainer.runner.summary import closing_line
from maintainer.spark.session import create_session

EXIT_OK, EXIT_FAILURE, EXIT_DRIFT = 0, 1, 2
CI_ENV = "CI"
"""Set (to anything but false/0) by GitHub Actions, GitLab CI and most CI systems."""
_STYLE = {
    NodeRunStatus.SUCCESS: "[green]OK[/green]",
    NodeRunStatus.ERROR: "[bold red]ERROR[/bold red]",
    NodeRunStatus.SKIPPED: "[yellow]SKIP[/yellow]",
}


def _plan_now(loaded: LoadedProject, options: CommonOptions) -> Path:
    now = utc_now()
    review = review_context(loaded, options, now)
    built = make_plan(loaded, now)
    directory = loaded.project.target_dir / PLAN_DIR
    save(built, directory, loaded, review)
    stdout.print(
        f"planned {escape(str(directory))} (plan {built.plan_id[:12]}), applying it (--auto-approve)"
    )
    for message in built.errors:
        print_error(message)
    return directory


def print_node(result: NodeResult) -> None:
    timing = f"[dim]({result.timing_s:.1f}s)[/dim]"
    stdout.print(f"{_STYLE[result.status]} {escape(result.id)} {timing} {escape(result.message)}")
    for drift in result.drift:
        stdout.print(f"    [yellow]drift[/yellow] {escape(drift.path)}: {escape(drift.reason)}")


def run(saved: SavedPlan, loaded: LoadedProject, fail_fast: bool, refuse_stale: bool = False) -> RunResults:
    project = loaded.project
    spark = LazySpark(lambda: create_session(project.target.settings.spark))
    settings = project.target.settings
    runner = PlanRunner(
        saved, project.tables_by_name, spark, settings.storage_options, engine=settings.engine,
        refuse_stale=refuse_stale,
    )  # fmt: skip
    refuse_other_target(saved, project.config.name, project.target.name)
    for warning in saved.warnings:
        print_warning(warning)
    done = preflight(saved, runner)  # before Spark starts and before any node runs
    if done:
        names = ", ".join(str(node) for node in sorted(done))
        stdout.print(f"resuming plan {saved.plan_id[:12]}: already applied, skipped: {escape(names)}")
    total = len(saved.plan.nodes())
    with Progress(
        TextColumn("applying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.description}"), console=stderr, transient=True,
    ) as progress:  # fmt: skip
        task = progress.add_task("", total=total)
        running: set[str] = set()

        def on_event(event: str, node: NodeId, result: NodeResult | None) -> None:
            if event == "start":
                running.add(str(node))
            else:
                running.discard(str(node))
                progress.advance(task)
                if result is not None:
                    print_node(result)
            progress.update(task, description=escape(", ".join(sorted(running))))

        if any(node.status is NodeStatus.CHANGES for node in saved.plan.nodes()):
            stdout.print(f"applying plan {saved.plan_id[:12]}: {total} node(s), {loaded.threads} thread(s)")
        return apply_plan(saved, loaded.graph, runner, threads=loaded.threads, fail_fast=fail_fast,
                          events=on_event, checked=True)  # fmt: skip


@click.command("apply")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@common_options()
@click.option("--fail-fast", is_flag=True, help="Start no new node after the first failure.")
@click.option("--auto-approve", is_flag=True, help="Plan the selected nodes and apply that plan at once.")
@click.option(
    "--refuse-stale/--no-refuse-stale",
    default=None,
    help="A table the plan changes moved since the plan was made: refuse the whole plan before "
    'anything starts (no JVM, no lock, no write), as Terraform\'s "Saved plan is stale". '
    f"Default: on in CI (${CI_ENV} set), off elsewhere and with --allow-drift.",
)
@click.option(
    "--allow-drift",
    is_flag=True,
    help="Approved work a node had to skip as drift (no longer valid on the table) does not fail "
    "the run: exit 0, not 2. Without --refuse-stale, a stale plan is also applied.",
)
def command(
    options: CommonOptions,
    directory: str | None,
    fail_fast: bool,
    auto_approve: bool,
    refuse_stale: bool | None,
    allow_drift: bool,
) -> int:
    """Carry out the plan saved in DIRECTORY (default: <target_path>/plan): checks it was not
    changed and not applied yet, then runs its nodes (each table under a lock) and deletes only
    what the plan approved and is still safe to delete now; the rest is drift, each item with
    the instant or file that made it invalid.

    \b
    Exit codes:
      0  everything approved was done (or skipped as drift with --allow-drift)
      1  an error: a node failed, or the plan was refused (tampered, stale, applied already)
      2  approved work was skipped as drift (--allow-drift makes this 0)

    \b
    Examples:
      maintainer apply                       # the plan in target/plan
      maintainer apply target/plan --refuse-stale --fail-fast --threads 8
      maintainer apply --auto-approve --select tag:nightly
    """
    if directory and auto_approve:
        raise UsageError("give a plan DIRECTORY or --auto-approve, not both")
    if (options.select or options.exclude) and not auto_approve:
        raise UsageError(
            "--select/--exclude choose what to plan: use them with `maintainer plan` or --auto-approve",
            hint="a saved plan is applied whole, as reviewed",
        )
    loaded = load_from_options(options)
    plan_dir = (
        _plan_now(loaded, options)
        if auto_approve
        else Path(directory or loaded.project.target_dir / PLAN_DIR)
    )
    saved = read_plan(plan_dir, plan_key())
    results = run(saved, loaded, fail_fast, stale_refused(refuse_stale, allow_drift))
    path = write_run_results(loaded.project.target_dir, results)
    if not results.failed:
        keep_last_applied(loaded.project.target_dir, plan_dir, saved.plan_id, results.finished_at)
    stdout.print(escape(closing_line(results)))
    stdout.print(f"results in {escape(str(path))}")
    return exit_code(results, allow_drift)


def stale_refused(refuse_stale: bool | None, allow_drift: bool) -> bool:
    """``--refuse-stale`` as given, else on in CI unless drift is allowed."""
    if refuse_stale is not None:
        return refuse_stale
    return not allow_drift and os.environ.get(CI_ENV, "").strip().lower() not in ("", "0", "false", "no")


def exit_code(results: RunResults, allow_drift: bool) -> int:
    if results.failed:
        return EXIT_FAILURE
    if any(node.drift for node in results.nodes) and not allow_drift:
        return EXIT_DRIFT
    return EXIT_OK
