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

Every step writes new files only, so a crash leaves a pending compaction that the next run
executes again from its stored plan (its base files written again under the same names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from maintainer.clock import Clock, utc_now
from maintainer.errors import ApplyError, CorruptFileError
from maintainer.hudi.bloom import BloomFilterConfig, build_bloom_filter
from maintainer.hudi.filemodel import BaseFile, FileGroup, LogFile
from maintainer.hudi.hfile import HFileCell, HFileStyle, read_hfile, write_hfile
from maintainer.hudi.hfile.model import CREATE_TIME_TS
from maintainer.hudi.instant import (
    Action,
    Instant,
    State,
    format_instant_time,
    parse_instant_time,
    wall_clock_in_timezone,
)
from maintainer.hudi.loading import TableState
from maintainer.hudi.logformat.delete_block import block_deletes
from maintainer.hudi.logformat.model import BlockType, LogBlock
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.partitions import RecordType
from maintainer.hudi.metadata.records import (
    FILE_MAP,
    MetadataRecord,
    decode_value,
    merge_records,
    parsed_schema,
)
from maintainer.hudi.metadata.table import MetadataTable, base_records
from maintainer.hudi.metadata.updates.java_map import java_spread, table_size_for
from maintainer.hudi.metadata.writer import encode_value
from maintainer.hudi.payloads import CommitMetadata, WriteStat, encode_avro
from maintainer.hudi.payloads.compaction import (
    METRIC_TOTAL_IO_MB,
    METRIC_TOTAL_IO_READ_MB,
    METRIC_TOTAL_IO_WRITE_MB,
    METRIC_TOTAL_LOG_FILES,
    METRIC_TOTAL_LOG_FILES_SIZE,
    CompactionOperation,
    CompactionPlan,
)
from maintainer.hudi.payloads.decode import decode_compaction_plan
from maintainer.hudi.timeline import Timeline
from maintainer.hudi.timeline_writer import TimelineWriter
from maintainer.storage import Storage

DEFAULT_MAX_DELTA_COMMITS = 10
"""``hoodie.metadata.compact.max.delta.commits``."""
COMPACT_OPERATION = "COMPACT"
MB = 1024 * 1024
PARQUET_MAX_FILE_SIZE = 120 * MB
"""``hoodie.parquet.max.file.size``: what ``captureMetrics`` counts as written for a slice
without a base file (the metadata table's write config keeps the default)."""
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
class CompactionTrigger:
    fires: bool
    delta_commits: int
    max_delta_commits: int
    since: str | None
    """The latest completed compaction (None: never compacted)."""

    @property
    def reason(self) -> str:
        since = f"since the last compaction {self.since}" if self.since else "and never compacted"
        verdict = "compaction due" if self.fires else "no compaction yet"
        return (
            f"{self.delta_commits} of {self.max_delta_commits} metadata deltacommits {since} "
            f"(hoodie.metadata.compact.max.delta.commits): {verdict}"
        )


def last_compaction(timeline: Timeline) -> Instant | None:
    return timeline.last_completed(Action.COMPACTION, Action.COMMIT)


def deltacommits_since_compaction(timeline: Timeline) -> int:
    """Completed deltacommits after the latest completed compaction (all of them without one)."""
    last = last_compaction(timeline)
    after = last.timestamp if last is not None else ""
    return sum(
        1
        for instant in timeline.completed()
        if instant.action is Action.DELTA_COMMIT and instant.timestamp > after
    )


def evaluate_trigger(
    timeline: Timeline, max_delta_commits: int = DEFAULT_MAX_DELTA_COMMITS
) -> CompactionTrigger:
    count = deltacommits_since_compaction(timeline)
    last = last_compaction(timeline)
    return CompactionTrigger(
        count >= max_delta_commits, count, max_delta_commits, last.timestamp if last else None
    )


def compaction_instant_time(data_timeline: Timeline, mdt_timeline: Timeline, now: str) -> str:
    """One millisecond before the earliest data instant pending on the data table but completed
    on the metadata table; else ``now`` (a new time past everything on the metadata timeline)."""
    completed_on_mdt = {i.timestamp for i in mdt_timeline.completed()}
    held = [i.timestamp for i in data_timeline.pending() if i.timestamp in completed_on_mdt]
    if held:
        return format_instant_time(parse_instant_time(min(held)) - timedelta(milliseconds=1))
    latest = mdt_timeline.max_instant_time()
    if latest is not None and now <= latest:
        return format_instant_time(parse_instant_time(latest) + timedelta(milliseconds=1))
    return now


# -- the plan ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileGroupCompaction:
    """One operation: the file group's latest slice, with the log files the compaction takes."""

    partition: str
    file_id: str
    base_instant: str
    base_file: BaseFile | None
    log_files: tuple[LogFile, ...]

    def operation(self) -> CompactionOperation:
        return CompactionOperation(
            base_instant_time=self.base_instant,
            file_id=self.file_id,
            partition_path=self.partition,
            data_file_path=self.base_file.name if self.base_file is not None else None,
            delta_file_paths=tuple(log.name for log in self.log_files),
            metrics=self.metrics(),
        )

    def metrics(self) -> dict[str, float]:
        """Hudi's ``captureMetrics`` (whole MB, log size in bytes)."""
        log_size = sum(log.size for log in self.log_files)
        base_size = self.base_file.size if self.base_file is not None else 0
        read_mb = (base_size + log_size) // MB
        write_mb = (base_size if self.base_file is not None else PARQUET_MAX_FILE_SIZE) // MB
        return {
            METRIC_TOTAL_LOG_FILES: float(len(self.log_files)),
            METRIC_TOTAL_IO_MB: float(read_mb + write_mb),
            METRIC_TOTAL_IO_READ_MB: float(read_mb),
            METRIC_TOTAL_LOG_FILES_SIZE: float(log_size),
            METRIC_TOTAL_IO_WRITE_MB: float(write_mb),
        }


def _operation_of(group: FileGroup, timeline: Timeline, instant: str) -> FileGroupCompaction | None:
    latest = group.latest_slice
    if latest is None:
        return None
    logs = tuple(
        log
        for log in latest.log_files
        if (done := timeline.completion_time(log.instant_time)) is not None and done < instant
    )
    if not logs:
        return None
    return FileGroupCompaction(group.partition, group.file_id, latest.base_instant, latest.base_file, logs)


def compaction_operations(state: TableState, instant: str) -> tuple[FileGroupCompaction, ...]:
    """The operations of a compaction of the metadata table ``state`` at ``instant``."""
    timeline = state.snapshot.timeline
    pending = state.view.inputs.pending_compaction
    found = []
    for partition in sorted(state.view.partitions):
        for group in sorted(state.view.file_groups(partition), key=lambda g: g.file_id):
            if (group.partition, group.file_id) in pending:
                continue
            operation = _operation_of(group, timeline, instant)
            if operation is not None:
                found.append(operation)
    return tuple(found)


def compaction_plan(operations: Sequence[FileGroupCompaction]) -> CompactionPlan:
    return CompactionPlan(
        operations=tuple(op.operation() for op in operations),
        extra_metadata={},
        strategy=None,
        missing_schedule_partitions=(),
    )


def operations_of_plan(
    state: TableState, plan: CompactionPlan, where: str
) -> tuple[FileGroupCompaction, ...]:
    """A stored plan's operations, each file resolved in the metadata table's listing."""
    found = []
    for op in plan.operations or ():
        partition, file_id = op.partition_path or "", op.file_id or ""
        files = {
            f.name: f for g in state.view.file_groups(partition) if g.file_id == file_id for f in _files(g)
        }
        base = files.get(op.data_file_path) if op.data_file_path else None
        logs = [files.get(name) for name in op.delta_file_paths or ()]
        if (op.data_file_path and not isinstance(base, BaseFile)) or not all(
            isinstance(f, LogFile) for f in logs
        ):
            raise CorruptFileError(
                f"the compaction plan names a file of {partition}/{file_id} that is not in the "
                "metadata table",
                where=where,
                hint="restore the metadata table's files, or drop it (`metadata_table: drop`)",
            )
        found.append(
            FileGroupCompaction(
                partition,
                file_id,
                op.base_instant_time or "",
                base if isinstance(base, BaseFile) else None,
                tuple(f for f in logs if isinstance(f, LogFile)),
            )
        )
    return tuple(found)


def _files(group: FileGroup) -> Iterable[BaseFile | LogFile]:
    for file_slice in group.slices:
        yield from file_slice.files


# -- one file group --------------------------------------------------------------------------


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
    return WriteStat(
        file_id=op.file_id,
        path=f"{op.partition}/{name}",
        prev_commit=op.base_instant if op.base_file is not None else "null",
        partition_path=op.partition,
        num_writes=writes,
        num_deletes=0,
        num_update_writes=writes - inserts,
        num_inserts=inserts,
        total_write_bytes=size,
        total_write_errors=0,
        file_size_in_bytes=size,
        total_log_records=counts.log_records,
        total_log_blocks=len(op.log_files),
        total_corrupt_log_block=0,
        total_rollback_blocks=0,
        total_updated_records_compacted=len(counts.updated_keys),
        total_log_files_compacted=len(op.log_files),
        total_log_size_compacted=sum(log.size for log in op.log_files),
        total_log_read_time_ms=0,
        runtime_stats={"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 0},
        num_updates=0,
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


def now_instant(clock: Clock, timezone: str) -> str:
    moment: datetime = clock()
    return format_instant_time(wall_clock_in_timezone(moment, timezone))
