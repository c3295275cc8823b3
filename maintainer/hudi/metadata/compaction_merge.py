"""One metadata file group's records after a compaction: the base file's merged with the log
blocks of completed metadata instants as ``HoodieMetadataPayload`` merges them (``files`` maps
combined, other types the newest, deleted stats, bloom and secondary entries dropped), each
combined ``files`` map in the order Hudi's record merger leaves it (Avro writes a map in its
``HashMap``'s iteration order)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from maintainer.errors import CorruptFileError
from maintainer.hudi.hfile import read_hfile
from maintainer.hudi.logformat.delete_block import block_deletes
from maintainer.hudi.logformat.model import BlockType, LogBlock
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.compaction_plan import FileGroupCompaction
from maintainer.hudi.metadata.partitions import RecordType
from maintainer.hudi.metadata.records import (
    FILE_MAP,
    MetadataRecord,
    decode_value,
    merge_records,
)
from maintainer.hudi.metadata.table import MetadataTable, base_records
from maintainer.hudi.metadata.updates.java_map import java_spread, table_size_for


@dataclass
class MergeCounts:
    log_records: int = 0
    log_blocks: int = 0
    base_records: int = 0
    updated_keys: set[str] = field(default_factory=set)
    log_maps: dict[str, list[list[str]]] = field(default_factory=dict)
    """Key -> the names of each version of its file map merged (the first: before the logs)."""


def merged_records(
    mdt: MetadataTable, op: FileGroupCompaction, committed: Callable[[str], bool]
) -> tuple[dict[str, MetadataRecord], MergeCounts, set[str]]:
    """The file group's live records after the compaction (key -> record), the counts Hudi's
    write stat reports, and the keys the base file held."""
    counts = MergeCounts()
    merged: dict[str, MetadataRecord] = {}
    if op.base_file is not None:
        merged.update(base_records(mdt.storage, op.base_file.path))
    base_keys = set(merged)
    counts.base_records = len(base_keys)
    for log in op.log_files:
        where = mdt.storage.uri(log.path)
        for block in read_log_blocks(mdt.storage.read_bytes(log.path), where):
            if block.is_corrupt:
                raise CorruptFileError(
                    f"corrupt metadata log block: {block.corrupt_reason}", where=block.location
                )
            if block.instant_time is None or not committed(block.instant_time):
                continue
            counts.log_blocks += 1
            _merge_block(block, merged, counts)
    live = {
        key: _in_java_order(record, _map_order(record, counts.log_maps.get(key), key in base_keys))
        for key, record in merged.items()
        if not is_deleted(record)
    }
    return live, counts, base_keys


def _in_java_order(record: MetadataRecord, order: list[str] | None) -> MetadataRecord:
    """A combined ``files`` record with its map in the iteration order of the ``HashMap`` Hudi
    built it in (Avro writes maps in that order)."""
    entries = record.get(FILE_MAP)
    if order is None or not entries:
        return record
    return {**record, FILE_MAP: {name: entries[name] for name in order if name in entries}}


def _map_order(record: MetadataRecord, versions: list[list[str]] | None, from_base: bool) -> list[str] | None:
    """The order Hudi 1.x's merge leaves a combined file map in: the log records combined
    newest first (``putAll`` of the newer, then the older merged in), then the base record's map
    put first and the logs' combination merged into it."""
    if versions is None:
        return None
    kept = list(record.get(FILE_MAP) or {})
    base, logs = (versions[0], versions[1:]) if from_base else ([], versions)
    combined = logs[0]
    for newer in logs[1:]:
        combined = java_merge_order(newer, combined, [*newer, *combined])
    if from_base:
        return java_merge_order(base, combined, kept)
    present = set(kept)
    return [name for name in combined if name in present]


def java_merge_order(first: Sequence[str], second: Sequence[str], kept: Iterable[str]) -> list[str]:
    """The iteration order of ``new HashMap<>()`` after ``putAll(first)`` then a ``merge`` of
    each key of ``second``, of the keys ``kept``: ``putAll`` sizes the table for its entries
    (``tableSizeFor(size / 0.75 + 1)``, 16 when empty), the table doubles whenever the size
    passes 3/4 of it, and entries iterate by bucket, then by insertion (a resize keeps the
    order within a bucket)."""
    placed = set(first)
    sequence = list(dict.fromkeys([*first, *(name for name in second if name not in placed)]))
    capacity = table_size_for(int(len(first) / 0.75 + 1.0)) if first else 16
    while len(sequence) > capacity * 3 // 4:
        capacity *= 2
    rank = {name: index for index, name in enumerate(sequence)}
    present = [name for name in dict.fromkeys(kept) if name in rank]
    return sorted(present, key=lambda name: (java_spread(name) & (capacity - 1), rank[name]))


def _merge_block(block: LogBlock, merged: dict[str, MetadataRecord], counts: MergeCounts) -> None:
    if block.block_type is BlockType.DELETE:
        for deleted in block_deletes(block):
            key = deleted.record_key or ""
            counts.log_records += 1
            counts.updated_keys.add(key)
            merged.pop(key, None)
        return
    if block.block_type is not BlockType.HFILE_DATA:
        return
    schema = block.schema_json
    if schema is None:
        raise CorruptFileError("an HFILE_DATA block without a schema header", where=block.location)
    for cell in read_hfile(block.content, block.location).cells:
        key = cell.key.decode()
        counts.log_records += 1
        counts.updated_keys.add(key)
        older, newer = merged.get(key), decode_value(cell.value, schema, block.location)
        merged[key] = merge_records(older, newer)
        if newer["type"] in (RecordType.PARTITION_LIST, RecordType.FILE_LIST):
            first = [list(older.get(FILE_MAP) or {})] if older is not None else []
            counts.log_maps.setdefault(key, first).append(list(newer.get(FILE_MAP) or {}))


def is_deleted(record: MetadataRecord) -> bool:
    """``HoodieMetadataPayload``'s deleted record: a column-stats, bloom-filter or secondary-index
    entry marked deleted (a ``files`` record stays, its map combined)."""
    kind = record.get("type")
    if kind in (RecordType.COLUMN_STATS, RecordType.PARTITION_STATS):
        stats = _branch(record.get("ColumnStatsMetadata"))
        return bool(stats and stats.get("isDeleted"))
    if kind == RecordType.BLOOM_FILTER:
        bloom = _branch(record.get("BloomFilterMetadata"))
        return bool(bloom and bloom.get("isDeleted"))
    if kind == RecordType.SECONDARY_INDEX:
        info = _branch(record.get("SecondaryIndexMetadata"))
        return bool(info and info.get("isDeleted"))
    return False


def _branch(value: object) -> dict[str, object] | None:
    """A union value as fastavro decodes it: ``(record name, dict)`` or the dict itself."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
        return value[1]
    return value if isinstance(value, dict) else None
