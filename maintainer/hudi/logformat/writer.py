"""Encode log blocks as Hudi writes them, and append them to a log file's bytes.

Header key order: Hudi keeps headers in a hash map, so the order in real files varies; these
writers use INSTANT_TIME then SCHEMA for data and delete blocks, and INSTANT_TIME,
COMMAND_BLOCK_TYPE, TARGET_INSTANT_TIME for rollback blocks (the order of the rollback block in
the fixtures). Readers look headers up by key, so any order is valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from maintainer.errors import CorruptFileError
from maintainer.hudi.logformat.avro_block import AVRO_CONTENT_VERSION, encode_avro_content
from maintainer.hudi.logformat.binary import frame_block
from maintainer.hudi.logformat.columnar_encode import encode_table_content
from maintainer.hudi.logformat.delete_block import DeleteRecord, encode_delete_content
from maintainer.hudi.logformat.model import BlockMetadata, BlockType, CommandType, HeaderKey, LogBlock
from maintainer.hudi.logformat.reader import read_log_blocks


def encode_block(block: LogBlock) -> bytes:
    """The bytes of a parsed (non-corrupt) block, rebuilt from its fields."""
    if block.is_corrupt:
        raise CorruptFileError("a corrupt block cannot be re-encoded", where=block.location)
    return frame_block(block.block_type, block.header, block.content, block.footer, block.format_version)


def avro_data_block(
    records: Iterable[Mapping[str, Any]],
    schema_json: str,
    instant_time: str,
    *,
    content_version: int = AVRO_CONTENT_VERSION,
) -> bytes:
    """An AVRO_DATA block of ``records`` written by ``instant_time`` with writer schema ``schema_json``."""
    header = BlockMetadata(((HeaderKey.INSTANT_TIME, instant_time), (HeaderKey.SCHEMA, schema_json)))
    content = encode_avro_content(records, schema_json, content_version)
    return frame_block(BlockType.AVRO_DATA, header, content)


def avro_data_block_from_table(table: pa.Table, schema_json: str, instant_time: str) -> bytes:
    """An AVRO_DATA block of ``table``'s rows (columns named as the schema's fields): encoded
    column-wise for flat schemas, record by record otherwise; the bytes are the same."""
    content = encode_table_content(table, schema_json, AVRO_CONTENT_VERSION)
    if content is None:
        return avro_data_block(table.to_pylist(), schema_json, instant_time)
    header = BlockMetadata(((HeaderKey.INSTANT_TIME, instant_time), (HeaderKey.SCHEMA, schema_json)))
    return frame_block(BlockType.AVRO_DATA, header, content)


def delete_block(deletes: Iterable[DeleteRecord], instant_time: str, schema_json: str | None = None) -> bytes:
    """A version-3 DELETE block; data-table writers also put the table schema in the header."""
    entries = [(HeaderKey.INSTANT_TIME, instant_time)]
    if schema_json is not None:
        entries.append((HeaderKey.SCHEMA, schema_json))
    return frame_block(BlockType.DELETE, BlockMetadata(tuple(entries)), encode_delete_content(deletes))


def rollback_command_block(instant_time: str, target_instant_time: str) -> bytes:
    """A COMMAND block rolling back every block ``target_instant_time`` wrote to this file group."""
    header = BlockMetadata(
        (
            (HeaderKey.INSTANT_TIME, instant_time),
            (HeaderKey.COMMAND_BLOCK_TYPE, str(int(CommandType.ROLLBACK))),
            (HeaderKey.TARGET_INSTANT_TIME, target_instant_time),
        )
    )
    return frame_block(BlockType.COMMAND, header, b"")


def append_blocks(existing: bytes, blocks: Sequence[bytes], where: str) -> bytes:
    """``existing`` log-file bytes followed by ``blocks``.

    Refuses a file whose last block is corrupt or truncated: bytes appended after it would be
    swallowed into the corrupt region by every reader. Write a new log file version instead.
    """
    parsed = read_log_blocks(existing, where)
    if parsed and parsed[-1].is_corrupt:
        raise CorruptFileError(
            f"cannot append: the file ends in a corrupt block ({parsed[-1].corrupt_reason})",
            where=parsed[-1].location,
            hint="write the blocks into a new log file version instead",
        )
    return existing + b"".join(blocks)
