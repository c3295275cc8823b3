"""One compaction operation: merge a file slice's base file with its log files into a new base
file ``{fileId}_{writeToken}_{compactionInstant}.parquet``.

:func:`compact_slice` is a module-level function of one picklable :class:`CompactionTask`, so
it runs as a Spark task (``maintainer.spark.tasks.SparkRunner``) or in process alike. Memory is
bounded by the slice's log records plus one row group of the base file (and the writer's row
group buffer): the log side is folded first (:mod:`.log_state`), then the base file is read
and merged row group by row group (:mod:`.base_merge`). Records keep their meta columns
(commit time and sequence number of the write that produced them), ``_hoodie_file_name``
becomes the new file's name. Corrupt log blocks are skipped and counted in the write stat
(``totalCorruptLogBlock``), as Hudi's compactor does.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError, StorageError, UnsupportedTableError
from maintainer.executors.compaction.base_merge import SliceMerger
from maintainer.executors.compaction.codec import slice_settings
from maintainer.executors.compaction.log_state import LogState, build_log_state
from maintainer.hudi import logformat
from maintainer.hudi.file_groups.filenames import BaseFileName, MarkerName, MarkerType
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.logformat import BlockType, LogBlock
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, ParquetSettings, file_codec
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
class CommittedInstants:
    """Is data written at an instant committed? (completed, or older than the timeline)."""

    completed: frozenset[str]
    timeline_start: str | None

    @classmethod
    def of(cls, timeline: Timeline) -> CommittedInstants:
        return cls(frozenset(timeline.completed_commit_times()), timeline.write_timeline_start())

    def __call__(self, instant: str) -> bool:
        return instant in self.completed or (
            self.timeline_start is not None and instant < self.timeline_start
        )


@functools.cache
def parquet_format() -> Any:
    """pyarrow's dataset Parquet format, which reads base files as fragments of a known size
    (:class:`BaseFileReader`). Imported when first read: ``pyarrow.dataset`` imports pandas,
    a fifth of a second that every ``maintainer`` command would otherwise pay at start."""
    import pyarrow.dataset as pads

    return pads.ParquetFileFormat()


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


@dataclass
class _LogRead:
    blocks: list[LogBlock]
    total_blocks: int
    rollback_blocks: int
    corrupt_blocks: int
    log_bytes: int


def _read_logs(task: CompactionTask) -> _LogRead:
    """The effective blocks of the slice's logs. Corrupt blocks (what a crashed append leaves)
    are skipped and counted, as Hudi's log record scanner does: their records are not merged."""
    blocks: list[LogBlock] = []
    log_bytes = 0
    for name in task.slice.log_files:
        path = task.slice.path(name)
        data = task.storage.read_bytes(path)
        log_bytes += len(data)
        blocks += logformat.read_log_blocks(data, task.storage.uri(path))
    rollbacks = sum(1 for b in blocks if b.block_type is BlockType.COMMAND)
    corrupt = sum(1 for b in blocks if b.is_corrupt)
    effective = logformat.effective_blocks(blocks, task.committed)
    return _LogRead(effective, len(blocks), rollbacks, corrupt, log_bytes)


class BaseFileReader:
    """The slice's base file, opened once: its codec (from the footer) and its row groups.
    Given its ``size``, it is read as a dataset fragment of that size: the same row groups,
    the same ranged reads, and no request for the size (pyarrow's ``open_input_file`` takes
    none)."""

    def __init__(self, storage: Storage, path: str, size: int | None = None) -> None:
        self.where = storage.uri(path)
        self._handle: pa.NativeFile | None = None
        try:
            if size is None:
                self._handle = storage.open_input_file(path)
                parquet = pq.ParquetFile(self._handle)
                self.metadata = parquet.metadata
                self._read: Callable[[int], pa.Table] = parquet.read_row_group
            else:
                full_path = storage.full_path(path)
                fragment = parquet_format().make_fragment(full_path, storage.arrow_fs, file_size=size)
                self.metadata = fragment.metadata
                self._read = lambda index: fragment.subset(row_group_ids=[index]).to_table()
        except FileNotFoundError as exc:
            self.close()
            raise StorageError(f"file not found: {self.where}") from exc
        except (pa.ArrowException, OSError) as exc:
            self.close()
            raise CorruptFileError(f"cannot read base file: {exc}", where=self.where) from exc

    @property
    def codec(self) -> str | None:
        return file_codec(self.metadata)

    def row_groups(self) -> Iterator[pa.Table]:
        """The row groups, one at a time."""
        try:
            for index in range(self.metadata.num_row_groups):
                yield self._read(index)
        except (StorageError, UnsupportedTableError):
            raise
        except (pa.ArrowException, OSError) as exc:
            raise CorruptFileError(f"cannot read base file: {exc}", where=self.where) from exc

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()

    def __enter__(self) -> BaseFileReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
    logs: _LogRead,
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
