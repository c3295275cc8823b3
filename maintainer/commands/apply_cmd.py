"""``maintainer apply [DIR]``: carry out a reviewed plan on Spark, never more than the plan.

``--auto-approve`` plans the selected nodes and applies that plan in one go (for schedulers).
What happened to each node goes to the terminal and to ``<target_path>/run_results.json``.
"""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from maintainer.artifact.directory import PLAN_KEY_ENV, PLAN_KEY_FILE_ENV, SavedPlan, plan_key, read_plan
from maintainer.artifact.model import NodeStatus
from maintainer.clock import utc_now
from maintainer.commands import apply_health
from maintainer.commands.console_log import log_event
from maintainer.commands.interrupts import Interrupts
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.commands.plan_cmd import PLAN_DIR, make_plan, save
from maintainer.commands.progress import NodeProgress
from maintainer.commands.provenance import check_state, keep_applied_state, review_context
from maintainer.console import summary
from maintainer.diagnostics.checks import CheckStatus
from maintainer.diagnostics.spark_checks import check_spark_premises
from maintainer.errors import ApplyError, ManifestError, PlanAlreadyAppliedError, StorageError, UsageError
from maintainer.graph import NodeId
from maintainer.health.records import TableHealth
from maintainer.logs import fields, get_logger
from maintainer.planning.stricter import Recheck
from maintainer.runner.apply import PlanRunner, apply_plan, preflight, refuse_other_target
from maintainer.runner.engine import runs_on_spark
from maintainer.runner.results import RunResults, write_run_results
from maintainer.runner.spark import LazySpark
from maintainer.runner.summary import closing_line
from maintainer.spark.session import create_session, project_spark_log

EXIT_OK, EXIT_FAILURE, EXIT_DRIFT, EXIT_BLOCKED = 0, 1, 2, 3
log = get_logger(__name__)

CI_ENV = "CI"
"""Set (to anything but false/0) by GitHub Actions, GitLab CI and most CI systems."""
UNVERIFIED_CLOSING = "it is signed, and its signature was not checked (no plan key, --allow-unverified)"


def _plan_now(loaded: LoadedProject, options: CommonOptions) -> Path:
    now = utc_now()
    review = review_context(loaded, options, now)
    built = make_plan(loaded, now)
    directory = loaded.project.target_dir / PLAN_DIR
    save(built, directory, loaded, review)
    log.info(
        f"planned {directory} (plan {built.plan_id[:12]}), applying it (--auto-approve)",
        extra=fields(plan_id=built.plan_id, event="planned"),
    )
    for message in built.errors:
        log.error(message, extra=fields(plan_id=built.plan_id, event="plan_error"))
    return directory


def spark_factory(loaded: LoadedProject) -> Callable[[], Any]:
    """Starts the session on first use, saying so (a JVM takes seconds); the JVM's console
    output goes to ``<target_path>/logs/spark.log``, not among maintainer's lines."""
    settings = loaded.project.target.settings.spark
    spark_log = project_spark_log(loaded.project.target_dir)

    def start() -> Any:
        where = settings.remote or settings.master or "local[*]"
        log_event(
            log,
            "spark_start",
            f"starting Spark ({escape(where)}); its console output: {escape(str(spark_log))}",
            spark=where,
            log=str(spark_log),
        )
        began = time.monotonic()
        session = create_session(settings, log_path=spark_log)
        log_event(
            log,
            "spark_ready",
            f"Spark ready in {time.monotonic() - began:.1f}s",
            seconds=time.monotonic() - began,
        )
        return session

    return start


def run(
    saved: SavedPlan,
    loaded: LoadedProject,
    fail_fast: bool,
    refuse_stale: bool = False,
    interrupts: Interrupts | None = None,
) -> RunResults:
    """Apply the plan; a signal while its nodes run is handled by ``interrupts`` (see
    :mod:`maintainer.commands.interrupts`)."""
    project = loaded.project
    settings = project.target.settings
    spark = LazySpark(spark_factory(loaded))
    interrupts = interrupts or Interrupts()
    runner = PlanRunner(
        saved, project.tables_by_name, spark, settings.storage_options,
        engine=settings.engine, refuse_stale=refuse_stale, recheck=Recheck(settings.storage_options),
    )  # fmt: skip
    refuse_other_target(saved, project.config.name, project.target.name)
    for warning in saved.warnings:
        log.warning(warning, extra=fields(plan_id=saved.plan_id, event="plan_warning"))
    done = preflight(saved, runner)  # before Spark starts and before any node runs
    check_spark_ready(saved, loaded, done)
    if done:
        names = ", ".join(str(node) for node in sorted(done))
        log.info(
            f"resuming plan {saved.plan_id[:12]}: already applied, skipped: {names}",
            extra=fields(plan_id=saved.plan_id, event="resuming"),
        )
    total = len(saved.plan.nodes())
    if any(node.status is NodeStatus.CHANGES for node in saved.plan.nodes()):
        log.info(
            f"applying plan {saved.plan_id[:12]}: {total} node(s), {loaded.threads} thread(s)",
            extra=fields(plan_id=saved.plan_id, event="applying", nodes=total, threads=loaded.threads),
        )
    with NodeProgress(total).shown() as progress:
        interrupts.running, interrupts.cancel_jobs = progress.running, spark.cancel_jobs
        with interrupts.installed():
            return apply_plan(saved, loaded.graph, runner, threads=loaded.threads, fail_fast=fail_fast,
                              events=progress, checked=True, cancel=interrupts.cancel)  # fmt: skip


