"""Avro schemas as Arrow schemas, and data blocks as Tables."""

from __future__ import annotations

import datetime
import decimal
import json

import pyarrow as pa
import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.logformat import (
    arrow_schema,
    avro_data_block,
    block_table,
    encode_avro_content,
    read_log_blocks,
)
from maintainer.hudi.logformat.fast_table import polars_available, table_via_polars
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


SIMPLE_SCHEMA = _schema(
    {"name": "_hoodie_record_key", "type": ["null", "string"]},
    {"name": "n", "type": ["null", "long"]},
    {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}]},
    {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
    {
        "name": "amount",
        "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}],
    },
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {
        "name": "inner",
        "type": [
            "null",
            {"type": "record", "name": "In", "fields": [{"name": "x", "type": ["null", "int"]}]},
        ],
    },
)


def _simple_records() -> list[dict[str, object]]:
    full = {
        "_hoodie_record_key": "a",
        "n": 1,
        "day": datetime.date(2024, 2, 29),
        "at": datetime.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=datetime.timezone.utc),
        "amount": decimal.Decimal("12.34"),
        "e": "B",
        "tags": ["x", "y"],
        "inner": {"x": 3},
    }
    empty = dict.fromkeys(full) | {"_hoodie_record_key": "b", "e": "A", "tags": []}
    return [full, empty]


def test_polars_fast_path_gives_the_same_table_as_fastavro() -> None:
    (block,) = read_log_blocks(avro_data_block(_simple_records(), SIMPLE_SCHEMA, "1"), "f")
    slow = block_table(block, use_polars=False)
    assert slow.to_pylist() == _simple_records()
    fast = table_via_polars(block.content, SIMPLE_SCHEMA, arrow_schema(SIMPLE_SCHEMA))
    if polars_available():
        assert fast is not None and fast.equals(slow)
        assert block_table(block).equals(slow)
    else:
        assert fast is None


def test_fast_path_declines_null_structs_with_required_children() -> None:
    schema = _schema(
        {
            "name": "s",
            "type": ["null", {"type": "record", "name": "S", "fields": [{"name": "x", "type": "int"}]}],
        }
    )
    (block,) = read_log_blocks(avro_data_block([{"s": {"x": 1}}, {"s": None}], schema, "1"), "f")
    assert table_via_polars(block.content, schema, arrow_schema(schema)) is None or not polars_available()
    assert block_table(block).to_pylist() == [{"s": {"x": 1}}, {"s": None}]


def test_fast_path_declines_maps_and_bad_lengths_and_handles_empty_blocks() -> None:
    map_schema = _schema({"name": "m", "type": {"type": "map", "values": "long"}})
    (block,) = read_log_blocks(avro_data_block([{"m": {"a": 1}}], map_schema, "1"), "f")
    assert table_via_polars(block.content, map_schema, arrow_schema(map_schema)) is None
    assert block_table(block).to_pylist() == [{"m": [("a", 1)]}]
    content = encode_avro_content([trip("a", 1)], TRIP_SCHEMA)
    assert table_via_polars(content + b"\x00", TRIP_SCHEMA, arrow_schema(TRIP_SCHEMA)) is None
    assert table_via_polars(content[:-1], TRIP_SCHEMA, arrow_schema(TRIP_SCHEMA)) is None
    empty = encode_avro_content([], TRIP_SCHEMA)
    if polars_available():
        assert (
            table_via_polars(empty, TRIP_SCHEMA, arrow_schema(TRIP_SCHEMA))
            == arrow_schema(TRIP_SCHEMA).empty_table()
        )
