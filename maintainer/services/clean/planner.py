"""The clean planner: a pure function of the table's state, the cleaner settings and now.

Per file group (HUDI.md §5, Hudi's CleanPlanner):
* savepointed files are never deleted;
* slices a pending compaction, log compaction or clustering needs (base instant at or after
  the operation's base instant) are never deleted;
* the latest slice of every file group is kept, and (by commits or hours) so is the latest
  slice before the earliest commit to retain, which running queries may still read;
* older slices are deleted with their log files;
* file groups replaced before the earliest commit to retain (any time, for file versions)
  are deleted whole;
* a partition left without any file is deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from operator import attrgetter

from maintainer.hudi.file_groups.filemodel import BaseFile, FileGroup, FileSlice, LogFile
from maintainer.hudi.file_groups.fsview import FileSystemView, PendingOperation, dir_listing
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.clean.policy import (
    CleanPolicy,
    CleanSettings,
    RetentionPoint,
    earliest_commit_to_retain,
)
from maintainer.services.clean.scope import LastClean, ScanScope
from maintainer.storage import FileInfo


@dataclass(frozen=True, slots=True)
class FileToDelete:
    partition: str
    name: str
    size: int
    reason: str
    path: str
    """Relative to the table base path (kept, not derived: the plan reads it for every file)."""

    @classmethod
    def of(cls, data_file: BaseFile | LogFile, reason: str) -> FileToDelete:
        """The deletion of ``data_file`` (built through the slots: once per deleted file)."""
        deletion: FileToDelete = object.__new__(cls)
        set_partition, set_name, set_size, set_reason, set_path = _DELETION_SETTERS
        set_partition(deletion, data_file.partition)
        set_name(deletion, data_file.name)
        set_size(deletion, data_file.size)
        set_reason(deletion, reason)
        set_path(deletion, data_file.path)
        return deletion


_DELETION_SETTERS = tuple(
    vars(FileToDelete)[f].__set__ for f in ("partition", "name", "size", "reason", "path")
)


@dataclass(frozen=True, slots=True)
class PartitionClean:
    partition: str
    files: tuple[FileToDelete, ...]
    delete_partition: bool = False


@dataclass(frozen=True)
class CleanInputs:
    """The table state a clean is planned on (the view covers the scanned partitions)."""

    timeline: Timeline
    view: FileSystemView
    scope: ScanScope
    savepointed_files: frozenset[str] = frozenset()
    timezone: str = "UTC"
    last_clean: LastClean | None = None
    """The last completed clean (its lastCompletedCommitTimestamp drives the trigger)."""
    retention: RetentionPoint | None = None
    """The earliest commit to retain as choosing the scope computed it (on this timeline, with
    the settings and the time :func:`plan_clean` gets): passed on, not computed again. None:
    :func:`plan_clean` computes it."""


@dataclass(frozen=True)
class CleanPlanResult:
    policy: CleanPolicy
    earliest_commit_to_retain: Instant | None
    retention_reason: str
    scope: ScanScope
    last_completed_commit: str
    savepoint_times: tuple[str, ...]
    partitions: tuple[PartitionClean, ...] = field(default=())
    not_triggered: str = ""
    """Why no clean is planned yet (hoodie.clean.max.commits not reached); "" when triggered."""

    @property
    def files(self) -> list[FileToDelete]:
        return [f for p in self.partitions for f in p.files]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def partitions_to_delete(self) -> list[str]:
        return [p.partition for p in self.partitions if p.delete_partition]

    @property
    def has_changes(self) -> bool:
        return bool(self.files) or bool(self.partitions_to_delete)


_BY_NAME = attrgetter("name")
_COMPACTION_ACTIONS = frozenset({"compaction", "logcompaction"})

# -- per file group ------------------------------------------------------------------------


def _needed_by_pending(file_slice: FileSlice, ops: list[PendingOperation]) -> PendingOperation | None:
    for op in ops:
        floor = op.base_instant or op.instant_time
        if file_slice.base_instant >= floor:
            return op
    return None


def _pending_ops(view: FileSystemView, group: FileGroup) -> list[PendingOperation]:
    inputs = view.inputs
    if not (inputs.pending_compaction or inputs.pending_log_compaction or inputs.pending_clustering):
        return []
    key = (group.partition, group.file_id)
    found = (
        inputs.pending_compaction.get(key),
        inputs.pending_log_compaction.get(key),
        inputs.pending_clustering.get(key),
    )
    return [op for op in found if op is not None]


def _deletions(file_slice: FileSlice, reason: str) -> list[FileToDelete]:
    return [FileToDelete.of(f, reason) for f in file_slice.files]


def _is_savepointed(file_slice: FileSlice, savepointed: frozenset[str]) -> bool:
    return bool(savepointed) and any(f.name in savepointed for f in file_slice.files)


def live_files(view: FileSystemView, savepointed: frozenset[str]) -> dict[str, str]:
    """The files of the view that no clean may delete now, whatever its policy, each with why:
    the latest slice with files of a file group that is not replaced, a slice a pending compaction, log
    compaction or clustering needs, a savepointed slice (paths relative to the table)."""
    live: dict[str, str] = {}
    for group in view.file_groups(include_replaced=True):
        ops = _pending_ops(view, group)
        filled = [s for s in group.slices if not s.is_empty]  # a pending compaction opens an empty one
        latest = None if view.is_replaced(group) or not filled else filled[-1]
        for file_slice in group.slices:
            reason = None
            if file_slice is latest:
                reason = "it is in the latest slice of its file group"
            elif op := _needed_by_pending(file_slice, ops):
                reason = f"the pending {op.action} {op.instant_time} needs it"
            elif _is_savepointed(file_slice, savepointed):
                reason = "it is savepointed"
            if reason:
                live.update((f.path, reason) for f in file_slice.files)
    return live


def _latest_before(slices_newest_first: list[FileSlice], ectr: str) -> str | None:
    for file_slice in slices_newest_first:
        if file_slice.base_instant < ectr:
            return file_slice.base_instant
    return None


def _clean_by_commits(
    group: FileGroup, ectr: str, ops: list[PendingOperation], savepointed: frozenset[str]
) -> list[FileToDelete]:
    slices = group.slices_newest_first()
    if not slices:
        return []
    keep = {slices[0].base_instant, _latest_before(slices, ectr)}
    result: list[FileToDelete] = []
    for file_slice in slices:
        if file_slice.base_instant in keep or file_slice.base_instant >= ectr:
            continue
        if _is_savepointed(file_slice, savepointed) or _needed_by_pending(file_slice, ops):
            continue
        result += _deletions(
            file_slice,
            f"slice {file_slice.base_instant} is older than the earliest commit to retain {ectr} "
            "and a newer slice before it is kept",
        )
    return result


def _clean_by_versions(
    group: FileGroup, retained: int, ops: list[PendingOperation], savepointed: frozenset[str]
) -> list[FileToDelete]:
    """Keep the newest ``retained`` slices (CleanPlanner.getFilesToCleanKeepingLatestVersions):
    savepointed slices count, as in Hudi 0.14+; slices a pending compaction or log compaction
    needs are kept apart and count as one version; slices a pending clustering reads count as
    versions like any other (Hudi does not set them apart), but are never deleted here."""
    compactions = [op for op in ops if op.action in _COMPACTION_ACTIONS]
    keep = retained - 1 if compactions else retained
    result: list[FileToDelete] = []
    for file_slice in group.slices_newest_first():
        if _needed_by_pending(file_slice, compactions):
            continue
        if keep > 0:
            keep -= 1
            continue
        if _is_savepointed(file_slice, savepointed) or _needed_by_pending(file_slice, ops):
            continue
        result += _deletions(file_slice, f"older than the {retained} newest file versions")
    return result


def _clean_replaced(group: FileGroup, replaced_at: str, savepointed: frozenset[str]) -> list[FileToDelete]:
    result: list[FileToDelete] = []
    for file_slice in group.slices:
        if _is_savepointed(file_slice, savepointed):
            continue
        result += _deletions(file_slice, f"file group replaced by replacecommit {replaced_at}")
    return result


# -- per partition ---------------------------------------------------------------------------


def _replaced_eligible(
    view: FileSystemView, group: FileGroup, settings: CleanSettings, ectr: str | None
) -> str | None:
    replaced_at = view.inputs.replaced_file_groups.get((group.partition, group.file_id))
    if replaced_at is None:
        return None
    if settings.policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS:
        return replaced_at
    return replaced_at if ectr is not None and replaced_at < ectr else None


def _group_deletions(
    view: FileSystemView,
    group: FileGroup,
    settings: CleanSettings,
    ectr: str | None,
    savepointed: frozenset[str],
) -> list[FileToDelete]:
    replaced_at = _replaced_eligible(view, group, settings, ectr)
    if replaced_at is not None:
        return _clean_replaced(group, replaced_at, savepointed)
    if view.is_replaced(group):
        return []
    ops = _pending_ops(view, group)
    if settings.policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS:
        return _clean_by_versions(group, settings.file_versions_retained, ops, savepointed)
    if ectr is None:
        return []
    return _clean_by_commits(group, ectr, ops, savepointed)


def _partition_emptied(view: FileSystemView, partition: str, deleted: list[FileToDelete]) -> bool:
    """Every file of the partition is deleted (and there is one, and none uncommitted); stops
    at the first file kept, usually the first group's latest slice."""
    if not deleted:
        return False
    deleted_names = {f.name for f in deleted}
    files = (f for g in view.file_groups(partition, include_replaced=True) for s in g.slices for f in s.files)
    has_files = False
    for data_file in files:
        if data_file.name not in deleted_names:
            return False
        has_files = True
    return has_files and not view.uncommitted_in(partition)


