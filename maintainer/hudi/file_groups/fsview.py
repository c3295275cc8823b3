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
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from maintainer.hudi.file_groups.datafiles import parse_data_files
from maintainer.hudi.file_groups.filemodel import BaseFile, FileGroup, FileSlice, LogFile
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo
from maintainer.storage.gc_pause import paused_gc
from maintainer.storage.listing import DirListing, Listings

Value = TypeVar("Value")


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

    def pending_operation(self, key: tuple[str, str]) -> PendingOperation | None:
        """The pending compaction, log compaction or clustering (in that order) that holds the
        file group ``(partition, file id)``, if any: what compaction and clustering leave alone."""
        for pending in (self.pending_compaction, self.pending_log_compaction, self.pending_clustering):
            op = pending.get(key)
            if op is not None:
                return op
        return None


DataFiles = tuple[BaseFile | LogFile, ...]


@dataclass(frozen=True)
class FileSystemView:
    """File groups per partition, for the timeline it was built on. A view built from a
    table's listings makes a partition's groups when first read (see :class:`PartitionViews`)."""

    timeline: Timeline
    groups: Mapping[str, tuple[FileGroup, ...]]
    inputs: ViewInputs
    uncommitted_by_partition: Mapping[str, DataFiles] = field(default_factory=dict)
    """Partition -> its data files no completed instant wrote (failed or running writes)."""

    @property
    def partitions(self) -> list[str]:
        return sorted(self.groups)

    @property
    def uncommitted(self) -> DataFiles:
        """Every partition's uncommitted data files."""
        by_partition = self.uncommitted_by_partition
        return tuple(f for partition in by_partition for f in by_partition[partition])

    def uncommitted_in(self, partition: str) -> DataFiles:
        return self.uncommitted_by_partition.get(partition, ())

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


class PartitionBuilt(NamedTuple):
    groups: tuple[FileGroup, ...]
    uncommitted: DataFiles
    files: int
    """Data files parsed from the partition's listing (what holding it costs)."""


VIEW_CACHE_FILES = 250_000
"""Data files whose partitions' views a lazily built view keeps (most recently read first):
a table up to this size is built once; a larger one holds about this many files' objects,
however large it is, and builds again what it dropped."""


class PartitionViews(Mapping[str, tuple[FileGroup, ...]]):
    """Partition -> its file groups, each partition built from its listing when first read.
    Only the most recently read partitions are kept, up to :data:`VIEW_CACHE_FILES` data files
    (the one just built always), so reading every partition of a table of millions of files
    holds that budget's objects (or one partition's, if larger), not the table's. Thread-safe."""

    def __init__(
        self,
        partitions: Iterable[str],
        build: Callable[[str], PartitionBuilt],
        capacity: int | None = None,
    ) -> None:
        self._partitions = dict.fromkeys(partitions)
        self._build = build
        self._capacity = VIEW_CACHE_FILES if capacity is None else capacity
        self._kept: OrderedDict[str, PartitionBuilt] = OrderedDict()
        self._kept_files = 0
        self._lock = threading.Lock()

    def built(self, partition: str) -> PartitionBuilt:
        with self._lock:
            hit = self._kept.get(partition)
            if hit is not None:
                self._kept.move_to_end(partition)
                return hit
        if partition not in self._partitions:
            raise KeyError(partition)
        made = self._build(partition)
        with self._lock:
            if partition not in self._kept:
                self._kept[partition] = made
                self._kept_files += made.files
            while self._kept_files > self._capacity and len(self._kept) > 1:
                _, dropped = self._kept.popitem(last=False)
                self._kept_files -= dropped.files
        return made

    @property
    def kept_partitions(self) -> int:
        return len(self._kept)

    def uncommitted(self) -> Mapping[str, DataFiles]:
        """Partition -> its uncommitted files, read through the same builds."""
        return _UncommittedOf(self)

    def __getitem__(self, partition: str) -> tuple[FileGroup, ...]:
        return self.built(partition).groups

    def __contains__(self, partition: object) -> bool:
        return partition in self._partitions

    def __iter__(self) -> Iterator[str]:
        return iter(self._partitions)

    def __len__(self) -> int:
        return len(self._partitions)

    def __repr__(self) -> str:
        return f"PartitionViews({len(self._partitions)} partitions, {len(self._kept)} built)"


class _UncommittedOf(Mapping[str, DataFiles]):
    def __init__(self, views: PartitionViews) -> None:
        self._views = views

    def __getitem__(self, partition: str) -> DataFiles:
        return self._views.built(partition).uncommitted

    def __iter__(self) -> Iterator[str]:
        return iter(self._views)

    def __len__(self) -> int:
        return len(self._views)


class Overlaid(Mapping[str, Value]):
    """``top``'s partitions over ``base``'s (a view rebuilt for a few partitions keeps reading
    the others from the view it came from, without building them)."""

    def __init__(self, top: Mapping[str, Value], base: Mapping[str, Value]) -> None:
        self._top = top
        self._base = base

    def __getitem__(self, partition: str) -> Value:
        if partition in self._top:
            return self._top[partition]
        return self._base[partition]

    def __contains__(self, partition: object) -> bool:
        return partition in self._top or partition in self._base

    def __iter__(self) -> Iterator[str]:
        yield from self._base
        yield from (p for p in self._top if p not in self._base)

    def __len__(self) -> int:
        return len(self._base) + sum(1 for p in self._top if p not in self._base)


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


