"""The table as a rollback node of the plan will leave it, so the compaction planned after it in
the same plan sees the failed writes gone (on table version 6 a compaction cannot be scheduled
while an earlier write is in flight).

Projected, per new rollback of a failed write (kind ``rollback``): its instant leaves the
timeline, the files its plan deletes leave the listing, and on table version 6 each file group
whose logs hold the failed write's blocks gets the log file the rollback command block will be
written to: the next log version with the executor's write token, of the block's exact size
(instant times have a fixed width). So a compaction approved on the projection lists exactly the
log files the slice has once the rollback ran, and apply compacts it as approved. A finished
pending rollback is not projected; a pending compaction is never the rollback node's (it is left
to the compaction node, which rolls back its own failed attempt before re-running it).

Pure: builds new snapshot, timeline and view objects; reads and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from maintainer.artifact.model import NodePlan, NodeStatus, RollbackAction, RollbackRequestRecord
from maintainer.executors.common.rollback_requests import relative_path
from maintainer.hudi.file_groups.filenames import DEFAULT_WRITE_TOKEN
from maintainer.hudi.file_groups.fsview import rebuild_partitions
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.logformat.naming import next_log_file_v6
from maintainer.hudi.logformat.writer import rollback_command_block
from maintainer.hudi.table.projection import (
    Projection,
    completed_entry,
    listings_with,
    listings_without,
    projected_instant_time,
    with_entries,
)
from maintainer.hudi.table.state import TableState
from maintainer.storage import FileInfo

COMMAND_BLOCK_VERSION = 6
"""Table versions up to this one roll back log blocks with a command block (8+ delete files)."""
_ANY_INSTANT = "0" * 17


def _rolled_back(node: NodePlan) -> list[RollbackAction]:
    return [a for a in node.actions_of(RollbackAction) if a.kind == "rollback" and a.requests]


def _deleted_paths(table_uri: str, actions: Iterable[RollbackAction]) -> set[str]:
    found = set()
    for action in actions:
        for request in action.requests:
            for path in request.files_to_be_deleted:
                relative = relative_path(table_uri, path)
                if relative is not None:
                    found.add(relative)
    return found


def _command_block_log(listings: Mapping[str, tuple[FileInfo, ...]], request: RollbackRequestRecord,
                       target: str, added: dict[str, list[FileInfo]]) -> None:  # fmt: skip
    """The log file the request's command block goes to (the next version of the slice)."""
    partition = request.partition
    names = [i.name for i in (*listings.get(partition, ()), *added.get(partition, ()))]
    file_id, base_instant = request.file_id or "", request.latest_base_instant or ""
    log = next_log_file_v6(names, file_id, base_instant, DEFAULT_WRITE_TOKEN)
    size = len(rollback_command_block(_ANY_INSTANT, target))
    path = f"{partition}/{log.name}" if partition else log.name
    added.setdefault(partition, []).append(FileInfo(path, size, False))


def _projected_timeline(
    timeline: Timeline, actions: Sequence[RollbackAction]
) -> tuple[Timeline, tuple[str, ...]]:
    """The failed instants gone, a completed rollback instant (projected time) for each."""
    gone = {(a.target, a.action) for a in actions}
    entries = [e for e in timeline.entries if (e.timestamp, e.instant.action.value) not in gone]
    times = tuple(projected_instant_time(timeline, step) for step in range(1, len(actions) + 1))
    entries += [completed_entry(time, Action.ROLLBACK, timeline.layout, time) for time in times]
    return with_entries(timeline, entries), times


def project_after_rollback(table: TableState, node: NodePlan) -> TableState:
    """The table after ``node`` rolled back its failed writes; the table itself when it rolls
    back none."""
    actions = _rolled_back(node) if node.status is NodeStatus.CHANGES else []
    if not actions:
        return table
    snapshot = table.snapshot
    deleted = _deleted_paths(table.storage.uri(""), actions)
    listings = listings_without(snapshot.listings, deleted)
    added: dict[str, list[FileInfo]] = {}
    if snapshot.config.version <= COMMAND_BLOCK_VERSION:
        for action in actions:
            for request in action.requests:
                if request.log_blocks_to_be_deleted and request.partition in listings:
                    _command_block_log(listings, request, action.target, added)
        listings = listings_with(listings, added)
    timeline, rollbacks = _projected_timeline(snapshot.timeline, actions)
    targets = ", ".join(a.target for a in actions)
    projection = Projection.after(table.projection, f"rollback of failed write(s) {targets}", rollbacks)
    projected = replace(snapshot, timeline=timeline, listings=listings)
    changed = {path.rpartition("/")[0] for path in deleted} | set(added)
    view = rebuild_partitions(table.view, timeline, listings, table.view.inputs, changed)
    return TableState(table.storage, projected, view, projection)
