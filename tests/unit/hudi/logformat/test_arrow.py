"""Avro schemas as Arrow schemas, and data blocks as Tables."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.logformat import arrow_schema, avro_data_block, block_table, read_log_blocks
from tests.unit.hudi.logformat.samples import TRIP_SCHEMA, trip


def _schema(*fields: dict[str, object]) -> str:
    return json.dumps({"type": "record", "name": "r", "namespace": "n", "fields": list(fields)})


def test_primitive_logical_and_nested_types() -> None:
    schema = arrow_schema(
        _schema(
            {"name": "k", "type": "string"},
            {"name": "n", "type": ["null", "long"]},
            {"name": "d", "type": {"type": "int", "logicalType": "date"}},
            {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
            {
                "name": "dec",
                "type": {
                    "type": "fixed",
                    "name": "f",
                    "size": 8,
                    "logicalType": "decimal",
                    "precision": 12,
                    "scale": 3,
                },
            },
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}},
            {"name": "e2", "type": "E"},
            {
                "name": "inner",
                "type": {"type": "record", "name": "In", "fields": [{"name": "x", "type": "int"}]},
            },
            {"name": "again", "type": ["null", "n.In"]},
            {"name": "xs", "type": {"type": "array", "items": "float"}},
            {"name": "m", "type": {"type": "map", "values": "bytes"}},
        )
    )
    assert schema.field("k").type == pa.string() and not schema.field("k").nullable
    assert schema.field("n").type == pa.int64() and schema.field("n").nullable
    assert schema.field("d").type == pa.date32()
    assert schema.field("ts").type == pa.timestamp("ms", tz="UTC")
    assert schema.field("lts").type == pa.timestamp("us")
    assert schema.field("dec").type == pa.decimal128(12, 3)
    assert schema.field("e2").type == pa.string()
    assert schema.field("again").type == pa.struct([pa.field("x", pa.int32(), nullable=False)])
    assert schema.field("xs").type == pa.list_(pa.float32())
    assert schema.field("m").type == pa.map_(pa.string(), pa.binary())


def test_multi_type_unions_have_no_column_type() -> None:
    with pytest.raises(UnsupportedTableError, match="union of 2 non-null types"):
        arrow_schema(_schema({"name": "u", "type": ["null", "int", "string"]}))


def test_avro_block_as_table() -> None:
    (block,) = read_log_blocks(avro_data_block([trip("a", 7), trip("b", 8)], TRIP_SCHEMA, "1"), "f")
    table = block_table(block)
    assert table.column("_hoodie_record_key").to_pylist() == ["a", "b"]
    assert table.column("ts").type == pa.int64()
    assert table.to_pylist() == [trip("a", 7), trip("b", 8)]
