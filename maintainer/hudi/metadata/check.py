"""Check a metadata table against its data table: the timelines are in step (:mod:`.sync`), the
merged ``files`` partition lists exactly the committed data files on storage, with their
sizes, and ``column_stats`` describes no file that is gone (Hudi itself never detects a stale
metadata table; its readers then list deleted files or miss new ones)."""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.loading import TableState
from maintainer.hudi.metadata.files import (
    ListingDifference,
    compare_listings,
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
    differences = tuple(compare_listings(listed, present))
    stale = stale_column_stats(mdt, {name for files in listed.values() for name in files})
    return MetadataCheck(status, differences, sum(len(files) for files in present.values()), stale)


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
