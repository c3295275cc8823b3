"""The column-wise Avro encoder gives exactly the per-record encoder's bytes, or declines."""

from __future__ import annotations

import json

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.logformat.avro_block import encode_avro_content
from maintainer.hudi.logformat.columnar_encode import encode_table_content

FIELDS = [("s", "string", pa.string()), ("l", "long", pa.int64()), ("i", "int", pa.int32()),
          ("d", "double", pa.float64()), ("f", "float", pa.float32()),
          ("b", "boolean", pa.bool_())]  # fmt: skip
SCHEMA = json.dumps({"type": "record", "name": "r", "fields": [
    {"name": n, "type": ["null", t], "default": None} for n, t, _ in FIELDS]})  # fmt: skip
ARROW = pa.schema([(n, a) for n, _, a in FIELDS])

rows = st.lists(
    st.fixed_dictionaries({
        "s": st.none() | st.text(max_size=200),
        "l": st.none() | st.integers(-(2**63), 2**63 - 1),
        "i": st.none() | st.integers(-(2**31), 2**31 - 1),
        "d": st.none() | st.floats(allow_nan=False),
        "f": st.none() | st.floats(width=32, allow_nan=False),
        "b": st.none() | st.booleans(),
    }),
    max_size=40,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(rows)
def test_same_bytes_as_the_record_encoder(records: list[dict[str, object]]) -> None:
    table = pa.Table.from_pylist(records, schema=ARROW)
    assert encode_table_content(table, SCHEMA, 3) == encode_avro_content(records, SCHEMA, 3)


def test_non_null_first_unions_and_plain_fields() -> None:
    schema = json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "a", "type": ["long", "null"]}, {"name": "b", "type": "string"}]})  # fmt: skip
    records: list[dict[str, object]] = [{"a": 5, "b": "x"}, {"a": None, "b": ""}]
    table = pa.Table.from_pylist(records, schema=pa.schema([("a", pa.int64()), ("b", pa.string())]))
    assert encode_table_content(table, schema, 3) == encode_avro_content(records, schema, 3)


def test_declines_nested_or_logical_types() -> None:
    nested = json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "m", "type": {"type": "map", "values": "string"}}]})  # fmt: skip
    decimal = json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 5,
                               "scale": 2}}]})  # fmt: skip
    assert (
        encode_table_content(
            pa.table({"m": pa.array([[("k", "v")]], pa.map_(pa.string(), pa.string()))}), nested, 3
        )
        is None
    )
    assert encode_table_content(pa.table({"d": pa.array([b"\x01"])}), decimal, 3) is None
