"""The ``record_index`` partition against the data table: every record key of the latest file
slices is indexed at the file group that holds it, and no other key is indexed.

A record index that misses a key makes Hudi's next upsert of that key an insert (a duplicate);
one that points at the wrong file group sends the update there. Keys are read from the data
table's latest slices (``_hoodie_record_key``, merged with their log files); corrupt log blocks
are skipped, as Hudi's readers skip them. A key several file groups hold (an ``INSERT`` writes
duplicates: ``sample_table_cow_v9_timebasedkeygen_epochmillis`` holds ``TXN-001`` twice) is
indexed at one of them, which is what the check asks.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from maintainer.hudi.metadata.latest_records import LatestRecords, Location, read_latest_records
from maintainer.hudi.metadata.partitions import MetadataPartitionKind
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.state import TableState

RECORD_INDEX = MetadataPartitionKind.RECORD_INDEX.value
SHOWN = 5
"""Mismatches named per kind (the counts say how many there are)."""

NOWHERE: Location = ("", "?")
"""Where a record that holds no location points."""

LONG_MASK = 2**64 - 1
"""A Java long (signed) as the unsigned 64 bits of a UUID half."""
UUID_ENCODING = 0
"""``fileIdEncoding``: the file id is a UUID (two longs) and ``-<fileIndex>``; 1: the string."""


@dataclass(frozen=True)
class RecordIndexCheck:
    keys_checked: int
    missing: tuple[tuple[str, Location], ...]
    """Keys of the data table the index does not hold, with where they are."""
    misplaced: tuple[tuple[str, Location, Location], ...]
    """Keys indexed at a file group that does not hold them: (key, indexed at, held by)."""
    extra: tuple[tuple[str, Location], ...]
    """Indexed keys no latest slice holds."""
    skipped: str | None = None
    """Why the check was not made (the data table has no record key column)."""

    @property
    def passed(self) -> bool:
        return not (self.missing or self.misplaced or self.extra)

    def problems(self) -> list[str]:
        problems = []
        if self.missing:
            shown = ", ".join(f"{k!r} (in {_where(loc)})" for k, loc in self.missing[:SHOWN])
            problems.append(
                f"record_index: {len(self.missing)} of {self.keys_checked} record key(s) are not "
                f"indexed (Hudi's next upsert of them writes duplicates): {shown}"
            )
        if self.misplaced:
            shown = ", ".join(
                f"{k!r} indexed at {_where(at)}, held by {_where(by)}" for k, at, by in self.misplaced[:SHOWN]
            )
            count = len(self.misplaced)
            problems.append(f"record_index: {count} key(s) indexed at the wrong file group: {shown}")
        if self.extra:
            shown = ", ".join(f"{k!r} (at {_where(loc)})" for k, loc in self.extra[:SHOWN])
            problems.append(f"record_index: {len(self.extra)} indexed key(s) no file holds: {shown}")
        return problems


def _where(location: Location) -> str:
    partition, file_id = location
    return f"{partition or '(non-partitioned)'}/{file_id}"


def indexed_location(record: MetadataRecord) -> Location | None:
    """The (partition, file id) a ``record_index`` record points at (None: not a location)."""
    info = record.get("recordIndexMetadata")
    if not info:
        return None
    partition = str(info.get("partitionName") or "")
    if info.get("fileIdEncoding") == UUID_ENCODING:
        high, low = int(info["fileIdHighBits"]) & LONG_MASK, int(info["fileIdLowBits"]) & LONG_MASK
        bits = (high << 64) | low
        file_id = f"{uuid.UUID(int=bits)}-{int(info['fileIndex'])}"
    else:
        file_id = str(info.get("fileId") or "")
    return partition, file_id


def data_key_locations(data: TableState) -> dict[str, set[Location]] | None:
    """Every record key of the latest slices with the file groups that hold it (None: the
    table keeps no ``_hoodie_record_key`` column)."""
    latest = read_latest_records(data)
    return None if latest is None else latest.locations


def compare_record_index(
    indexed: Mapping[str, Location | None], held: Mapping[str, set[Location]]
) -> RecordIndexCheck:
    by_key = sorted(indexed.items(), key=lambda item: item[0])
    missing = tuple((k, min(locations)) for k, locations in sorted(held.items()) if k not in indexed)
    misplaced = tuple((k, at or NOWHERE, min(held[k])) for k, at in by_key if k in held and at not in held[k])
    extra = tuple((k, at or NOWHERE) for k, at in by_key if k not in held)
    return RecordIndexCheck(len(held), missing, misplaced, extra)


def check_record_index(
    mdt: MetadataTable, latest: LatestRecords | None, unread: str | None = None
) -> RecordIndexCheck | None:
    """The comparison with the records of the latest slices, or None when the metadata table
    has no ``record_index``. ``latest`` None: the records were not read, ``unread`` says why
    (None: the table keeps no ``_hoodie_record_key`` column)."""
    if mdt.partition(RECORD_INDEX) is None:
        return None
    if latest is None:
        skipped = unread or "the table keeps no _hoodie_record_key column"
        return RecordIndexCheck(0, (), (), (), skipped=skipped)
    records = mdt.read_partition(RECORD_INDEX)
    return compare_record_index({k: indexed_location(r) for k, r in records.items()}, latest.locations)
