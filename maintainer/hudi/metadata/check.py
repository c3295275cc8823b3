"""Check a metadata table against its data table: the timelines are in step (:mod:`.sync`), the
merged ``files`` partition lists exactly the committed data files on storage, with their
sizes, and ``column_stats`` describes no file that is gone (Hudi itself never detects a stale
metadata table; its readers then list deleted files or miss new ones).

One exception, as Hudi reads it: a file of an instant still pending on the data table that the
metadata table lists and storage holds at that size. After a failed table service was rolled
back and its retry failed again after its metadata deltacommit completed, that deltacommit is
valid to readers (the completed rollback names its instant,
``HoodieTableMetadataUtil.getValidInstantTimestamps``), and Hudi's file-system view skips its
files until the instant completes; the next attempt rolls both back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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
    """The files of instants pending on the data table that the metadata table lists and
    storage holds at the listed size (see the module doc: Hudi lists them too, and skips them)."""
    pending = {instant.timestamp for instant in data.snapshot.timeline.pending()}
    found: dict[str, dict[str, int]] = {}
    for partition, entries in data.snapshot.listings.items():
        files: Mapping[str, int] = listed.get(partition, {})
        for entry in entries:
            if entry.is_dir or data_file_instant(entry.name) not in pending:
                continue
            if files.get(entry.name) == entry.size:
                found.setdefault(partition, {})[entry.name] = entry.size
    return found


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
