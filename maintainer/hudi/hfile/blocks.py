"""HFile v3 blocks: a 33-byte header, GZ-compressed content (or, with codec NONE, the content
as is), then checksum bytes.

Header (HBase ``HFileBlock``, Hudi ``HFileBlock.serialize``): 8-byte magic, int on-disk size
without header (compressed content plus checksums), int uncompressed size without header, long
previous block offset, byte checksum type, int bytes per checksum (16384), int on-disk data size
with header (header plus compressed content). One 4-byte checksum follows per 16 KiB chunk of
header plus compressed content: CRC32C values in the HBase style, zeros in Hudi's (its
``ChecksumType.NULL`` still reserves the bytes, ``HFileBlock.generateChecksumBytes``).
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

import crc32c

from maintainer.hudi.hfile.binary import INT, corrupt, take
from maintainer.hudi.hfile.gz import gzip_compress, gzip_decompress

HEADER_SIZE = 33
BYTES_PER_CHECKSUM = 16 * 1024
CHECKSUM_SIZE = 4
NULL_CHECKSUM = 0
CRC32C_CHECKSUM = 2
_HEADER = struct.Struct(">8siiqbii")


class BlockType(enum.Enum):
    """The block types Hudi's HFiles contain, by magic (HBase ``BlockType``)."""

    DATA = b"DATABLK*"
    LEAF_INDEX = b"IDXLEAF2"
    META = b"METABLKc"
    INTERMEDIATE_INDEX = b"IDXINTE2"
    ROOT_INDEX = b"IDXROOT2"
    FILE_INFO = b"FILEINF2"


# Block types HBase knows but that Hudi's metadata HFiles never contain.
_UNSUPPORTED = {
    b"DATABLKE": "an encoded data block",
    b"BLMFBLK2": "an HBase Bloom filter chunk",
    b"BLMFMET2": "an HBase Bloom filter meta block",
    b"DFBLMET2": "an HBase delete-family Bloom filter meta block",
    b"IDXBLK)+": "a version 1 index block",
    b'TRABLK"$': "a trailer",
}


@dataclass(frozen=True, slots=True)
class Block:
    """One block read from a file: its type, place, header link and uncompressed content."""

    kind: BlockType
    offset: int
    size: int
    prev_offset: int
    content: bytes


def checksum_bytes_size(data_size_with_header: int) -> int:
    """Bytes of checksums after ``data_size_with_header`` bytes (``ChecksumUtil.numBytes``)."""
    return -(-data_size_with_header // BYTES_PER_CHECKSUM) * CHECKSUM_SIZE


def _checksums(data: bytes, checksum_type: int) -> bytes:
    if checksum_type == NULL_CHECKSUM:
        return bytes(checksum_bytes_size(len(data)))
    return b"".join(
        INT.pack(_signed32(crc32c.crc32c(data[start : start + BYTES_PER_CHECKSUM])))
        for start in range(0, len(data), BYTES_PER_CHECKSUM)
    )


def _signed32(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def encode_block(
    kind: BlockType, content: bytes, prev_offset: int, checksum_type: int, compress: bool = True
) -> bytes:
    """The on-disk bytes of one block holding ``content`` (GZ-compressed, or as is)."""
    compressed = gzip_compress(content) if compress else content
    data_size = HEADER_SIZE + len(compressed)
    on_disk_without_header = len(compressed) + checksum_bytes_size(data_size)
    header = _HEADER.pack(
        kind.value,
        on_disk_without_header,
        len(content),
        prev_offset,
        checksum_type,
        BYTES_PER_CHECKSUM,
        data_size,
    )
    data = header + compressed
    return data + _checksums(data, checksum_type)


def block_type_at(data: bytes, offset: int, where: str) -> BlockType:
    magic = take(data, offset, 8, where, f"the block magic at offset {offset}")
    try:
        return BlockType(magic)
    except ValueError:
        what = _UNSUPPORTED.get(magic)
        if what is None:
            raise corrupt(where, f"no HFile block magic at offset {offset} (found {magic!r})") from None
        raise corrupt(where, f"offset {offset} holds {what}, which Hudi's HFiles never contain") from None


def read_block(
    data: bytes, offset: int, end: int, checksum_type: int, where: str, compressed: bool = True
) -> Block:
    """The block at ``offset``, which must end at or before ``end``; checks sizes and checksums.
    ``compressed``: GZ (the trailer's codec), else the content is stored as is (NONE)."""
    kind = block_type_at(data, offset, where)
    here = f"{where} ({kind.name} block at offset {offset})"
    fields = _HEADER.unpack(take(data, offset, HEADER_SIZE, here, "the block header"))
    _, on_disk_without_header, uncompressed_size, prev_offset, ctype, per_checksum, data_size = fields
    size = HEADER_SIZE + on_disk_without_header
    if on_disk_without_header < 0 or uncompressed_size < 0 or offset + size > end:
        raise corrupt(here, f"its on-disk size {on_disk_without_header} runs past the block area end {end}")
    if ctype != checksum_type:
        raise corrupt(here, f"its checksum type is {ctype}, the trailer's version implies {checksum_type}")
    if per_checksum != BYTES_PER_CHECKSUM:
        raise corrupt(here, f"it has {per_checksum} bytes per checksum, not {BYTES_PER_CHECKSUM}")
    if data_size < HEADER_SIZE or HEADER_SIZE + on_disk_without_header != data_size + checksum_bytes_size(
        data_size
    ):
        raise corrupt(here, f"its sizes disagree (on disk {size}, data with header {data_size})")
    block_data = data[offset : offset + data_size]
    if (
        checksum_type == CRC32C_CHECKSUM
        and _checksums(block_data, ctype) != data[offset + data_size : offset + size]
    ):
        raise corrupt(here, "its CRC32C checksum does not match its bytes")
    if compressed:
        content = gzip_decompress(block_data[HEADER_SIZE:], uncompressed_size, here)
    elif data_size - HEADER_SIZE != uncompressed_size:
        raise corrupt(here, f"it holds {data_size - HEADER_SIZE} bytes, its header says {uncompressed_size}")
    else:
        content = block_data[HEADER_SIZE:]
    return Block(kind, offset, size, prev_offset, content)
