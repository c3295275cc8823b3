"""Is a saved plan stale? Before apply starts anything (no JVM, no lock, no write), each table
the plan changes is compared with the fingerprint it was planned on (its instants with states,
savepoints, ``hoodie.properties``). A table that moved makes the plan stale, as Terraform's
"Saved plan is stale": apply refuses, naming what changed, unless told to go on
(``--allow-drift``: each node then re-derives its work and skips what is no longer valid)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.errors import MaintainerError, PlanError
from maintainer.hudi.integrity import find_interrupted_completions, without_interrupted
from maintainer.hudi.table import load_config, load_timeline
from maintainer.plan.artifact import SavedPlan
from maintainer.plan.model import NodeStatus, TableFingerprint, TablePlan
from maintainer.plan.model.fingerprint import table_fingerprint
from maintainer.storage import Storage

SHOWN = 5
"""Instants named per table in the message (the rest are counted)."""


@dataclass(frozen=True, slots=True)
class TableChange:
    """How a table moved since the plan: instants new or changed, instants gone, and whether
    its savepoints or properties changed."""

    table: str
    new: tuple[str, ...]
    gone: tuple[str, ...]
    savepoints: bool
    properties: bool

    def describe(self) -> str:
        parts = []
        if self.new:
            parts.append(f"new or changed instants {_listed(self.new)}")
        if self.gone:
            parts.append(f"instants gone or changed {_listed(self.gone)}")
        if self.savepoints:
            parts.append("its savepoints changed")
        if self.properties:
            parts.append("hoodie.properties changed")
        return f"{self.table}: " + "; ".join(parts)


def _readable(entry: str) -> str:
    """``20261124002930091.commit.REQUESTED@...`` as ``20261124002930091 commit (requested)``."""
    head, _, completion = entry.partition("@")
    timestamp, _, rest = head.partition(".")
    action, _, state = rest.rpartition(".")
    done = f", completed {completion}" if completion else ""
    return f"{timestamp} {action} ({state.lower()}{done})" if action else entry


def _listed(instants: tuple[str, ...]) -> str:
    shown = ", ".join(_readable(entry) for entry in instants[:SHOWN])
    return shown + (f" and {len(instants) - SHOWN} more" if len(instants) > SHOWN else "")


def compare(table: str, planned: TableFingerprint, now: TableFingerprint) -> TableChange | None:
    if planned == now:
        return None
    before, after = set(planned.instants), set(now.instants)
    return TableChange(
        table,
        new=tuple(i for i in now.instants if i not in before),
        gone=tuple(i for i in planned.instants if i not in after),
        savepoints=planned.savepoints != now.savepoints,
        properties=planned.properties_checksum != now.properties_checksum,
    )


def _changes(table: TablePlan) -> bool:
    return any(node.status is NodeStatus.CHANGES for node in table.nodes)


def table_changes(
    saved: SavedPlan, storage_options: Mapping[str, Any], resumed: Collection[str] = ()
) -> list[TableChange]:
    """The tables with changes in the plan that moved since it was made (tables an interrupted
    apply of this plan already changed, ``resumed``, are left to the nodes' own checks)."""
    moved = []
    for table in saved.plan.tables:
        if not _changes(table) or table.name in resumed:
            continue
        try:
            storage = Storage(table.path, storage_options)
            config = load_config(storage)
            timeline = load_timeline(storage, config)  # a completion cut short reads as inflight:
            timeline = without_interrupted(timeline, find_interrupted_completions(storage, timeline))
            now = table_fingerprint(timeline, config)
        except MaintainerError:
            continue  # unreadable now: its nodes fail with the reason when they run
        change = compare(table.name, table.fingerprint, now)
        if change is not None:
            moved.append(change)
    return moved


def refuse_stale(saved: SavedPlan, changes: list[TableChange]) -> None:
    """PlanError naming what moved, when anything did."""
    if not changes:
        return
    lines = "\n    ".join(change.describe() for change in changes)
    raise PlanError(
        f"the plan {saved.plan_id[:12]} is stale: {len(changes)} table(s) changed since it was "
        f"planned:\n    {lines}",
        where=str(saved.directory),
        hint="make the plan again (maintainer plan), review it and apply that one; or apply this one "
        "anyway with --allow-drift (each node re-checks the table and skips what is no longer valid)",
    )
