"""Reading blocks: good files, and the corrupt-block rules (truncation, garbage, bad pointers)."""

from __future__ import annotations

import struct

import pytest

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat import (
    BlockType,
    block_deletes,
    block_records,
    block_table,
    read_log_blocks,
    read_log_file,
)
from maintainer.hudi.logformat.binary import frame_block
from maintainer.hudi.logformat.model import MAGIC, BlockMetadata, HeaderKey
from maintainer.hudi.logformat.writer import avro_data_block, rollback_command_block
from maintainer.storage import Storage
from tests.unit.hudi.logformat.samples import TRIP_SCHEMA, trip

WHERE = "p/.fg-0_1.log.1_0-1-1"


def _data(instant: str, *keys: str) -> bytes:
    return avro_data_block([trip(k, 1, instant=instant) for k in keys], TRIP_SCHEMA, instant)


def test_blocks_are_read_in_order_with_offsets_and_sizes() -> None:
    first, second = _data("1", "a", "b"), rollback_command_block("3", "1")
    blocks = read_log_blocks(first + second, WHERE)
    assert [b.block_type for b in blocks] == [BlockType.AVRO_DATA, BlockType.COMMAND]
    assert [(b.offset, b.size) for b in blocks] == [(0, len(first)), (len(first), len(second))]
    assert blocks[0].instant_time == "1" and blocks[0].schema_json == TRIP_SCHEMA
    assert [r["_hoodie_record_key"] for r in block_records(blocks[0])] == ["a", "b"]
    assert blocks[1].location == f"{WHERE} at offset {len(first)}"


def test_empty_file_has_no_blocks() -> None:
    assert read_log_blocks(b"", WHERE) == []


def test_truncated_last_block_becomes_corrupt_and_earlier_blocks_survive() -> None:
    first, second = _data("1", "a"), _data("2", "b")
    data = first + second[:-20]
    blocks = read_log_blocks(data, WHERE)
    assert [b.block_type for b in blocks] == [BlockType.AVRO_DATA, BlockType.CORRUPT]
    corrupt = blocks[1]
    assert (corrupt.offset, corrupt.end) == (len(first), len(data))
    assert corrupt.content == second[6:-20]
    assert "runs past the end of the file" in (corrupt.corrupt_reason or "")


def test_file_cut_inside_the_size_field_is_corrupt() -> None:
    data = _data("1", "a") + MAGIC + b"\x00\x00"
    blocks = read_log_blocks(data, WHERE)
    assert blocks[-1].is_corrupt and "block size field" in (blocks[-1].corrupt_reason or "")


def test_garbage_between_blocks_makes_the_preceding_block_corrupt_as_hudi_does() -> None:
    first, second, third = _data("1", "a"), _data("2", "b"), _data("3", "c")
    data = first + second + b"garbage!" * 3 + third
    blocks = read_log_blocks(data, WHERE)
    assert [b.block_type for b in blocks] == [BlockType.AVRO_DATA, BlockType.CORRUPT, BlockType.AVRO_DATA]
    corrupt = blocks[1]
    assert (corrupt.offset, corrupt.end) == (len(first), len(first) + len(second) + 24)
    assert corrupt.corrupt_reason == "no magic right after the block"
    assert blocks[2].instant_time == "3"


def test_garbage_at_the_start_is_a_corrupt_block_up_to_the_first_magic() -> None:
    block = _data("1", "a")
    blocks = read_log_blocks(b"junkjunk" + block, WHERE)
    assert [b.block_type for b in blocks] == [BlockType.CORRUPT, BlockType.AVRO_DATA]
    assert blocks[0].content == b"junkjunk" and blocks[1].offset == 8


def test_trailing_bytes_shorter_than_a_magic_are_a_corrupt_block() -> None:
    block = _data("1", "a")
    blocks = read_log_blocks(block + b"#HU", WHERE)
    assert [b.block_type for b in blocks] == [BlockType.AVRO_DATA, BlockType.CORRUPT]
    assert blocks[1].content == b"#HU"


def test_reverse_pointer_mismatch_is_corrupt() -> None:
    data = bytearray(_data("1", "a"))
    data[-1] ^= 0x01
    (block,) = read_log_blocks(bytes(data), WHERE)
    assert block.is_corrupt and "reverse pointer" in (block.corrupt_reason or "")


def test_size_that_does_not_match_the_fields_is_corrupt() -> None:
    raw = bytearray(frame_block(BlockType.COMMAND, BlockMetadata(((HeaderKey.INSTANT_TIME, "1"),)), b""))
    # claim 4 more content bytes than there are: the fields no longer fill the block
    content_length_at = 6 + 8 + 4 + 4 + 4 + 8 + 1
    struct.pack_into(">q", raw, content_length_at, 4)
    (block,) = read_log_blocks(bytes(raw), WHERE)
    assert block.is_corrupt


@pytest.mark.parametrize(
    ("field_offset", "value", "reason"), [(14, 7, "format version 7"), (18, 9, "type ordinal 9")]
)
def test_unknown_version_or_type_is_corrupt(field_offset: int, value: int, reason: str) -> None:
    raw = bytearray(rollback_command_block("2", "1"))
    struct.pack_into(">i", raw, field_offset, value)
    (block,) = read_log_blocks(bytes(raw), WHERE)
    assert block.is_corrupt and reason in (block.corrupt_reason or "")


def test_asking_a_corrupt_block_for_records_names_file_and_offset() -> None:
    first = _data("1", "a")
    blocks = read_log_blocks(first + _data("2", "b")[:-3], WHERE)
    with pytest.raises(CorruptFileError, match=rf"{WHERE} at offset {len(first)}"):
        block_records(blocks[1])
    with pytest.raises(CorruptFileError, match="corrupt log block"):
        block_deletes(blocks[1])
    with pytest.raises(CorruptFileError, match="corrupt log block"):
        block_table(blocks[1])


def test_wrong_block_kind_for_a_decoder_is_reported() -> None:
    (command,) = read_log_blocks(rollback_command_block("2", "1"), WHERE)
    with pytest.raises(CorruptFileError, match="COMMAND block holds no Avro records"):
        block_records(command)


def test_read_log_file_goes_through_storage(tmp_path) -> None:  # type: ignore[no-untyped-def]
    storage = Storage(str(tmp_path))
    storage.write_bytes("p/.fg-0_1.log.1_0-1-1", _data("1", "a"))
    (block,) = read_log_file(storage, "p/.fg-0_1.log.1_0-1-1")
    assert block.where.endswith("p/.fg-0_1.log.1_0-1-1")
    assert block_records(block)[0]["_hoodie_record_key"] == "a"


def test_hfile_blocks_are_recognised_but_not_decoded() -> None:
    raw = frame_block(BlockType.HFILE_DATA, BlockMetadata(((HeaderKey.INSTANT_TIME, "1"),)), b"HFILEBLK")
    (block,) = read_log_blocks(raw, WHERE)
    assert block.block_type is BlockType.HFILE_DATA and block.is_data and block.content == b"HFILEBLK"
    with pytest.raises(UnsupportedTableError, match="HFile data blocks"):
        block_records(block)
