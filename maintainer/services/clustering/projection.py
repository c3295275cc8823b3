"""The table as it will be once a clustering node of the plan has run, so that a later node of
the same plan (the clean) is planned on it: the clustered file groups are replaced (hidden from
the latest view, and cleaned only once the replacecommit is older than the clean's earliest
commit to retain, as Hudi's ``CleanPlanner`` does), and the new file groups hold the latest
slices.

Projected for the new clustering (pending clusterings executed by the node are left as they
are: their outputs are named in their plans, not in the node): the clustering completed on the
timeline at an instant just after every instant of the table (apply takes the real one), and
per group ``num_output_file_groups`` new base files sharing the group's input bytes, under file
ids made from the group's first file id (the real ones are random UUIDs).

Pure: builds new snapshot, timeline and view objects; reads and writes nothing.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from maintainer.artifact.model import ClusterGroup, NodePlan, NodeStatus
from maintainer.hudi.file_groups.fsview import rebuild_partitions
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.table.projection import (
    Projection,
    completed_entry,
    listings_with,
    projected_instant_time,
    with_entries,
)
from maintainer.hudi.table.state import TableState
from maintainer.services.clustering.node import approved_groups
from maintainer.storage import FileInfo

PROJECTED_WRITE_TOKEN = "0-0-0"
"""Write token of projected base files (only their existence as new file groups matters)."""


def projected_file_id(group: ClusterGroup, index: int) -> str:
    """A stable id for the ``index``-th new file group of ``group`` (``<uuid>-0``)."""
    seed = f"{group.partition}/{group.slices[0].file_id}/{index}"
    return f"{uuid.uuid5(uuid.NAMESPACE_URL, seed)}-0"


def _new_files(groups: list[ClusterGroup], instant: str, extension: str) -> dict[str, list[FileInfo]]:
    added: dict[str, list[FileInfo]] = {}
    for group in groups:
        outputs = max(group.num_output_file_groups, 1)
        size = group.input_bytes // outputs
        for index in range(outputs):
            name = f"{projected_file_id(group, index)}_{PROJECTED_WRITE_TOKEN}_{instant}{extension}"
            path = f"{group.partition}/{name}" if group.partition else name
            added.setdefault(group.partition, []).append(FileInfo(path, size, False))
    return added


def _completed_action(timeline: Timeline) -> Action:
    """Table version 6 completes a ``replacecommit``; 8+ a ``clustering`` (whose completed file
    is a ``.replacecommit``)."""
    return Action.CLUSTERING if timeline.layout is TimelineLayout.V2 else Action.REPLACE_COMMIT


def project_after_clustering(table: TableState, node: NodePlan) -> TableState:
    """The table after ``node`` (a clustering node) ran; the table itself when it schedules no
    new clustering."""
    groups = approved_groups(node)
    if node.status is not NodeStatus.CHANGES or not groups:
        return table
    timeline = table.snapshot.timeline
    instant = projected_instant_time(timeline, 1)
    completion = projected_instant_time(timeline, 2)
    entry = completed_entry(instant, _completed_action(timeline), timeline.layout, completion)
    projected_timeline = with_entries(timeline, [*timeline.entries, entry])
    added = _new_files(groups, instant, table.snapshot.config.base_file_extension)
    listings = listings_with(table.snapshot.listings, added)
    replaced = {key: instant for group in groups for key in group.file_groups}
    inputs = replace(
        table.view.inputs, replaced_file_groups={**table.view.inputs.replaced_file_groups, **replaced}
    )
    snapshot = replace(table.snapshot, timeline=projected_timeline, listings=listings)
    slices = sum(len(g.slices) for g in groups)
    change = (
        f"clustering: {slices} file group(s) replaced by {sum(len(v) for v in added.values())} new one(s) "
        f"(its instant, taken when apply runs, is projected as {instant})"
    )
    projection = Projection.after(table.projection, change, (instant,))
    view = rebuild_partitions(table.view, projected_timeline, listings, inputs, added)
    return TableState(table.storage, snapshot, view, projection)
