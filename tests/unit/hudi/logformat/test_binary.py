"""Block framing and header maps: sizes, field order, reverse pointer."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.hudi.logformat.binary import Cursor, FormatError, frame_block, metadata_bytes, read_metadata
from maintainer.hudi.logformat.model import MAGIC, BlockMetadata, BlockType, HeaderKey

header_entries = st.lists(
    st.tuples(st.sampled_from(list(HeaderKey)), st.text(max_size=40)),
    max_size=9,
    unique_by=lambda entry: entry[0],
)


@given(header_entries)
def test_header_map_round_trips_in_written_order(entries: list[tuple[HeaderKey, str]]) -> None:
    metadata = BlockMetadata(tuple(entries))
    raw = metadata_bytes(metadata)
    cursor = Cursor(raw)
    assert read_metadata(cursor) == metadata
    assert cursor.remaining == 0


def test_header_map_layout_is_count_then_ordinal_length_utf8() -> None:
    raw = metadata_bytes(BlockMetadata(((HeaderKey.SCHEMA, "é"), (HeaderKey.INSTANT_TIME, "1"))))
    assert (
        raw
        == struct.pack(">i", 2) + struct.pack(">ii", 2, 2) + "é".encode() + struct.pack(">ii", 0, 1) + b"1"
    )


def test_unknown_header_ordinal_is_a_format_error() -> None:
    raw = struct.pack(">iii", 1, 42, 0)
    with pytest.raises(FormatError, match="unknown header key ordinal 42"):
        read_metadata(Cursor(raw))


def test_rollback_command_frame_matches_the_real_105_byte_block() -> None:
    header = BlockMetadata(
        (
            (HeaderKey.INSTANT_TIME, "20250126040936578"),
            (HeaderKey.COMMAND_BLOCK_TYPE, "0"),
            (HeaderKey.TARGET_INSTANT_TIME, "20250126040826878"),
        )
    )
    raw = frame_block(BlockType.COMMAND, header, b"")
    assert len(raw) == 105
    assert raw[:6] == MAGIC
    size, version, block_type = struct.unpack_from(">qii", raw, 6)
    assert (size, version, block_type) == (91, 1, 0)
    assert struct.unpack_from(">q", raw, len(raw) - 8)[0] == 97


@given(st.binary(max_size=300), header_entries, header_entries)
def test_frame_sizes_are_consistent(
    content: bytes, header: list[tuple[HeaderKey, str]], footer: list[tuple[HeaderKey, str]]
) -> None:
    raw = frame_block(
        BlockType.AVRO_DATA, BlockMetadata(tuple(header)), content, BlockMetadata(tuple(footer))
    )
    size = struct.unpack_from(">q", raw, 6)[0]
    assert len(raw) == 6 + 8 + size
    assert struct.unpack_from(">q", raw, len(raw) - 8)[0] == len(raw) - 8


def test_cursor_refuses_to_read_past_its_end() -> None:
    cursor = Cursor(b"\x00\x00\x00\x01\x00", 0, 5)
    assert cursor.read_int() == 1
    with pytest.raises(FormatError, match="needs 4 bytes"):
        cursor.read_int()


def test_block_metadata_lookup() -> None:
    metadata = BlockMetadata.of({HeaderKey.SCHEMA: "{}", HeaderKey.INSTANT_TIME: "1"})
    assert metadata[HeaderKey.INSTANT_TIME] == "1"
    assert metadata.get(HeaderKey.TARGET_INSTANT_TIME) is None
    assert HeaderKey.SCHEMA in metadata
    assert list(metadata) == [HeaderKey.SCHEMA, HeaderKey.INSTANT_TIME]
    assert len(metadata) == 2
    with pytest.raises(KeyError):
        metadata[HeaderKey.IS_PARTIAL]
