"""The table as a ``savepoint_create`` node of the plan will leave it: its savepoints completed
on the timeline, and the files they keep (the latest slices as of each savepointed commit)
savepointed, so a clean planned after it in the same plan keeps them (instead of approving
deletions that apply would then drop as drift).

Pure: builds new timeline and view objects; reads and writes nothing.
"""

from __future__ import annotations

from dataclasses import replace

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.executors.savepoint import savepoint_metadata
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.projection import Projection, completed_entry, with_entries
from maintainer.hudi.table.state import TableState

_PROJECTED = "projected"


def _kept_files(table: TableState, instant_time: str) -> set[str]:
    metadata = savepoint_metadata(table, instant_time, _PROJECTED, _PROJECTED, 0)
    return {name for p in metadata.partition_metadata.values() for name in p.savepoint_data_file}


def project_after_savepoint_create(table: TableState, node: NodePlan) -> TableState:
    """The table after ``node`` created its savepoints; the table itself when it creates none."""
    created = [a.target for a in node.actions if a.kind == "create_savepoint"]
    if node.status is not NodeStatus.CHANGES or not created:
        return table
    timeline = table.snapshot.timeline
    completion = timeline.max_instant_time() or created[-1]
    kept: set[str] = set(table.view.inputs.savepointed_files)
    for instant_time in created:
        kept |= _kept_files(table, instant_time)
    added = [completed_entry(t, Action.SAVEPOINT, timeline.layout, completion) for t in created]
    projected_timeline = with_entries(timeline, [*timeline.entries, *added])
    inputs = replace(table.view.inputs, savepointed_files=frozenset(kept))
    snapshot = replace(table.snapshot, timeline=projected_timeline)
    projection = Projection.after(table.projection, f"savepoint(s) {', '.join(created)}")
    # savepoints change no file group: the view's groups stay, with the new timeline and inputs
    view = FileSystemView(projected_timeline, table.view.groups, inputs, table.view.uncommitted_by_partition)
    return TableState(table.storage, snapshot, view, projection)
