"""Rollback command blocks, appending to a log file, and new log file names."""

from __future__ import annotations

import pytest

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.file_groups.filenames import LogFileName
from maintainer.hudi.logformat import (
    BlockType,
    HeaderKey,
    RollbackCommand,
    append_blocks,
    avro_data_block,
    block_rollback,
    new_log_file_v8,
    next_log_file_v6,
    read_log_blocks,
    rollback_command_block,
)
from maintainer.hudi.logformat.binary import frame_block
from maintainer.hudi.logformat.model import BlockMetadata
from tests.unit.hudi.logformat.samples import TRIP_SCHEMA, trip


def test_rollback_command_block_headers_and_target() -> None:
    (block,) = read_log_blocks(rollback_command_block("20250126040936578", "20250126040826878"), "f")
    assert block.block_type is BlockType.COMMAND and block.content == b""
    assert block.header.entries == (
        (HeaderKey.INSTANT_TIME, "20250126040936578"),
        (HeaderKey.COMMAND_BLOCK_TYPE, "0"),
        (HeaderKey.TARGET_INSTANT_TIME, "20250126040826878"),
    )
    assert block_rollback(block) == RollbackCommand("20250126040936578", "20250126040826878")


@pytest.mark.parametrize(
    ("entries", "error"),
    [
        (((HeaderKey.INSTANT_TIME, "2"), (HeaderKey.COMMAND_BLOCK_TYPE, "0")), CorruptFileError),
        (((HeaderKey.INSTANT_TIME, "2"), (HeaderKey.TARGET_INSTANT_TIME, "1")), CorruptFileError),
        (
            (
                (HeaderKey.INSTANT_TIME, "2"),
                (HeaderKey.COMMAND_BLOCK_TYPE, "1"),
                (HeaderKey.TARGET_INSTANT_TIME, "1"),
            ),
            UnsupportedTableError,
        ),
    ],
)
def test_incomplete_or_unknown_command_blocks(
    entries: tuple[tuple[HeaderKey, str], ...], error: type[Exception]
) -> None:
    (block,) = read_log_blocks(frame_block(BlockType.COMMAND, BlockMetadata(entries), b""), "f")
    with pytest.raises(error, match="f at offset 0"):
        block_rollback(block)


def test_append_keeps_existing_bytes_and_adds_blocks() -> None:
    existing = avro_data_block([trip("a", 1)], TRIP_SCHEMA, "1")
    rollback = rollback_command_block("3", "1")
    appended = append_blocks(existing, [rollback], "f")
    assert appended == existing + rollback
    assert [b.block_type for b in read_log_blocks(appended, "f")] == [BlockType.AVRO_DATA, BlockType.COMMAND]
    assert append_blocks(b"", [rollback], "f") == rollback


def test_append_refuses_a_file_ending_in_a_corrupt_block() -> None:
    existing = avro_data_block([trip("a", 1)], TRIP_SCHEMA, "1")[:-5]
    with pytest.raises(CorruptFileError, match="cannot append") as caught:
        append_blocks(existing, [rollback_command_block("3", "1")], "f")
    assert caught.value.hint is not None and "new log file" in caught.value.hint


def test_next_v6_log_file_takes_the_next_version_of_the_same_slice() -> None:
    names = [
        ".fg-0_100.log.1_0-1-1",
        ".fg-0_100.log.2_1-0-1",
        ".fg-0_050.log.7_0-1-1",
        ".other-0_100.log.9_0-1-1",
        "fg-0_0-1-1_100.parquet",
    ]
    name = next_log_file_v6(names, "fg-0", "100", "1-0-1")
    assert name == LogFileName("fg-0", "100", 3, "1-0-1")
    assert name.name == ".fg-0_100.log.3_1-0-1"
    assert next_log_file_v6([], "fg-0", "100", "0-1-2").version == 1


def test_v8_log_file_is_named_by_the_deltacommit_with_version_one() -> None:
    assert new_log_file_v8("fg-0", "20251220210127080", "0-1072-3078").name == (
        ".fg-0_20251220210127080.log.1_0-1072-3078"
    )
