"""The merged file-slice reader: what a Hudi snapshot, time-travel or read-optimized query
returns, built on the file-system view, the log scanner and the merge rules.

Lance base files are listed and handled at file level only: reading their records raises an
UnsupportedTableError that says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError, StorageError, UnsupportedTableError
from maintainer.hudi import logformat
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.file_groups.filemodel import FileSlice
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.records.merge import (
    META_COLUMNS,
    LogDeletes,
    LogItem,
    LogRecords,
    MergeRules,
    merge_file_slice,
)
from maintainer.hudi.table.schema import conform, table_arrow_schema
from maintainer.hudi.table.state import TableState
from maintainer.storage import Storage


def read_base_file(storage: Storage, path: str, columns: Sequence[str] | None = None) -> pa.Table:
    """A Parquet base file as a Table (Lance refused with a clear error); ``columns``: only
    those the file has (None: all)."""
    if path.endswith(".lance"):
        raise UnsupportedTableError(
            "Lance base files cannot be read by maintainer (only listed and maintained at file level)",
            where=storage.uri(path),
            hint="use the hudi reader or Spark with the Hudi bundle to read Lance tables",
        )
    try:
        with storage.open_input_file(path) as handle:
            if columns is None:
                return pq.read_table(handle)
            parquet = pq.ParquetFile(handle)
            present = set(parquet.schema_arrow.names)
            return parquet.read(columns=[c for c in columns if c in present])
    except StorageError:
        raise
    except (pa.ArrowException, OSError) as exc:
        raise CorruptFileError(f"cannot read base file: {exc}", where=storage.uri(path)) from exc


CorruptBlockHandler = Callable[[logformat.LogBlock], None]


def refuse_corrupt_block(block: logformat.LogBlock) -> None:
    """The default: a corrupt block stops the read (maintenance never works past damage)."""
    raise CorruptFileError(
        f"corrupt log block ({block.corrupt_reason})",
        where=block.location,
        hint="a writer may have crashed while appending (Hudi's readers skip such blocks); check "
        "that no committed write is lost (see the commit that wrote this file) before maintaining "
        "this file group",
    )


def _log_items(
    storage: Storage,
    file_slice: FileSlice,
    is_committed: Callable[[str], bool],
    on_corrupt: CorruptBlockHandler,
) -> list[LogItem]:
    blocks: list[logformat.LogBlock] = []
    for log_file in file_slice.log_files:
        blocks += logformat.read_log_file(storage, log_file.path)
    for block in blocks:
        if block.is_corrupt:
            on_corrupt(block)
    items: list[LogItem] = []
    for block in logformat.effective_blocks(blocks, is_committed):
        instant = block.instant_time or ""
        if block.block_type is logformat.BlockType.DELETE:
            deletes = [(d.record_key or "", d.ordering_value) for d in logformat.block_deletes(block)]
            items.append(LogDeletes(instant, deletes))
        elif block.block_type is logformat.BlockType.PARQUET_DATA:
            items.append(LogRecords(instant, logformat.block_table(block).to_pylist()))
        elif block.block_type in (logformat.BlockType.AVRO_DATA, logformat.BlockType.CDC_DATA):
            items.append(LogRecords(instant, logformat.block_records(block)))
    return items


def _slice_schema(storage: Storage, base: pa.Table | None, file_slice: FileSlice) -> pa.Schema | None:
    if base is not None:
        return base.schema
    for log_file in file_slice.log_files:
        for block in logformat.read_log_file(storage, log_file.path):
            if block.is_data and block.schema_json:
                return logformat.arrow_schema(block.schema_json)
    return None


def committed_predicate(timeline: Timeline) -> Callable[[str], bool]:
    """Is an instant's data committed in this timeline (completed, or before its start)?"""
    completed = timeline.completed_commit_times()
    return lambda instant: instant in completed or timeline.is_before_start(instant)


def read_file_slice(
    storage: Storage,
    config: TableConfig,
    timeline: Timeline,
    file_slice: FileSlice,
    read_optimized: bool = False,
    on_corrupt: CorruptBlockHandler = refuse_corrupt_block,
) -> pa.Table | None:
    """The merged rows of one slice (base file only when ``read_optimized``). Corrupt log
    blocks go to ``on_corrupt``: refused by default; a handler that returns skips them, as
    Hudi's readers do."""
    base = read_base_file(storage, file_slice.base_file.path) if file_slice.base_file else None
    if base is not None and not config.populate_meta_fields:
        base = base.drop_columns([c for c in META_COLUMNS if c in base.column_names])
    if read_optimized or not file_slice.log_files:
        return base
    schema = _slice_schema(storage, base, file_slice)
    if schema is None:
        return None
    items = _log_items(storage, file_slice, committed_predicate(timeline), on_corrupt)
    return merge_file_slice(base, items, MergeRules.for_table(config), schema)


def _view_for(table: TableState, as_of: str | None) -> FileSystemView:
    return table.view_as_of(as_of) if as_of else table.view


def read_slices(
    table: TableState,
    as_of: str | None = None,
    read_optimized: bool = False,
    on_corrupt: CorruptBlockHandler = refuse_corrupt_block,
) -> Iterator[pa.Table]:
    """The merged rows of every latest file slice, one Table per slice."""
    view = _view_for(table, as_of)
    config = table.snapshot.config
    for file_slice in view.latest_slices():
        rows = read_file_slice(table.storage, config, view.timeline, file_slice, read_optimized, on_corrupt)
        if rows is not None and rows.num_rows:
            yield rows


def read_table(table: TableState, as_of: str | None = None, read_optimized: bool = False) -> pa.Table | None:
    """All rows of the table as one Table in the table's current schema (None when empty)."""
    parts = list(read_slices(table, as_of, read_optimized))
    if not parts:
        return None
    schema = table_arrow_schema(table.storage, table.snapshot)
    if schema is not None and not table.snapshot.config.populate_meta_fields:
        schema = pa.schema([f for f in schema if f.name not in META_COLUMNS])
    if schema is not None and all(set(schema.names) >= set(p.column_names) for p in parts):
        parts = [conform(p, schema) for p in parts]
    return pa.concat_tables(parts, promote_options="permissive")


def read_records(
    table: TableState,
    as_of: str | None = None,
    read_optimized: bool = False,
    on_corrupt: CorruptBlockHandler = refuse_corrupt_block,
) -> Iterator[dict[str, Any]]:
    """Rows as dicts, slice by slice (bounded memory per slice)."""
    for rows in read_slices(table, as_of, read_optimized, on_corrupt):
        yield from rows.to_pylist()
