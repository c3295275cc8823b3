"""Check a metadata table against its data table: the timelines are in step (:mod:`.sync`), the
merged ``files`` partition lists exactly the committed data files on storage, with their
sizes, and ``column_stats`` describes no file that is gone (Hudi itself never detects a stale
metadata table; its readers then list deleted files or miss new ones).

Two exceptions, both files Hudi's readers skip (their instant is pending on the data table) and
the next attempt rolls back from both tables. After a failed table service was rolled back, its
metadata deltacommit written again by a retry is valid to readers (the completed rollback names
its instant, ``HoodieTableMetadataUtil.getValidInstantTimestamps``), so the metadata table lists
the pending instant's files, as Hudi's does:
- while they are on storage at the listed size;
- once a pending rollback of that instant has deleted them (Hudi's rollback deletes first, then
  rolls back the metadata deltacommit, then completes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from maintainer.hudi.instant import State
from maintainer.hudi.loading import TableState
from maintainer.hudi.metadata.files import (
    FileListing,
    ListingDifference,
    compare_listings,
    data_file_instant,
    metadata_file_listing,
    storage_file_listing,
)
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.sync import SyncStatus, sync_status
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.payloads import decode_rollback_plan

COLUMN_STATS = "column_stats"


@dataclass(frozen=True)
class MetadataCheck:
    sync: SyncStatus
    differences: tuple[ListingDifference, ...]
    files_checked: int
    stale_column_stats: tuple[str, ...] = ()
    """Files that are not listed any more but still have live ``column_stats`` records."""

    @property
    def passed(self) -> bool:
        return self.sync.in_sync and not self.differences and not self.stale_column_stats

    def problems(self) -> list[str]:
        stale = [
            f"{name}: column_stats still describes it, but it is gone" for name in self.stale_column_stats
        ]
        return self.sync.problems() + [d.describe() for d in self.differences] + stale


def check_metadata_table(data: TableState, mdt: MetadataTable) -> MetadataCheck:
    """The check; ``data`` must hold a full storage listing of the data table."""
    status = sync_status(data.snapshot.timeline, mdt.state.snapshot.timeline)
    if mdt.partition(FILES) is None:
        return MetadataCheck(status, (), 0)
    listed = metadata_file_listing(mdt)
    present = storage_file_listing(data.snapshot.listings, data.snapshot.timeline)
    pending = pending_files_listed(data, listed)
    seen = {p: {**present.get(p, {}), **pending.get(p, {})} for p in set(present) | set(pending)}
    differences = tuple(compare_listings(listed, seen))
    stale = stale_column_stats(mdt, {name for files in listed.values() for name in files})
    return MetadataCheck(status, differences, sum(len(files) for files in present.values()), stale)


def pending_files_listed(data: TableState, listed: FileListing) -> dict[str, dict[str, int]]:
    """The files the metadata table lists for instants pending on the data table that are not
    differences (see the module doc): on storage at the listed size, or of an instant a pending
    rollback is rolling back."""
    pending = {instant.timestamp for instant in data.snapshot.timeline.pending()}
    rolling_back = instants_being_rolled_back(data)
    found: dict[str, dict[str, int]] = {}
    for partition, files in listed.items():
        for name, size in files.items():
            if data_file_instant(name) in rolling_back:
                found.setdefault(partition, {})[name] = size
    for partition, entries in data.snapshot.listings.items():
        sizes: Mapping[str, int] = listed.get(partition, {})
        for entry in entries:
            if entry.is_dir or data_file_instant(entry.name) not in pending:
                continue
            if sizes.get(entry.name) == entry.size:
                found.setdefault(partition, {})[entry.name] = entry.size
    return found


def instants_being_rolled_back(data: TableState) -> set[str]:
    """The instants a pending rollback on the data table rolls back (from its requested plan)."""
    timeline, storage = data.snapshot.timeline, data.storage
    targets = set()
    for instant in timeline.pending_rollbacks():
        entry = timeline.entry(instant.timestamp, instant.action)
        if entry is None or State.REQUESTED not in entry.state_files:
            continue
        path = timeline.file_path(instant, State.REQUESTED)
        plan = decode_rollback_plan(storage.read_bytes(path), storage.uri(path))
        if plan is not None and plan.instant_to_rollback is not None:
            targets.add(plan.instant_to_rollback.commit_time)
    return targets


def stale_column_stats(mdt: MetadataTable, listed: set[str]) -> tuple[str, ...]:
    """Files with live (not deleted) ``column_stats`` records that the ``files`` partition no
    longer lists (a clean that did not delete their statistics; data skipping would then
    consider files that are gone)."""
    if mdt.partition(COLUMN_STATS) is None:
        return ()
    stale = set()
    for record in mdt.read_partition(COLUMN_STATS).values():
        stats = record.get("ColumnStatsMetadata") or {}
        name = stats.get("fileName")
        if name and not stats.get("isDeleted") and name not in listed:
            stale.add(str(name))
    return tuple(sorted(stale))
