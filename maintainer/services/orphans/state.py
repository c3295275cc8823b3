"""Read what the orphan planner needs from a loaded table (read-only): the files no instant
accounts for (:func:`maintainer.hudi.table.orphans.find_orphans`, on the table as storage lists it)
and, on a table with a metadata table, the files its ``files`` partition lists."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from maintainer.errors import TableFormatError
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.orphans import OrphanScan, find_orphans
from maintainer.hudi.table.state import TableState


@dataclass(frozen=True)
class OrphanInputs:
    scan: OrphanScan
    metadata_listed: frozenset[str] | None
    """Table-relative paths the metadata table's ``files`` partition lists (None: no metadata table)."""


def metadata_listed_files(table: TableState) -> frozenset[str] | None:
    if not table.snapshot.metadata_table.enabled:
        return None
    mdt = open_metadata_table(table)
    if mdt is None:
        return None
    listing = metadata_file_listing(mdt)
    return frozenset(
        f"{partition}/{name}" if partition else name for partition, files in listing.items() for name in files
    )


def load_orphan_inputs(table: TableState, now: datetime, min_age: timedelta) -> OrphanInputs:
    if table.referenced is None:
        raise TableFormatError(
            "the table was read without its integrity check: which files its instants account for is unknown"
        )
    return OrphanInputs(find_orphans(table, table.referenced, now, min_age), metadata_listed_files(table))
