"""Writing one file group's share of one commit, as a Hudi Spark task does.

COW: the group's latest base file is merged with the changes into a new base file version.
MOR: a new file group gets a base file; an existing one gets a log file with an Avro data block
(inserts and updates) and a delete block (v6: named by the slice's base instant, next version;
v8+: named by the deltacommit). Pure of the timeline: it returns the write stat and markers.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from maintainer.datagen.workload import DATA_SCHEMA, OP_COLUMN, ORDERING_FIELD, RECORD_KEY_FIELD, Op
from maintainer.hudi import logformat
from maintainer.hudi.file_groups.filenames import BaseFileName, MarkerType
from maintainer.hudi.logformat import DeleteRecord, OrderingValue
from maintainer.hudi.parquet.basefile import BaseFileTarget, BaseFileWriter, with_meta_fields
from maintainer.hudi.payloads import WriteStat
from maintainer.hudi.records.reader import read_base_file
from maintainer.storage import Storage


@dataclass(frozen=True, slots=True)
class FileGroupTask:
    """One file group's changes in one commit."""

    partition_path: str
    file_id: str
    changes: pa.Table
    """The group's changes in CHANGE_SCHEMA (data columns + ``_op``)."""
    base_file: str | None
    """The latest committed base file name of the group (None: a new group)."""
    log_files: tuple[str, ...]
    """The committed log file names of the group's latest slice."""
    task_id: int


@dataclass(frozen=True, slots=True)
class TaskResult:
    stat: WriteStat
    marker: tuple[str, MarkerType]
    """(data file path relative to the table, marker type)."""


@dataclass(frozen=True, slots=True)
class WriteContext:
    instant_time: str
    commit_index: int
    is_mor: bool
    version: int
    avro_schema: str

    def write_token(self, task_id: int) -> str:
        return f"{task_id}-{3 * self.commit_index + 1}-{1000 * self.commit_index + task_id}"


def _path(partition: str, name: str) -> str:
    return f"{partition}/{name}" if partition else name


@dataclass(frozen=True, slots=True)
class _Counts:
    deletes: int
    updates: int
    inserts: int

    @classmethod
    def of(cls, changes: pa.Table) -> _Counts:
        ops = changes.column(OP_COLUMN)
        return cls(*(pc.sum(pc.equal(ops, int(op))).as_py() or 0 for op in (Op.DELETE, Op.UPDATE, Op.INSERT)))


def _written(changes: pa.Table) -> pa.Table:
    """Inserts and updates, data columns only."""
    return changes.filter(pc.not_equal(changes.column(OP_COLUMN), int(Op.DELETE))).select(DATA_SCHEMA.names)


def _write_base(storage: Storage, ctx: WriteContext, task: FileGroupTask, old: pa.Table | None) -> TaskResult:
    name = BaseFileName(task.file_id, ctx.write_token(task.task_id), ctx.instant_time).name
    target = BaseFileTarget(
        _path(task.partition_path, name), task.partition_path, ctx.instant_time, task.task_id
    )
    with BaseFileWriter(storage, target, ctx.avro_schema) as writer:
        if old is not None:
            changed = pc.is_in(
                old.column("_hoodie_record_key"), value_set=task.changes.column(RECORD_KEY_FIELD)
            )
            kept = old.filter(pc.invert(changed))
            if kept.num_rows:
                writer.write_hoodie_records(kept)
        data = _written(task.changes)
        if data.num_rows:
            writer.write(data, data.column(RECORD_KEY_FIELD))
    size = storage.stat(target.path)
    counts = _Counts.of(task.changes)
    parsed = BaseFileName.parse(task.base_file) if task.base_file else None
    prev = parsed.instant_time if parsed else "null"
    stat = WriteStat(
        file_id=task.file_id, path=target.path, prev_commit=prev, num_writes=writer.num_rows,
        total_write_bytes=size.size if size else 0, total_write_errors=0, partition_path=task.partition_path,
        file_size_in_bytes=size.size if size else 0, num_deletes=counts.deletes,
        num_update_writes=counts.updates, num_inserts=counts.inserts,
    )  # fmt: skip
    marker = MarkerType.MERGE if old is not None else MarkerType.CREATE
    return TaskResult(stat, (target.path, marker))


