"""Write one metadata-table deltacommit the way Hudi's metadata writer does
(``HoodieBackedTableMetadataWriter.commit``, an ``UPSERT_PREPPED`` on the metadata table):

1. ``<T>.deltacommit.requested`` (empty) and ``<T>.deltacommit.inflight``, T being the
   data-table instant's own time: commit metadata holding the write's workload profile
   (``BaseSparkCommitActionExecutor.saveWorkloadProfileMetadataToInflight``: per metadata
   partition, an insert stat with no file, then per file group the records it receives and the
   base instant of its latest slice), or no write stats where Hudi 1.1 streams the write into
   the metadata table (a compaction on table version 9: ``SparkMetadataTableFirstDeltaCommit
   ActionExecutor`` saves an empty profile);
2. per file group that receives records (the key's Java hash picks the group), a new log file
   ``.<file id>_<T>.log.1_<token>`` holding one HFILE_DATA block: header SCHEMA then
   INSTANT_TIME, content an HFile of the records sorted by key; then, where keys of the group
   are deleted, a DELETE block with the same header (``HoodieAppendHandle``: data, then deletes;
   each key with the metadata partition as its partition path and Hudi's default ordering
   value, the int 0);
3. the completed deltacommit with one write stat per log file and the record schema.

Every step is a write-once file, so a crash leaves a pending metadata deltacommit that
:func:`maintainer.hudi.metadata.recovery` finishes or rolls back on the next run.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import fastavro

from maintainer.clock import Clock, utc_now
from maintainer.errors import TimelineWriteError
from maintainer.hudi.file_groups.filemodel import FileGroup
from maintainer.hudi.hfile import HFileCell, HFileStyle, write_hfile
from maintainer.hudi.hfile.model import CREATE_TIME_TS
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.logformat.binary import frame_block
from maintainer.hudi.logformat.delete_block import (
    DeleteRecord,
    OrderingType,
    OrderingValue,
    encode_delete_content,
)
from maintainer.hudi.logformat.model import BlockMetadata, BlockType, HeaderKey
from maintainer.hudi.metadata.partitions import file_group_index
from maintainer.hudi.metadata.record_schema import MetadataSchemas
from maintainer.hudi.metadata.records import MetadataRecord, parsed_schema
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.updates.java_map import hashmap_order
from maintainer.hudi.payloads.commit import CommitMetadata
from maintainer.hudi.payloads.decode import encode_avro
from maintainer.hudi.payloads.write_stat import WriteStat, counted_stat

OPERATION = "UPSERT_PREPPED"
SCHEMA_FILE_INFO = b"schema"
"""File-info entry of every metadata HFile: the block's record schema."""
LOG_VERSION = 1
STREAMING_FROM_VERSION = 9
"""Hudi 1.1 (table version 9) streams data writes and compactions into the metadata table."""
DEFAULT_ORDERING = OrderingValue(OrderingType.INT, 0)
"""The ordering value of a metadata record's delete (``HoodieRecordPayload.getOrderingValue``'s
default, as the fixtures' metadata DELETE blocks hold it)."""
NULL_COMMIT = "null"
"""``HoodieWriteStat.NULL_COMMIT``: the previous commit of the profile's insert stat."""


@dataclass(frozen=True)
class MetadataUpdate:
    """What one data-table action writes into the metadata table."""

    instant_time: str
    records: Mapping[str, Sequence[tuple[str, MetadataRecord]]]
    """Metadata partition -> (key, record) pairs (keys unique within a partition)."""
    deletes: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Metadata partition -> keys whose records are deleted (a DELETE block)."""
    streamed: bool = False
    """Written as Hudi 1.1 streams a write into the metadata table: the inflight file then
    carries an empty workload profile."""

    @property
    def is_empty(self) -> bool:
        return not any(self.records.values()) and not any(self.deletes.values())


@dataclass(frozen=True)
class LogFileWrite:
    partition: str
    file_id: str
    name: str
    content: bytes
    record_count: int
    prev_commit: str
    """The base instant of the file group's latest slice (where Hudi tags its records)."""
    delete_count: int = 0

    @property
    def path(self) -> str:
        return f"{self.partition}/{self.name}"


