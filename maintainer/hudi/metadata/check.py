"""Check a metadata table against its data table: the timelines are in step (:mod:`.sync`) and
the merged ``files`` partition lists exactly the committed data files on storage, with their
sizes (Hudi itself never detects a stale metadata table; its readers then list deleted files
or miss new ones)."""

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


@dataclass(frozen=True)
class MetadataCheck:
    sync: SyncStatus
    differences: tuple[ListingDifference, ...]
    files_checked: int

    @property
    def passed(self) -> bool:
        return self.sync.in_sync and not self.differences

    def problems(self) -> list[str]:
        return self.sync.problems() + [d.describe() for d in self.differences]


def check_metadata_table(data: TableState, mdt: MetadataTable) -> MetadataCheck:
    """The check; ``data`` must hold a full storage listing of the data table."""
    status = sync_status(data.snapshot.timeline, mdt.state.snapshot.timeline)
    if mdt.partition(FILES) is None:
        return MetadataCheck(status, (), 0)
    listed = metadata_file_listing(mdt)
    present = storage_file_listing(data.snapshot.listings, data.snapshot.timeline)
    differences = tuple(compare_listings(listed, present))
    return MetadataCheck(status, differences, sum(len(files) for files in present.values()))
