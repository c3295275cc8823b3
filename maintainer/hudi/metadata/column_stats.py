"""``column_stats`` covers every file the ``files`` partition lists: each has live statistics
(for base files and, in MOR tables, log files). A file without them is skipped by Hudi's data
skipping in some readers and read wrongly as "no match" in others.

``partition_stats`` has a record for every column and partition whose latest files have
column statistics (:func:`partitions_without_stats`).

Hudi writes none for a file it cannot read statistics from, and the check follows it: Lance
base files (Hudi keeps no column statistics for them) and Parquet base files of no rows (a
delete that emptied a file group leaves one).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from maintainer.errors import CorruptFileError
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.parquet_stats import read_parquet_footer
from maintainer.storage import Storage

NO_STATISTICS = (".lance",)
"""Base files Hudi indexes no column statistics for."""
_COLUMN_ID_LENGTH = len(keys.column_id(""))
"""A column_stats key is column id + partition id + file id; the column id has a fixed length."""


def files_without_column_stats(
    data: Storage, listed: Mapping[str, Mapping[str, int]], records: Mapping[str, MetadataRecord]
) -> list[tuple[str, str]]:
    """(partition, file) of the listed files that have no live ``column_stats`` record."""
    covered = {key[_COLUMN_ID_LENGTH:] for key, record in records.items() if _is_live(record)}
    missing = []
    for partition, files in sorted(listed.items()):
        for name in sorted(files):
            if keys.partition_id(partition) + keys.file_id(name) in covered or name.endswith(NO_STATISTICS):
                continue
            if not _is_empty_parquet(data, partition, name):
                missing.append((partition, name))
    return missing


def _is_live(record: MetadataRecord) -> bool:
    stats = record.get("ColumnStatsMetadata") or {}
    return not stats.get("isDeleted")


def _is_empty_parquet(data: Storage, partition: str, name: str) -> bool:
    """A Parquet base file of no rows (one footer read; an unreadable file is not empty: the
    ``files`` comparison and the table's own checks say what is wrong with it)."""
    if not name.endswith(".parquet"):
        return False
    try:
        rows: int = read_parquet_footer(data, f"{partition}/{name}" if partition else name).num_rows
        return rows == 0
    except (CorruptFileError, FileNotFoundError):
        return False


def describe_missing(partition: str, name: str) -> str:
    return (
        f"{partition or '(non-partitioned)'}/{name}: column_stats has no statistics for it "
        "(data skipping misjudges the file)"
    )


def partitions_without_stats(
    latest_files: Mapping[str, Collection[str]],
    column_stats: Mapping[str, MetadataRecord],
    partition_stats: Mapping[str, MetadataRecord],
) -> list[tuple[str, str]]:
    """(partition, column) that a latest file of the partition has live column statistics for,
    but ``partition_stats`` has no live record of (partition pruning then skips the partition).
    Only presence is checked: Hudi's own partition statistics are not the tight aggregate of
    the latest files (after a clustering or an overwrite they still count the replaced files)."""
    columns_by_file: dict[str, set[str]] = {}
    for key, record in column_stats.items():
        if _is_live(record):
            column = str(record["ColumnStatsMetadata"]["columnName"])
            columns_by_file.setdefault(key[_COLUMN_ID_LENGTH:], set()).add(column)
    missing = []
    for partition, files in sorted(latest_files.items()):
        pid = keys.partition_id(partition)
        columns: set[str] = set()
        for name in files:
            columns |= columns_by_file.get(pid + keys.file_id(name), set())
        for column in sorted(columns):
            stored = partition_stats.get(keys.partition_stats_key(column, partition))
            if stored is None or not _is_live(stored):
                missing.append((partition, column))
    return missing


def describe_partition_without_stats(partition: str, column: str) -> str:
    return (
        f"partition_stats: no statistics for column {column!r} of partition "
        f"{partition or '(non-partitioned)'} (its files have some; partition pruning misjudges it)"
    )
