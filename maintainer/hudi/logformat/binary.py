"""Big-endian primitives of the log format: a bounds-checked cursor, header maps, block frames.

Block frame (``HUDI.md`` §4): magic, long block size (everything after this field), int format
version, int block type, header map, long content length, content, footer map, long reverse
pointer (bytes from the magic through the footer).
"""

from __future__ import annotations

import struct

from maintainer.hudi.logformat.model import (
    EMPTY_METADATA,
    LOG_FORMAT_VERSION,
    MAGIC,
    BlockMetadata,
    BlockType,
    HeaderKey,
)

_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
INT_BYTES = _INT.size
LONG_BYTES = _LONG.size
SIZE_FIELD_END = len(MAGIC) + LONG_BYTES  # offset of the format version within a block


class FormatError(ValueError):
    """Bytes that do not follow the log format; the reader turns it into a CORRUPT block."""


class Cursor:
    """Reads big-endian fields from ``data[start:end]``; running past ``end`` is a FormatError."""

    __slots__ = ("data", "end", "pos")

    def __init__(self, data: bytes | memoryview, start: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else end

    def _take(self, count: int) -> int:
        if count < 0 or self.pos + count > self.end:
            raise FormatError(f"needs {count} bytes at offset {self.pos}, only {self.end - self.pos} left")
        start = self.pos
        self.pos += count
        return start

    def read_int(self) -> int:
        return int(_INT.unpack_from(self.data, self._take(INT_BYTES))[0])

    def read_long(self) -> int:
        return int(_LONG.unpack_from(self.data, self._take(LONG_BYTES))[0])

    def read_bytes(self, count: int) -> bytes:
        start = self._take(count)
        return bytes(self.data[start : start + count])

    @property
    def remaining(self) -> int:
        return self.end - self.pos


def pack_int(value: int) -> bytes:
    return _INT.pack(value)


def pack_long(value: int) -> bytes:
    return _LONG.pack(value)


def read_metadata(cursor: Cursor) -> BlockMetadata:
    """A header/footer map: int count, then per entry int key ordinal, int length, UTF-8 bytes."""
    count = cursor.read_int()
    if count < 0 or count * 2 * INT_BYTES > cursor.remaining:
        raise FormatError(f"implausible header entry count {count}")
    entries = []
    for _ in range(count):
        ordinal = cursor.read_int()
        try:
            key = HeaderKey(ordinal)
        except ValueError as exc:
            raise FormatError(f"unknown header key ordinal {ordinal}") from exc
        raw = cursor.read_bytes(cursor.read_int())
        try:
            entries.append((key, raw.decode("utf-8")))
        except UnicodeDecodeError as exc:
            raise FormatError(f"header {key.name} is not UTF-8") from exc
    return BlockMetadata(tuple(entries))


def metadata_bytes(metadata: BlockMetadata) -> bytes:
    parts = [pack_int(len(metadata.entries))]
    for key, value in metadata.entries:
        raw = value.encode("utf-8")
        parts += [pack_int(int(key)), pack_int(len(raw)), raw]
    return b"".join(parts)


def frame_block(
    block_type: BlockType,
    header: BlockMetadata,
    content: bytes,
    footer: BlockMetadata = EMPTY_METADATA,
    format_version: int = LOG_FORMAT_VERSION,
) -> bytes:
    """The bytes of one block, exactly as Hudi's log writer lays them out."""
    header_raw = metadata_bytes(header)
    footer_raw = metadata_bytes(footer)
    block_size = 2 * INT_BYTES + len(header_raw) + LONG_BYTES + len(content) + len(footer_raw) + LONG_BYTES
    reverse_pointer = len(MAGIC) + LONG_BYTES + block_size - LONG_BYTES
    return b"".join(
        [
            MAGIC,
            pack_long(block_size),
            pack_int(format_version),
            pack_int(int(block_type)),
            header_raw,
            pack_long(len(content)),
            content,
            footer_raw,
            pack_long(reverse_pointer),
        ]
    )
