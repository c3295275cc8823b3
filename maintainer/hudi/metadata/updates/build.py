"""``HoodieMetadataRecord`` values as Hudi's ``HoodieMetadataPayload.create*`` methods make them,
each with its record key.

A record is the dict fastavro decodes (``key`` is empty: the HFile cell holds the key), except
that a min/max value is written in fastavro's union notation ``(wrapper record name, {"value":
...})``, so that it encodes with the wrapper Hudi chose (two wrappers may hold the same Python
value). Hudi's five meta fields are left out (they are null and fastavro fills them in).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import timezone
from fractions import Fraction
from typing import Any

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.instants.instant import parse_instant_time
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.partitions import ALL_PARTITIONS_KEY, NON_PARTITIONED_KEY, RecordType
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.java_map import hashmap_order
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.values import Wrapped

KeyedRecord = tuple[str, MetadataRecord]
"""A record and its key."""


def _record(record_type: RecordType, **fields: Any) -> MetadataRecord:
    record: MetadataRecord = {
        "key": "",
        "type": int(record_type),
        "filesystemMetadata": None,
        "BloomFilterMetadata": None,
        "ColumnStatsMetadata": None,
        "recordIndexMetadata": None,
        "SecondaryIndexMetadata": None,
    }
    record.update(fields)
    return record


def files_partition_id(partition: str) -> str:
    """``getPartitionIdentifierForFilesPartition``: ``.`` for the non-partitioned partition."""
    return partition or NON_PARTITIONED_KEY


def partition_list_record(partitions: Sequence[str], deleted: bool = False) -> KeyedRecord:
    """``createPartitionListRecord``: the partitions (in the order given) as entries of size 0 of
    a ``new HashMap<>()``."""
    names = hashmap_order(_distinct([files_partition_id(p) for p in partitions]))
    entries = {name: {"size": 0, "isDeleted": deleted} for name in names}
    return ALL_PARTITIONS_KEY, _record(RecordType.PARTITION_LIST, filesystemMetadata=entries)


def files_record(partition: str, added: Mapping[str, int], deleted: Sequence[str]) -> KeyedRecord:
    """``createPartitionFilesRecord``: ``added`` (name -> size, in the order given) then the
    ``deleted`` names as ``{size: 0, isDeleted: true}``, in a ``new HashMap<>(size, 1)``."""
    sizes: dict[str, tuple[int, bool]] = {name: (size, False) for name, size in added.items()}
    for name in deleted:
        sizes[name] = (0, True)  # a put replaces the value, the key keeps its first slot
    order = _distinct([*added, *deleted])
    names = hashmap_order(order, capacity=len(added) + len(deleted), load_factor=Fraction(1))
    entries = {name: {"size": sizes[name][0], "isDeleted": sizes[name][1]} for name in names}
    return files_partition_id(partition), _record(RecordType.FILE_LIST, filesystemMetadata=entries)


def _distinct(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def column_stats_record(partition: str, column_range: ColumnRange, deleted: bool = False) -> KeyedRecord:
    """``createColumnStatsRecord``: ``column_range`` of one file (``isTightBound`` false)."""
    key = keys.column_stats_key(column_range.column, partition, column_range.file)
    stats = _stats(column_range, deleted=deleted, tight=False)
    return key, _record(RecordType.COLUMN_STATS, ColumnStatsMetadata=stats)


def partition_stats_record(partition: str, column_range: ColumnRange, deleted: bool = False) -> KeyedRecord:
    """``createPartitionStatsRecords``: ``column_range`` over a partition (``fileName`` is the
    partition path, ``isTightBound`` true)."""
    key = keys.partition_stats_key(column_range.column, partition)
    stats = _stats(column_range, deleted=deleted, tight=True)
    return key, _record(RecordType.PARTITION_STATS, ColumnStatsMetadata=stats)


def _stats(column_range: ColumnRange, deleted: bool, tight: bool) -> dict[str, Any]:
    return {
        "fileName": column_range.file,
        "columnName": column_range.column,
        "minValue": _wrapped(column_range.min),
        "maxValue": _wrapped(column_range.max),
        "valueCount": column_range.value_count,
        "nullCount": column_range.null_count,
        "totalSize": column_range.total_size,
        "totalUncompressedSize": column_range.total_uncompressed_size,
        "isDeleted": deleted,
        "isTightBound": tight,
        "valueType": column_range.meta.type_info(),
    }


def _wrapped(value: Wrapped | None) -> tuple[str, dict[str, Any]] | None:
    return None if value is None else value.to_avro()


def bloom_filter_record(
    partition: str, file_name: str, instant_time: str, filter_type: str, bloom_filter: bytes, deleted: bool
) -> KeyedRecord:
    """``createBloomFilterMetadataRecord`` (``timestamp`` is the instant that wrote the record)."""
    key = keys.bloom_filter_key(partition, file_name)
    bloom = {
        "type": filter_type,
        "timestamp": instant_time,
        "bloomFilter": bloom_filter,
        "isDeleted": deleted,
    }
    return key, _record(RecordType.BLOOM_FILTER, BloomFilterMetadata=bloom)


UUID_FILE_ID_ENCODING = 0
"""``fileIdEncoding`` of a record index location whose file id is ``<uuid>-<n>``."""
_LONG_MASK = 2**64 - 1


def _signed_long(bits: int) -> int:
    return bits - 2**64 if bits >= 2**63 else bits


def instant_epoch_millis(instant_time: str, timeline_timezone: str) -> int:
    """``HoodieInstantTimeGenerator.parseDateFromInstantTime(T).getTime()``: the instant's wall
    clock in the table's timeline timezone (``UTC``, else the local zone) as epoch millis."""
    moment = parse_instant_time(instant_time)
    if timeline_timezone.upper() == "UTC":
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000) if moment.tzinfo else int(moment.astimezone().timestamp() * 1000)


def record_index_record(record_key: str, partition: str, file_id: str, instant_millis: int) -> KeyedRecord:
    """``createRecordIndexUpdate``: ``record_key`` is in file group ``file_id`` (``<uuid>-<n>``:
    the UUID as two signed longs, ``fileIndex`` n, ``fileId`` empty) of ``partition``, written
    at ``instant_millis``."""
    head, _, index = file_id.rpartition("-")
    try:
        bits = uuid.UUID(head).int
        file_index = int(index)
    except ValueError as exc:
        raise UnsupportedTableError(
            f"file id {file_id!r} is not <uuid>-<n>: maintainer indexes such ids only"
        ) from exc
    location = {
        "partitionName": partition,
        "fileIdHighBits": _signed_long(bits >> 64),
        "fileIdLowBits": _signed_long(bits & _LONG_MASK),
        "fileIndex": file_index,
        "fileId": "",
        "instantTime": instant_millis,
        "fileIdEncoding": UUID_FILE_ID_ENCODING,
        "position": None,
    }
    return record_key, _record(RecordType.RECORD_INDEX, recordIndexMetadata=location)
