"""``maintainer status``: the health of the selected tables, read-only."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click
from rich import box
from rich.table import Table

from maintainer.clock import utc_now
from maintainer.commands.options import CommonOptions, LoadedProject, common_options, load_from_options
from maintainer.commands.progress import TableProgress
from maintainer.commands.provenance import state_backend
from maintainer.console import literal, settings, stdout, summary
from maintainer.errors import MaintainerError
from maintainer.health.assess import assess_fleet
from maintainer.health.formats import (
    duration,
    objective_value,
    overdue_text,
    size,
    state_word,
    stuck_text,
    to_json,
    to_markdown,
    to_openmetrics,
    why_not_lines,
)
from maintainer.health.history import parse_history, trends, what_changed
from maintainer.health.html import to_html
from maintainer.health.records import FleetHealth, ScorePart, TableHealth
from maintainer.hudi.table.discovery import uncovered
from maintainer.runner.state_backend import HEALTH_PATH
from maintainer.units import count

EXIT_OK, EXIT_FAILURE, EXIT_OVERDUE, EXIT_UNREADABLE = 0, 1, 4, 3
FORMATS = ("text", "json", "markdown", "openmetrics", "html")
PIPED_WIDTH = 200
"""Columns of the text table when stdout is not a terminal (a CI log keeps whole lines)."""


def assess(loaded: LoadedProject) -> FleetHealth:
    project = loaded.project
    requests = loaded.table_requests()
    with TableProgress(len(requests)).shown() as done:
        return assess_fleet(
            project.config.name,
            project.target.name,
            requests,
            dict(project.target.settings.storage_options),
            utc_now(),
            threads=loaded.threads,
            on_table_done=done,
        )


@click.command("status")
@common_options()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: a table, worst first; json: every figure (schemas/status.v1.json); markdown: "
    "fits a pull-request comment; openmetrics: Prometheus' text format, one sample per table "
    "per figure (labels: table, owner, tags); html: one self-contained page (sortable table, "
    "charts; no network), best with --out.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write the output to FILE instead of stdout.",
)
@click.option(
    "--discover",
    "discover_prefixes",
    multiple=True,
    metavar="PATH|URI",
    help="Also find the Hudi tables under this prefix (repeatable) and flag those no manifest "
    "covers (as `maintainer discover` does).",
)
@click.option(
    "--history",
    is_flag=True,
    help="Add each table's recorded applies from the state backend: its figures before and "
    "after each one (what it changed), and trend lines in html.",
)
@click.option(
    "--verbose",
    is_flag=True,
    help="With text: every table's score parts below their points, not only theirs that need attention.",
)
def command(
    options: CommonOptions,
    output_format: str,
    out: str | None,
    discover_prefixes: tuple[str, ...],
    history: bool,
    verbose: bool,
) -> int:
    """Show the health of the selected tables: what ran last and when, pending instants (stuck
    when older than max_pending_age), log backlog, small files, file versions retained and what
    a clean would free, the active timeline against keep_max_commits, the metadata table, and for
    each selected service why it has no work (the planner's own reason, as `maintainer plan`
    gives it). Reads only; starts no JVM.

    \b
    Objectives: a table's `slo:` block (inherited like any default) declares limits:
      max_log_files_per_slice, max_pending_age, max_small_file_share,
      max_active_instants, max_since_clean (and small_file_limit, default 100MiB).
    The health score (0-100) is five parts of 20 points: pending, log_backlog, small_files,
    timeline, clean; each keeps its 20 points within its limit (the table's objective, else the
    default: 10 log files, 24h, 50%, 60 instants, 7d) and loses them linearly to 0 at twice it.

    \b
    Exit codes (for scheduled jobs that alert):
      0  every declared objective is met
      1  an error of the run itself (bad project, bad arguments)
      3  a table could not be read
      4  an objective is overdue (and every table was read)

    \b
    Examples:
      maintainer status
      maintainer status --select owner:payments --format markdown > health.md
      maintainer status --format openmetrics --out /var/lib/node_exporter/maintainer.prom
    """
    loaded = load_from_options(options)
    fleet = assess(loaded)
    if history:
        fleet = with_history(fleet, loaded)
    if discover_prefixes:
        project = loaded.project
        options_ = project.target.settings.storage_options
        paths = {table.name: table.path for table in project.tables}
        found = uncovered(discover_prefixes, paths, options_)
        fleet = replace(fleet, uncovered=tuple(t.uri for t in found))
    if output_format == "text" and out is None:
        _print_text(fleet, verbose)
    else:
        text = render(fleet, output_format)
        _write(text, out)
    overdue = [t for t in fleet.tables if t.overdue]
    unreadable = [t for t in fleet.tables if t.error]
    line = (
        f"{count(len(fleet.tables), 'table')}: {len(overdue)} overdue, {len(unreadable)} unreadable, "
        f"{sum(1 for t in fleet.tables if not t.overdue and not t.error)} ok."
    )
    if settings.json or settings.quiet or out is not None or output_format == "text":
        summary(line, tables=len(fleet.tables), overdue=len(overdue), unreadable=len(unreadable))
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_OVERDUE if overdue else EXIT_OK


def with_history(fleet: FleetHealth, loaded: LoadedProject) -> FleetHealth:
    """The fleet with each table's recorded applies (from the state backend)."""
    backend = state_backend(loaded.project)
    recorded = parse_history(backend.read_health(), backend.where(HEALTH_PATH))
    tables = tuple(replace(t, history=recorded.get(t.table, ())) for t in fleet.tables)
    return replace(fleet, tables=tables)


