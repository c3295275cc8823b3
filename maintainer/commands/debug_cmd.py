"""``maintainer debug``: can this target run? Checks the project and profile, the target's Spark
(JDK or Connect server, a session, one executor task) and every selected table's storage, and
says how to fix what failed. Changes no table."""

from __future__ import annotations

import json
import platform

import click
from rich.markup import escape

from maintainer import __version__
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.console import stdout
from maintainer.diagnostics.checks import CheckResult, CheckStatus, Report, from_error, passed
from maintainer.diagnostics.spark_checks import check_spark
from maintainer.diagnostics.storage_checks import check_table
from maintainer.errors import MaintainerError
from maintainer.project import TableSpec
from maintainer.spark.session import project_spark_log, pyspark_version

_MARK = {
    CheckStatus.PASSED: "[green]OK  [/green]",
    CheckStatus.FAILED: "[bold red]FAIL[/bold red]",
    CheckStatus.SKIPPED: "[dim]SKIP[/dim]",
}


@click.command("debug")
@common_options()
@click.option("--no-spark", is_flag=True, help="Check the JDK or Connect server, but start no Spark session.")
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="json: one object with every check, for CI.",
)  # fmt: skip
def command(options: CommonOptions, no_spark: bool, output_format: str) -> int:
    """Check that the target can run, as `dbt debug` does, and say how to fix what cannot.

    \b
    Checks, in order (a check whose premise failed is skipped):
      project   maintainer_project.yml, profiles.yml and the target, every manifest
      spark     the JDK (local or cluster master) or the Connect client packages and server;
                a session started and stopped; one task on an executor that imports maintainer
      table     for each selected table: storage reachable with the target's storage options,
                a Hudi table of a supported version, its timeline readable, and writable (one
                probe object inside .hoodie/, read back and deleted)

    No table is changed. Exit code 0 when every check passed, 1 otherwise.

    \b
    Examples:
      maintainer debug
      maintainer debug --target prod -s tag:finance
      maintainer debug --no-spark --format json
    """
    report = Report.of(run_checks(options, start_session=not no_spark))
    if output_format == "json":
        stdout.out(json.dumps(_as_json(report), indent=2), highlight=False)
    else:
        _print_report(report)
    return 0 if report.ok else 1


def run_checks(options: CommonOptions, *, start_session: bool) -> list[CheckResult]:
    try:
        loaded = load_from_options(options)
    except MaintainerError as error:
        return [from_error("project", "project", error)]
    results = project_checks(loaded)
    log = project_spark_log(loaded.project.target_dir)
    results += check_spark(loaded.project.target.settings, start_session=start_session, log_path=log)
    storage_options = loaded.project.target.settings.storage_options
    for spec in selected_tables(loaded):
        results += check_table(spec.name, spec.path, storage_options)
    return results


def project_checks(loaded: LoadedProject) -> list[CheckResult]:
    project = loaded.project
    target = project.target
    spark = target.settings.spark
    runs_on = spark.remote or spark.effective_master
    tables = f"{len(project.tables)} table(s) in {len(project.manifests)} manifest(s)"
    where = f"target {target.name!r} of profile {target.profile!r} ({target.profiles_file})"
    return [
        passed("project", "project", f"{project.config.name!r}: {tables}"),
        passed("project", "profile", f"{where}: {runs_on}, engine {target.settings.engine}"),
    ]


def selected_tables(loaded: LoadedProject) -> list[TableSpec]:
    names = sorted({node.table for node in loaded.selected})
    return [loaded.project.table(name) for name in names]


def _print_report(report: Report) -> None:
    stdout.print(f"maintainer {__version__}, Python {platform.python_version()}, pyspark {pyspark_version()}")
    group = None
    for result in report.results:
        if result.group != group:
            group = result.group
            stdout.print(f"[bold]{escape(group)}[/bold]")
        stdout.print(f"  {_MARK[result.status]} {escape(result.name)}: {escape(result.detail)}")
        if result.fix:
            stdout.print(f"       [yellow]fix:[/yellow] {escape(result.fix)}")
    failures = len(report.failures)
    if failures:
        stdout.print(f"[bold red]{failures} check(s) failed[/bold red] of {len(report.results)}.")
    else:
        skipped = report.count(CheckStatus.SKIPPED)
        tail = f" ({skipped} skipped)" if skipped else ""
        stdout.print(f"[green]All checks passed[/green]: {report.count(CheckStatus.PASSED)}{tail}.")


def _as_json(report: Report) -> dict[str, object]:
    return {
        "maintainer": __version__,
        "python": platform.python_version(),
        "pyspark": pyspark_version(),
        "ok": report.ok,
        "checks": [result.as_json() for result in report.results],
    }
