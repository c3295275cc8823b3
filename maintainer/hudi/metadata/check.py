"""Check a metadata table against its data table: the timelines are in step (:mod:`.sync`), the
metadata table's own files of its latest slices are all there at their committed sizes
(:mod:`.storage_check`), the merged ``files`` partition lists exactly the committed data files
on storage, with their sizes, ``column_stats`` describes no file that is gone, and every index
partition agrees with the data it indexes: ``record_index`` indexes exactly the keys of the
latest slices, each at its file group (:mod:`.record_index`); ``column_stats`` and
``bloom_filters`` hold each listed base file's own footer statistics and bloom filter
(:mod:`.base_files`, one footer read per file); ``partition_stats`` covers the aggregate of each
partition's latest column stats (:mod:`.partition_stats_check`); secondary indexes index each
live record's value with its key, and nothing else (:mod:`.secondary_index`). The records of
the latest slices are read once, for the record index and the secondary indexes. Hudi itself
never detects a stale or damaged metadata table; its readers then list deleted files or miss
new ones, and its upserts write duplicates.

Two exceptions in ``files``, both files Hudi's readers skip (their instant is pending on the
data table) and the next attempt rolls back from both tables. After a failed table service was
rolled back, its metadata deltacommit written again by a retry is valid to readers (the
completed rollback names its instant, ``HoodieTableMetadataUtil.getValidInstantTimestamps``), so
the metadata table lists the pending instant's files, as Hudi's does:
- while they are on storage at the listed size;
- once a pending rollback of that instant has deleted them (Hudi's rollback deletes first, then
  rolls back the metadata deltacommit, then completes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.file_groups.integrity import Finding
from maintainer.hudi.instants.instant import State
from maintainer.hudi.metadata.base_files import IndexRecords, check_base_files
from maintainer.hudi.metadata.column_stats import (
    describe_missing,
    describe_partition_without_stats,
    files_without_column_stats,
    partitions_without_stats,
)
from maintainer.hudi.metadata.files import (
    FileListing,
    ListingDifference,
    compare_listings,
    data_file_instant,
    metadata_file_listing,
    storage_file_listing,
)
from maintainer.hudi.metadata.findings import IndexFinding, described
from maintainer.hudi.metadata.latest_records import LatestRecords, read_latest_records
from maintainer.hudi.metadata.partition_stats_check import check_partition_stats
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.record_index import RECORD_INDEX, RecordIndexCheck, check_record_index
from maintainer.hudi.metadata.secondary_index import (
    check_secondary_index,
    is_secondary_index,
    secondary_index_columns,
)
from maintainer.hudi.metadata.storage_check import metadata_file_findings
from maintainer.hudi.metadata.sync import SyncStatus, sync_status
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.updates.indexes import (
    BLOOM_FILTERS,
    TableIndexes,
    read_index_definitions,
    table_indexes,
)
from maintainer.hudi.metadata.updates.slices import latest_merged_files
from maintainer.hudi.payloads import decode_rollback_plan
from maintainer.hudi.table.schema import latest_avro_schema
from maintainer.hudi.table.state import TableState

COLUMN_STATS = "column_stats"
NO_KEYS = "the table keeps no _hoodie_record_key column"
PARTITION_STATS = "partition_stats"


@dataclass(frozen=True)
class IndexComparison:
    """How much of each index the check compared with the data, and what it left out."""

    footers_read: int = 0
    """Base files whose footer ``column_stats`` and ``bloom_filters`` were compared with."""
    partition_stats: int = 0
    """(partition, column) statistics compared with the aggregate of the latest column stats."""
    secondary_index_records: int = 0
    """Records whose secondary index entries were compared (over all secondary indexes)."""
    not_compared: tuple[str, ...] = ()
    """What was not compared, with why (not a failure of the check)."""


@dataclass(frozen=True)
class MetadataCheck:
    sync: SyncStatus
    differences: tuple[ListingDifference, ...]
    files_checked: int
    stale_column_stats: tuple[str, ...] = ()
    """Files that are not listed any more but still have live ``column_stats`` records."""
    damaged_files: tuple[Finding, ...] = ()
    """The metadata table's own files that are missing or cut short."""
    record_index: RecordIndexCheck | None = None
    """None: the metadata table has no ``record_index`` (or it cannot be read)."""
    unreadable: tuple[str, ...] = ()
    """Partitions whose records cannot be read, with why."""
    without_column_stats: tuple[tuple[str, str], ...] = ()
    """Listed (partition, file) that ``column_stats`` has no statistics for."""
    without_partition_stats: tuple[tuple[str, str], ...] = ()
    """(partition, column) that ``partition_stats`` has no statistics for."""
    index_findings: tuple[IndexFinding, ...] = ()
    """Index records that disagree with the data (column and partition stats values, bloom
    filters, secondary indexes)."""
    compared: IndexComparison | None = None
    """What the index comparisons covered (None: the ``files`` partition could not be read)."""

    @property
    def passed(self) -> bool:
        return self.sync.in_sync and not self.table_problems()

    def problems(self) -> list[str]:
        return self.sync.problems() + self.table_problems()

    def table_problems(self) -> list[str]:
        """The problems beside the timelines' sync: damaged files, then each partition's."""
        damaged = [finding.describe() for finding in self.damaged_files]
        stale = [
            f"{name}: column_stats still describes it, but it is gone" for name in self.stale_column_stats
        ]
        index = self.record_index.problems() if self.record_index is not None else []
        differences = [d.describe() for d in self.differences]
        uncovered = [describe_missing(partition, name) for partition, name in self.without_column_stats]
        uncovered += [
            describe_partition_without_stats(p, column) for p, column in self.without_partition_stats
        ]
        values = described(self.index_findings)
        return damaged + list(self.unreadable) + differences + stale + uncovered + index + values


