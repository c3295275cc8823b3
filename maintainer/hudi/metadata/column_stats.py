"""``column_stats`` covers every file the ``files`` partition lists: each has live statistics
(for base files and, in MOR tables, log files). A file without them is skipped by Hudi's data
skipping in some readers and read wrongly as "no match" in others.

Hudi writes none for a file it cannot read statistics from, and the check follows it: Lance
base files (Hudi keeps no column statistics for them) and Parquet base files of no rows (a
delete that emptied a file group leaves one).
"""

from __future__ import annotations

from collections.abc import Mapping

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
