"""Delete blocks (content version 3): ordering wrappers, layout, Kryo versions refused."""

from __future__ import annotations

import datetime
import decimal
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat import (
    BlockType,
    DeleteRecord,
    HeaderKey,
    OrderingType,
    OrderingValue,
    block_deletes,
    decode_delete_content,
    delete_block,
    encode_block,
    encode_delete_content,
    read_log_blocks,
)

orderings = st.one_of(
    st.none(),
    st.builds(OrderingValue, st.just(OrderingType.BOOLEAN), st.booleans()),
    st.builds(OrderingValue, st.just(OrderingType.INT), st.integers(-(2**31), 2**31 - 1)),
    st.builds(OrderingValue, st.just(OrderingType.LONG), st.integers(-(2**63), 2**63 - 1)),
    st.builds(OrderingValue, st.just(OrderingType.DOUBLE), st.floats(allow_nan=False)),
    st.builds(OrderingValue, st.just(OrderingType.STRING), st.text(max_size=10)),
    st.builds(OrderingValue, st.just(OrderingType.BYTES), st.binary(max_size=10)),
    st.builds(OrderingValue, st.just(OrderingType.DATE), st.integers(-(2**31), 2**31 - 1)),
    st.builds(OrderingValue, st.just(OrderingType.TIMESTAMP_MICROS), st.integers(-(2**63), 2**63 - 1)),
)
delete_records = st.builds(
    DeleteRecord, st.none() | st.text(max_size=20), st.none() | st.text(max_size=20), orderings
)


@settings(max_examples=80, deadline=None)
@given(st.lists(delete_records, max_size=6))
def test_delete_block_round_trips(records: list[DeleteRecord]) -> None:
    raw = delete_block(records, "20250101000000000", '{"type":"record","name":"r","fields":[]}')
    (block,) = read_log_blocks(raw, "f")
    assert block.block_type is BlockType.DELETE
    assert list(block.header) == [HeaderKey.INSTANT_TIME, HeaderKey.SCHEMA]
    assert block_deletes(block) == records
    assert encode_delete_content(records) == block.content
    assert encode_block(block) == raw


def test_content_layout_and_union_branch_of_the_default_ordering_value() -> None:
    content = encode_delete_content([DeleteRecord("k1", "p", OrderingValue(OrderingType.INT, 0))])
    version, length = struct.unpack_from(">ii", content)
    assert (version, length) == (3, len(content) - 8)
    # one array item: key branch 1 "k1", partition branch 1 "p", ordering branch 2 (IntWrapper) value 0, end
    assert content[8:] == b"\x02" + b"\x02\x04k1" + b"\x02\x02p" + b"\x04\x00" + b"\x00"


def test_float_and_decimal_and_array_wrappers() -> None:
    records = [
        DeleteRecord("a", None, OrderingValue(OrderingType.FLOAT, 1.5)),
        DeleteRecord("b", None, OrderingValue(OrderingType.DECIMAL, decimal.Decimal("1.000000000000000"))),
        DeleteRecord(
            "c", None, OrderingValue(OrderingType.ARRAY, (OrderingValue(OrderingType.LONG, 7), None))
        ),
    ]
    decoded = decode_delete_content(encode_delete_content(records), "f")
    assert decoded == records
    assert decoded[2].ordering_value == (7, None)


@pytest.mark.parametrize(
    ("value", "kind", "stored"),
    [
        (True, OrderingType.BOOLEAN, True),
        (5, OrderingType.INT, 5),
        (2**40, OrderingType.LONG, 2**40),
        (1.25, OrderingType.DOUBLE, 1.25),
        ("x", OrderingType.STRING, "x"),
        (b"x", OrderingType.BYTES, b"x"),
        (decimal.Decimal("2.5"), OrderingType.DECIMAL, decimal.Decimal("2.5")),
        (datetime.date(1970, 1, 11), OrderingType.DATE, 10),
        (
            datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc),
            OrderingType.TIMESTAMP_MICROS,
            10**6,
        ),
    ],
)
def test_inferred_wrappers(value: object, kind: OrderingType, stored: object) -> None:
    assert OrderingValue.infer(value) == OrderingValue(kind, stored)


def test_uninferable_ordering_value() -> None:
    with pytest.raises(TypeError, match="no Hudi ordering wrapper"):
        OrderingValue.infer(object())


@pytest.mark.parametrize("version", [1, 2])
def test_kryo_delete_blocks_are_refused_with_a_clear_message(version: int) -> None:
    with pytest.raises(UnsupportedTableError, match=f"content version {version} is Java-Kryo serialized"):
        decode_delete_content(struct.pack(">ii", version, 0), "f at offset 0")


def test_truncated_delete_content_is_corrupt() -> None:
    content = encode_delete_content([DeleteRecord("k", "p")])
    with pytest.raises(CorruptFileError):
        decode_delete_content(content[:-2], "f")
    with pytest.raises(CorruptFileError, match="trailing"):
        decode_delete_content(content + b"\x00", "f")


def test_decimal_ordering_values_use_javas_minimal_bytes() -> None:
    value = decimal.Decimal("-0.000000000000128")  # unscaled -128 at scale 15
    content = encode_delete_content([DeleteRecord(None, None, OrderingValue(OrderingType.DECIMAL, value))])
    # array of one: key null, partition null, branch 9 (DecimalWrapper), 1-byte value 0x80, end
    assert content[8:] == b"\x02" + b"\x00\x00" + b"\x12" + b"\x02\x80" + b"\x00"
    assert decode_delete_content(content, "f")[0].ordering_value == value