def check_metadata_table(data: TableState, mdt: MetadataTable) -> MetadataCheck:
    """The check; ``data`` must hold a full storage listing of the data table. A partition
    whose log blocks do not read (a cut file) is named as unreadable, and the rest checked."""
    status = sync_status(data.snapshot.timeline, mdt.state.snapshot.timeline)
    damaged = tuple(metadata_file_findings(mdt))
    unreadable: list[str] = []
    for partition in mdt.partitions:
        try:
            mdt.read_partition(partition.name)
        except CorruptFileError as exc:
            unreadable.append(f"{partition.name}: the partition cannot be read ({exc})")
    readable = {p.name for p in mdt.partitions} - {u.split(":")[0] for u in unreadable}
    if FILES not in readable:
        return MetadataCheck(status, (), 0, damaged_files=damaged, unreadable=tuple(unreadable))
    listed = metadata_file_listing(mdt)
    present = storage_file_listing(data.snapshot.listings, data.snapshot.timeline)
    pending = pending_files_listed(data, listed)
    seen = {p: {**present.get(p, {}), **pending.get(p, {})} for p in set(present) | set(pending)}
    differences = tuple(compare_listings(listed, seen))
    files = {name for files in listed.values() for name in files}
    stale: tuple[str, ...] = ()
    uncovered: tuple[tuple[str, str], ...] = ()
    if COLUMN_STATS in readable and mdt.partition(COLUMN_STATS) is not None:
        stale = stale_column_stats(mdt, files)
        uncovered = tuple(files_without_column_stats(data.storage, listed, mdt.read_partition(COLUMN_STATS)))
    files_checked = sum(len(files) for files in present.values())
    secondary = _secondary_columns(data, mdt, readable)
    latest, unread = _latest_records(data, readable, secondary)
    index = check_record_index(mdt, latest, unread) if RECORD_INDEX in readable else None
    partitions = _partition_stats_check(data, mdt, readable)
    findings, compared = _index_values(data, mdt, readable, (listed, present), secondary, (latest, unread))
    return MetadataCheck(
        status,
        differences,
        files_checked,
        stale,
        damaged,
        index,
        tuple(unreadable),
        uncovered,
        partitions,
        tuple(findings),
        compared,
    )


