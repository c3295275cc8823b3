"""The file-system view: partitions, file groups and file slices of a table, as Hudi sees them.

Built purely from a listing of the partitions and the timeline (plus the facts decoded from
instant payloads: replaced file groups, pending compaction and clustering operations,
savepointed files), so every rule is unit-testable on synthetic states.

Rules (HUDI.md §2-§3):
* layout 1 (v6): a slice is keyed by its base instant; a log file names its slice's base instant;
* layout 2 (v8+): a log file names its deltacommit; it belongs to the slice with the greatest
  base instant at or before the deltacommit's completion time (a log completed before every
  base instant opens a slice at its own instant); the completion time of a deltacommit older
  than the active timeline comes from the archived timeline, and where it is not known there
  the log belongs to the latest slice (``HoodieFileGroup.getBaseInstantTime``);
* only committed files are visible: the writing instant is a completed commit, or older than
  the start of the write timeline (archived, so committed); a pending compaction opens a new
  slice at its instant;
* replaced file groups (completed replacecommits) are not part of the latest view.

Its files, slices and groups are the checked values of :mod:`.filemodel`; the builder here
makes them through their slots, skipping the checks, as it keeps their invariants by
construction (the unit tests rebuild every slice and group of built views through the checked
constructors).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from maintainer.hudi.datafiles import listing_data_files
from maintainer.hudi.filemodel import BaseFile, FileGroup, FileSlice, LogFile
from maintainer.hudi.timeline import Timeline
from maintainer.hudi.timeline_layout import TimelineLayout
from maintainer.storage import FileInfo
from maintainer.storage.fs import paused_gc
from maintainer.storage.listing import DirListing, Listings


@dataclass(frozen=True, slots=True)
class PendingOperation:
    """A file group under a pending compaction, log compaction or clustering."""

    instant_time: str
    action: str
    base_instant: str | None = None


@dataclass(frozen=True)
class ViewInputs:
    """What the view needs besides the listing: facts decoded from instant payloads."""

    replaced_file_groups: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(partition, file id) -> time of the completed replacecommit that replaced it."""
    pending_compaction: Mapping[tuple[str, str], PendingOperation] = field(default_factory=dict)
    pending_log_compaction: Mapping[tuple[str, str], PendingOperation] = field(default_factory=dict)
    pending_clustering: Mapping[tuple[str, str], PendingOperation] = field(default_factory=dict)
    savepointed_files: frozenset[str] = frozenset()
    """File names (base and log) kept by any savepoint."""


@dataclass(frozen=True)
class FileSystemView:
    """File groups per partition, for the timeline it was built on."""

    timeline: Timeline
    groups: Mapping[str, tuple[FileGroup, ...]]
    inputs: ViewInputs
    uncommitted: tuple[BaseFile | LogFile, ...] = ()

    @property
    def partitions(self) -> list[str]:
        return sorted(self.groups)

    def file_groups(self, partition: str | None = None, include_replaced: bool = False) -> list[FileGroup]:
        parts = [partition] if partition is not None else self.partitions
        result = []
        for part in parts:
            for group in self.groups.get(part, ()):
                if include_replaced or not self.is_replaced(group):
                    result.append(group)
        return result

    def is_replaced(self, group: FileGroup) -> bool:
        return (group.partition, group.file_id) in self.inputs.replaced_file_groups

    def latest_slices(self, partition: str | None = None) -> list[FileSlice]:
        return [s for g in self.file_groups(partition) if (s := g.latest_slice) is not None]

    def all_files(self) -> list[BaseFile | LogFile]:
        return [f for g in self.file_groups(include_replaced=True) for s in g.slices for f in s.files]


# -- building ----------------------------------------------------------------------------

_new_object = object.__new__
_SLICE_SETTERS = tuple(
    vars(FileSlice)[f].__set__ for f in ("partition", "file_id", "base_instant", "base_file", "log_files")
)
_GROUP_SETTERS = tuple(vars(FileGroup)[f].__set__ for f in ("partition", "file_id", "slices"))


def _new_file_slice(
    partition: str, file_id: str, base_instant: str, base_file: BaseFile | None, logs: tuple[LogFile, ...]
) -> FileSlice:
    """``FileSlice(...)`` without its checks, through the slots (a frozen dataclass's
    ``__init__`` goes through ``object.__setattr__`` per field): the builder makes slices that
    hold by construction, one or more per file group of the table."""
    file_slice: FileSlice = _new_object(FileSlice)
    set_partition, set_file_id, set_base_instant, set_base_file, set_logs = _SLICE_SETTERS
    set_partition(file_slice, partition)
    set_file_id(file_slice, file_id)
    set_base_instant(file_slice, base_instant)
    set_base_file(file_slice, base_file)
    set_logs(file_slice, logs)
    return file_slice


