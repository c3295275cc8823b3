"""Building blocks of projected table states: the table as a plan's earlier nodes will leave
it (see the ``projection`` modules of the services). Pure: new objects, nothing read or written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from maintainer.hudi.instants.instant import Action, Instant, State, format_instant_time, parse_instant_time
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline, TimelineEntry
from maintainer.storage import FileInfo
from maintainer.storage.listing import Listings

ListingsMap = Mapping[str, tuple[FileInfo, ...]]


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


def projected_instant_time(timeline: Timeline, step: int = 1) -> str:
    """An instant time for a projected instant: ``step`` milliseconds after every instant and
    completion time of the timeline (apply takes the real one, later still)."""
    latest = timeline.max_instant_time()
    if latest is None:
        raise ValueError("an empty timeline has no instant to follow")
    return format_instant_time(parse_instant_time(latest) + timedelta(milliseconds=step))


def completed_entry(timestamp: str, action: Action, layout: TimelineLayout, completion: str) -> TimelineEntry:
    """The timeline entry of a completed instant (``completion`` counts on layout 2 only)."""
    recorded = completion if layout.records_completion_time else None
    instant = Instant(timestamp, action, State.COMPLETED, recorded)
    return TimelineEntry(instant, {State.COMPLETED: instant.file_name(layout)})


def with_entries(timeline: Timeline, entries: Iterable[TimelineEntry]) -> Timeline:
    """The timeline with ``entries`` in time order (same layout and directory)."""
    ordered = sorted(entries, key=lambda e: e.instant.sort_key())
    return timeline.filter(ordered)


def listings_with(listings: ListingsMap, added: Mapping[str, Iterable[FileInfo]]) -> ListingsMap:
    """The listings with ``added`` entries appended (column-wise for loaded listings, so the
    partitions left alone stay parsed)."""
    if isinstance(listings, Listings):
        return listings.with_entries(added)
    extended = dict(listings)
    for partition, infos in added.items():
        extended[partition] = (*extended.get(partition, ()), *infos)
    return extended


def listings_without(listings: ListingsMap, paths: Iterable[str]) -> ListingsMap:
    """The listings without the entries at ``paths`` (root-relative)."""
    gone = set(paths)
    if isinstance(listings, Listings):
        return listings.without(gone)
    return {p: tuple(i for i in entries if i.path not in gone) for p, entries in listings.items()}
