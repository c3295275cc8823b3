"""One clustering group: read its file slices (a base file alone, or merged with its log files
as compaction merges them), concatenate them in plan order, order the rows
(:mod:`.layout`), and write them into ``numOutputFileGroups`` new file groups of about equal
rows in the same partition: ``<uuid4>-0_<taskPartitionId>-<stageId>-<attemptId>_<T>.parquet``.

:func:`cluster_group` is a module-level function of one picklable :class:`GroupTask`, so it
runs as a Spark task (``maintainer.spark.tasks.SparkRunner``) or in process alike. Rows keep
their meta columns (``_hoodie_commit_time`` and ``_hoodie_commit_seqno`` of the write that
produced them: Hudi's ``preserveHoodieMetadata``); ``_hoodie_file_name`` becomes the new
file's name. Each new file gets a CREATE marker before it is written. Memory holds the group's
rows (Hudi's planner caps a group at ``max.bytes.per.group``) while they are ordered.
"""

from __future__ import annotations

import posixpath
import time
import uuid
from dataclasses import dataclass

import pyarrow as pa

from maintainer.errors import UnsupportedTableError
from maintainer.executors.clustering.layout import Layout, ordered, split_counts
from maintainer.executors.common.base_merge import SliceMerger
from maintainer.executors.common.codec import slice_settings
from maintainer.executors.common.log_state import build_log_state
from maintainer.executors.common.slice_read import BaseFileReader, CommittedInstants, read_logs
from maintainer.hudi.file_groups.filenames import BaseFileName, MarkerName, MarkerType
from maintainer.hudi.logformat.arrow import arrow_schema
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, ParquetSettings, with_meta_fields
from maintainer.hudi.payloads import WriteStat
from maintainer.hudi.records.merge import MergeRules
from maintainer.hudi.table.schema import conform
from maintainer.hudi.table.snapshot import MARKERS_DIR
from maintainer.storage import Storage

NULL_COMMIT = "null"
"""``HoodieWriteStat.NULL_COMMIT``: the ``prevCommit`` of a new file group's first base file."""
STAGE_ID = 1
"""The middle number of the write tokens (a Spark stage id in Hudi's; one stage here)."""


@dataclass(frozen=True, slots=True)
class SliceToRead:
    """One input slice of a group (file names in the partition)."""

    partition: str
    file_id: str
    base_file: str | None
    log_files: tuple[str, ...] = ()

    def path(self, name: str) -> str:
        return f"{self.partition}/{name}" if self.partition else name


@dataclass(frozen=True, slots=True)
class CommittedBefore:
    """Committed data written before the clustering instant (log blocks appended after it was
    scheduled are not part of the plan's snapshot)."""

    committed: CommittedInstants
    instant_time: str

    def __call__(self, instant: str) -> bool:
        return instant < self.instant_time and self.committed(instant)


@dataclass(frozen=True, slots=True)
class GroupTask:
    """Everything one group needs, picklable for a Spark task."""

    storage: Storage
    instant_time: str
    partition: str
    slices: tuple[SliceToRead, ...]
    num_output_files: int
    first_task_id: int
    """The task partition id of the group's first output file (the next ones count up)."""
    avro_schema: str
    """The table's Avro schema (the writer adds the meta fields)."""
    rules: MergeRules
    committed: CommittedInstants
    parquet: ParquetSettings
    sort_columns: tuple[str, ...] = ()
    layout: Layout = Layout.LINEAR

    @property
    def replaced_file_ids(self) -> tuple[str, ...]:
        return tuple(s.file_id for s in self.slices)


def _refuse_non_parquet(task: GroupTask, piece: SliceToRead) -> None:
    if piece.base_file is not None and not piece.base_file.endswith(".parquet"):
        raise UnsupportedTableError(
            f"the base file {piece.base_file} is not Parquet (Lance or another format): "
            "maintainer cannot rewrite it",
            where=task.storage.uri(piece.path(piece.base_file)),
            hint="cluster this table with Hudi itself",
        )


def _base_rows(reader: BaseFileReader, schema: pa.Schema, merger: SliceMerger | None) -> list[pa.Table]:
    parts = []
    for rows in reader.row_groups():
        conformed = conform(rows, schema)
        parts.append(merger.merge_row_group(conformed) if merger is not None else conformed)
    return parts


