"""Index blocks (root, and HBase's leaf and intermediate ones) and the file-info block.

A root index entry is: long block offset, int on-disk block size (header and checksums
included), then a length-prefixed key. Hudi's writer prefixes the key with a protobuf varint
(``HFileRootIndexBlock``, ``HFileMetaIndexBlock``), HBase with a Hadoop vint
(``BlockIndexChunk.writeRoot`` via ``Bytes.writeByteArray``); the two agree below 128 bytes.
Data index keys are the block's first key: in Hudi's writer the record key after a short length,
in HBase's a whole KeyValue key (``HFileWriterImpl.getMidpoint``). Meta index keys are the meta
block names. A multi-level data index (HBase's writer only) has leaf and intermediate blocks in
the non-root format (:func:`encode_non_root_index`), and its root ends with the mid-key metadata.

The file-info block is ``PBUF`` then a varint-delimited ``InfoProto``: repeated
``BytesBytesPair`` (field 1), each with ``first`` (1) and ``second`` (2).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from maintainer.hudi.hfile.binary import (
    corrupt,
    decode_hadoop_vint,
    decode_varint,
    encode_hadoop_vint,
    encode_varint,
    take,
)
from maintainer.hudi.hfile.model import HFileStyle
from maintainer.hudi.hfile.protobuf import decode_delimited, decode_message, encode_delimited, encode_message

PB_MAGIC = b"PBUF"
_ENTRY_HEAD = struct.Struct(">qi")


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One root index entry: where the block is, how big it is on disk, and its key bytes."""

    offset: int
    size: int
    key: bytes


def encode_index(entries: Sequence[IndexEntry], style: HFileStyle) -> bytes:
    """The uncompressed content of a root index block."""
    length = encode_varint if style is HFileStyle.HUDI else encode_hadoop_vint
    return b"".join(
        _ENTRY_HEAD.pack(entry.offset, entry.size) + length(len(entry.key)) + entry.key for entry in entries
    )


def decode_index(content: bytes, count: int, style: HFileStyle, where: str) -> list[IndexEntry]:
    """The ``count`` entries of a root index block, which must fill it exactly."""
    entries: list[IndexEntry] = []
    pos = 0
    for index in range(count):
        offset, size = _ENTRY_HEAD.unpack(take(content, pos, _ENTRY_HEAD.size, where, f"index entry {index}"))
        if style is HFileStyle.HUDI:
            key_length, pos = decode_varint(content, pos + _ENTRY_HEAD.size, where)
        else:
            key_length, pos = decode_hadoop_vint(content, pos + _ENTRY_HEAD.size, where)
        entries.append(IndexEntry(offset, size, take(content, pos, key_length, where, f"index key {index}")))
        pos += key_length
    if pos != len(content):
        raise corrupt(where, f"the index holds {len(content) - pos} bytes after its {count} entries")
    return entries


MID_KEY_METADATA_SIZE = 16
"""After the entries of a multi-level root data index: the mid-key's leaf block offset (long),
its on-disk size (int) and the entry within it (int) (``BlockIndexChunk.getMidKeyMetadata``)."""
_INT = struct.Struct(">i")


def encode_non_root_index(entries: Sequence[IndexEntry]) -> bytes:
    """A leaf or intermediate index block (``BlockIndexChunk.writeNonRoot``): int entry count,
    the secondary index (each entry's offset from the end of it, then their total size), then
    the entries: long block offset, int on-disk size, the key bytes (no length)."""
    marks = [0]
    for entry in entries:
        marks.append(marks[-1] + _ENTRY_HEAD.size + len(entry.key))
    head = _INT.pack(len(entries)) + b"".join(_INT.pack(mark) for mark in marks)
    return head + b"".join(_ENTRY_HEAD.pack(entry.offset, entry.size) + entry.key for entry in entries)


def decode_non_root_index(content: bytes, where: str) -> list[IndexEntry]:
    """The entries of a leaf or intermediate index block, which must fill it exactly."""
    count = _INT.unpack(take(content, 0, _INT.size, where, "the index entry count"))[0]
    if count < 0:
        raise corrupt(where, f"the index block has {count} entries")
    marks_size = _INT.size * (count + 1)
    raw = take(content, _INT.size, marks_size, where, "the secondary index")
    marks = [_INT.unpack_from(raw, _INT.size * index)[0] for index in range(count + 1)]
    body = _INT.size + marks_size
    if marks[0] != 0 or body + marks[-1] != len(content):
        raise corrupt(where, f"the secondary index does not span the block's {count} entries")
    entries: list[IndexEntry] = []
    for index in range(count):
        start, end = body + marks[index], body + marks[index + 1]
        if end - start < _ENTRY_HEAD.size:
            raise corrupt(where, f"index entry {index} is {end - start} bytes, shorter than its head")
        offset, size = _ENTRY_HEAD.unpack_from(content, start)
        entries.append(IndexEntry(offset, size, content[start + _ENTRY_HEAD.size : end]))
    return entries


def encode_file_info(entries: Sequence[tuple[bytes, bytes]]) -> bytes:
    """The uncompressed content of the file-info block, entries in the given order."""
    pairs = [(1, encode_message([(1, name), (2, value)])) for name, value in entries]
    return PB_MAGIC + encode_delimited(encode_message(pairs))


def decode_file_info(content: bytes, where: str) -> list[tuple[bytes, bytes]]:
    """The file-info entries in file order."""
    if content[: len(PB_MAGIC)] != PB_MAGIC:
        raise corrupt(where, "the file-info block does not start with PBUF")
    message, end = decode_delimited(content, len(PB_MAGIC), where, "file info")
    if end != len(content):
        raise corrupt(where, f"{len(content) - end} bytes follow the file-info message")
    entries: list[tuple[bytes, bytes]] = []
    for number, pair in decode_message(message, where, "file info"):
        if number != 1 or not isinstance(pair, bytes):
            raise corrupt(where, f"the file info has an unexpected field {number}")
        entries.append(_pair(dict(decode_message(pair, where, "file-info entry")), where))
    return entries


def _pair(fields: dict[int, int | bytes], where: str) -> tuple[bytes, bytes]:
    name, value = fields.get(1), fields.get(2)
    if not isinstance(name, bytes) or not isinstance(value, bytes) or len(fields) != 2:
        raise corrupt(where, "a file-info entry is not a pair of byte strings")
    return name, value
