"""The polars fast path: length prefixes read as a fixed field, then checked to chain."""

from __future__ import annotations

import dataclasses
import struct

import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi.logformat import arrow_schema, avro_data_block, block_table, encode_avro_content
from maintainer.hudi.logformat.fast_table import LENGTH_FIELD, polars_available, table_via_polars
from maintainer.hudi.logformat.reader import read_log_blocks
from tests.unit.hudi.logformat.samples import TRIP_SCHEMA, trip

pytestmark = pytest.mark.skipif(not polars_available(), reason="needs polars")
SCHEMA = arrow_schema(TRIP_SCHEMA)


def _records(count: int) -> list[dict[str, object]]:
    # keys of varying length so that the datums differ in size
    return [trip("k" * (1 + i % 7) + str(i), i, fare=i / 3) for i in range(count)]


def _datums(content: bytes) -> list[bytes]:
    count, pos, datums = struct.unpack_from(">i", content, 4)[0], 8, []
    for _ in range(count):
        (length,) = struct.unpack_from(">i", content, pos)
        datums.append(content[pos + 4 : pos + 4 + length])
        pos += 4 + length
    return datums


def _content(datums: list[bytes], lengths: list[int]) -> bytes:
    body = b"".join(struct.pack(">i", n) + d for n, d in zip(lengths, datums, strict=True))
    return struct.pack(">ii", 3, len(datums)) + body


def test_records_of_varying_size_decode_as_fastavro_does() -> None:
    records = _records(300)
    (block,) = read_log_blocks(avro_data_block(records, TRIP_SCHEMA, "1"), "f")
    fast = table_via_polars(block.content, TRIP_SCHEMA, SCHEMA)
    assert fast is not None and LENGTH_FIELD not in fast.column_names
    assert fast.equals(block_table(block, use_polars=False))
    assert fast.to_pylist() == records


def test_prefixes_that_do_not_chain_are_declined_though_their_sum_fits() -> None:
    datums = _datums(encode_avro_content(_records(3), TRIP_SCHEMA))
    sizes = [len(d) for d in datums]
    assert table_via_polars(_content(datums, sizes), TRIP_SCHEMA, SCHEMA) is not None
    shifted = [sizes[0] + 1, sizes[1] - 1, sizes[2]]  # same total: only the chain check sees it
    assert table_via_polars(_content(datums, shifted), TRIP_SCHEMA, SCHEMA) is None


def test_negative_count_or_length_is_declined_and_the_slow_path_reports_it() -> None:
    content = encode_avro_content(_records(2), TRIP_SCHEMA)
    negative_count = content[:4] + struct.pack(">i", -1) + content[8:]
    assert table_via_polars(negative_count, TRIP_SCHEMA, SCHEMA) is None
    datums = _datums(content)
    negative_length = _content(datums, [-len(datums[0]), len(datums[1])])
    assert table_via_polars(negative_length, TRIP_SCHEMA, SCHEMA) is None
    (block,) = read_log_blocks(avro_data_block([], TRIP_SCHEMA, "1"), "f")
    with pytest.raises(CorruptFileError, match=r"malformed|do not decode"):
        block_table(dataclasses.replace(block, content=negative_length))