def _log_records(ctx: WriteContext, task: FileGroupTask) -> pa.Table:
    """Inserts and updates with their meta columns, as the writer puts them in a data block."""
    data = _written(task.changes)
    count = data.num_rows
    sequence = pc.binary_join_element_wise(
        pa.scalar(f"{ctx.instant_time}_{task.task_id}_"),
        pa.array(range(count), pa.int64()).cast(pa.string()),
        "",
    )
    meta = {
        "_hoodie_commit_time": pa.repeat(pa.scalar(ctx.instant_time), count),
        "_hoodie_commit_seqno": sequence,
        "_hoodie_record_key": data.column(RECORD_KEY_FIELD),
        "_hoodie_partition_path": pa.repeat(pa.scalar(task.partition_path), count),
        "_hoodie_file_name": pa.repeat(pa.scalar(task.file_id), count),
    }
    return pa.table({**meta, **{name: data.column(name) for name in data.column_names}})


def _deletes(task: FileGroupTask) -> list[DeleteRecord]:
    removed = task.changes.filter(pc.equal(task.changes.column(OP_COLUMN), int(Op.DELETE)))
    keys = removed.column(RECORD_KEY_FIELD).to_pylist()
    orderings = removed.column(ORDERING_FIELD).to_pylist()
    return [
        DeleteRecord(key, task.partition_path, OrderingValue.infer(ordering))
        for key, ordering in zip(keys, orderings, strict=True)
    ]


def _log_blocks(ctx: WriteContext, task: FileGroupTask) -> list[bytes]:
    schema = with_meta_fields(ctx.avro_schema)
    blocks = []
    records = _log_records(ctx, task)
    if records.num_rows:
        blocks.append(logformat.avro_data_block_from_table(records, schema, ctx.instant_time))
    deletes = _deletes(task)
    if deletes:
        blocks.append(logformat.delete_block(deletes, ctx.instant_time, schema))
    return blocks


def _write_log(storage: Storage, ctx: WriteContext, task: FileGroupTask) -> TaskResult:
    assert task.base_file is not None
    base = BaseFileName.parse(task.base_file)
    assert base is not None
    token = ctx.write_token(task.task_id)
    if ctx.version < 8:
        log = logformat.next_log_file_v6(task.log_files, task.file_id, base.instant_time, token)
    else:
        log = logformat.new_log_file_v8(task.file_id, ctx.instant_time, token)
    path = _path(task.partition_path, log.name)
    data = b"".join(_log_blocks(ctx, task))
    storage.write_if_absent(path, data)
    counts = _Counts.of(task.changes)
    stat = WriteStat(
        file_id=task.file_id, path=path, prev_commit=base.instant_time, num_writes=task.changes.num_rows,
        total_write_bytes=len(data), total_write_errors=0, partition_path=task.partition_path,
        file_size_in_bytes=len(data), log_version=log.version, log_offset=0, base_file=task.base_file,
        log_files=(log.name,), total_log_blocks=0, num_deletes=counts.deletes,
        num_update_writes=counts.updates, num_inserts=counts.inserts,
    )  # fmt: skip
    marker = MarkerType.APPEND if ctx.version < 8 else MarkerType.CREATE
    return TaskResult(stat, (path, marker))


def write_file_group(storage: Storage, ctx: WriteContext, task: FileGroupTask) -> TaskResult:
    """Write one file group's changes; returns its write stat and marker."""
    if ctx.is_mor and task.base_file is not None:
        return _write_log(storage, ctx, task)
    old = read_base_file(storage, _path(task.partition_path, task.base_file)) if task.base_file else None
    return _write_base(storage, ctx, task, old)
