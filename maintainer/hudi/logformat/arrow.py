"""Log data blocks as pyarrow Tables: Avro schema -> Arrow schema, records -> columns.

Mapping: null-unions become nullable fields; records -> struct, arrays -> list, maps -> map
with string keys, enums -> string, fixed -> fixed-size binary; logical types date, time-millis,
time-micros, timestamp-millis/-micros (UTC), local-timestamp-millis/-micros (no zone) and
decimal map to their Arrow types. A field is nullable when its type is a union with null, at
every level (as Spark derives it from Avro). Unions of several non-null types have no Arrow
column type and raise UnsupportedTableError.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import pyarrow as pa

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat.avro_block import AVRO_RECORD_BLOCK_TYPES, block_records
from maintainer.hudi.logformat.fast_table import table_via_polars
from maintainer.hudi.logformat.model import BlockType, LogBlock
from maintainer.hudi.logformat.parquet_block import block_parquet_table

_PRIMITIVES: dict[str, pa.DataType] = {
    "null": pa.null(),
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}
_LOGICAL: dict[str, pa.DataType] = {
    "date": pa.date32(),
    "time-millis": pa.time32("ms"),
    "time-micros": pa.time64("us"),
    "timestamp-millis": pa.timestamp("ms", tz="UTC"),
    "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"),
    "uuid": pa.string(),
}


@lru_cache(maxsize=128)
def arrow_schema(schema_json: str) -> pa.Schema:
    """The Arrow schema of records written with the Avro record schema ``schema_json``."""
    avro = json.loads(schema_json)
    converted = _Converter().arrow_type(avro)
    if not pa.types.is_struct(converted):
        raise UnsupportedTableError(f"log block SCHEMA is a {avro.get('type')!r}, not a record")
    return pa.schema(list(converted))


def records_to_table(records: Sequence[Mapping[str, Any]], schema_json: str) -> pa.Table:
    """A Table of decoded Avro records (as returned by ``block_records``)."""
    schema = arrow_schema(schema_json)
    columns = {name: [record.get(name) for record in records] for name in schema.names}
    return pa.table(columns, schema=schema)


def block_table(block: LogBlock, *, use_polars: bool = True) -> pa.Table:
    """The rows of an Avro, CDC or Parquet data block as a Table.

    Avro content goes through polars when it is installed (``fast_table``), else (or with
    ``use_polars=False``) through fastavro's records.
    """
    if block.block_type is BlockType.PARQUET_DATA:
        return block_parquet_table(block)
    if use_polars and block.block_type in AVRO_RECORD_BLOCK_TYPES and block.schema_json is not None:
        fast = table_via_polars(block.content, block.schema_json, arrow_schema(block.schema_json))
        if fast is not None:
            return fast
    records = block_records(block)
    assert block.schema_json is not None and block.block_type in AVRO_RECORD_BLOCK_TYPES
    try:
        return records_to_table(records, block.schema_json)
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise CorruptFileError(f"records do not fit their Arrow schema: {exc}", where=block.location) from exc


class _Converter:
    """Walks one Avro schema, remembering named types for later references."""

    def __init__(self) -> None:
        self.named: dict[str, pa.DataType] = {}
        self.namespace = ""

    def arrow_type(self, avro: Any) -> pa.DataType:
        if isinstance(avro, str):
            return self._by_name(avro)
        if isinstance(avro, list):
            return self._union(avro)
        logical = avro.get("logicalType")
        if logical == "decimal":
            return _decimal(int(avro["precision"]), int(avro.get("scale", 0)))
        if logical in _LOGICAL:
            return _LOGICAL[logical]
        kind = avro["type"]
        if kind == "record":
            return self._record(avro)
        if kind == "array":
            return pa.list_(self.arrow_type(avro["items"]))
        if kind == "map":
            return pa.map_(pa.string(), self.arrow_type(avro["values"]))
        if kind in ("enum", "fixed"):
            result = pa.string() if kind == "enum" else pa.binary(int(avro["size"]))
            self._remember(avro, result)
            return result
        return self.arrow_type(kind)

    def _by_name(self, name: str) -> pa.DataType:
        if name in _PRIMITIVES:
            return _PRIMITIVES[name]
        for candidate in (name, f"{self.namespace}.{name}"):
            if candidate in self.named:
                return self.named[candidate]
        raise UnsupportedTableError(f"log block SCHEMA refers to unknown type {name!r}")

    def _union(self, branches: list[Any]) -> pa.DataType:
        non_null = [branch for branch in branches if branch != "null"]
        if len(non_null) != 1:
            raise UnsupportedTableError(f"a union of {len(non_null)} non-null types has no Arrow column type")
        return self.arrow_type(non_null[0])

    def _record(self, avro: Mapping[str, Any]) -> pa.DataType:
        outer = self.namespace
        self.namespace = avro.get("namespace", outer)
        fields = [
            pa.field(f["name"], self.arrow_type(f["type"]), _nullable(f["type"])) for f in avro["fields"]
        ]
        self.namespace = outer
        result = pa.struct(fields)
        self._remember(avro, result)
        return result

    def _remember(self, avro: Mapping[str, Any], arrow: pa.DataType) -> None:
        name = str(avro["name"])
        namespace = avro.get("namespace", self.namespace)
        full = name if "." in name or not namespace else f"{namespace}.{name}"
        self.named[full] = arrow
        self.named[name] = arrow


def _nullable(avro: Any) -> bool:
    return avro == "null" or (isinstance(avro, list) and "null" in avro)


def _decimal(precision: int, scale: int) -> pa.DataType:
    return pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)
