"""The table as it will be once a compaction node of the plan has run, so that a later node of
the same plan (the clean) is planned on it and can remove the slices the compaction supersedes.

Projected, per file group the node compacts (the pending compactions it executes and the new
one it schedules): a new base file named with the compaction's instant, and the compaction
completed on the timeline. The new compaction's instant is not known before apply takes it:
it is projected just after every instant of the table (see :func:`projected_instant_time`),
and recorded in the projection so a payload that names it is resolved at apply.

Pure: builds new snapshot, timeline and view objects; reads and writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from maintainer.artifact.model import ExecutePendingCompaction, NodePlan, NodeStatus
from maintainer.hudi.file_groups.filemodel import FileSlice
from maintainer.hudi.file_groups.fsview import ViewInputs, rebuild_partitions
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.timeline import Timeline, TimelineEntry
from maintainer.hudi.table.projection import (
    Projection,
    completed_entry,
    listings_with,
    projected_instant_time,
    with_entries,
)
from maintainer.hudi.table.state import TableState
from maintainer.services.compaction.node import approved_operations
from maintainer.storage import FileInfo

PROJECTED_WRITE_TOKEN = "0-0-0"
"""Write token of projected base files (the real one is the task's; only the file's existence
as the newest slice matters to the planners that run on the projection)."""


def _projected_timeline(timeline: Timeline, executed: Iterable[str], new_instant: str | None) -> Timeline:
    """Executed pending compactions completed (in their order, one millisecond apart), then the
    new compaction requested and completed after them."""
    layout = timeline.layout
    done = set(executed)
    step = 0
    entries: list[TimelineEntry] = []
    for entry in timeline.entries:
        instant = entry.instant
        if instant.action is Action.COMPACTION and instant.is_pending and instant.timestamp in done:
            step += 1
            completion = projected_instant_time(timeline, step)
            entries.append(completed_entry(instant.timestamp, Action.COMPACTION, layout, completion))
        else:
            entries.append(entry)
    if new_instant is not None:
        completion = projected_instant_time(timeline, step + 2)
        entries.append(completed_entry(new_instant, Action.COMPACTION, layout, completion))
    return with_entries(timeline, entries)


def _new_base(file_slice: FileSlice | None, partition: str, file_id: str, instant: str,
              size: int, extension: str) -> FileInfo:  # fmt: skip
    name = f"{file_id}_{PROJECTED_WRITE_TOKEN}_{instant}{extension}"
    path = f"{partition}/{name}" if partition else name
    return FileInfo(path, size if size else (file_slice.total_size if file_slice else 0), False)


def _latest_slices(table: TableState, groups: Iterable[tuple[str, str]]) -> dict[tuple[str, str], FileSlice]:
    """(partition, file id) -> latest slice, for the wanted groups (one pass per partition)."""
    wanted = set(groups)
    found: dict[tuple[str, str], FileSlice] = {}
    for partition in {p for p, _ in wanted}:
        for group in table.view.file_groups(partition):
            key = (partition, group.file_id)
            if key in wanted and group.latest_slice is not None:
                found[key] = group.latest_slice
    return found


def _new_files(table: TableState, node: NodePlan, executed: Iterable[str], new_instant: str | None
               ) -> dict[str, list[FileInfo]]:  # fmt: skip
    """Partition -> the base files the node's compactions write (a pending compaction's files
    are sized as the slice they replace; new operations as the planner expects)."""
    extension = table.snapshot.config.base_file_extension
    done = set(executed)
    pending = [key for key, op in table.view.inputs.pending_compaction.items() if op.instant_time in done]
    planned = approved_operations(node) if new_instant is not None else []
    latest = _latest_slices(table, [*pending, *((op.partition, op.file_id) for op in planned)])
    added: dict[str, list[FileInfo]] = {}
    for partition, file_id in pending:
        instant = table.view.inputs.pending_compaction[(partition, file_id)].instant_time
        info = _new_base(latest.get((partition, file_id)), partition, file_id, instant, 0, extension)
        added.setdefault(partition, []).append(info)
    for op in planned:
        size = op.expected_output_bytes
        key = (op.partition, op.file_id)
        info = _new_base(latest.get(key), op.partition, op.file_id, str(new_instant), size, extension)
        added.setdefault(op.partition, []).append(info)
    return added


def _inputs_without(inputs: ViewInputs, executed: Iterable[str]) -> ViewInputs:
    done = set(executed)
    remaining = {key: op for key, op in inputs.pending_compaction.items() if op.instant_time not in done}
    return replace(inputs, pending_compaction=remaining)


def _description(executed: list[str], new_instant: str | None, slices: int) -> str:
    parts = [f"pending compaction {t} executed" for t in executed]
    if new_instant is not None:
        parts.append(
            f"{slices} file slice(s) compacted by the new compaction (its instant, taken when apply "
            f"runs, is projected as {new_instant})"
        )
    return "compaction: " + "; ".join(parts)


def project_after_compaction(table: TableState, node: NodePlan) -> TableState:
    """The table after ``node`` (a compaction node) ran; the table itself when it changes nothing."""
    if node.status is not NodeStatus.CHANGES:
        return table
    executed = [action.target for action in node.actions_of(ExecutePendingCompaction)]
    operations = approved_operations(node)
    timeline = table.snapshot.timeline
    new_instant = projected_instant_time(timeline, len(executed) + 1) if operations else None
    if not executed and new_instant is None:
        return table
    projected_timeline = _projected_timeline(timeline, executed, new_instant)
    added = _new_files(table, node, executed, new_instant)
    listings = listings_with(table.snapshot.listings, added)
    inputs = _inputs_without(table.view.inputs, executed)
    snapshot = replace(table.snapshot, timeline=projected_timeline, listings=listings)
    projection = Projection.after(
        table.projection,
        _description(executed, new_instant, len(operations)),
        (new_instant,) if new_instant else (),
    )
    # the groups of executed pending compactions and of new operations all get a new base file
    view = rebuild_partitions(table.view, projected_timeline, listings, inputs, added)
    return TableState(table.storage, snapshot, view, projection)
