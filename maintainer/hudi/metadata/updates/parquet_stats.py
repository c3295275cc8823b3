"""Column stats of a Parquet base file, from its footer, as Hudi reads them
(``ParquetUtils.readColumnStatsFromMetadata``).

Per row group and indexed column (a leaf whose dotted path is in the column list), Hudi takes the
chunk's statistics: min and max (converted to the index version's values, see
:mod:`.values`), the null count (the chunk's value count when the chunk has no statistics at
all), the chunk's value count (nulls included) and its compressed and uncompressed sizes; the row
groups of a column are then merged. A column the file does not have gets no range.
"""

from __future__ import annotations

import json
import math
import posixpath
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.metadata.updates.ranges import ColumnRange, merge_all
from maintainer.hudi.metadata.updates.values import (
    V1,
    IndexVersion,
    ValueMeta,
    ValueType,
    Wrapped,
    java_bytes,
    v1_decimal,
)
from maintainer.storage import Storage

_PHYSICAL_TYPES = {
    "INT64": ValueType.LONG,
    "INT32": ValueType.INT,
    "BOOLEAN": ValueType.BOOLEAN,
    "BYTE_ARRAY": ValueType.BYTES,
    "FLOAT": ValueType.FLOAT,
    "DOUBLE": ValueType.DOUBLE,
    "FIXED_LEN_BYTE_ARRAY": ValueType.FIXED,
}
_V1_WRAPPERS = {
    "INT32": "IntWrapper",
    "INT64": "LongWrapper",
    "BOOLEAN": "BooleanWrapper",
    "FLOAT": "FloatWrapper",
    "DOUBLE": "DoubleWrapper",
    "BYTE_ARRAY": "BytesWrapper",
}
_TIME_UNITS = {"milliseconds": "MILLIS", "microseconds": "MICROS", "nanoseconds": "NANOS"}


def read_parquet_footer(storage: Storage, path: str) -> pq.FileMetaData:
    """The footer of the Parquet file at ``path`` (relative to the storage root)."""
    try:
        with storage.open_input_file(path) as handle:
            return pq.ParquetFile(handle).metadata
    except (pa.ArrowException, OSError) as exc:
        raise CorruptFileError(f"not a readable Parquet file: {exc}", where=storage.uri(path)) from exc


def read_parquet_ranges(
    storage: Storage, path: str, columns: Sequence[str], version: IndexVersion
) -> list[ColumnRange]:
    """The file-level range of each of ``columns`` the Parquet file at ``path`` has."""
    metadata = read_parquet_footer(storage, path)
    return footer_ranges(metadata, posixpath.basename(path), columns, version, storage.uri(path))


def footer_ranges(
    metadata: pq.FileMetaData, file_name: str, columns: Sequence[str], version: IndexVersion, where: str
) -> list[ColumnRange]:
    """The file-level range of each of ``columns`` in a Parquet footer."""
    wanted = set(columns)
    chunks: dict[str, list[ColumnRange]] = {}
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            if chunk.path_in_schema in wanted:
                column = metadata.schema.column(index)
                chunks.setdefault(chunk.path_in_schema, []).append(
                    _chunk_range(file_name, chunk, column, version, where)
                )
    return [merge_all(ranges) for ranges in chunks.values()]


def _chunk_range(
    file_name: str, chunk: pq.ColumnChunkMetaData, column: pq.ColumnSchema, version: IndexVersion, where: str
) -> ColumnRange:
    meta = V1 if version is IndexVersion.V1 else v2_meta(column, where)
    stats = chunk.statistics if chunk.is_stats_set else None
    low = high = None
    bounds = _bounds(stats, column.physical_type)
    if bounds is not None:
        low = _value(bounds[0], column, meta, where)
        high = _value(bounds[1], column, meta, where)
    return ColumnRange(
        file=file_name,
        column=chunk.path_in_schema,
        min=low,
        max=high,
        null_count=_null_count(stats, chunk.num_values),
        value_count=chunk.num_values,
        total_size=chunk.total_compressed_size,
        total_uncompressed_size=chunk.total_uncompressed_size,
        meta=meta,
    )


