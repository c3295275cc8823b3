"""Avro data blocks: records written and read back, content layout, decode errors."""

from __future__ import annotations

import datetime
import decimal
import json
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat import (
    BlockType,
    HeaderKey,
    avro_data_block,
    block_records,
    decode_avro_content,
    encode_avro_content,
    encode_block,
    read_log_blocks,
)
from tests.unit.hudi.logformat.samples import TRIP_SCHEMA, trip

RICH_SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "rich",
        "namespace": "hoodie.t",
        "fields": [
            {"name": "_hoodie_record_key", "type": ["null", "string"], "default": None},
            {"name": "i", "type": ["null", "int"], "default": None},
            {"name": "l", "type": "long"},
            {"name": "d", "type": ["null", "double"], "default": None},
            {"name": "b", "type": ["null", "bytes"], "default": None},
            {"name": "flag", "type": "boolean"},
            {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
            {
                "name": "at",
                "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}],
                "default": None,
            },
            {
                "name": "amount",
                "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}],
                "default": None,
            },
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "attrs", "type": {"type": "map", "values": "long"}},
        ],
    }
)

_UTC = datetime.timezone.utc
rich_records = st.fixed_dictionaries(
    {
        "_hoodie_record_key": st.text(max_size=20),
        "i": st.none() | st.integers(-(2**31), 2**31 - 1),
        "l": st.integers(-(2**63), 2**63 - 1),
        "d": st.none() | st.floats(allow_nan=False),
        "b": st.none() | st.binary(max_size=20),
        "flag": st.booleans(),
        "day": st.none() | st.dates(datetime.date(1900, 1, 1), datetime.date(2200, 1, 1)),
        "at": st.none()
        | st.datetimes(datetime.datetime(1971, 1, 1), datetime.datetime(2200, 1, 1)).map(
            lambda value: value.replace(tzinfo=_UTC)
        ),
        "amount": st.none()
        | st.decimals(min_value=-(10**7), max_value=10**7, places=2, allow_nan=False, allow_infinity=False),
        "tags": st.lists(st.text(max_size=5), max_size=3),
        "attrs": st.dictionaries(st.text(max_size=5), st.integers(-100, 100), max_size=3),
    }
)


@settings(max_examples=60, deadline=None)
@given(st.lists(rich_records, max_size=8), st.text(alphabet="0123456789", min_size=17, max_size=17))
def test_written_avro_data_block_reads_back_identically(records: list[dict[str, Any]], instant: str) -> None:
    raw = avro_data_block(records, RICH_SCHEMA, instant)
    (block,) = read_log_blocks(raw, "f")
    assert block.block_type is BlockType.AVRO_DATA
    assert block.header.entries == ((HeaderKey.INSTANT_TIME, instant), (HeaderKey.SCHEMA, RICH_SCHEMA))
    assert block.footer.entries == ()
    decoded = block_records(block)
    assert decoded == records
    assert encode_avro_content(decoded, RICH_SCHEMA) == block.content
    assert encode_block(block) == raw


def test_content_is_version_count_then_length_prefixed_datums() -> None:
    content = encode_avro_content([trip("a", 1), trip("bb", 2)], TRIP_SCHEMA)
    version, count, first_length = struct.unpack_from(">iii", content, 0)
    assert (version, count) == (3, 2)
    second_length = struct.unpack_from(">i", content, 12 + first_length)[0]
    assert len(content) == 8 + 4 + first_length + 4 + second_length


def test_decimal_values_keep_their_scale() -> None:
    record = {
        "_hoodie_record_key": "k",
        "l": 1,
        "flag": True,
        "amount": decimal.Decimal("12.30"),
        "tags": [],
        "attrs": {},
    }
    (decoded,) = decode_avro_content(encode_avro_content([record], RICH_SCHEMA), RICH_SCHEMA, "f")
    assert decoded["amount"] == decimal.Decimal("12.30")


def test_records_that_do_not_fill_their_length_are_corrupt() -> None:
    content = bytearray(encode_avro_content([trip("a", 1)], TRIP_SCHEMA))
    struct.pack_into(">i", content, 8, struct.unpack_from(">i", content, 8)[0] + 1)
    with pytest.raises(CorruptFileError, match=r"does not fill its length prefix|ends before"):
        decode_avro_content(bytes(content) + b"\x00", TRIP_SCHEMA, "f at offset 0")


def test_trailing_bytes_after_the_records_are_corrupt() -> None:
    content = encode_avro_content([trip("a", 1)], TRIP_SCHEMA) + b"\x00"
    with pytest.raises(CorruptFileError, match="1 bytes after the last of 1 records"):
        decode_avro_content(content, TRIP_SCHEMA, "f")


def test_wrong_schema_is_reported_as_corrupt() -> None:
    content = encode_avro_content([trip("a", 1)], TRIP_SCHEMA)
    other = json.dumps({"type": "record", "name": "x", "fields": [{"name": "n", "type": "long"}]})
    with pytest.raises(CorruptFileError, match="f:"):
        decode_avro_content(content, other, "f")


def test_unknown_content_version_is_unsupported() -> None:
    content = struct.pack(">ii", 9, 0)
    with pytest.raises(UnsupportedTableError, match="content version 9"):
        decode_avro_content(content, TRIP_SCHEMA, "f")


def test_data_block_without_schema_header_is_corrupt() -> None:
    from maintainer.hudi.logformat.binary import frame_block
    from maintainer.hudi.logformat.model import BlockMetadata

    raw = frame_block(
        BlockType.AVRO_DATA, BlockMetadata(((HeaderKey.INSTANT_TIME, "1"),)), struct.pack(">ii", 3, 0)
    )
    (block,) = read_log_blocks(raw, "f")
    with pytest.raises(CorruptFileError, match="no SCHEMA header"):
        block_records(block)


@pytest.mark.parametrize(
    ("value", "java_hex"),
    [
        ("12.30", "04ce"),
        ("-1.28", "80"),
        ("-327.68", "8000"),
        ("1.28", "0080"),
        ("-0.01", "ff"),
        ("0.00", "00"),
    ],
)
def test_bytes_decimals_are_written_in_javas_minimal_twos_complement(value: str, java_hex: str) -> None:
    record = {
        "_hoodie_record_key": "k",
        "l": 1,
        "flag": True,
        "amount": decimal.Decimal(value),
        "tags": [],
        "attrs": {},
    }
    content = encode_avro_content([record], RICH_SCHEMA)
    raw = bytes.fromhex(java_hex)
    # amount is field 9: ... union branch 1, then zig-zag length and the unscaled bytes
    assert bytes([2, len(raw) * 2]) + raw in content
    (decoded,) = decode_avro_content(content, RICH_SCHEMA, "f")
    assert decoded["amount"] == decimal.Decimal(value)


def test_decimals_with_too_many_fraction_digits_are_refused() -> None:
    from maintainer.hudi.logformat.decimals import java_decimal_bytes

    with pytest.raises(ValueError, match="more than 2 fraction digits"):
        java_decimal_bytes(decimal.Decimal("1.234"), 2)
