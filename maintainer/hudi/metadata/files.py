"""The ``files`` partition: the data table's partitions and files as the metadata table lists
them, and its comparison with the storage listing (an out-of-sync ``files`` partition makes
Hudi's readers list deleted files, or miss new ones)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.partitions import ALL_PARTITIONS_KEY, FILES, NON_PARTITIONED_KEY
from maintainer.hudi.metadata.records import live_files
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.storage.columns import Names, OptionalInts
from maintainer.storage.fs import FileInfo
from maintainer.storage.listing import DirListing, Listings

FileListing = Mapping[str, Mapping[str, int]]
"""Data-table partition path ('' when non-partitioned) -> file name -> size."""


def partition_key(partition: str) -> str:
    """The ``files`` record key of a data-table partition."""
    return partition or NON_PARTITIONED_KEY


def partition_of_key(key: str) -> str:
    return "" if key == NON_PARTITIONED_KEY else key


def metadata_file_listing(mdt: MetadataTable) -> dict[str, dict[str, int]]:
    """The merged ``files`` partition: every listed partition with its live files."""
    records = mdt.read_partition(FILES)
    partitions = records.get(ALL_PARTITIONS_KEY)
    names = live_files(partitions) if partitions is not None else {}
    listing: dict[str, dict[str, int]] = {}
    for name in sorted(names):
        record = records.get(partition_key(partition_of_key(name)))
        listing[partition_of_key(name)] = live_files(record) if record is not None else {}
    return listing


def storage_file_listing(
    listings: Mapping[str, Iterable[FileInfo]], timeline: Timeline
) -> dict[str, dict[str, int]]:
    """The data files on storage that Hudi lists in ``files``: those written by committed
    instants (a failed write's files are not listed until a rollback deletes them)."""
    result: dict[str, dict[str, int]] = {}
    for partition, entries in listings.items():
        files: dict[str, int] = {}
        for entry in entries:
            instant = None if entry.is_dir else data_file_instant(entry.name)
            if instant is not None and timeline.is_committed_write(instant):
                files[entry.name] = entry.size
        result[partition] = files
    return result


def data_file_instant(name: str) -> str | None:
    """The instant that wrote a data file (v8+ log names carry their deltacommit), or None
    for a name that is not a Hudi data file."""
    parsed = BaseFileName.parse(name) or LogFileName.parse(name)
    return None if parsed is None else parsed.instant_time


@dataclass(frozen=True, slots=True)
class ListingDifference:
    """One way the metadata table's listing differs from storage."""

    partition: str
    name: str | None
    """The file, or None for a difference in the partition list."""
    in_metadata: int | None
    """Size listed by the metadata table (None: not listed)."""
    on_storage: int | None
    """Size on storage (None: absent)."""

    def describe(self) -> str:
        where = f"{self.partition or '(non-partitioned)'}"
        if self.name is None:
            state = "listed by the metadata table only" if self.on_storage is None else "on storage only"
            return f"partition {where}: {state}"
        file = f"{where}/{self.name}"
        if self.on_storage is None:
            return f"{file}: listed by the metadata table ({self.in_metadata} bytes) but not on storage"
        if self.in_metadata is None:
            return f"{file}: on storage ({self.on_storage} bytes) but not in the metadata table"
        return f"{file}: {self.in_metadata} bytes in the metadata table, {self.on_storage} on storage"


def compare_listings(metadata: FileListing, storage: FileListing) -> list[ListingDifference]:
    """Every difference between the two listings, sorted by partition and file."""
    differences: list[ListingDifference] = []
    for partition in sorted(set(metadata) | set(storage)):
        listed, present = metadata.get(partition), storage.get(partition)
        if (listed is None) != (present is None) and (listed or present):
            differences.append(_partition_difference(partition, listed is not None))
        for name in sorted(set(listed or {}) | set(present or {})):
            size_listed = (listed or {}).get(name)
            size_present = (present or {}).get(name)
            if size_listed != size_present:
                differences.append(ListingDifference(partition, name, size_listed, size_present))
    return differences


def _partition_difference(partition: str, listed: bool) -> ListingDifference:
    return ListingDifference(partition, None, 0 if listed else None, None if listed else 0)


def metadata_listings(listing: FileListing, partitions: Iterable[str] | None = None) -> Listings:
    """The ``files`` listing as the storage listing planning reads (``partitions``: only those;
    None: every listed partition). Entries carry names and sizes only."""
    wanted = sorted(listing) if partitions is None else sorted(set(partitions))
    columns: dict[str, DirListing] = {}
    for partition in wanted:
        files = listing.get(partition, {})
        names = sorted(files)
        count = len(names)
        sizes = OptionalInts([files[n] for n in names])
        columns[partition] = DirListing(partition, Names(names), sizes, [False] * count, [None] * count)
    return Listings(columns)
