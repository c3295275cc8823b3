"""Split a log file into blocks, detecting corrupt regions the way Hudi's log reader does.

A block is corrupt when its size field cannot be read, when the size runs past the end of the
file, when the reverse pointer at its end does not match the size, or when the bytes right
after it are neither the next magic nor the end of the file. Hudi then makes one CORRUPT block
of everything from there up to the next magic (or the end of the file) and carries on reading.
This reader does the same, and also turns bytes that do not start with a magic, an unknown
format version or block type, and a block whose fields do not fill its declared size into
CORRUPT blocks, so one bad file never stops a table read.
"""

from __future__ import annotations

from collections.abc import Iterator

from maintainer.hudi.logformat.binary import LONG_BYTES, SIZE_FIELD_END, Cursor, FormatError, read_metadata
from maintainer.hudi.logformat.model import (
    EMPTY_METADATA,
    LOG_FORMAT_VERSION,
    MAGIC,
    BlockType,
    LogBlock,
)
from maintainer.storage.fs import Storage

_MIN_BLOCK_SIZE = 4 + 4 + 4 + 8 + 4 + 8  # version, type, empty header, content length, empty footer, pointer


def read_log_blocks(data: bytes, where: str) -> list[LogBlock]:
    """Every block of the log file ``data`` (named ``where`` in messages), in file order."""
    return list(iter_log_blocks(data, where))


def read_log_file(storage: Storage, path: str) -> list[LogBlock]:
    """Every block of the log file at ``path`` (relative to the storage root)."""
    return read_log_blocks(storage.read_bytes(path), storage.uri(path))


def iter_log_blocks(data: bytes, where: str) -> Iterator[LogBlock]:
    pos = 0
    while pos < len(data):
        block = _read_block_at(data, pos, where)
        yield block
        pos = block.end


def _read_block_at(data: bytes, pos: int, where: str) -> LogBlock:
    if data[pos : pos + len(MAGIC)] != MAGIC:
        return _corrupt(data, pos, pos, where, "no log block magic where a block should start")
    try:
        end = _checked_block_end(data, pos)
    except FormatError as exc:
        return _corrupt(data, pos, pos + len(MAGIC), where, str(exc))
    try:
        return _parse_block(data, pos, end, where)
    except FormatError as exc:
        return _corrupt(data, pos, pos + len(MAGIC), where, str(exc))


def _checked_block_end(data: bytes, pos: int) -> int:
    """Hudi's corruption checks on the frame; returns the offset just past the block."""
    cursor = Cursor(data, pos + len(MAGIC))
    try:
        block_size = cursor.read_long()
    except FormatError as exc:
        raise FormatError("file ends inside the block size field") from exc
    end = SIZE_FIELD_END + pos + block_size
    if block_size < _MIN_BLOCK_SIZE:
        raise FormatError(f"block size {block_size} is smaller than an empty block")
    if end > len(data):
        raise FormatError(f"block size {block_size} runs past the end of the file ({len(data)} bytes)")
    reverse_pointer = Cursor(data, end - LONG_BYTES, end).read_long()
    if reverse_pointer - len(MAGIC) != block_size:
        raise FormatError(f"reverse pointer {reverse_pointer} does not match block size {block_size}")
    following = data[end : end + len(MAGIC)]
    if len(following) == len(MAGIC) and following != MAGIC:
        raise FormatError("no magic right after the block")
    return end


def _parse_block(data: bytes, pos: int, end: int, where: str) -> LogBlock:
    cursor = Cursor(data, pos + SIZE_FIELD_END, end - LONG_BYTES)
    version = cursor.read_int()
    if version != LOG_FORMAT_VERSION:
        raise FormatError(f"unsupported log format version {version} (only version 1 is read)")
    type_ordinal = cursor.read_int()
    try:
        block_type = BlockType(type_ordinal)
    except ValueError as exc:
        raise FormatError(f"unknown block type ordinal {type_ordinal}") from exc
    if block_type is BlockType.CORRUPT:
        raise FormatError("a block written with the CORRUPT type")
    header = read_metadata(cursor)
    content = cursor.read_bytes(cursor.read_long())
    footer = read_metadata(cursor)
    if cursor.remaining:
        raise FormatError(f"{cursor.remaining} unexpected bytes between the footer and the reverse pointer")
    return LogBlock(block_type, header, footer, content, pos, end - pos, where, version)


def _corrupt(data: bytes, pos: int, scan_from: int, where: str, reason: str) -> LogBlock:
    """A CORRUPT block from ``pos`` up to the next magic found at or after ``scan_from``."""
    next_magic = data.find(MAGIC, scan_from)
    end = len(data) if next_magic < 0 else next_magic
    if end <= pos:
        end = len(data)
    content = bytes(data[scan_from:end]) if scan_from < end else b""
    return LogBlock(
        BlockType.CORRUPT,
        EMPTY_METADATA,
        EMPTY_METADATA,
        content,
        pos,
        end - pos,
        where,
        corrupt_reason=reason,
    )