def _new_file_group(partition: str, file_id: str, slices: tuple[FileSlice, ...]) -> FileGroup:
    """``FileGroup(...)`` without its checks, as :func:`_new_file_slice`."""
    group: FileGroup = _new_object(FileGroup)
    set_partition, set_file_id, set_slices = _GROUP_SETTERS
    set_partition(group, partition)
    set_file_id(group, file_id)
    set_slices(group, slices)
    return group


def _is_visible(
    data_file: BaseFile | LogFile,
    layout: TimelineLayout,
    first_instant: str | None,
    completions: Mapping[str, str],
    pending_compaction_times: set[str],
) -> bool:
    instant = data_file.instant_time
    if instant in completions or (first_instant is not None and instant < first_instant):
        return True  # completed, or written before the start of the active timeline
    # v6 log files are named by the slice's base instant, which may be a pending compaction
    return (
        layout.logs_name_their_slice
        and isinstance(data_file, LogFile)
        and instant in pending_compaction_times
    )


def _open_slice(instant: str, slice_instants: list[str]) -> str:
    """A log before every slice opens one at its own instant (``slice_instants`` stays sorted,
    without duplicates: a completion time may precede its instant)."""
    if instant not in slice_instants:
        bisect.insort(slice_instants, instant)
    return instant


ArchivedLookup = Callable[[str], "str | None"]
"""The completion time of an instant older than the active timeline
(:meth:`Timeline.archived_completion_time`)."""


def _no_archive(instant: str) -> str | None:
    return None


def _latest_slice(instant: str, slice_instants: list[str]) -> str:
    """Where a log of unknown completion time goes: the latest slice (or its own, the first)."""
    return slice_instants[-1] if slice_instants else _open_slice(instant, slice_instants)


def _logs_by_slice(
    logs: list[LogFile],
    slice_instants: list[str],
    layout: TimelineLayout,
    completions: Mapping[str, str],
    archived: ArchivedLookup = _no_archive,
) -> dict[str, list[LogFile]]:
    """Slice instant -> its log files in Hudi's log order (``slice_instants`` may grow).
    Layout 1: a log names its slice. Layout 2 (``HoodieFileGroup.getBaseInstantTime``): the
    greatest slice instant at or before the completion time of the log's deltacommit, else the
    log's own; a completion time the active timeline lacks is asked of ``archived`` (only then:
    the history is read lazily); with none known, the latest slice."""
    logs.sort(key=LogFile.log_order)
    bisect_right = bisect.bisect_right
    logs_name_their_slice = layout.logs_name_their_slice
    by_slice: dict[str, list[LogFile]] = {}
    previous_instant: str | None = None
    files: list[LogFile] = []
    for log in logs:
        instant = log.instant_time
        if instant != previous_instant:  # logs of one instant share their slice
            previous_instant = instant
            if logs_name_their_slice:
                key = instant
            else:
                completion = completions.get(instant)
                if completion is None and (completion := archived(instant)) is None:
                    key = _latest_slice(instant, slice_instants)
                else:
                    index = bisect_right(slice_instants, completion) - 1
                    key = slice_instants[index] if index >= 0 else _open_slice(instant, slice_instants)
            found = by_slice.get(key)
            if found is None:
                by_slice[key] = files = []
            else:
                files = found
        files.append(log)
    return by_slice


def _build_group(
    partition: str,
    file_id: str,
    files: list[BaseFile | LogFile],
    layout: TimelineLayout,
    completions: Mapping[str, str],
    pending: PendingOperation | None,
    archived: ArchivedLookup = _no_archive,
) -> FileGroup:
    bases: dict[str, BaseFile] = {}
    logs: list[LogFile] = []
    for data_file in files:
        if isinstance(data_file, LogFile):
            logs.append(data_file)
        else:
            bases[data_file.instant_time] = data_file
    slice_instants = sorted(bases) if pending is None else sorted({*bases, pending.instant_time})
    by_slice = _logs_by_slice(logs, slice_instants, layout, completions, archived) if logs else {}
    # layout 2 places every log in ``slice_instants`` (grown as needed, sorted, no duplicates)
    instants = (
        sorted({*slice_instants, *by_slice}) if by_slice and layout.logs_name_their_slice else slice_instants
    )
    new_slice, no_logs = _new_file_slice, ()
    slices = tuple(
        new_slice(partition, file_id, b, bases.get(b), tuple(by_slice[b]) if b in by_slice else no_logs)
        for b in instants
    )
    return _new_file_group(partition, file_id, slices)