@dataclass(frozen=True)
class WriteSettings:
    """How the metadata table's files are written: its Hudi version's HFile style, the record
    schemas, the write token's ``<stage>-<attempt>`` part, and the HFiles' creation time."""

    style: HFileStyle
    schemas: MetadataSchemas
    task: str
    created_ms: int


def log_file_writes(
    mdt: MetadataTable, update: MetadataUpdate, settings: WriteSettings
) -> list[LogFileWrite]:
    """The log files of ``update`` (pure: nothing is written); the write token's task partition
    number is the file's index in the list."""
    writes: list[LogFileWrite] = []
    for partition in sorted({*update.records, *update.deletes}):
        bases = {g.file_id: _latest_base_instant(g) for g in mdt.file_groups(partition)}
        groups = sorted(bases)
        if not groups:
            raise TimelineWriteError(
                f"metadata partition {partition} has no file groups", where=mdt.storage.uri(partition)
            )
        by_group: dict[str, list[tuple[str, MetadataRecord]]] = {}
        for key, record in update.records.get(partition, ()):
            by_group.setdefault(groups[file_group_index(key, len(groups))], []).append((key, record))
        deleted: dict[str, list[str]] = {}
        for key in update.deletes.get(partition, ()):
            deleted.setdefault(groups[file_group_index(key, len(groups))], []).append(key)
        for file_id in sorted({*by_group, *deleted}):
            members, keys = by_group.get(file_id, []), deleted.get(file_id, [])
            token = f"{len(writes)}-{settings.task}"
            name = f".{file_id}_{update.instant_time}.log.{LOG_VERSION}_{token}"
            content = _log_content(partition, members, keys, update.instant_time, settings)
            writes.append(
                LogFileWrite(partition, file_id, name, content, len(members), bases[file_id], len(keys))
            )
    return writes


def _log_content(
    partition: str,
    members: Sequence[tuple[str, MetadataRecord]],
    keys: Sequence[str],
    instant_time: str,
    settings: WriteSettings,
) -> bytes:
    """The blocks of one log file: the records' HFILE_DATA block, then the deletes' block."""
    schema = settings.schemas.block_schema
    content = b""
    if members:
        content += hfile_block(members, instant_time, schema, settings.style, settings.created_ms)
    if keys:
        content += delete_block(partition, keys, instant_time, schema)
    return content


def delete_block(partition: str, keys: Sequence[str], instant_time: str, schema_json: str) -> bytes:
    """One DELETE log block of ``keys`` of the metadata partition ``partition``."""
    records = [DeleteRecord(key, partition, DEFAULT_ORDERING) for key in keys]
    header = BlockMetadata(((HeaderKey.SCHEMA, schema_json), (HeaderKey.INSTANT_TIME, instant_time)))
    return frame_block(BlockType.DELETE, header, encode_delete_content(records))


def _latest_base_instant(group: FileGroup) -> str:
    latest = group.latest_slice
    if latest is None:
        where = f"{group.partition}/{group.file_id}"
        raise TimelineWriteError(f"metadata file group {group.file_id} has no file slice", where=where)
    return latest.base_instant


def hfile_block(
    records: Sequence[tuple[str, MetadataRecord]],
    instant_time: str,
    schema_json: str,
    style: HFileStyle,
    created_ms: int,
) -> bytes:
    """One HFILE_DATA log block of ``records`` (``created_ms``: the HFile's creation time)."""
    schema = parsed_schema(schema_json)
    cells = sorted(
        (HFileCell(key.encode(), encode_value(record, schema)) for key, record in records),
        key=lambda c: c.key,
    )
    header = BlockMetadata(((HeaderKey.SCHEMA, schema_json), (HeaderKey.INSTANT_TIME, instant_time)))
    info = {SCHEMA_FILE_INFO: schema_json.encode(), CREATE_TIME_TS: created_ms.to_bytes(8, "big")}
    return frame_block(BlockType.HFILE_DATA, header, write_hfile(cells, style=style, file_info=info))


