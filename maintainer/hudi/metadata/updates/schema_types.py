"""What Hudi derives from the table's Avro schema for the column stats index: the value type of
each column (``ValueType.fromSchema``, used for partition stats), whether a column can be indexed
at all (``isColumnTypeSupported`` for Avro records), and the columns indexed by default
(``getColumnsToIndex``: the three meta columns, then the first 32 supported top-level fields)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.updates.values import ValueMeta, ValueType

META_COLUMNS_ALWAYS_INDEXED = ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")
"""``META_COLS_TO_ALWAYS_INDEX``, in the order of Hudi's ``TreeMap``."""
HOODIE_META_COLUMNS = frozenset(
    {"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
     "_hoodie_file_name", "_hoodie_operation"}
)  # fmt: skip
MAX_DEFAULT_COLUMNS = 32
"""``hoodie.metadata.index.column.stats.max.columns.to.index``."""
_DECIMAL_MAX_PRECISION = 30
_DECIMAL_MAX_SCALE = 15
_SIMPLE = {
    "null": ValueType.NULL,
    "boolean": ValueType.BOOLEAN,
    "int": ValueType.INT,
    "long": ValueType.LONG,
    "float": ValueType.FLOAT,
    "double": ValueType.DOUBLE,
    "bytes": ValueType.BYTES,
    "string": ValueType.STRING,
    "fixed": ValueType.FIXED,
}
_LOGICAL = {
    "date": ValueType.DATE,
    "uuid": ValueType.UUID,
    "time-millis": ValueType.TIME_MILLIS,
    "time-micros": ValueType.TIME_MICROS,
    "timestamp-millis": ValueType.TIMESTAMP_MILLIS,
    "timestamp-micros": ValueType.TIMESTAMP_MICROS,
    "timestamp-nanos": ValueType.TIMESTAMP_NANOS,
    "local-timestamp-millis": ValueType.LOCAL_TIMESTAMP_MILLIS,
    "local-timestamp-micros": ValueType.LOCAL_TIMESTAMP_MICROS,
    "local-timestamp-nanos": ValueType.LOCAL_TIMESTAMP_NANOS,
}


def schema_fields(schema_json: str) -> dict[str, Any]:
    """Top-level field name -> Avro type of a record schema."""
    schema = json.loads(schema_json)
    return {field["name"]: field["type"] for field in schema.get("fields", [])}


def non_null(avro_type: Any) -> Any:
    """The type of a nullable union (``resolveNullableSchema``)."""
    if isinstance(avro_type, list):
        branches = [branch for branch in avro_type if branch != "null"]
        return branches[0] if len(branches) == 1 else avro_type
    return avro_type


def value_meta(avro_type: Any, column: str) -> ValueMeta:
    """``ValueType.fromSchema`` of a column's Avro type."""
    resolved = non_null(avro_type)
    if isinstance(resolved, str):
        found = _SIMPLE.get(resolved)
        if found is not None:
            return ValueMeta(found)
    elif isinstance(resolved, Mapping):
        logical = resolved.get("logicalType")
        if logical == "decimal":
            return ValueMeta(ValueType.DECIMAL, int(resolved["precision"]), int(resolved.get("scale", 0)))
        if logical in _LOGICAL:
            return ValueMeta(_LOGICAL[logical])
        return value_meta(resolved.get("type"), column)
    raise UnsupportedTableError(
        f"column {column!r} has an Avro type the column stats index does not type: {resolved!r}"
    )


def column_metas(schema_json: str, columns: Sequence[str]) -> dict[str, ValueMeta]:
    """The V2 value type of each indexed column (meta columns are strings); a column the schema
    lacks is left out."""
    fields = schema_fields(schema_json)
    metas: dict[str, ValueMeta] = {}
    for column in columns:
        if column in HOODIE_META_COLUMNS:
            metas[column] = ValueMeta(ValueType.STRING)
        elif column in fields:
            metas[column] = value_meta(fields[column], column)
    return metas


def is_supported(avro_type: Any) -> bool:
    """``isColumnTypeSupported`` for Avro records: no record, array, map or enum, and decimals
    that fit ``decimal(30, 15)``."""
    resolved = non_null(avro_type)
    if isinstance(resolved, list):
        return True  # a union of several types: Hudi checks only the union itself
    kind = resolved.get("type") if isinstance(resolved, Mapping) else resolved
    if isinstance(resolved, Mapping) and resolved.get("logicalType") == "decimal":
        precision, scale = int(resolved["precision"]), int(resolved.get("scale", 0))
        if precision + (_DECIMAL_MAX_SCALE - scale) > _DECIMAL_MAX_PRECISION or scale > _DECIMAL_MAX_SCALE:
            return False
    return kind not in ("record", "array", "map", "enum")


def default_columns(schema_json: str, populate_meta_fields: bool = True) -> tuple[str, ...]:
    """The columns Hudi indexes when no list is configured."""
    chosen = [
        name
        for name, avro_type in schema_fields(schema_json).items()
        if name not in HOODIE_META_COLUMNS and is_supported(avro_type)
    ][:MAX_DEFAULT_COLUMNS]
    prefix = META_COLUMNS_ALWAYS_INDEXED if populate_meta_fields else ()
    return (*prefix, *chosen)
