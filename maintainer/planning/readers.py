"""Declared readers at planning time (:mod:`maintainer.project.readers`): a clean or archive node
that would remove what a reader still needs is planned blocked, naming the reader, the instant
and the hours it would lose; one that does not says its margin.

A reader needs the table readable as of every moment after its horizon (now minus its ``lag`` or
``keep``, in the table's timeline timezone):

* a **clean** removes a file version; reads as of any moment from the version's instant until the
  next version of its file group was written need it. So each removed version's *successor*
  (the next slice's instant in its file group, in the table as the plan's earlier nodes leave
  it: a slice this plan's compaction supersedes has the compaction, i.e. now, as successor)
  must be at or before the horizon. Where the successor is unknown (a replaced file group), now
  is assumed: the clean is blocked rather than guessed safe.
* an **archive** moves instants off the active timeline, where incremental and time-travel
  reads look: every instant it archives must be at or before the horizon.
"""

from __future__ import annotations

import bisect
import posixpath
from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.artifact.model.archive import ArchiveInstant
from maintainer.artifact.model.clean import DeleteFile
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.instants.instant import format_instant_time, parse_instant_time, wall_clock_in_timezone
from maintainer.hudi.table.state import TableState
from maintainer.project import TableSpec
from maintainer.project.readers import ReaderSpec

Successors = dict[tuple[str, str], list[str]]


def _slice_instants(table: TableState) -> Successors:
    """(partition, file id) -> the base instants of its slices, sorted."""
    return {
        (group.partition, group.file_id): sorted(s.base_instant for s in group.slices)
        for group in table.view.file_groups(include_replaced=True)
    }


def _successor(target: str, slices: Successors, now: str) -> str:
    """The instant the removed file's version stopped being current (now where unknown)."""
    partition, name = posixpath.split(target)
    parsed = BaseFileName.parse(name) or LogFileName.parse(name)
    if parsed is None:
        return now
    instants = slices.get((partition, parsed.file_id), [])
    after = bisect.bisect_right(instants, parsed.instant_time)
    return instants[after] if after < len(instants) else now


def _newest_removed(node: NodePlan, table: TableState, now: str) -> tuple[str, str] | None:
    """(instant, example) of what the node removes that is newest for a reader, None: nothing."""
    if node.service == "clean":
        slices = _slice_instants(table)
        found = [(_successor(a.target, slices, now), a.target) for a in node.actions_of(DeleteFile)]
        return max(found) if found else None
    if node.service == "archive":
        archived = [(a.target, "") for a in node.actions_of(ArchiveInstant)]
        return max(archived) if archived else None
    return None


def _hours(later: datetime, earlier: datetime) -> str:
    return f"{(later - earlier).total_seconds() / 3600:.1f} h"


def _shown(instant: str) -> str:
    moment = parse_instant_time(instant)
    return f"{moment:%Y-%m-%d %H:%M} ({instant})"


def _verdict(
    reader: ReaderSpec, node: NodePlan, newest: tuple[str, str], local_now: datetime
) -> tuple[bool, str]:
    """(cuts the reader off, the sentence for the plan)."""
    horizon = format_instant_time(local_now - reader.reach)
    instant, example = newest
    removes = "removes file versions current until" if node.service == "clean" else "archives instants up to"
    if parse_instant_time(instant) > parse_instant_time(horizon):
        lost = _hours(parse_instant_time(instant), parse_instant_time(horizon))
        return True, (
            f"would cut off reader {reader.describe()}: this {node.service} {removes} {_shown(instant)}"
            f"{f' (e.g. {example})' if example else ''}, after the reader's horizon {_shown(horizon)}: "
            f"it would lose {lost} of "
            f"what it reads; retain more (the {node.service} settings) or wait, or change the reader "
            "in the manifest (a reviewed change)"
        )
    margin = _hours(parse_instant_time(horizon), parse_instant_time(instant))
    return False, (
        f"reader {reader.describe()}: margin {margin} (this {node.service} {removes} "
        f"{_shown(instant)}; the reader needs everything after {_shown(horizon)})"
    )


def reader_checked(node: NodePlan, spec: TableSpec, table: TableState, now: datetime) -> NodePlan:
    """The node with each declared reader's margin, or blocked where it would cut one off."""
    if not spec.readers or node.status is not NodeStatus.CHANGES:
        return node
    local_now = wall_clock_in_timezone(now, table.snapshot.config.timeline_timezone)
    newest = _newest_removed(node, table, format_instant_time(local_now))
    if newest is None:
        return node
    verdicts = [_verdict(reader, node, newest, local_now) for reader in spec.readers]
    cut_off = tuple(sentence for blocks, sentence in verdicts if blocks)
    if cut_off:
        return NodePlan(table=node.table, service=node.service, status=NodeStatus.BLOCKED, reasons=cut_off)
    return replace(node, reasons=(*node.reasons, *(sentence for _, sentence in verdicts)))