def encode_value(record: MetadataRecord, schema: Any) -> bytes:
    """A record as an HFile cell value: Avro binary, with an empty ``key`` as Hudi writes it (the
    record key is the cell's)."""
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, schema, {**record, "key": ""})
    return buffer.getvalue()


def write_stat(write: LogFileWrite, instant_time: str) -> WriteStat:
    size = len(write.content)
    return counted_stat(
        file_id=write.file_id,
        path=write.path,
        prev_commit=instant_time,
        partition_path=write.partition,
        num_writes=write.record_count,
        num_deletes=write.delete_count,
        num_update_writes=write.record_count,
        total_write_bytes=size,
        file_size_in_bytes=size,
        log_version=LOG_VERSION,
        log_offset=0,
        base_file="",
        log_files=(write.name,),
        runtime_stats={"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 0},
    )


def commit_metadata(
    writes: Sequence[LogFileWrite], instant_time: str, schemas: MetadataSchemas
) -> CommitMetadata:
    stats: dict[str, list[WriteStat]] = {}
    for write in writes:
        stats.setdefault(write.partition, []).append(write_stat(write, instant_time))
    return CommitMetadata(
        partition_to_write_stats={p: tuple(s) for p, s in stats.items()},
        compacted=False,
        extra_metadata={"schema": schemas.commit_schema},
        version=None,
        operation_type=OPERATION,
    )


def write_deltacommit(
    mdt: MetadataTable, update: MetadataUpdate, settings: WriteSettings, clock: Clock = utc_now
) -> Instant:
    """Write and complete the metadata deltacommit of ``update``; returns the completed instant."""
    writer = TimelineWriter(mdt.storage, mdt.state.snapshot.config, clock)
    writes = log_file_writes(mdt, update, settings)
    profile = () if update.streamed else writes
    requested = _requested(writer, update.instant_time)
    with writer.heartbeat(update.instant_time):
        inflight = writer.transition_to_inflight(requested, encode_avro(inflight_metadata(profile)))
        for write in writes:
            mdt.storage.write_if_absent(write.path, write.content)
        return writer.complete(
            inflight, encode_avro(commit_metadata(writes, update.instant_time, settings.schemas))
        )


def _requested(writer: TimelineWriter, instant_time: str) -> Instant:
    return writer.create_requested(Action.DELTA_COMMIT, b"", instant_time=instant_time, mirrored=True)


def inflight_metadata(writes: Sequence[LogFileWrite]) -> CommitMetadata:
    """The inflight deltacommit's content: the workload profile of ``writes``
    (``saveWorkloadProfileMetadataToInflight``), partitions and file groups in the order of the
    Java ``HashMap`` s that hold them. No writes: an empty profile."""
    by_partition: dict[str, list[LogFileWrite]] = {}
    for write in writes:
        by_partition.setdefault(write.partition, []).append(write)
    stats: dict[str, tuple[WriteStat, ...]] = {}
    for partition in hashmap_order(sorted(by_partition)):
        members = {w.file_id: w for w in by_partition[partition]}
        groups = (_profile_stat(members[f].file_id, members[f].prev_commit,
                                members[f].record_count + members[f].delete_count)
                  for f in hashmap_order(sorted(members)))  # fmt: skip
        stats[partition] = (_profile_stat("", NULL_COMMIT, 0), *groups)
    return CommitMetadata(
        partition_to_write_stats=stats,
        compacted=False,
        extra_metadata={},
        version=None,
        operation_type=OPERATION,
    )


def _profile_stat(file_id: str, prev_commit: str, updates: int) -> WriteStat:
    """A ``HoodieWriteStat`` as the workload profile sets it: file id, previous commit and update
    count; every other counter at Java's default 0, the rest null."""
    return counted_stat(file_id=file_id, prev_commit=prev_commit, num_update_writes=updates)
