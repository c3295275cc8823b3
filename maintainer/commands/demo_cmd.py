"""``maintainer demo [DIR]``: the whole story on one machine, on generated Hudi tables."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import click
from rich.markup import escape

from maintainer.artifact.directory import plan_key, read_plan
from maintainer.clock import utc_now
from maintainer.commands.apply_cmd import run as run_plan
from maintainer.commands.init_cmd import create_project
from maintainer.commands.options import CommonOptions, LoadedProject, load_from_options
from maintainer.commands.plan_cmd import PLAN_DIR, make_plan, save
from maintainer.commands.provenance import review_context
from maintainer.console import stdout
from maintainer.datagen.generator import DatagenSpec, GeneratedTable, generate, write_expected
from maintainer.datagen.workload import DATA_SCHEMA, WorkloadSpec
from maintainer.errors import UsageError
from maintainer.hudi.records.reader import read_table
from maintainer.hudi.table.state import open_table
from maintainer.planning.terminal import render_markdown
from maintainer.runner.apply import executor_for
from maintainer.runner.results import write_run_results
from maintainer.spark.session import create_session, project_spark_log
from maintainer.spark.tasks import SparkRunner

MARKER_FILE = ".maintainer-demo"
TEMPLATE_LAKE_ROOT = "/tmp/maintainer-lake"
TEMPLATE_MIN_AGE = "min_age: 1h"
DEMO_TABLES = (
    ("trips", DatagenSpec("trips", "mor", 8, WorkloadSpec(partitions=3, file_groups=2, commits=12,
                                                           rows_per_commit=200), failed_write=True)),
    ("trips_daily", DatagenSpec("trips_daily", "cow", 6, WorkloadSpec(partitions=2, file_groups=2, commits=14,
                                                                      rows_per_commit=100, seed=7))),
)  # fmt: skip


def prepare_directory(directory: Path, overwrite: bool) -> None:
    if directory.exists() and any(directory.iterdir()):
        if not (directory / MARKER_FILE).exists():
            raise UsageError(
                f"{directory} is not empty",
                hint="give a new or empty folder (the demo writes a project and tables there)",
            )
        if not overwrite:
            raise UsageError(
                f"{directory} holds an earlier demo",
                hint="pass --overwrite to replace it, or give another folder",
            )
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARKER_FILE).write_text("created by maintainer demo\n", encoding="utf-8")


DEMO_GATE = (
    "    tags: [example, core]                    # select with --select tag:core\n",
    "    gates: {max_compaction_bytes: 1GiB}      # demo: a gate; the plan shows the figure against it\n",
)
DEMO_READER = (
    "    depends_on: [trips]\n",
    "    readers: [{name: daily_report, lag: 0s}] # demo: a reader; its margin is shown in the plan\n",
)


def _configure_demo_project(directory: Path, lake: Path) -> None:
    """Point the project at the demo lake; the demo's crashed write is seconds old, so roll
    back failed writes of any age (a real project keeps a safety margin such as 1h). A gate on
    ``trips`` and a reader of ``trips_daily`` show both at work in the plan."""
    project_file = directory / "maintainer_project.yml"
    text = project_file.read_text(encoding="utf-8").replace(TEMPLATE_LAKE_ROOT, str(lake))
    text = text.replace(TEMPLATE_MIN_AGE, "min_age: 0s   # demo only: the crashed write is seconds old")
    project_file.write_text(text, encoding="utf-8")
    manifest = directory / "tables" / "example.yml"
    text = manifest.read_text(encoding="utf-8")
    for anchor, added in (DEMO_GATE, DEMO_READER):
        text = text.replace(anchor, anchor + added, 1)
    manifest.write_text(text, encoding="utf-8")


def _verify(table: GeneratedTable) -> str:
    rows = read_table(open_table(table.path))
    got = (
        sorted(rows.select(DATA_SCHEMA.names).to_pylist(), key=lambda r: r["uuid"])
        if rows is not None
        else []
    )
    expected = table.expected[table.completed[-1]]
    status = (
        "[green]rows as generated[/green]" if got == expected else "[red]rows differ from generated[/red]"
    )
    return f"{len(got)} rows, {status}"


@click.command("demo")
@click.argument("directory", default="maintainer-demo", type=click.Path(file_okay=False, path_type=Path))
@click.option("--overwrite", is_flag=True, help="Replace an earlier demo in DIRECTORY.")
def command(directory: Path, overwrite: bool) -> int:
    """Run the whole story on one machine: create a project in DIRECTORY (default
    ./maintainer-demo), generate real Hudi tables with local Spark (a merge-on-read table with
    a failed write, a copy-on-write table), validate the manifests, show the maintenance graph
    and each table's state, and read the tables back.
    """
    directory = directory.resolve()
    prepare_directory(directory, overwrite)
    name, _, _ = create_project(directory)
    lake = directory / "lake"
    _configure_demo_project(directory, lake)
    stdout.print(f"[bold]1.[/bold] project '{name}' created in {escape(str(directory))}")
    loaded = load_from_options(CommonOptions(project_dir=directory))
    log = project_spark_log(loaded.project.target_dir)
    session = create_session(loaded.project.target.settings.spark, log_path=log)
    stdout.print(f"[bold]2.[/bold] generating Hudi tables in {escape(str(lake))} on Spark {session.version} "
                 f"(its console output: {escape(str(log))})")  # fmt: skip
    generated = []
    for table_name, spec in DEMO_TABLES:
        table = generate(str(lake / table_name), spec, runner=SparkRunner(session))
        write_expected(table, lake / f"{table_name}.expected.jsonl")
        generated.append(table)
        failed = (
            f", write {table.failed_instant} left inflight (a crashed writer)" if table.failed_instant else ""
        )
        stdout.print(f"   {table_name}: {spec.table_type.upper()} v{spec.table_version}, "
                     f"{len(table.completed)} commits{failed}")  # fmt: skip
    stdout.print("[bold]3.[/bold] maintenance graph (rollback -> compaction -> clean -> archive, per table):")
    for node in loaded.selected_order():
        stdout.print(f"   {escape(str(node))}")
    stdout.print("[bold]4.[/bold] table state, read back with maintainer's reader:")
    for table in generated:
        state = open_table(table.path)
        view = state.view
        pending = (
            ", ".join(f"{i.timestamp}.{i.action.value}" for i in state.snapshot.timeline.pending()) or "none"
        )
        slices = sum(len(g.slices) for g in view.file_groups())
        stdout.print(f"   {table.config.name}: {len(view.file_groups())} file groups, {slices} file slices, "
                     f"pending: {pending}; {_verify(table)}")  # fmt: skip
    return 0 if _plan_show_apply(loaded, generated) else 1


def _applicable(loaded: LoadedProject) -> LoadedProject:
    """The selection narrowed to the nodes whose service this version can apply."""
    return replace(
        loaded, selected=frozenset(n for n in loaded.selected if executor_for(n.service) is not None)
    )


def _plan_show_apply(loaded: LoadedProject, generated: list[GeneratedTable]) -> bool:
    loaded = _applicable(loaded)
    services = ", ".join(sorted({n.service for n in loaded.selected}))
    plan_dir = loaded.project.target_dir / PLAN_DIR
    now = utc_now()
    review = review_context(loaded, CommonOptions(project_dir=loaded.project.root), now)
    built = make_plan(loaded, now)
    save(built, plan_dir, loaded, review)
    stdout.print(f"[bold]5.[/bold] maintainer plan ({services}) -> {escape(str(plan_dir))}, "
                 f"shown as the pull-request comment (maintainer show --format markdown):")  # fmt: skip
    stdout.out(render_markdown(built.plan, built.plan_id, review), highlight=False)
    stdout.print("[bold]6.[/bold] maintainer apply: the reviewed plan, on Spark")
    results = run_plan(read_plan(plan_dir, plan_key()), loaded, fail_fast=False)
    path = write_run_results(
        loaded.project.target_dir, results, project=loaded.project.config.name, args={"which": "demo"}
    )
    stdout.print(f"   results in {escape(str(path))}")
    stdout.print("[bold]7.[/bold] tables after maintenance, read back:")
    for table in generated:
        stdout.print(f"   {table.config.name}: {_verify(table)}")
    stdout.print(
        f"next: cd {escape(str(loaded.project.root))} && maintainer plan && maintainer show target/plan"
    )
    return not results.failed
