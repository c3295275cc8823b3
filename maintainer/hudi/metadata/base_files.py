"""``column_stats`` and ``bloom_filters`` against each listed Parquet base file's own footer,
read once per file (and only for those two partitions).

- ``column_stats``: the expected record of every indexed column is built from the footer by the
  code that writes them for maintainer's compactions (:func:`.updates.parquet_stats.footer_ranges`:
  min, max, null count, value count and sizes as Hudi records them) and compared field by field
  with the stored one (:func:`.updates.stored.stored_range`). A file with no statistics at all
  is named by the presence check (:mod:`.column_stats`). Log files' statistics (merge-on-read)
  are checked for presence only: they come from the records Hudi wrote, not from a footer.
- ``bloom_filters``: one live record per listed base file whose footer has a filter, holding
  that filter as Hudi re-serializes it (:func:`.updates.commit.footer_bloom_filter`), and no live
  record of a file the ``files`` partition does not list.

Files listed but not on storage at the listed size are left to the ``files`` comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.findings import IndexFinding, data_file
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.commit import footer_bloom_filter
from maintainer.hudi.metadata.updates.indexes import BLOOM_FILTERS, COLUMN_STATS, TableIndexes
from maintainer.hudi.metadata.updates.parquet_stats import footer_ranges, read_parquet_footer
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.stored import stored_range
from maintainer.hudi.metadata.updates.values import ValueMeta, Wrapped
from maintainer.hudi.parquet import bloom
from maintainer.storage import Storage

FileListing = Mapping[str, Mapping[str, int]]
_COMPARED = ("min", "max", "null_count", "value_count", "total_size", "total_uncompressed_size", "meta")


@dataclass(frozen=True)
class BaseFileCheck:
    findings: tuple[IndexFinding, ...]
    files_read: int
    """Base files whose footer was read."""
    not_compared: tuple[str, ...] = ()
    """Files whose footer could not be compared, with why (not a failure of the check)."""


@dataclass(frozen=True)
class IndexRecords:
    """The stored records of the two partitions (None: the metadata table has no such partition)."""

    column_stats: Mapping[str, MetadataRecord] | None
    bloom_filters: Mapping[str, MetadataRecord] | None


def check_base_files(
    storage: Storage, listed: FileListing, present: FileListing, indexes: TableIndexes, stored: IndexRecords
) -> BaseFileCheck:
    """Every listed Parquet base file on storage at its listed size, against the stored records.
    A footer is read only where there is something to compare it with: a ``bloom_filters``
    partition, or live column statistics of the file (a file without any is left to the
    presence check)."""
    findings: list[IndexFinding] = []
    notes: list[str] = []
    read = 0
    for partition, files in sorted(listed.items()):
        for name, size in sorted(files.items()):
            if not _is_parquet_base_file(name) or present.get(partition, {}).get(name) != size:
                continue
            if stored.bloom_filters is None and not _has_statistics(partition, name, indexes, stored):
                continue
            path = f"{partition}/{name}" if partition else name
            try:
                footer = read_parquet_footer(storage, path)
            except (CorruptFileError, FileNotFoundError) as exc:
                what = f"column_stats and bloom_filters of {data_file(partition, name)}"
                notes.append(f"{what}: its footer cannot be read ({exc})")
                continue
            read += 1
            found, noted = _check_footer(partition, name, footer, indexes, stored, storage.uri(path))
            findings += found
            notes += noted
    if stored.bloom_filters is not None:
        findings += _unlisted_bloom_filters(listed, stored.bloom_filters)
    return BaseFileCheck(tuple(findings), read, tuple(notes))


def _has_statistics(partition: str, name: str, indexes: TableIndexes, stored: IndexRecords) -> bool:
    records = stored.column_stats
    if records is None:
        return False
    return any(
        _is_live(records.get(keys.column_stats_key(column, partition, name)), "ColumnStatsMetadata")
        for column in indexes.columns
    )


def _check_footer(
    partition: str,
    name: str,
    footer: pq.FileMetaData,
    indexes: TableIndexes,
    stored: IndexRecords,
    where: str,
) -> tuple[list[IndexFinding], list[str]]:
    """The file's findings and what could not be compared."""
    findings: list[IndexFinding] = []
    notes: list[str] = []
    if stored.column_stats is not None and indexes.columns:
        try:
            findings += _column_stats(partition, name, footer, indexes, stored.column_stats, where)
        except UnsupportedTableError as exc:
            notes.append(f"column_stats of {data_file(partition, name)} ({exc.message})")
    if stored.bloom_filters is not None:
        try:
            findings += _bloom_filter(partition, name, footer, stored.bloom_filters, where)
        except CorruptFileError as exc:
            notes.append(f"bloom_filters of {data_file(partition, name)} ({exc.message})")
    return findings, notes


