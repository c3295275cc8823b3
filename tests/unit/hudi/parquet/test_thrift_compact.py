"""Thrift's compact protocol: what is read writes back to the same bytes; truncation and garbage
are told apart."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.parquet import thrift_compact as tc

_SCALARS: dict[int, st.SearchStrategy[tc.Value]] = {
    tc.BYTE: st.integers(-128, 127),
    tc.I16: st.integers(-(2**15), 2**15 - 1),
    tc.I32: st.integers(-(2**31), 2**31 - 1),
    tc.I64: st.integers(-(2**63), 2**63 - 1),
    tc.DOUBLE: st.floats(allow_nan=False),
    tc.BINARY: st.binary(max_size=40),
    tc.BOOL_TRUE: st.booleans(),
}


def _values(wire_type: int, depth: int) -> st.SearchStrategy[tc.Value]:
    if wire_type in _SCALARS:
        return _SCALARS[wire_type]
    if wire_type == tc.STRUCT:
        return structs(depth + 1)
    if wire_type == tc.LIST:
        return _element_types(depth).flatmap(
            lambda t: st.lists(_values(t, depth + 1), max_size=20).map(lambda items: tc.TList(t, items))
        )
    return st.tuples(_element_types(depth), _element_types(depth)).flatmap(
        lambda kv: st.lists(
            st.tuples(_values(kv[0], depth + 1), _values(kv[1], depth + 1)), min_size=1, max_size=4
        ).map(lambda items: tc.TMap(kv[0], kv[1], items))
    )


def _element_types(depth: int) -> st.SearchStrategy[int]:
    nested = [tc.STRUCT, tc.LIST, tc.MAP] if depth < 2 else []
    return st.sampled_from([*_SCALARS, *nested])


@st.composite
def structs(draw: st.DrawFn, depth: int = 0) -> tc.Struct:
    ids = draw(st.lists(st.integers(1, 40), unique=True, max_size=6 if depth < 2 else 3))
    fields = []
    for field_id in sorted(ids):
        wire_type = draw(_element_types(depth))
        value = draw(_values(wire_type, depth))
        if wire_type == tc.BOOL_TRUE:  # a boolean field's value is its wire type
            wire_type = tc.BOOL_TRUE if value else tc.BOOL_FALSE
        fields.append((field_id, wire_type, value))
    return tc.Struct(fields)


@settings(max_examples=200, deadline=None)
@given(structs())
def test_a_struct_reads_back_as_written(value: tc.Struct) -> None:
    data = tc.write_struct(value)
    read, end = tc.read_struct(data)
    assert end == len(data)
    assert tc.write_struct(read) == data
    assert read == value


@settings(max_examples=50, deadline=None)
@given(structs())
def test_every_prefix_of_a_struct_is_truncated(value: tc.Struct) -> None:
    data = tc.write_struct(value)
    for end in range(len(data)):
        with pytest.raises(tc.Truncated):
            tc.read_struct(data[:end])


def _footer(table: pa.Table, **options: object) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    data = buffer.getvalue()
    length = int.from_bytes(data[-8:-4], "little")
    return data[-8 - length : -8]


@pytest.mark.parametrize(
    "options",
    [{}, {"compression": "gzip", "row_group_size": 3}, {"write_page_index": True, "version": "1.0"}],
)
def test_pyarrow_footers_write_back_to_the_same_bytes(options: dict[str, object]) -> None:
    table = pa.table(
        {
            "id": pa.array(range(10), pa.int64()),
            "name": pa.array([f"n{i}" if i % 3 else None for i in range(10)]),
            "tags": pa.array([[f"t{i}", "x"] for i in range(10)]),
            "point": pa.array([{"x": float(i), "y": -1.5} for i in range(10)]),
            "flag": pa.array([i % 2 == 0 for i in range(10)]),
        }
    )
    footer = _footer(table, **options)
    metadata, end = tc.read_struct(footer)
    assert end == len(footer)
    assert tc.write_struct(metadata) == footer
    assert metadata.get(3) == 10  # num_rows


def test_fields_are_set_in_place_or_in_order() -> None:
    value = tc.Struct([(1, tc.I32, 5), (4, tc.I64, 7)])
    value.set(4, tc.I64, 8)
    value.set(2, tc.BINARY, b"x")
    value.set(9, tc.I32, 1)
    assert [f[0] for f in value.fields] == [1, 2, 4, 9]
    assert value.get(4) == 8
    value.remove(2)
    assert value.get(2) is None
    assert tc.read_struct(tc.write_struct(value))[0] == value


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (bytes([0x1D, 0x00]), "unknown wire type 13"),
        (
            bytes([0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            "longer than 10 bytes",
        ),
        (bytes([0x1C] * 100), "nested deeper"),
    ],
)
def test_garbage_is_not_a_struct(data: bytes, message: str) -> None:
    with pytest.raises(tc.ThriftError, match=message) as raised:
        tc.read_struct(data)
    assert not isinstance(raised.value, tc.Truncated)


def test_a_long_field_id_delta_is_read() -> None:
    # field 100 after field 1: the delta does not fit a nibble, so the id follows as a zigzag i16
    value = tc.Struct([(1, tc.I32, 1), (100, tc.BINARY, b"ab")])
    data = tc.write_struct(value)
    assert data[2] == tc.BINARY  # a type byte without a delta
    assert tc.read_struct(data)[0] == value