def on_plan_target(loaded: LoadedProject, options: CommonOptions, saved: SavedPlan) -> LoadedProject:
    """The project on the target the plan was made for, when ``--target`` was not given (a
    ``--target`` given and different is refused when the plan runs, see ``refuse_other_target``)."""
    planned = saved.plan.target
    if options.target is not None or planned == loaded.project.target.name:
        return loaded
    default = loaded.project.target.name
    try:
        on_planned = load_from_options(dataclasses.replace(options, target=planned))
    except ManifestError as error:
        raise ManifestError(
            f"the plan was made for target {planned!r} (the profile's default is {default!r}), "
            f"which cannot be loaded: {error.message}",
            where=error.where,
            hint=error.hint or "apply with --target naming the plan's target, or make the plan again",
        ) from error
    log.info(
        f"target {planned}: the plan's (the profile's default is {default})",
        extra=fields(plan_id=saved.plan_id, event="target"),
    )
    return on_planned


def spark_nodes(saved: SavedPlan, engine: str, done: Collection[NodeId] = ()) -> list[NodeId]:
    """The nodes left to run that will run on Spark (changes, not applied already)."""
    return [
        NodeId(node.table, node.service)
        for node in saved.plan.nodes()
        if node.status is NodeStatus.CHANGES
        and NodeId(node.table, node.service) not in done
        and runs_on_spark(node, engine)
    ]