def _bounds(stats: pq.Statistics | None, physical_type: str) -> tuple[Any, Any] | None:
    """The chunk's min and max as parquet-mr reads them: for floating point, none when either is
    NaN, a min of +0.0 read as -0.0 and a max of -0.0 as +0.0 (``FloatBuilder``/``DoubleBuilder``)."""
    if stats is None or not stats.has_min_max:
        return None
    low, high = stats.min_raw, stats.max_raw
    if physical_type not in ("FLOAT", "DOUBLE"):
        return low, high
    if math.isnan(low) or math.isnan(high):
        return None
    if low == 0.0:
        low = -0.0
    if high == 0.0:
        high = 0.0
    return low, high


def _null_count(stats: pq.Statistics | None, value_count: int) -> int:
    """parquet-mr: empty statistics (no min/max, no null count) count every value as null; a
    null count it never read is -1."""
    if stats is None:
        return value_count
    if stats.has_null_count:
        return int(stats.null_count)
    return -1 if stats.has_min_max else value_count


def v2_meta(column: pq.ColumnSchema, where: str) -> ValueMeta:
    """``ValueMetadata.getValueMetadata(PrimitiveType, V2)``: the value type of a Parquet column."""
    logical = column.logical_type.type
    if logical == "NONE":
        found = _PHYSICAL_TYPES.get(column.physical_type)
        if found is None:
            raise _unsupported(column, where)
        return ValueMeta(found)
    if logical == "STRING":
        return ValueMeta(ValueType.STRING)
    if logical == "DECIMAL":
        return ValueMeta(ValueType.DECIMAL, column.precision, column.scale)
    if logical == "DATE":
        return ValueMeta(ValueType.DATE)
    if logical in ("TIME", "TIMESTAMP"):
        return _time_meta(column, where)
    raise _unsupported(column, where)


def _time_meta(column: pq.ColumnSchema, where: str) -> ValueMeta:
    details = json.loads(column.logical_type.to_json())
    unit = _TIME_UNITS.get(details.get("timeUnit", ""))
    if column.logical_type.type == "TIME":
        if unit not in ("MILLIS", "MICROS"):
            raise _unsupported(column, where)
        return ValueMeta(ValueType[f"TIME_{unit}"])
    if unit is None:
        raise _unsupported(column, where)
    prefix = "TIMESTAMP" if details.get("isAdjustedToUTC") else "LOCAL_TIMESTAMP"
    return ValueMeta(ValueType[f"{prefix}_{unit}"])


def _unsupported(column: pq.ColumnSchema, where: str) -> UnsupportedTableError:
    return UnsupportedTableError(
        f"column {column.path!r} ({column.physical_type}, {column.logical_type}) has a type Hudi's "
        "column stats index does not read",
        where=where,
        hint="leave this table's metadata table to Hudi's own services, or drop the column from "
        "the column stats index",
    )


def _value(raw: Any, column: pq.ColumnSchema, meta: ValueMeta, where: str) -> Wrapped:
    if meta.is_v1:
        return _v1_value(raw, column, where)
    if meta.type is ValueType.STRING:
        return Wrapped("StringWrapper", bytes(raw).decode("utf-8", errors="replace"))
    if meta.type is ValueType.DECIMAL:
        return Wrapped("BytesWrapper", java_bytes(_unscaled(raw)))
    wrapper = meta.wrapper
    assert wrapper is not None
    if wrapper == "BytesWrapper":
        return Wrapped(wrapper, bytes(raw))
    return Wrapped(wrapper, raw)


def _v1_value(raw: Any, column: pq.ColumnSchema, where: str) -> Wrapped:
    """Hudi 1.0: the Java value parquet-mr gives, converted for decimals, dates and UTF-8."""
    logical = column.logical_type.type
    if logical == "DECIMAL":
        return v1_decimal(_unscaled(raw), column.scale, where)
    if logical == "DATE":
        return Wrapped("DateWrapper", raw)
    if logical == "STRING":
        return Wrapped("StringWrapper", bytes(raw).decode("utf-8", errors="replace"))
    wrapper = _V1_WRAPPERS.get(column.physical_type)
    if wrapper is None:
        raise _unsupported(column, where)
    return Wrapped(wrapper, bytes(raw) if wrapper == "BytesWrapper" else raw)


def _unscaled(raw: Any) -> int:
    return raw if isinstance(raw, int) else int.from_bytes(raw, "big", signed=True)
