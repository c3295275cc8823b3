"""Is a saved plan stale? Before apply starts anything (no JVM, no lock, no write), each table
the plan changes is compared with the fingerprint it was planned on (its instants with states,
savepoints, ``hoodie.properties``). A table that moved makes the plan stale, as Terraform's
"Saved plan is stale": apply refuses, naming what changed, unless told to go on
(``--allow-drift``: each node then re-derives its work and skips what is no longer valid)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.artifact.directory import SavedPlan
from maintainer.artifact.model import NodeStatus, RollbackAction, TableFingerprint, TablePlan
from maintainer.artifact.model.fingerprint import table_fingerprint
from maintainer.errors import MaintainerError, PlanError
from maintainer.hudi.file_groups.integrity import find_interrupted_completions, without_interrupted
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import decode_rollback_metadata, decode_rollback_plan
from maintainer.runner.reads import TableReads
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


def _timestamp(entry: str) -> str:
    return entry.partition(".")[0]


def _rolled_back_by(storage: Storage, timeline: Timeline, timestamp: str) -> set[str] | None:
    """The instants the rollback ``timestamp`` rolls back (from its metadata once completed,
    else its plan); None where it is not a readable rollback."""
    entry = timeline.entry(timestamp, Action.ROLLBACK)
    if entry is None:
        return None
    for state, decode in ((State.COMPLETED, _metadata_targets), (State.REQUESTED, _plan_targets)):
        name = entry.state_files.get(state)
        if name is not None:
            path = f"{timeline.directory}/{name}"
            try:
                return decode(storage.read_bytes(path), storage.uri(path))
            except MaintainerError:
                return None
    return None


def _metadata_targets(data: bytes, where: str) -> set[str] | None:
    metadata = decode_rollback_metadata(data, where)
    return set(metadata.commits_rollback) if metadata is not None else None


def _plan_targets(data: bytes, where: str) -> set[str] | None:
    plan = decode_rollback_plan(data, where)
    info = plan.instant_to_rollback if plan is not None else None
    return {info.commit_time} if info is not None else None


def only_planned_rollbacks(
    change: TableChange, table: TablePlan, storage: Storage, timeline: Timeline
) -> bool:
    """Did the table move only by rolling back instants this plan's rollback node rolls back
    (an apply of this plan stopped between the rollback and its ledger record, or a writer's
    own rollback of them)? Then it is not stale: the node re-derives and finds them done. Judged
    by what the instants say they roll back, not by who wrote them."""
    targets = {a.target for node in table.nodes for a in node.actions_of(RollbackAction)}
    if not targets or change.savepoints or change.properties:
        return False
    if not all(_timestamp(entry) in targets for entry in change.gone):
        return False
    for entry in change.new:
        rolled_back = _rolled_back_by(storage, timeline, _timestamp(entry))
        if rolled_back is None or not rolled_back <= targets:
            return False
    return True


def _changes(table: TablePlan) -> bool:
    return any(node.status is NodeStatus.CHANGES for node in table.nodes)


def table_changes(
    saved: SavedPlan,
    storage_options: Mapping[str, Any],
    resumed: Collection[str] = (),
    reads: TableReads | None = None,
) -> list[TableChange]:
    """The tables with changes in the plan that moved since it was made (tables an interrupted
    apply of this plan already changed, ``resumed``, are left to the nodes' own checks).
    ``reads``: each table as preflight's other checks read it (read here when not yet)."""
    reads = reads if reads is not None else TableReads(storage_options)
    moved = []
    for table in saved.plan.tables:
        if not _changes(table) or table.name in resumed:
            continue
        try:
            storage = reads.storage(table.path)
            config, timeline = reads.config_and_timeline(table.path)
            # a completion cut short reads as inflight:
            timeline = without_interrupted(timeline, find_interrupted_completions(storage, timeline))
            now = table_fingerprint(timeline, config)
        except MaintainerError:
            continue  # unreadable now: its nodes fail with the reason when they run
        change = compare(table.name, table.fingerprint, now)
        if change is not None and not only_planned_rollbacks(change, table, storage, timeline):
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