def read_slice(task: GroupTask, piece: SliceToRead, schema: pa.Schema) -> tuple[pa.Table, str | None]:
    """The slice's snapshot rows (conformed to the writer ``schema``) and its base file codec."""
    _refuse_non_parquet(task, piece)
    merger = None
    if piece.log_files:
        paths = [piece.path(name) for name in piece.log_files]
        logs = read_logs(task.storage, paths, CommittedBefore(task.committed, task.instant_time))
        merger = SliceMerger(build_log_state(logs.blocks, task.rules, schema), task.rules)
    parts: list[pa.Table] = []
    codec = None
    if piece.base_file is not None:
        with BaseFileReader(task.storage, piece.path(piece.base_file)) as reader:
            codec = reader.codec
            parts = _base_rows(reader, schema, merger)
    if merger is not None:
        parts.append(merger.inserts())
    rows = pa.concat_tables(parts) if parts else schema.empty_table()
    return rows, codec


@dataclass(frozen=True, slots=True)
class OutputFile:
    """One new base file of the group."""

    file_id: str
    write_token: str
    task_partition_id: int

    @classmethod
    def new(cls, task_partition_id: int) -> OutputFile:
        token = f"{task_partition_id}-{STAGE_ID}-{task_partition_id}"
        return cls(f"{uuid.uuid4()}-0", token, task_partition_id)

    def name(self, instant_time: str) -> str:
        return BaseFileName(self.file_id, self.write_token, instant_time).name


def _write_marker(task: GroupTask, file_name: str) -> None:
    marker = MarkerName(file_name, MarkerType.CREATE).name
    relative = f"{task.partition}/{marker}" if task.partition else marker
    task.storage.write_bytes(f"{MARKERS_DIR}/{task.instant_time}/{relative}", b"")


def _write_file(task: GroupTask, output: OutputFile, rows: pa.Table, settings: ParquetSettings) -> WriteStat:
    started = time.monotonic()
    name = output.name(task.instant_time)
    path = posixpath.join(task.partition, name) if task.partition else name
    _write_marker(task, name)
    target = BaseFileTarget(path, task.partition, task.instant_time, output.task_partition_id)
    with BaseFileWriter(task.storage, target, task.avro_schema, settings) as writer:
        writer.write_hoodie_records(rows)
        footer = writer.close()
        written = writer.bytes_written
    if written is None:
        info = task.storage.stat(path)
        written = info.size if info else 0
    return new_file_stat(task.partition, output.file_id, path, footer.num_rows, written, started)


def new_file_stat(partition: str, file_id: str, path: str, rows: int, size: int, started: float) -> WriteStat:
    """The write stat of a new file group's base file, as Hudi's clustering records it."""
    return WriteStat(
        file_id=file_id,
        path=path,
        prev_commit=NULL_COMMIT,
        partition_path=partition,
        num_writes=rows,
        num_deletes=0,
        num_update_writes=0,
        num_inserts=rows,
        total_write_bytes=size,
        total_write_errors=0,
        file_size_in_bytes=size,
        total_log_records=0,
        total_log_blocks=0,
        total_corrupt_log_block=0,
        total_rollback_blocks=0,
        total_updated_records_compacted=0,
        total_log_files_compacted=0,
        total_log_size_compacted=0,
        total_log_read_time_ms=0,
        runtime_stats={
            "totalScanTime": 0,
            "totalCreateTime": int((time.monotonic() - started) * 1000),
            "totalUpsertTime": 0,
        },
        num_updates=0,
    )


def cluster_group(task: GroupTask) -> tuple[WriteStat, ...]:
    """Rewrite one group into its new file groups; the write stat of each new base file."""
    schema = arrow_schema(with_meta_fields(task.avro_schema))
    parts: list[pa.Table] = []
    codec = None
    for piece in task.slices:
        rows, piece_codec = read_slice(task, piece, schema)
        parts.append(rows)
        codec = codec or piece_codec
    table = ordered(
        pa.concat_tables(parts) if parts else schema.empty_table(), task.sort_columns, task.layout
    )
    settings = slice_settings(task.parquet, codec)
    stats = []
    offset = 0
    for index, count in enumerate(split_counts(table.num_rows, task.num_output_files)):
        output = OutputFile.new(task.first_task_id + index)
        stats.append(_write_file(task, output, table.slice(offset, count), settings))
        offset += count
    return tuple(stats)
