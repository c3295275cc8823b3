"""The partitions a Hudi metadata table can have, what their records are, and how their file
groups are named (``MetadataPartitionType`` and ``HoodieTableMetadataUtil`` in Hudi 1.x)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from maintainer.errors import UnsupportedTableError

FILES = "files"
ALL_PARTITIONS_KEY = "__all_partitions__"
"""The ``files`` record that lists the data table's partitions."""
NON_PARTITIONED_KEY = "."
"""The ``files`` record key of a non-partitioned table's only partition."""


class MetadataPartitionKind(enum.Enum):
    """Each kind with its folder name (or folder prefix) and file-group id prefix."""

    FILES = "files"
    COLUMN_STATS = "column_stats"
    PARTITION_STATS = "partition_stats"
    BLOOM_FILTERS = "bloom_filters"
    RECORD_INDEX = "record_index"
    SECONDARY_INDEX = "secondary_index_"
    EXPRESSION_INDEX = "expr_index_"

    @property
    def is_prefix(self) -> bool:
        """Index kinds: one partition per index, named ``<prefix><index name>``."""
        return self.value.endswith("_")

    def matches(self, name: str) -> bool:
        if self.is_prefix:
            return name.startswith(self.value) and len(name) > len(self.value)
        return name == self.value


class RecordType(enum.IntEnum):
    """The ``type`` field of a ``HoodieMetadataRecord``."""

    PARTITION_LIST = 1
    FILE_LIST = 2
    COLUMN_STATS = 3
    BLOOM_FILTER = 4
    RECORD_INDEX = 5
    PARTITION_STATS = 6
    SECONDARY_INDEX = 7


_FILE_ID_PREFIX = {
    MetadataPartitionKind.FILES: "files-",
    MetadataPartitionKind.COLUMN_STATS: "col-stats-",
    MetadataPartitionKind.PARTITION_STATS: "partition-stats-",
    MetadataPartitionKind.BLOOM_FILTERS: "bloom-filters-",
    MetadataPartitionKind.RECORD_INDEX: "record-index-",
}


@dataclass(frozen=True, slots=True)
class MetadataPartition:
    """One partition of a metadata table (``name`` is its folder under ``.hoodie/metadata``)."""

    name: str
    kind: MetadataPartitionKind

    @property
    def file_id_prefix(self) -> str:
        """``files-`` for ``files-0000-0``; index partitions use their own name."""
        return _FILE_ID_PREFIX.get(self.kind) or self.name.replace("_", "-") + "-"

    def file_id(self, index: int) -> str:
        return f"{self.file_id_prefix}{index:04d}-0"


def metadata_partition(name: str, where: str | None = None) -> MetadataPartition:
    """The partition named ``name``; an unknown name is an :class:`UnsupportedTableError`
    (a newer Hudi's index: maintainer would not know what to write into it)."""
    for kind in MetadataPartitionKind:
        if kind.matches(name):
            return MetadataPartition(name, kind)
    known = ", ".join(k.value + ("<name>" if k.is_prefix else "") for k in MetadataPartitionKind)
    raise UnsupportedTableError(
        f"unknown metadata table partition {name!r} (known: {known})",
        where=where,
        hint="the table was written by a Hudi version maintainer does not know; set "
        "`metadata_table: drop` to let the next Hudi writer rebuild the metadata table, or "
        "leave the table to Hudi's own services",
    )


def file_group_index(key: str, file_group_count: int) -> int:
    """The file group a record key belongs to: Java ``String.hashCode`` of the key, then
    ``abs(abs(h) % n)`` (``HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex``)."""
    return abs(abs(java_string_hash(key)) % file_group_count)


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode``: over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h
