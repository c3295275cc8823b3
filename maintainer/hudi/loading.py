"""Open a table: snapshot from storage, facts decoded from its instants, file-system view."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from maintainer.hudi.fsview import FileSystemView, build_view, view_as_of
from maintainer.hudi.instant import format_instant_time, parse_instant_time
from maintainer.hudi.table import TableSnapshot, load_snapshot
from maintainer.hudi.timeline import Timeline
from maintainer.hudi.view_inputs import load_view_inputs
from maintainer.storage import Storage


def projected_instant_time(timeline: Timeline, step: int = 1) -> str:
    """An instant time for a projected instant: ``step`` milliseconds after every instant and
    completion time of the timeline (apply takes the real one, later still)."""
    latest = timeline.max_instant_time()
    if latest is None:
        raise ValueError("an empty timeline has no instant to follow")
    return format_instant_time(parse_instant_time(latest) + timedelta(milliseconds=step))


@dataclass(frozen=True, slots=True)
class Projection:
    """Marks a table state that was not read but projected: the table as it will be once
    earlier nodes of the same plan have run (e.g. after its compaction)."""

    instants: tuple[str, ...]
    """Instant times that exist only in the projection (apply takes the real ones)."""
    description: str

    @staticmethod
    def after(previous: Projection | None, change: str, instants: tuple[str, ...] = ()) -> Projection:
        """The projection once ``change`` (what a node of the plan does) follows ``previous``."""
        if previous is None:
            return Projection(instants, f"planned on the table as it will be after this plan's {change}")
        return Projection((*previous.instants, *instants), f"{previous.description}; then its {change}")


@dataclass(frozen=True)
class LoadedTable:
    """A table as read at one moment: its storage, snapshot and file-system view (or, with
    ``projection``, as it will be after earlier nodes of a plan ran)."""

    storage: Storage
    snapshot: TableSnapshot
    view: FileSystemView
    projection: Projection | None = None

    def view_as_of(self, timestamp: str) -> FileSystemView:
        return view_as_of(self.view, self.snapshot.listings, timestamp)


def open_table(
    path: str, storage_options: Mapping[str, Any] | None = None, partitions: Iterable[str] | None = None
) -> LoadedTable:
    """Read a table (never writes); ``partitions`` limits the listing (default: all). Raises
    TableFormatError for anything that is not a readable Hudi table of a supported version."""
    storage = Storage(path, storage_options)
    snapshot = load_snapshot(storage, partitions)
    inputs = load_view_inputs(storage, snapshot)
    return LoadedTable(storage, snapshot, build_view(snapshot.timeline, snapshot.listings, inputs))
