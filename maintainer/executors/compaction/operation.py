"""One compaction operation: merge a file slice's base file with its log files into a new base
file ``{fileId}_{writeToken}_{compactionInstant}.parquet``.

:func:`compact_slice` is a module-level function of one picklable :class:`CompactionTask`, so
it runs as a Spark task (``maintainer.spark.tasks.SparkRunner``) or in process alike. Memory is
bounded by the slice's log records plus one row group of the base file (and the writer's row
group buffer): the log side is folded first (``executors.common.log_state``), then the base
file is read and merged row group by row group (``executors.common.base_merge``). Records keep
their meta columns (commit time and sequence number of the write that produced them), ``_hoodie_file_name``
becomes the new file's name. Corrupt log blocks are skipped and counted in the write stat
(``totalCorruptLogBlock``), as Hudi's compactor does.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass

from maintainer.errors import UnsupportedTableError
from maintainer.executors.common.base_merge import SliceMerger
from maintainer.executors.common.codec import slice_settings
from maintainer.executors.common.log_state import LogState, build_log_state
from maintainer.executors.common.slice_read import BaseFileReader, CommittedInstants, LogRead, read_logs
from maintainer.hudi.file_groups.filenames import BaseFileName, MarkerName, MarkerType
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, ParquetSettings
from maintainer.hudi.payloads import WriteStat
from maintainer.hudi.records.merge import MergeRules
from maintainer.hudi.table.schema import conform
from maintainer.hudi.table.snapshot import MARKERS_DIR
from maintainer.storage import Storage
from maintainer.storage.gc_pause import paused_gc

NULL_COMMIT = "null"
"""Hudi's ``HoodieWriteStat.NULL_COMMIT``: the ``prevCommit`` of a new base file written without
an earlier one (a log-only slice: ``FileGroupReaderBasedMergeHandle.init``, 0.x
``HoodieCreateHandle.setupWriteStatus``)."""


@dataclass(frozen=True, slots=True)
class SliceToCompact:
    """The slice of one compaction operation (file names in the partition)."""

    partition: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]
    base_file_size: int | None = None
    """The base file's size as listed (None: not known); with it, the file is read without
    asking its size first (on an object store, a HEAD request per base file)."""

    def path(self, name: str) -> str:
        return f"{self.partition}/{name}" if self.partition else name


@dataclass(frozen=True, slots=True)
class CompactionTask:
    """Everything one operation needs, picklable for a Spark task."""

    storage: Storage
    instant_time: str
    slice: SliceToCompact
    write_token: str
    task_partition_id: int
    avro_schema: str
    """The table's Avro schema (the writer adds the meta fields)."""
    rules: MergeRules
    committed: CommittedInstants
    parquet: ParquetSettings
    """Writer settings; a slice's base file keeps its codec (:func:`.codec.slice_settings`)."""

    @property
    def new_file_name(self) -> str:
        return BaseFileName(self.slice.file_id, self.write_token, self.instant_time).name

    @property
    def new_file_path(self) -> str:
        return self.slice.path(self.new_file_name)


def _read_logs(task: CompactionTask) -> LogRead:
    """The effective blocks of the slice's logs (corrupt ones skipped and counted)."""
    paths = [task.slice.path(name) for name in task.slice.log_files]
    return read_logs(task.storage, paths, task.committed)


def _write_marker(task: CompactionTask) -> None:
    kind = MarkerType.MERGE if task.slice.base_file else MarkerType.CREATE
    marker = MarkerName(task.new_file_name, kind).name
    directory = f"{MARKERS_DIR}/{task.instant_time}"
    task.storage.write_bytes(_marker_path(directory, task, marker), b"")


def _marker_path(directory: str, task: CompactionTask, marker: str) -> str:
    partition = task.slice.partition
    return f"{directory}/{partition}/{marker}" if partition else f"{directory}/{marker}"