def check_spark_ready(saved: SavedPlan, loaded: LoadedProject, done: Collection[NodeId] = ()) -> None:
    """Before the first node: when any node left will run on Spark, what a session needs (the
    JDK, or the Connect server) is there; else ApplyError, and no node has run (a rollback
    done and the compaction after it failing for want of a JVM would leave the run half done)."""
    target = loaded.project.target
    needing = spark_nodes(saved, target.settings.engine, done)
    if not needing:
        return
    failures = [r for r in check_spark_premises(target.settings) if r.status is CheckStatus.FAILED]
    if failures:
        names = ", ".join(str(node) for node in sorted(needing))
        found = "; ".join(f"{result.name}: {result.detail}" for result in failures)
        raise ApplyError(
            f"the plan has work that runs on Spark ({names}) and Spark cannot start here: {found}; "
            "nothing was applied",
            where=f"target {target.name}",
            hint=failures[0].fix,
        )


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
@click.option(
    "--detailed-exitcode",
    is_flag=True,
    help="Exit 3 when a node was blocked (a gate, a reader, an unreadable table, a stricter "
    "manifest): its table was left unmaintained. On in CI with --auto-approve.",
)
@click.option(
    "--allow-blocked",
    is_flag=True,
    help="Blocked nodes do not make the exit code 3 (they are still listed in the closing line).",
)
@click.option(
    "--allow-unverified",
    is_flag=True,
    help="Apply a signed plan although no key is configured to verify its signature "
    f"(${PLAN_KEY_ENV} or ${PLAN_KEY_FILE_ENV} unset or empty): only its plan id is checked, which "
    "anyone who can edit the plan recomputes. Refused without this flag; the closing line says so.",
)
def command(
    options: CommonOptions,
    directory: str | None,
    fail_fast: bool,
    auto_approve: bool,
    refuse_stale: bool | None,
    allow_drift: bool,
    detailed_exitcode: bool,
    allow_blocked: bool,
    allow_unverified: bool,
) -> int:
    """Carry out the plan saved in DIRECTORY (default: <target_path>/plan): checks it was not
    changed and not applied yet, then runs its nodes (each table under a lock) and deletes only
    what the plan approved and is still safe to delete now; the rest is drift, each item with
    the instant or file that made it invalid. It runs on the target the plan was made for
    (``--target`` given and different: refused). Before the first node it checks what the whole
    run needs: every table's lock free, and the JDK (or the Connect server) when a node runs on
    Spark; a run that cannot finish changes nothing.

    \b
    Exit codes (the same table as plan's; the highest that applies wins: 1, then 3, then 2):
      0  everything approved was done (a plan applied already: nothing to do)
      1  an error: a node failed, or the plan was refused (tampered, stale, other target)
      2  approved work was skipped as drift (--allow-drift makes this 0)
      3  a node was blocked and its table left unmaintained (with --detailed-exitcode, and in
         CI with --auto-approve; --allow-blocked makes this 0)
      130, 143  interrupted by SIGINT (Ctrl-C) or SIGTERM (a cancelled CI job) before every node
         ran (over any other code): the running nodes finished, no new node started, the rest
         are "cancelled" in run_results.json; apply the same plan again to resume. A second
         signal stops the running nodes at their next safe point.

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
    if auto_approve:
        check_state(loaded.project)  # before any table is touched
        plan_dir = _plan_now(loaded, options)
        saved = read_plan(plan_dir, plan_key(), allow_unverified=allow_unverified)
    else:
        plan_dir = Path(directory or loaded.project.target_dir / PLAN_DIR)
        saved = read_plan(plan_dir, plan_key(), allow_unverified=allow_unverified)
        loaded = on_plan_target(loaded, options, saved)
        check_state(loaded.project)  # before any table is touched
    refuse = stale_refused(refuse_stale, allow_drift)
    interrupts = Interrupts()
    before = apply_health.measure(loaded, apply_health.changed_tables(saved))
    try:
        results = run(saved, loaded, fail_fast, refuse, interrupts)
    except PlanAlreadyAppliedError as done:
        summary(f"Nothing to do: {done.message}.", status="success", plan_id=saved.plan_id)
        return EXIT_OK
    args = {
        "which": "apply",
        "plan_dir": str(plan_dir),
        "auto_approve": auto_approve,
        "select": list(options.select),
        "exclude": list(options.exclude),
        "target": loaded.project.target.name,
        "threads": loaded.threads,
        "fail_fast": fail_fast,
        "refuse_stale": refuse,
        "allow_drift": allow_drift,
        "allow_unverified": allow_unverified,
    }
    report(loaded, saved, plan_dir, results, args, before)
    if results.cancelled and interrupts.exit_code is not None:
        return interrupts.exit_code
    blocked_fails = (detailed_exitcode or (auto_approve and in_ci())) and not allow_blocked
    return exit_code(results, allow_drift, blocked_fails)


def report(
    loaded: LoadedProject,
    saved: SavedPlan,
    plan_dir: Path,
    results: RunResults,
    args: dict[str, Any],
    before: Mapping[str, TableHealth],
) -> None:
    """run_results.json; the state (the run recorded, and the tables no failed node belongs to
    kept as last applied: a state that cannot be kept is an error); what the apply changed in
    each table's figures (recorded in the health history); the closing line."""
    project = loaded.project
    invocation_id = str(uuid.uuid4())
    path = write_run_results(
        project.target_dir, results, project=project.config.name, args=args, invocation_id=invocation_id
    )
    log.info(f"results in {path}", extra=fields(plan_id=saved.plan_id, event="results", path=str(path)))
    try:
        written = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read back the run results: {exc}", where=str(path)) from exc
    kept = keep_applied_state(project, plan_dir, results, written, invocation_id)
    log_event(log, "state_kept", escape(kept), plan_id=saved.plan_id, state=project.state_location)
    apply_health.record(loaded, results, invocation_id, before)
    line = closing_line(results, f"maintainer apply {plan_dir}")
    if saved.unverified:
        line += f" The plan was applied unverified: {UNVERIFIED_CLOSING}."
    summary(line, status=results.status, drift=sum(len(n.drift) for n in results.nodes),
            unverified=saved.unverified)  # fmt: skip


def in_ci() -> bool:
    """``$CI`` set (to anything but false/0/no)."""
    return os.environ.get(CI_ENV, "").strip().lower() not in ("", "0", "false", "no")


def stale_refused(refuse_stale: bool | None, allow_drift: bool) -> bool:
    """``--refuse-stale`` as given, else on in CI unless drift is allowed."""
    if refuse_stale is not None:
        return refuse_stale
    return not allow_drift and in_ci()


def exit_code(results: RunResults, allow_drift: bool, blocked_fails: bool = False) -> int:
    """1 for a failed node, else 3 for a blocked one (when ``blocked_fails``), else 2 for drift
    (unless ``allow_drift``), else 0: work left undone is never hidden behind a lesser code."""
    if results.failed:
        return EXIT_FAILURE
    if blocked_fails and results.blocked:
        return EXIT_BLOCKED
    if any(node.drift for node in results.nodes) and not allow_drift:
        return EXIT_DRIFT
    return EXIT_OK