def _partition_groups(
    partition: str,
    listing: DirListing,
    layout: TimelineLayout,
    first: str | None,
    completions: Mapping[str, str],
    pending_times: set[str],
    uncommitted: list[BaseFile | LogFile],
) -> dict[str, list[BaseFile | LogFile]]:
    """File id -> visible data files of one partition; invisible ones go to ``uncommitted``."""
    by_group: dict[str, list[BaseFile | LogFile]] = {}
    for data_file in listing_data_files(partition, listing):
        # _is_visible, inlined for its first (and by far most common) answer
        if data_file.instant_time in completions or _is_visible(
            data_file, layout, first, completions, pending_times
        ):
            files = by_group.get(data_file.file_id)
            if files is None:
                by_group[data_file.file_id] = [data_file]
            else:
                files.append(data_file)
        else:
            uncommitted.append(data_file)
    return by_group


def _dir_listing(listings: Mapping[str, Iterable[FileInfo]], partition: str) -> DirListing:
    """The columns of a partition's listing: as loaded, or from FileInfo entries."""
    if isinstance(listings, Listings):
        return listings.dir_listing(partition)
    return DirListing.from_infos(partition, listings[partition])


def build_view(
    timeline: Timeline, listings: Mapping[str, Iterable[FileInfo]], inputs: ViewInputs | None = None
) -> FileSystemView:
    """Build the view from per-partition listings (partition path -> entries; a loaded
    :class:`Listings` is read column-wise)."""
    with paused_gc():
        return _build_view(timeline, listings, inputs or ViewInputs())


def _build_view(
    timeline: Timeline, listings: Mapping[str, Iterable[FileInfo]], inputs: ViewInputs
) -> FileSystemView:
    completions = timeline.completion_times()
    pending_times = {op.instant_time for op in inputs.pending_compaction.values()}
    pending_times |= {i.timestamp for i in timeline.pending_compactions()}
    pending_ops = inputs.pending_compaction
    layout, first = timeline.layout, timeline.write_timeline_start()
    archived = timeline.archived_completion_time
    groups: dict[str, tuple[FileGroup, ...]] = {}
    uncommitted: list[BaseFile | LogFile] = []
    for partition in listings:
        listing = _dir_listing(listings, partition)
        by_group = _partition_groups(
            partition, listing, layout, first, completions, pending_times, uncommitted
        )
        groups[partition] = tuple(
            _build_group(
                partition,
                fid,
                by_group[fid],
                layout,
                completions,
                pending_ops.get((partition, fid)) if pending_ops else None,
                archived,
            )
            for fid in sorted(by_group)
        )
    return FileSystemView(timeline, groups, inputs, tuple(uncommitted))


def rebuild_partitions(
    view: FileSystemView,
    timeline: Timeline,
    listings: Mapping[str, Iterable[FileInfo]],
    inputs: ViewInputs,
    partitions: Iterable[str],
) -> FileSystemView:
    """``view`` after a change (new timeline, listings and inputs) that touched only the files,
    file groups and pending operations of ``partitions``: those are rebuilt, the others kept.
    The caller vouches for that; a moved start of the write timeline (it decides which files
    count as committed everywhere) rebuilds everything."""
    if timeline.write_timeline_start() != view.timeline.write_timeline_start():
        return build_view(timeline, listings, inputs)
    touched = sorted({p for p in partitions if p in listings})
    scoped = listings.subset(touched) if isinstance(listings, Listings) else {p: listings[p] for p in touched}
    partial = build_view(timeline, scoped, inputs)
    kept = tuple(f for f in view.uncommitted if f.partition not in partial.groups)
    return FileSystemView(timeline, {**view.groups, **partial.groups}, inputs, kept + partial.uncommitted)


def view_as_of(
    view: FileSystemView, listings: Mapping[str, Iterable[FileInfo]], timestamp: str
) -> FileSystemView:
    """The view as a reader time-travelling to ``timestamp`` sees it."""
    timeline = view.timeline.as_of(timestamp)
    replaced = {k: t for k, t in view.inputs.replaced_file_groups.items() if t <= timestamp}
    inputs = ViewInputs(replaced_file_groups=replaced, savepointed_files=view.inputs.savepointed_files)
    return build_view(timeline, listings, inputs)
