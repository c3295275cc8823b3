"""``maintainer status``'s outputs: JSON (the records, schema ``schemas/status.v1.json``),
Markdown (fits a pull-request comment, like plan.md) and OpenMetrics (Prometheus' text format,
one sample per table per figure, labelled with the table, its owner and tags)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

from maintainer.health.records import FleetHealth, TableHealth
from maintainer.units import human_bytes


@lru_cache(maxsize=1)
def fleet_adapter() -> TypeAdapter[FleetHealth]:
    return TypeAdapter(FleetHealth)


def to_json(fleet: FleetHealth) -> str:
    data: dict[str, Any] = fleet_adapter().dump_python(fleet, mode="json")
    return json.dumps(data, indent=2, sort_keys=True)


def duration(seconds: float | int | None) -> str:
    """``3d 4h``, ``45m``, ``12s``; ``-`` for None."""
    if seconds is None:
        return "-"
    seconds = int(seconds)
    for unit, size, smaller, small_size in (("d", 86400, "h", 3600), ("h", 3600, "m", 60)):
        if seconds >= size:
            rest = (seconds % size) // small_size
            return f"{seconds // size}{unit}" + (f" {rest}{smaller}" if rest else "")
    return f"{seconds // 60}m" if seconds >= 60 else f"{seconds}s"


def objective_value(unit: str, value: float) -> str:
    if unit == "seconds":
        return duration(value)
    if unit == "share":
        return f"{value:.0%}"
    return f"{value:g}"


def state_word(table: TableHealth) -> str:
    if table.error:
        return "unreadable"
    if table.overdue:
        return "overdue"
    return "ok"


def overdue_text(table: TableHealth) -> str:
    return ", ".join(
        f"{o.name} {objective_value(o.unit, o.value)} > {objective_value(o.unit, o.limit)}"
        for o in table.overdue
    )


def stuck_text(table: TableHealth) -> str:
    return ", ".join(f"{p.instant}.{p.action} ({duration(p.age_seconds)})" for p in table.pending if p.stuck)


def why_not_lines(table: TableHealth) -> list[str]:
    return [
        f"{w.service}: {w.status.replace('_', '-')}, {w.reason}"
        for w in table.why_not
        if w.status != "changes"
    ]


# -- Markdown --------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def to_markdown(fleet: FleetHealth) -> str:
    lines = [f"## Fleet health: {_md(fleet.project)} ({_md(fleet.target)})", ""]
    overdue = sum(1 for t in fleet.tables if t.overdue)
    unreadable = sum(1 for t in fleet.tables if t.error)
    lines.append(f"{len(fleet.tables)} tables, {overdue} overdue, {unreadable} unreadable.")
    lines += [
        "",
        "| table | owner | state | score | logs/slice max | small files | pending (stuck) | last clean |",
    ]
    lines.append("|---|---|---|---:|---:|---:|---|---|")
    for table in fleet.tables:
        lines.append(_md_row(table))
    if len(fleet.owners) > 1:
        lines += [
            "",
            "### By owner",
            "",
            "| owner | tables | overdue | unreadable | lowest score | mean score |",
        ]
        lines.append("|---|---:|---:|---:|---:|---:|")
        lines += [
            f"| {_md(o.owner or '(none)')} | {o.tables} | {o.overdue} | {o.unreadable} | "
            f"{o.lowest_score:g} | {o.mean_score:g} |"
            for o in fleet.owners
        ]
    if fleet.uncovered:
        lines += ["", f"### Hudi tables no manifest covers ({len(fleet.uncovered)})", ""]
        lines += [f"- `{path.replace('`', '')}`" for path in fleet.uncovered]
    details = [t for t in fleet.tables if t.overdue or t.error or any(p.stuck for p in t.pending)]
    if details:
        lines += ["", "### Needs attention", ""]
        for table in details:
            lines.extend(_md_details(table))
    return "\n".join(lines) + "\n"


def _md_row(table: TableHealth) -> str:
    logs = str(table.log_backlog.max_log_files_per_slice) if table.log_backlog else "-"
    small = f"{table.small_files.share:.0%}" if table.small_files else "-"
    stuck = sum(1 for p in table.pending if p.stuck)
    clean = next((r for r in table.last_runs if r.service == "clean"), None)
    last_clean = duration(clean.age_seconds) + " ago" if clean and clean.age_seconds is not None else "never"
    cells = [
        _md(table.table),
        _md(table.owner or "-"),
        state_word(table),
        f"{table.score:g}",
        logs,
        small,
        f"{len(table.pending)} ({stuck})",
        last_clean if not table.error else "-",
    ]
    return "| " + " | ".join(cells) + " |"


def _md_details(table: TableHealth) -> Iterator[str]:
    yield f"- **{_md(table.table)}** ({state_word(table)}, score {table.score:g})"
    if table.error:
        yield f"  - {_md(table.error)}"
    if table.overdue:
        yield f"  - overdue: {_md(overdue_text(table))}"
    if stuck := stuck_text(table):
        yield f"  - stuck: {_md(stuck)}"
    for line in why_not_lines(table):
        yield f"  - {_md(line)}"


# -- OpenMetrics -----------------------------------------------------------------------------

METRICS: tuple[tuple[str, str, str], ...] = (
    ("maintainer_table_health_score", "gauge", "Health score (0-100) of the table."),
    ("maintainer_table_objectives_overdue", "gauge", "Objectives of the table's slo not met."),
    ("maintainer_table_unreadable", "gauge", "1 when the table could not be read."),
    ("maintainer_table_pending_instants", "gauge", "Pending instants on the active timeline."),
    ("maintainer_table_stuck_instants", "gauge", "Pending instants older than max_pending_age."),
    ("maintainer_table_oldest_pending_age_seconds", "gauge", "Age of the oldest pending instant."),
    ("maintainer_table_log_files", "gauge", "Log files in the latest file slices."),
    ("maintainer_table_log_bytes", "gauge", "Bytes of log files in the latest file slices."),
    ("maintainer_table_max_log_files_per_slice", "gauge", "Most log files in one file slice."),
    ("maintainer_table_read_amplification", "gauge", "Log bytes over base bytes (merge-on-read)."),
    ("maintainer_table_small_files", "gauge", "Latest base files under the small-file limit."),
    ("maintainer_table_small_file_share", "gauge", "Share of latest base files that are small."),
    ("maintainer_table_retained_versions", "gauge", "File slices kept besides the latest ones."),
    ("maintainer_table_retained_bytes", "gauge", "Bytes of the file slices kept besides the latest."),
    ("maintainer_table_clean_would_free_bytes", "gauge", "Bytes a clean planned now deletes."),
    ("maintainer_table_active_instants", "gauge", "Instants on the active timeline."),
    ("maintainer_table_last_clean_age_seconds", "gauge", "Age of the last completed clean."),
    ("maintainer_table_last_compaction_age_seconds", "gauge", "Age of the last completed compaction."),
    ("maintainer_table_metadata_deltacommits", "gauge", "Metadata deltacommits since its compaction."),
    ("maintainer_table_metadata_in_sync", "gauge", "1 when the metadata table has the latest instant."),
    ("maintainer_table_orphan_files", "gauge", "Files no instant accounts for (older than 7 days)."),
    ("maintainer_table_orphan_bytes", "gauge", "Bytes of the orphan files."),
)  # fmt: skip


def _age_of(table: TableHealth, service: str) -> float | None:
    run = next((r for r in table.last_runs if r.service == service), None)
    return float(run.age_seconds) if run is not None and run.age_seconds is not None else None


def table_metrics(table: TableHealth) -> dict[str, float | None]:
    """Each metric's value for the table (None: not applicable, no sample)."""
    logs, small, versions = table.log_backlog, table.small_files, table.versions
    timeline, mdt = table.timeline, table.metadata_table
    oldest = max((p.age_seconds for p in table.pending), default=0)
    unread = table.error is not None  # an unreadable table has no figures
    return {
        "maintainer_table_health_score": table.score,
        "maintainer_table_objectives_overdue": float(len(table.overdue)),
        "maintainer_table_unreadable": 1.0 if table.error else 0.0,
        "maintainer_table_pending_instants": None if unread else float(len(table.pending)),
        "maintainer_table_stuck_instants": None if unread else float(sum(p.stuck for p in table.pending)),
        "maintainer_table_oldest_pending_age_seconds": None if unread else float(oldest),
        "maintainer_table_log_files": float(logs.log_files) if logs else None,
        "maintainer_table_log_bytes": float(logs.log_bytes) if logs else None,
        "maintainer_table_max_log_files_per_slice": float(logs.max_log_files_per_slice) if logs else None,
        "maintainer_table_read_amplification": logs.read_amplification if logs else None,
        "maintainer_table_small_files": float(small.small_files) if small else None,
        "maintainer_table_small_file_share": small.share if small else None,
        "maintainer_table_retained_versions": float(versions.retained_versions) if versions else None,
        "maintainer_table_retained_bytes": float(versions.retained_bytes) if versions else None,
        "maintainer_table_clean_would_free_bytes": (
            float(versions.clean_would_free_bytes)
            if versions and versions.clean_would_free_bytes is not None
            else None
        ),
        "maintainer_table_active_instants": float(timeline.active_instants) if timeline else None,
        "maintainer_table_last_clean_age_seconds": _age_of(table, "clean"),
        "maintainer_table_last_compaction_age_seconds": _age_of(table, "compaction"),
        "maintainer_table_metadata_deltacommits": (
            float(mdt.deltacommits_since_compaction) if mdt else None
        ),
        "maintainer_table_metadata_in_sync": (1.0 if mdt.in_sync else 0.0) if mdt else None,
        "maintainer_table_orphan_files": float(table.orphans.files) if table.orphans else None,
        "maintainer_table_orphan_bytes": float(table.orphans.bytes) if table.orphans else None,
    }  # fmt: skip


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(table: TableHealth) -> str:
    pairs = [("table", table.table), ("owner", table.owner or ""), ("tags", ",".join(table.tags))]
    return "{" + ",".join(f'{name}="{_label(value)}"' for name, value in pairs) + "}"


def _number(value: float) -> str:
    if math.isfinite(value) and value == int(value):
        return str(int(value))
    return repr(value)


def to_openmetrics(fleet: FleetHealth) -> str:
    """Prometheus' text exposition format (OpenMetrics): a family per figure, a sample per table."""
    values = [(table, table_metrics(table)) for table in fleet.tables]
    lines = []
    for name, kind, help_text in METRICS:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        for table, metrics in values:
            value = metrics[name]
            if value is not None:
                lines.append(f"{name}{_labels(table)} {_number(value)}")
    if fleet.uncovered:
        lines.append(
            "# HELP maintainer_uncovered_tables Hudi tables found by --discover that no manifest covers."
        )
        lines.append("# TYPE maintainer_uncovered_tables gauge")
        lines.append(f"maintainer_uncovered_tables {len(fleet.uncovered)}")
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def size(value: int | None) -> str:
    return human_bytes(value) if value is not None else "-"
