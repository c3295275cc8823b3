"""The records of a data table's latest file slices, read once for the checks of the indexes
that describe records (``record_index`` and secondary indexes): every record key with the file
groups that hold it, and the values of the columns secondary indexes index.

Slices are read with maintainer's reader, merged with their log files (a slice of a base file
alone: ``_hoodie_record_key`` and the indexed columns only); corrupt log blocks are skipped, as
Hudi's readers skip them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from maintainer.hudi.file_groups.filemodel import FileSlice
from maintainer.hudi.logformat.model import LogBlock
from maintainer.hudi.records.merge import RECORD_KEY_COLUMN
from maintainer.hudi.records.reader import read_base_file, read_file_slice
from maintainer.hudi.table.state import TableState

Location = tuple[str, str]
"""(data-table partition path, file id)."""


@dataclass(frozen=True)
class LatestRecords:
    locations: dict[str, set[Location]]
    """Every record key with the file groups that hold it."""
    values: dict[str, list[tuple[str, object, Location]]] = field(default_factory=dict)
    """Column -> (record key, value, where) of every record (value as read: Python objects,
    dates as epoch days and timestamps as their count of units)."""


def read_latest_records(data: TableState, columns: Sequence[str] = ()) -> LatestRecords | None:
    """The records of the latest slices (None: the table keeps no ``_hoodie_record_key``
    column). Raises what the reader raises for unreadable data files."""
    snapshot = data.snapshot
    if not snapshot.config.populate_meta_fields:
        return None
    found = LatestRecords({}, {column: [] for column in columns})
    wanted = [RECORD_KEY_COLUMN, *columns]
    for file_slice in data.view.latest_slices():
        rows = _slice_rows(data, file_slice, wanted)
        if rows is None or RECORD_KEY_COLUMN not in rows.column_names:
            continue
        location = (file_slice.partition, file_slice.file_id)
        record_keys = [None if k is None else str(k) for k in rows.column(RECORD_KEY_COLUMN).to_pylist()]
        for key in record_keys:
            if key is not None:
                found.locations.setdefault(key, set()).add(location)
        for column in columns:
            if column not in rows.column_names:
                continue
            values = raw_values(rows.column(column))
            found.values[column].extend(
                (key, value, location)
                for key, value in zip(record_keys, values, strict=True)
                if key is not None
            )
    return found


def _slice_rows(data: TableState, file_slice: FileSlice, columns: Sequence[str]) -> pa.Table | None:
    """The slice's merged rows; a slice of a base file alone is read for ``columns`` only."""
    if file_slice.base_file is not None and not file_slice.log_files:
        return read_base_file(data.storage, file_slice.base_file.path, columns)
    config, timeline = data.snapshot.config, data.view.timeline
    return read_file_slice(data.storage, config, timeline, file_slice, on_corrupt=_skip)


def raw_values(column: pa.ChunkedArray) -> list[object]:
    """The column's values as Hudi's Avro records hold them: dates as epoch days, times and
    timestamps as their integer count of units."""
    kind = column.type
    if pa.types.is_date32(kind) or pa.types.is_time32(kind):
        column = column.cast(pa.int32())
    elif pa.types.is_timestamp(kind) or pa.types.is_time64(kind) or pa.types.is_date64(kind):
        column = column.cast(pa.int64())
    values: list[object] = column.to_pylist()
    return values


def _skip(block: LogBlock) -> None:
    """Corrupt blocks are skipped, as Hudi's readers skip them."""
