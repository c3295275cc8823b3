""" "Did it help": apply measures the tables it changes before and after (``health``'s figures,
read in full, no planning), records both in the state backend's health history, and says per
table what moved (``trips: log files per slice 14 -> 0, 2.3 GiB freed``)."""

from __future__ import annotations

from collections.abc import Mapping

from maintainer.artifact.directory import SavedPlan
from maintainer.artifact.model import NodeStatus
from maintainer.clock import utc_now
from maintainer.commands.options import LoadedProject
from maintainer.commands.provenance import state_backend
from maintainer.errors import MaintainerError
from maintainer.health.assess import measure_tables
from maintainer.health.history import entry_json, point_of, what_changed
from maintainer.health.records import HistoryEntry, TableHealth
from maintainer.logs import fields, get_logger
from maintainer.runner.results import RunResults
from maintainer.runner.state_backend import run_id, table_figures

log = get_logger(__name__)


def changed_tables(saved: SavedPlan) -> list[str]:
    """The tables with a node that changes something."""
    return sorted({n.table for n in saved.plan.nodes() if n.status is NodeStatus.CHANGES})


def measure(loaded: LoadedProject, tables: list[str]) -> dict[str, TableHealth]:
    project = loaded.project
    specs = [project.tables_by_name[name] for name in tables if name in project.tables_by_name]
    return measure_tables(specs, project.target.settings.storage_options, utc_now(), loaded.threads)


def record(
    loaded: LoadedProject,
    results: RunResults,
    invocation_id: str,
    before: Mapping[str, TableHealth],
) -> dict[str, HistoryEntry]:
    """Measure again, record each table's entry in the health history and say what moved; a
    history that cannot be written is a warning (the apply and its state are kept already)."""
    after = measure(loaded, sorted(before))
    freed = {
        name: int(f["effects"].get("bytes_deleted", 0)) for name, f in table_figures(results.nodes).items()
    }
    run = run_id(results.finished_at, invocation_id)
    entries = {
        name: HistoryEntry(
            run=run,
            started_at=results.started_at,
            finished_at=results.finished_at,
            plan_id=results.plan_id,
            before=point_of(health),
            after=point_of(after[name]) if name in after else None,
            bytes_freed=freed.get(name, 0),
        )
        for name, health in before.items()
    }
    for name, entry in entries.items():
        if changed := what_changed(entry):
            log.info(f"{name}: {changed}", extra=fields(table=name, event="health_changed"))
    try:
        state_backend(loaded.project).record_health({n: entry_json(e) for n, e in entries.items()})
    except MaintainerError as exc:
        log.warning(
            f"the health history was not recorded: {exc.message}",
            extra=fields(plan_id=results.plan_id, event="health_not_recorded"),
        )
    return entries
