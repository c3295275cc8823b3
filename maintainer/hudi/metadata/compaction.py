"""Compact a metadata table the way Hudi's metadata writer does (``compactIfNecessary``).

The metadata table is a merge-on-read table whose every action adds log files; Hudi compacts it
from its metadata writer after regular writes, and the data table's archival stops before the
metadata table's latest compaction, so a table maintained only by maintainer needs this too.

* **Trigger** (``hoodie.metadata.compact.max.delta.commits``, default 10): the completed
  deltacommits since the latest completed compaction (``NUM_COMMITS``).
* **Instant**: a new time, or one millisecond before the earliest data-table instant that is
  pending on the data table but completed on the metadata table (so that instant's deltacommit
  stays out of the base files and can still be rolled back). A completed compaction at that
  time already means nothing to do.
* **Operations** (``UnBoundedCompactionStrategy``: every file slice, since the compaction is the
  barrier "everything before it is in the base files"): the latest slice of every file group
  with log files whose deltacommit completed before the compaction instant, except groups under
  a pending compaction.
* **Execution**: per file group, the base file's records merged with the log blocks of
  completed metadata instants (``HoodieMetadataPayload``: ``files`` maps combined, other types
  the newest, deleted records dropped), written as one base HFile (sorted cells, file info
  ``schema``, ``minRecordKey``, ``maxRecordKey``, ``bloomFilterTypeCode``, and a ``bloomFilter``
  meta block), named ``<file id>_<task>-<stage>-<attempt>_<instant>.hfile``. Hudi 1.0 (table
  version 8) writes nothing for a group with no base file and no log record; 1.1 writes an empty
  base file. The timeline gets ``<instant>.compaction.requested`` (the plan),
  ``.compaction.inflight`` (empty) and the completed ``commit`` (``compacted``, operation
  ``COMPACT``, the record schema, one write stat per new base file).

The plan is made in :mod:`.compaction_plan`, a file group's records merged in
:mod:`.compaction_merge`; this module writes the base files and the timeline. Every step writes
new files only, so a crash leaves a pending compaction that the next run
executes again from its stored plan (its base files written again under the same names).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maintainer.clock import Clock, utc_now
from maintainer.errors import ApplyError
from maintainer.hudi.hfile import HFileCell, HFileStyle, write_hfile
from maintainer.hudi.hfile.model import CREATE_TIME_TS
from maintainer.hudi.instants.instant import (
    Action,
    Instant,
    State,
)
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.metadata.compaction_merge import MergeCounts, merged_records
from maintainer.hudi.metadata.compaction_plan import (
    FileGroupCompaction,
    compaction_operations,
    compaction_plan,
    operations_of_plan,
)
from maintainer.hudi.metadata.records import (
    MetadataRecord,
    parsed_schema,
)
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.metadata.writer import encode_value
from maintainer.hudi.parquet.bloom import BloomFilterConfig, build_bloom_filter
from maintainer.hudi.payloads import CommitMetadata, WriteStat, encode_avro
from maintainer.hudi.payloads.decode import decode_compaction_plan
from maintainer.hudi.payloads.write_stat import counted_stat
from maintainer.storage import Storage

COMPACT_OPERATION = "COMPACT"
BLOOM_TYPE_KEY = b"bloomFilterTypeCode"
MIN_KEY = b"minRecordKey"
MAX_KEY = b"maxRecordKey"
SCHEMA_KEY = b"schema"
BLOOM_META_BLOCK = "bloomFilter"
FILE_NAME_FIELD = "_hoodie_file_name"
BLOOM_BY_VERSION = {
    8: BloomFilterConfig(num_entries=60000, fpp=0.000000001, max_entries=100000),
    9: BloomFilterConfig(num_entries=10000, fpp=0.000000001, max_entries=100000),
}
"""The base HFiles' bloom filter: Hudi 1.0 used the storage defaults; 1.1 sizes it for 10,000
keys per row (read from the fixtures' metadata compactions)."""
WRITE_STAGE = "0-0"


@dataclass(frozen=True)
class BaseFileWrite:
    partition: str
    file_id: str
    name: str
    content: bytes
    stat: WriteStat

    @property
    def path(self) -> str:
        return f"{self.partition}/{self.name}"


@dataclass(frozen=True)
class BaseFileSettings:
    """How base HFiles are written: the Hudi version's HFile style and bloom filter, the
    record schema, and the files' creation time."""

    style: HFileStyle
    bloom: BloomFilterConfig
    schema_json: str
    created_ms: int
    table_version: int


def base_hfile(records: dict[str, MetadataRecord], name: str, settings: BaseFileSettings) -> bytes:
    """The base HFile ``name`` of ``records``: its cells carry ``_hoodie_file_name`` (the one meta
    field Hudi's HFile writer fills on the metadata table, which populates none)."""
    schema = parsed_schema(settings.schema_json)
    keys = sorted(records, key=lambda k: k.encode())
    cells = [
        HFileCell(key.encode(), encode_value({**records[key], FILE_NAME_FIELD: name}, schema)) for key in keys
    ]
    bloom = build_bloom_filter(keys, settings.bloom)
    info = {
        SCHEMA_KEY: settings.schema_json.encode(),
        MIN_KEY: keys[0].encode() if keys else b"",
        MAX_KEY: keys[-1].encode() if keys else b"",
        BLOOM_TYPE_KEY: settings.bloom.type_code.encode(),
    }
    if settings.style is HFileStyle.HUDI:
        info[CREATE_TIME_TS] = settings.created_ms.to_bytes(8, "big")
    return write_hfile(
        cells,
        style=settings.style,
        file_info=info,
        meta_blocks=((BLOOM_META_BLOCK, bloom.serialize().encode()),),
    )


def compact_file_group(
    mdt: MetadataTable,
    op: FileGroupCompaction,
    instant: str,
    token: str,
    settings: BaseFileSettings,
    committed: Callable[[str], bool],
) -> BaseFileWrite | None:
    """The base file of one operation, its write token ``<task>-<stage>-<attempt>`` (None: Hudi
    1.0 writes none for it)."""
    records, counts, base_keys = merged_records(mdt, op, committed)
    if op.base_file is None and counts.log_records == 0 and settings.table_version < 9:
        return None
    name = f"{op.file_id}_{token}_{instant}.hfile"
    content = base_hfile(records, name, settings)
    inserts = sum(1 for key in records if key not in base_keys)
    stat = _write_stat(op, name, content, len(records), inserts, counts)
    return BaseFileWrite(op.partition, op.file_id, name, content, stat)


def _write_stat(
    op: FileGroupCompaction, name: str, content: bytes, writes: int, inserts: int, counts: MergeCounts
) -> WriteStat:
    size = len(content)
    return counted_stat(
        file_id=op.file_id,
        path=f"{op.partition}/{name}",
        prev_commit=op.base_instant if op.base_file is not None else "null",
        partition_path=op.partition,
        num_writes=writes,
        num_update_writes=writes - inserts,
        num_inserts=inserts,
        total_write_bytes=size,
        file_size_in_bytes=size,
        total_log_records=counts.log_records,
        total_log_blocks=len(op.log_files),
        total_updated_records_compacted=len(counts.updated_keys),
        total_log_files_compacted=len(op.log_files),
        total_log_size_compacted=sum(log.size for log in op.log_files),
        runtime_stats={"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 0},
    )


def commit_metadata(writes: Sequence[BaseFileWrite], schema_json: str) -> CommitMetadata:
    stats: dict[str, list[WriteStat]] = {}
    for write in writes:
        stats.setdefault(write.partition, []).append(write.stat)
    return CommitMetadata(
        partition_to_write_stats={p: tuple(s) for p, s in stats.items()},
        compacted=True,
        extra_metadata={"schema": schema_json},
        version=None,
        operation_type=COMPACT_OPERATION,
    )


# -- running it -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetadataCompaction:
    instant: Instant
    """The completed compaction."""
    writes: tuple[BaseFileWrite, ...]
    resumed: bool
    """It finished a compaction an earlier run left pending."""

    @property
    def file_groups(self) -> int:
        return len(self.writes)


def base_file_settings(
    mdt: MetadataTable, style: HFileStyle, schema_json: str, created_ms: int
) -> BaseFileSettings:
    version = mdt.state.snapshot.config.version
    bloom = BLOOM_BY_VERSION.get(version, BLOOM_BY_VERSION[9])
    return BaseFileSettings(style, bloom, schema_json, created_ms, version)


def committed_on(timeline: Timeline) -> Callable[[str], bool]:
    return timeline.is_committed_write


def execute_compaction(
    mdt: MetadataTable,
    requested: Instant,
    settings: BaseFileSettings,
    commit_schema: str,
    clock: Clock = utc_now,
    fault: Callable[[str], None] | None = None,
    resumed: bool = False,
) -> MetadataCompaction:
    """Run the requested (or inflight) compaction ``requested`` of ``mdt`` from its stored
    plan; ``commit_schema``: the record schema the commit records (without meta fields)."""
    storage, timeline = mdt.storage, mdt.state.snapshot.timeline
    where = storage.uri(timeline.file_path(requested, State.REQUESTED))
    plan = decode_compaction_plan(storage.read_bytes(timeline.file_path(requested, State.REQUESTED)), where)
    if plan is None:
        raise ApplyError("the metadata table's compaction plan is empty", where=where)
    operations = operations_of_plan(mdt.state, plan, where)
    writer = TimelineWriter(storage, mdt.state.snapshot.config, clock)
    with writer.heartbeat(requested.timestamp):
        inflight = (
            requested if requested.state is State.INFLIGHT else writer.transition_to_inflight(requested)
        )
        if fault is not None:
            fault("metadata_after_inflight")
        committed = committed_on(timeline)
        writes = []
        for task, op in enumerate(operations):
            token = f"{task}-{WRITE_STAGE}"
            write = compact_file_group(mdt, op, requested.timestamp, token, settings, committed)
            if write is not None:
                _write_base_file(storage, write)
                writes.append(write)
        if fault is not None:
            fault("metadata_before_commit")
        completed = writer.complete(inflight, encode_avro(commit_metadata(writes, commit_schema)))
    return MetadataCompaction(completed, tuple(writes), resumed)


def _write_base_file(storage: Storage, write: BaseFileWrite) -> None:
    """Write-once; a retry of a crashed attempt finds its own file and writes it again."""
    if storage.exists(write.path):
        storage.delete(write.path)
    storage.write_if_absent(write.path, write.content)


def schedule_compaction(mdt: MetadataTable, instant_time: str, clock: Clock = utc_now) -> Instant | None:
    """Write ``<instant>.compaction.requested`` for the current operations (None: nothing to
    compact)."""
    operations = compaction_operations(mdt.state, instant_time)
    if not operations:
        return None
    writer = TimelineWriter(mdt.storage, mdt.state.snapshot.config, clock)
    return writer.create_requested(
        Action.COMPACTION, encode_avro(compaction_plan(operations)), instant_time, mirrored=True
    )