def _is_parquet_base_file(name: str) -> bool:
    return name.endswith(".parquet") and BaseFileName.parse(name) is not None


def _is_live(record: MetadataRecord | None, field: str) -> bool:
    return record is not None and bool(record.get(field)) and not record[field].get("isDeleted")


def _column_stats(
    partition: str,
    name: str,
    footer: pq.FileMetaData,
    indexes: TableIndexes,
    records: Mapping[str, MetadataRecord],
    where: str,
) -> list[IndexFinding]:
    """One finding for the file, naming each column whose stored statistics differ."""
    stored = {
        column: records.get(keys.column_stats_key(column, partition, name)) for column in indexes.columns
    }
    live = {column: record for column, record in stored.items() if _is_live(record, "ColumnStatsMetadata")}
    if not live:
        return []  # no statistics at all: the presence check names the file
    expected = {
        r.column: r for r in footer_ranges(footer, name, indexes.columns, indexes.column_stats_version, where)
    }
    differences = []
    for column in indexes.columns:
        record, footer_range = live.get(column), expected.get(column)
        if record is None and footer_range is not None:
            differences.append(f"{column!r} has none")
        elif record is not None and footer_range is None:
            differences.append(f"{column!r} has some, but the file has no such column")
        elif record is not None and footer_range is not None:
            hint = footer_range.min.wrapper if footer_range.min is not None else None
            differing = range_differences(stored_range(record, hint), footer_range)
            if differing:
                differences.append(f"{column!r} {differing}")
    if not differences:
        return []
    problem = (
        "its statistics differ from the file's footer: "
        + "; ".join(differences)
        + " (data skipping misjudges the file)"
    )
    return [IndexFinding(COLUMN_STATS, data_file(partition, name), problem)]


def range_differences(stored: ColumnRange | None, expected: ColumnRange) -> str:
    """``field stored (footer: value), ...`` for each field that differs; empty when equal."""
    if stored is None:
        return "has none"
    parts = []
    for field in fields(expected):
        if field.name not in _COMPARED:
            continue
        mine, theirs = getattr(stored, field.name), getattr(expected, field.name)
        if mine != theirs:
            parts.append(f"{field.name.replace('_', ' ')} {_shown(mine)} (footer: {_shown(theirs)})")
    return ", ".join(parts)


def _shown(value: Any) -> str:
    """A field's value as the finding shows it: a min/max by its value, a value type by name."""
    if isinstance(value, ValueMeta):
        return value.type.name
    inner = value.value if isinstance(value, Wrapped) else value
    if isinstance(inner, bytes):
        return "0x" + inner.hex()[:32]
    return repr(inner)


def _bloom_filter(
    partition: str, name: str, footer: pq.FileMetaData, records: Mapping[str, MetadataRecord], where: str
) -> list[IndexFinding]:
    """The file's record against its footer's filter. The stored filter is Hudi's
    re-serialization of the footer's, most often the footer's text itself: only when the two
    differ is the footer's filter parsed and re-serialized (a few milliseconds per file)."""
    values = footer.metadata or {}
    text = values.get(bloom.BLOOM_FILTER_KEY.encode()) or values.get(bloom.LEGACY_BLOOM_FILTER_KEY.encode())
    record = records.get(keys.bloom_filter_key(partition, name))
    live = _is_live(record, "BloomFilterMetadata")
    problem = None
    if text is not None and not live:
        problem = "no bloom filter for the file, whose footer has one (the bloom index cannot find its keys)"
    elif text is None and live:
        problem = "a bloom filter for the file, whose footer has none"
    elif text is not None and record is not None:
        held = bytes(record["BloomFilterMetadata"].get("bloomFilter") or b"")
        if held != text and held != footer_bloom_filter(values, where):
            problem = (
                "its bloom filter differs from the file's footer (the bloom index misses keys the "
                "file holds: Hudi's next upsert of them writes duplicates)"
            )
    return [] if problem is None else [IndexFinding(BLOOM_FILTERS, data_file(partition, name), problem)]


def _unlisted_bloom_filters(listed: FileListing, records: Mapping[str, MetadataRecord]) -> list[IndexFinding]:
    """Live bloom filter records of no listed base file (named by key: it hashes the file name)."""
    expected = {
        keys.bloom_filter_key(partition, name)
        for partition, files in listed.items()
        for name in files
        if BaseFileName.parse(name) is not None
    }
    return [
        IndexFinding(
            BLOOM_FILTERS,
            f"key {key}",
            "a live bloom filter of a base file the files partition does not list (deleted without "
            "its bloom filter record; the bloom index looks into a file that is gone)",
        )
        for key, record in sorted(records.items())
        if key not in expected and _is_live(record, "BloomFilterMetadata")
    ]