def _secondary_columns(data: TableState, mdt: MetadataTable, readable: set[str]) -> dict[str, str]:
    """Secondary index partition -> the column it indexes (unreadable index definitions: none;
    :func:`_table_indexes` says why)."""
    names = sorted(p.name for p in mdt.partitions if is_secondary_index(p.name) and p.name in readable)
    if not names:
        return {}
    try:
        return secondary_index_columns(names, read_index_definitions(data.storage, data.snapshot.config))
    except CorruptFileError:
        return {}


def _latest_records(
    data: TableState, readable: set[str], columns: Mapping[str, str]
) -> tuple[LatestRecords | None, str | None]:
    """The latest slices' records, read once when ``record_index`` or a secondary index is to
    be checked; else (None, why)."""
    if RECORD_INDEX not in readable and not columns:
        return None, None
    try:
        return read_latest_records(data, sorted(set(columns.values()))), None
    except UnsupportedTableError as exc:  # Lance base files: listed, not read
        return None, f"the data table's keys are not read ({exc.message})"
    except CorruptFileError as exc:  # a damaged data file: the files comparison names it too
        return None, f"the data table's keys cannot be read ({exc})"


def _index_values(
    data: TableState,
    mdt: MetadataTable,
    readable: set[str],
    listings: tuple[FileListing, FileListing],
    secondary_indexes: Mapping[str, str],
    records: tuple[LatestRecords | None, str | None],
) -> tuple[list[IndexFinding], IndexComparison]:
    """The values of ``column_stats``, ``bloom_filters``, ``partition_stats`` and secondary
    indexes against the data (``listings``: the ``files`` partition's and storage's;
    ``records``: the latest slices' records, or None and why)."""
    listed, present = listings
    latest, unread = records
    notes: list[str] = []
    findings: list[IndexFinding] = []
    indexes = _table_indexes(data, notes)
    footers = partition_stats = secondary = 0
    if indexes is not None:
        stored = IndexRecords(_records(mdt, COLUMN_STATS, readable), _records(mdt, BLOOM_FILTERS, readable))
        base = check_base_files(data.storage, listed, present, indexes, stored)
        findings += base.findings
        notes += base.not_compared
        footers = base.files_read
        if {COLUMN_STATS, PARTITION_STATS} <= readable and mdt.partition(PARTITION_STATS) is not None:
            latest_files = latest_merged_files(data.view, data.snapshot.partitions)
            ranges = check_partition_stats(
                latest_files, mdt.read_partition(COLUMN_STATS), mdt.read_partition(PARTITION_STATS), indexes
            )
            findings += ranges.findings
            notes += ranges.not_compared
            partition_stats = ranges.compared
    for name, column in sorted(secondary_indexes.items()):
        if latest is None:
            notes.append(f"{name} (the data table's records are not read: {unread or NO_KEYS})")
            continue
        found, count, why = check_secondary_index(name, column, mdt.read_partition(name), latest)
        findings += found
        secondary += count
        notes += [why] if why else []
    return findings, IndexComparison(footers, partition_stats, secondary, tuple(notes))


def _records(mdt: MetadataTable, name: str, readable: set[str]) -> Mapping[str, Any] | None:
    if name not in readable or mdt.partition(name) is None:
        return None
    return mdt.read_partition(name)


def _table_indexes(data: TableState, notes: list[str]) -> TableIndexes | None:
    """The indexed columns and index versions (None, noted: they cannot be known)."""
    try:
        return table_indexes(
            data.storage, data.snapshot.config, latest_avro_schema(data.storage, data.snapshot)
        )
    except (UnsupportedTableError, CorruptFileError) as exc:
        notes.append(f"the values of column_stats, bloom_filters and partition_stats ({exc.message})")
        return None


def _partition_stats_check(
    data: TableState, mdt: MetadataTable, readable: set[str]
) -> tuple[tuple[str, str], ...]:
    if not {COLUMN_STATS, PARTITION_STATS} <= readable:
        return ()
    latest = latest_merged_files(data.view, data.snapshot.partitions)
    column_stats = mdt.read_partition(COLUMN_STATS)
    return tuple(partitions_without_stats(latest, column_stats, mdt.read_partition(PARTITION_STATS)))


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