def _refuse_non_parquet(task: CompactionTask) -> None:
    base = task.slice.base_file
    if base is not None and not base.endswith(".parquet"):
        raise UnsupportedTableError(
            f"the base file {base} is not Parquet (Lance or another format): maintainer cannot rewrite it",
            where=task.storage.uri(task.slice.path(base)),
            hint="compact this table with Hudi itself",
        )


@dataclass(frozen=True, slots=True)
class _Timing:
    started: float
    scanned: float
    finished: float

    def ms(self, start: float, end: float) -> int:
        return int((end - start) * 1000)


def _merge_into(writer: BaseFileWriter, base: BaseFileReader | None, merger: SliceMerger) -> None:
    """Base rows row group by row group, then the log's inserts, into the new file."""
    if base is not None:
        for rows in base.row_groups():
            merged = merger.merge_row_group(conform(rows, writer.schema))
            if merged.num_rows:
                writer.write_hoodie_records(merged)
    inserts = merger.inserts()
    if inserts.num_rows:
        writer.write_hoodie_records(inserts)


def compact_slice(task: CompactionTask) -> WriteStat:
    """Merge one slice into its new base file; the write stat Hudi records for it."""
    started = time.monotonic()
    _refuse_non_parquet(task)
    with paused_gc():  # splitting Avro blocks makes many short-lived acyclic objects
        logs = _read_logs(task)
    target = BaseFileTarget(
        task.new_file_path, task.slice.partition, task.instant_time, task.task_partition_id
    )
    with ExitStack() as stack:
        base_file = task.slice.base_file
        base = (
            stack.enter_context(
                BaseFileReader(task.storage, task.slice.path(base_file), task.slice.base_file_size)
            )
            if base_file
            else None
        )
        settings = slice_settings(task.parquet, base.codec if base is not None else None)
        _write_marker(task)
        with BaseFileWriter(task.storage, target, task.avro_schema, settings) as writer:
            with paused_gc():
                state = build_log_state(logs.blocks, task.rules, writer.schema)
            logs.blocks.clear()  # the raw log bytes are not needed any more
            scanned = time.monotonic()
            merger = SliceMerger(state, task.rules)
            _merge_into(writer, base, merger)
            footer = writer.close()
            written = writer.bytes_written
    timing = _Timing(started, scanned, time.monotonic())
    return _write_stat(task, footer.num_rows, written, logs, state, merger, timing)


def _write_stat(
    task: CompactionTask,
    rows: int,
    written: int | None,
    logs: LogRead,
    state: LogState,
    merger: SliceMerger,
    timing: _Timing,
) -> WriteStat:
    """The stat of the new base file; its size is what the writer wrote (on object stores a
    stat is a request per file), asked of the storage only where the writer could not tell."""
    if written is None:
        info = task.storage.stat(task.new_file_path)
        written = info.size if info else 0
    file_size = written
    counts = merger.counts
    return WriteStat(
        file_id=task.slice.file_id,
        path=task.new_file_path,
        prev_commit=task.slice.base_instant if task.slice.base_file else NULL_COMMIT,
        partition_path=task.slice.partition,
        num_writes=rows,
        num_deletes=counts.deleted,
        num_update_writes=counts.updated,
        num_inserts=counts.inserted,
        total_write_bytes=file_size,
        total_write_errors=0,
        file_size_in_bytes=file_size,
        total_log_records=state.total_log_records,
        total_log_blocks=logs.total_blocks,
        total_corrupt_log_block=logs.corrupt_blocks,
        total_rollback_blocks=logs.rollback_blocks,
        total_updated_records_compacted=state.winners.num_rows,
        total_log_files_compacted=len(task.slice.log_files),
        total_log_size_compacted=logs.log_bytes,
        total_log_read_time_ms=timing.ms(timing.started, timing.scanned),
        prev_base_file=task.slice.base_file,
        runtime_stats={
            "totalScanTime": timing.ms(timing.started, timing.scanned),
            "totalCreateTime": 0,
            "totalUpsertTime": timing.ms(timing.scanned, timing.finished),
        },
        num_updates=0,
    )
