"""The building blocks: varints, protobuf, gzip framing, Java HashMap order, HBase index midpoints."""

from __future__ import annotations

import itertools
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError
from maintainer.hudi.hfile.binary import (
    decode_hadoop_vint,
    decode_varint,
    encode_hadoop_vint,
    encode_varint,
    to_signed64,
)
from maintainer.hudi.hfile.cells import MAXIMUM_TYPE, kv_key
from maintainer.hudi.hfile.gz import GZIP_HEADER, gzip_compress, gzip_decompress
from maintainer.hudi.hfile.javamap import hashmap_order, java_string_hash
from maintainer.hudi.hfile.model import HFileCell, HFileStyle
from maintainer.hudi.hfile.protobuf import decode_message, encode_message
from maintainer.hudi.hfile.styles import index_key

# Iteration orders printed by OpenJDK 17's HashMap after putting the keys in this order.
JAVA_ORDERS = [
    (
        [
            *("", "sMpSscDlkr", "GiHWGK._Zb_R", "😀qBkdfQ.y€G", "nwla", "yfErG", "Lczbtt", "ovm"),
            *("yWuUFjsUN", "jc_.TGOBUS", "mpGXafq_fj", "aqxvJup", "ofLHéWjQTY", "UOizwd.iaeO"),
        ],
        [0, 6, 3, 13, 2, 7, 12, 4, 10, 1, 5, 11, 8, 9],
    ),
    (
        ["AaAaAa", "BBAaAa", "AaBBBB", "BBBBAa", "AaBBAa", "AaAaBB", "BBBBBB", "BBAaBB"],
        [0, 1, 2, 3, 4, 5, 6, 7],
    ),
]


@given(st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1))
def test_varints_round_trip_as_java_longs(value: int) -> None:
    decoded, end = decode_varint(encode_varint(value), 0, "test")
    assert to_signed64(decoded) == value
    assert end == len(encode_varint(value))


def test_varint_of_minus_one_takes_ten_bytes() -> None:
    assert encode_varint(-1) == b"\xff" * 9 + b"\x01"


@given(st.integers(min_value=-112, max_value=(1 << 63) - 1))
def test_hadoop_vints_round_trip(value: int) -> None:
    encoded = encode_hadoop_vint(value)
    assert decode_hadoop_vint(encoded, 0, "test") == (value, len(encoded))


def test_hadoop_vint_differs_from_protobuf_from_128_on() -> None:
    assert encode_hadoop_vint(127) == encode_varint(127) == b"\x7f"
    assert encode_hadoop_vint(200) == b"\x8f\xc8"
    assert encode_varint(200) == b"\xc8\x01"
    assert decode_hadoop_vint(b"\x87\xff", 0, "test") == (-256, 2)


def test_protobuf_messages_round_trip_and_reject_other_wire_types() -> None:
    fields: list[tuple[int, int | bytes]] = [(1, 1166), (4, b""), (11, b"comparator"), (9, (1 << 64) - 1)]
    assert decode_message(encode_message(fields), "test", "message") == fields
    with pytest.raises(CorruptFileError, match="wire type 5"):
        decode_message(b"\x0d\x00\x00\x00\x00", "test", "message")


def test_a_truncated_varint_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="runs past the end"):
        decode_varint(b"\x80\x80", 0, "somewhere")


@given(st.binary(max_size=5000))
def test_gzip_framing_is_javas_and_round_trips(raw: bytes) -> None:
    packed = gzip_compress(raw)
    assert packed.startswith(GZIP_HEADER)
    assert zlib.decompress(packed, 31) == raw
    assert gzip_decompress(packed, len(raw), "test") == raw


def test_gzip_with_the_wrong_size_or_trailing_bytes_is_corrupt() -> None:
    packed = gzip_compress(b"abc")
    with pytest.raises(CorruptFileError, match="decompresses to 3 bytes"):
        gzip_decompress(packed, 4, "test")
    with pytest.raises(CorruptFileError, match="follow its gzip data"):
        gzip_decompress(packed + b"\x00", 3, "test")
    with pytest.raises(CorruptFileError, match="ends before"):
        gzip_decompress(packed[:-9], 3, "test")


def test_java_string_hash_codes() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB")
    assert java_string_hash("😀") == (0xD83D * 31 + 0xDE00) & 0xFFFFFFFF


@pytest.mark.parametrize(("keys", "order"), JAVA_ORDERS)
def test_hashmap_order_matches_java(keys: list[str], order: list[int]) -> None:
    assert hashmap_order(keys) == order


def test_a_hashmap_bucket_that_would_become_a_tree_is_refused() -> None:
    colliding = ["".join(parts) for parts in itertools.product(["Aa", "BB"], repeat=4)]
    with pytest.raises(ValueError, match="tree"):
        hashmap_order(colliding)


@pytest.mark.parametrize(
    ("left", "right", "middle"),
    [
        (b"abc", b"abd", b"abd"),  # adjacent bytes: the right row's prefix
        (b"abc", b"abz", b"abd"),  # a gap: the left row's prefix, last byte plus one
        (b"ab", b"abzz", b"abz"),  # left is a prefix of right
        (b"a\x90", b"a\x92", b"a\x91"),  # Java's signed bytes still increment
        (b"a\x90", b"a\x91", b"a\x91"),
        (b"\x7f", b"\x81", b"\x80"),
    ],
)
def test_hbase_index_keys_are_first_on_row_midpoints(left: bytes, right: bytes, middle: bytes) -> None:
    key = index_key(HFileStyle.HBASE, HFileCell(left, b""), HFileCell(right, b""))
    assert key == kv_key(middle, MAXIMUM_TYPE)
    assert left < middle <= right


def test_first_index_keys() -> None:
    first = HFileCell(b"key", b"value")
    assert index_key(HFileStyle.HBASE, None, first) == kv_key(b"key")
    assert index_key(HFileStyle.HUDI, None, first) == b"\x00\x03key"
    assert index_key(HFileStyle.HUDI, HFileCell(b"a", b""), first) == b"\x00\x03key"