def plan_partition(
    view: FileSystemView,
    partition: str,
    settings: CleanSettings,
    ectr: str | None,
    savepointed: frozenset[str],
) -> PartitionClean:
    deleted: list[FileToDelete] = []
    for group in view.file_groups(partition, include_replaced=True):
        deleted += _group_deletions(view, group, settings, ectr, savepointed)
    emptied = bool(partition) and _partition_emptied(view, partition, deleted)
    return PartitionClean(partition, tuple(sorted(deleted, key=_BY_NAME)), emptied)


# -- the plan --------------------------------------------------------------------------------


def _last_completed_commit(timeline: Timeline) -> str:
    commits = timeline.completed_commits()
    return commits[-1].timestamp if commits else ""


def commits_since_last_clean(timeline: Timeline, last_clean: LastClean | None) -> int:
    """CleanPlanActionExecutor.getCommitsSinceLastCleaning: completed commits after the last
    clean's ``lastCompletedCommitTimestamp``; every completed commit without a last clean, or
    when its file is empty."""
    commits = timeline.completed_commits()
    if last_clean is None or last_clean.last_completed_commit is None:
        return len(commits)
    return sum(1 for c in commits if c.timestamp > last_clean.last_completed_commit)


def _not_triggered(inputs: CleanInputs, settings: CleanSettings) -> str:
    """CleanPlanActionExecutor.needsCleaning (NUM_COMMITS): why no clean is planned, or ""."""
    since = commits_since_last_clean(inputs.timeline, inputs.last_clean)
    if since >= settings.max_commits:
        return ""
    last = inputs.last_clean
    anchor = f"the last clean {last.instant_time}" if last else "the start of the timeline"
    return (
        f"not triggered: {since} completed commit(s) since {anchor}, fewer than max_commits "
        f"({settings.max_commits}); Hudi would not schedule a clean yet"
    )