logs_by_slice = _logs_by_slice
"""The slices of a file group's logs by the sequential rule (the columnar view's rare case)."""


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
) -> tuple[dict[str, list[BaseFile | LogFile]], int]:
    """File id -> visible data files of one partition (invisible ones go to ``uncommitted``),
    and how many data files the listing holds."""
    by_group: dict[str, list[BaseFile | LogFile]] = {}
    parsed = parse_data_files(partition, listing)
    for data_file in parsed:
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
    return by_group, len(parsed)


def dir_listing(listings: Mapping[str, Iterable[FileInfo]], partition: str) -> DirListing:
    """The columns of a partition's listing: as loaded, or from FileInfo entries."""
    if isinstance(listings, Listings):
        return listings.dir_listing(partition)
    return DirListing.from_infos(partition, listings[partition])


@dataclass(frozen=True)
class _PartitionBuilder:
    """Builds one partition's file groups against one timeline and its inputs."""

    listings: Mapping[str, Iterable[FileInfo]]
    timeline: Timeline
    inputs: ViewInputs
    completions: Mapping[str, str]
    pending_times: set[str]

    @classmethod
    def of(
        cls, timeline: Timeline, listings: Mapping[str, Iterable[FileInfo]], inputs: ViewInputs
    ) -> _PartitionBuilder:
        pending_times = {op.instant_time for op in inputs.pending_compaction.values()}
        pending_times |= {i.timestamp for i in timeline.pending_compactions()}
        return cls(listings, timeline, inputs, timeline.completion_times(), pending_times)

    def __call__(self, partition: str) -> PartitionBuilt:
        with paused_gc():
            return self._build(partition)

    def _build(self, partition: str) -> PartitionBuilt:
        timeline, completions = self.timeline, self.completions
        layout, first = timeline.layout, timeline.write_timeline_start()
        pending_ops = self.inputs.pending_compaction
        uncommitted: list[BaseFile | LogFile] = []
        listing = dir_listing(self.listings, partition)
        by_group, files = _partition_groups(
            partition, listing, layout, first, completions, self.pending_times, uncommitted
        )
        groups = tuple(
            _build_group(
                partition,
                fid,
                by_group[fid],
                layout,
                completions,
                pending_ops.get((partition, fid)) if pending_ops else None,
                timeline.archived_completion_time,
            )
            for fid in sorted(by_group)
        )
        return PartitionBuilt(groups, tuple(uncommitted), files)


def build_view(
    timeline: Timeline, listings: Mapping[str, Iterable[FileInfo]], inputs: ViewInputs | None = None
) -> FileSystemView:
    """The view of per-partition listings (partition path -> entries; a loaded
    :class:`Listings` is read column-wise); a partition is built when first read."""
    views = PartitionViews(listings, _PartitionBuilder.of(timeline, listings, inputs or ViewInputs()))
    return FileSystemView(timeline, views, inputs or ViewInputs(), views.uncommitted())


def built_now(view: FileSystemView) -> FileSystemView:
    """The view with every partition built and kept (small views that are read many times,
    or compared whole in tests)."""
    with paused_gc():
        groups = {partition: view.groups[partition] for partition in view.groups}
        uncommitted = {p: files for p in view.groups if (files := view.uncommitted_in(p))}
    return FileSystemView(view.timeline, groups, view.inputs, uncommitted)


def rebuild_partitions(
    view: FileSystemView,
    timeline: Timeline,
    listings: Mapping[str, Iterable[FileInfo]],
    inputs: ViewInputs,
    partitions: Iterable[str],
) -> FileSystemView:
    """``view`` after a change (new timeline, listings and inputs) that touched only the files,
    file groups and pending operations of ``partitions``: those are rebuilt, the others read
    from ``view``. The caller vouches for that; a moved start of the write timeline (it decides
    which files count as committed everywhere) rebuilds everything."""
    if timeline.write_timeline_start() != view.timeline.write_timeline_start():
        return build_view(timeline, listings, inputs)
    touched = sorted({p for p in partitions if p in listings})
    scoped = listings.subset(touched) if isinstance(listings, Listings) else {p: listings[p] for p in touched}
    partial = built_now(build_view(timeline, scoped, inputs))
    return FileSystemView(
        timeline,
        Overlaid(partial.groups, view.groups),
        inputs,
        Overlaid(partial.uncommitted_by_partition, view.uncommitted_by_partition),
    )


def view_as_of(
    view: FileSystemView, listings: Mapping[str, Iterable[FileInfo]], timestamp: str
) -> FileSystemView:
    """The view as a reader time-travelling to ``timestamp`` sees it."""
    timeline = view.timeline.as_of(timestamp)
    replaced = {k: t for k, t in view.inputs.replaced_file_groups.items() if t <= timestamp}
    inputs = ViewInputs(replaced_file_groups=replaced, savepointed_files=view.inputs.savepointed_files)
    return build_view(timeline, listings, inputs)