def render(fleet: FleetHealth, output_format: str) -> str:
    if output_format == "html":
        return to_html(fleet, json.loads(to_json(fleet)), trends(fleet))
    renderers = {"json": to_json, "markdown": to_markdown, "openmetrics": to_openmetrics}
    return renderers[output_format](fleet)


def _write(text: str, out: str | None) -> None:
    if out is None:
        stdout.out(text, highlight=False, end="")
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise MaintainerError(
            f"cannot write {out}: {exc}", where=out, hint="check the folder exists and is writable"
        ) from exc


COLUMNS = (
    ("table", "left"), ("owner", "left"), ("state", "left"), ("score", "right"), ("logs", "right"),
    ("small", "right"), ("pending", "right"), ("cleaned", "right"), ("instants", "right"),
    ("frees", "right"),
)  # fmt: skip
"""logs: most log files in one slice; small: share of small base files; cleaned: age of the last
clean; instants: active instants (/ keep_max_commits); frees: what a clean planned now deletes."""


def _print_text(fleet: FleetHealth, verbose: bool) -> None:
    title = f"{fleet.project} ({fleet.target}): health, worst first"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for column, justify in COLUMNS:
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for health in fleet.tables:
        table.add_row(*_text_row(health))
    if stdout.is_terminal:
        stdout.print(table)
    else:  # a log or a file: whole lines (print's width can only narrow the console's)
        width = stdout.width
        stdout.width = PIPED_WIDTH
        try:
            stdout.print(table)
        finally:
            stdout.width = width
    for health in fleet.tables:
        lines = _attention(health, verbose)
        if lines:
            stdout.out(f"\n{literal(health.table)}:", highlight=False)
            for text in lines:
                stdout.out(f"  {literal(text)}", highlight=False)
    if len(fleet.owners) > 1:
        owners = ", ".join(
            f"{o.owner or '(none)'} {o.tables} tables, {o.overdue} overdue, lowest {o.lowest_score:g}"
            for o in fleet.owners
        )
        stdout.out(f"\nby owner: {literal(owners)}", highlight=False)
    if fleet.uncovered:
        stdout.out(f"\nHudi tables no manifest covers ({len(fleet.uncovered)}):", highlight=False)
        for path in fleet.uncovered:
            stdout.out(f"  {literal(path)}", highlight=False)


def _text_row(health: TableHealth) -> list[str]:
    logs, small, versions = health.log_backlog, health.small_files, health.versions
    stuck = sum(1 for p in health.pending if p.stuck)
    return [
        literal(health.table),
        literal(health.owner or "-"),
        state_word(health),
        f"{health.score:g}",
        str(logs.max_log_files_per_slice) if logs else "-",
        f"{small.share:.0%}" if small else "-",
        f"{len(health.pending)}" + (f" ({stuck} stuck)" if stuck else ""),
        _last_clean(health),
        _instants(health),
        size(versions.clean_would_free_bytes) if versions else "-",
    ]


def _last_clean(health: TableHealth) -> str:
    clean = next((r for r in health.last_runs if r.service == "clean"), None)
    if health.error:
        return "-"
    return duration(clean.age_seconds) + " ago" if clean and clean.age_seconds is not None else "never"


def _instants(health: TableHealth) -> str:
    timeline = health.timeline
    if timeline is None:
        return "-"
    limit = f"/{timeline.keep_max_commits}" if timeline.keep_max_commits else ""
    return f"{timeline.active_instants}{limit}"


def _attention(health: TableHealth, verbose: bool) -> list[str]:
    """What needs attention (unreadable, overdue, stuck, and then why services have no work);
    with ``verbose`` every table's score parts below their points too."""
    lines = []
    if health.error:
        lines.append(health.error)
    if health.overdue:
        lines.append(f"overdue: {overdue_text(health)}")
    if stuck := stuck_text(health):
        lines.append(f"stuck: {stuck}")
    needs_attention = bool(health.overdue or stuck or health.error or health.history)
    if needs_attention:
        lines.extend(why_not_lines(health))
    if not (needs_attention or verbose):
        return lines
    lines.extend(_history_lines(health))
    parts = ", ".join(_part_text(p) for p in health.score_parts if p.points < p.max_points)
    if parts:
        lines.append(f"score {health.score:g}: {parts}")
    return lines


def _history_lines(health: TableHealth) -> list[str]:
    return [
        f"{entry.finished_at[:16]}: {what_changed(entry) or 'no figure moved'}" for entry in health.history
    ]


def _part_text(part: ScorePart) -> str:
    unit = _unit(part.name)
    figure = f"{objective_value(unit, part.value)} of {objective_value(unit, part.limit)}"
    return f"{part.name} {part.points:g}/{part.max_points:g} ({figure})"


def _unit(part: str) -> str:
    return {"pending": "seconds", "clean": "seconds", "small_files": "share"}.get(part, "count")