PartitionsPlanner = Callable[[CleanInputs, CleanSettings, "str | None"], Iterable[PartitionClean]]
"""The partitions with something to delete, in partition order (inputs, settings, ECTR)."""


def object_partitions(
    inputs: CleanInputs, settings: CleanSettings, ectr: str | None
) -> Iterable[PartitionClean]:
    """Each partition of the object view planned by :func:`plan_partition`."""
    view, savepointed = inputs.view, inputs.savepointed_files
    for partition in view.partitions:
        planned = plan_partition(view, partition, settings, ectr, savepointed)
        if planned.files or planned.delete_partition:
            yield planned


COLUMNAR_FROM_ENTRIES = 5_000
"""From this many listed entries a scan is planned on the columnar view (polars, imported then
only: a small plan or apply loads no dataframe library); below, the object view is cheaper."""


def partitions_planner(
    listings: Mapping[str, Iterable[FileInfo]], *, sizes: bool = True
) -> PartitionsPlanner:
    """The per-partition planner for a scan of ``listings``: the columnar one from
    :data:`COLUMNAR_FROM_ENTRIES` listed entries, else the object view's (the same plans).
    ``sizes=False``: a deleted file's size a names-only listing has not read is left unasked
    (``-1``) by the columnar planner: for apply, which reports the reviewed sizes."""
    entries = 0
    for partition in listings:
        entries += len(dir_listing(listings, partition))
        if entries >= COLUMNAR_FROM_ENTRIES:
            from maintainer.services.clean.columnar import columnar_partitions

            return columnar_partitions(listings, sizes=sizes)
    return object_partitions


def plan_clean(
    inputs: CleanInputs,
    settings: CleanSettings,
    now: datetime,
    plan_partitions: PartitionsPlanner = object_partitions,
) -> CleanPlanResult:
    """Everything a clean would delete, and why; ``has_changes`` is False for nothing to do.
    ``plan_partitions``: the per-partition rules on the object view, or the same on another
    (:mod:`maintainer.services.clean.columnar`)."""
    retention = inputs.retention
    if retention is None:
        retention = earliest_commit_to_retain(inputs.timeline, settings, now, inputs.timezone)
    ectr = retention.instant.timestamp if retention.instant else None
    result = CleanPlanResult(
        policy=settings.policy,
        earliest_commit_to_retain=retention.instant,
        retention_reason=retention.reason,
        scope=inputs.scope,
        last_completed_commit=_last_completed_commit(inputs.timeline),
        savepoint_times=tuple(i.timestamp for i in inputs.timeline.savepoints()),
    )
    not_triggered = _not_triggered(inputs, settings)
    if not_triggered:
        return replace(result, not_triggered=not_triggered)
    if settings.policy is not CleanPolicy.KEEP_LATEST_FILE_VERSIONS and ectr is None:
        return result
    return replace(result, partitions=tuple(plan_partitions(inputs, settings, ectr)))
