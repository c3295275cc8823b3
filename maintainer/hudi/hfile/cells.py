"""Cells of a data block, as HBase KeyValues without tags.

Each cell (HBase ``NoOpDataBlockEncoder``, Hudi ``HFileDataBlock.getUncompressedBlockDataToWrite``):
int key length, int value length, the key, the value, then the memstore timestamp as a Hadoop
vlong, always 0 (one byte). The key is a KeyValue key: short row length, the row (Hudi's record
key), byte family length 0, no qualifier, long timestamp ``Long.MAX_VALUE``, byte type Put (4).
Neither writer includes tags (``HFileContext.includesTags`` is false), so there is no tags length.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from maintainer.hudi.hfile.binary import USHORT, corrupt, decode_hadoop_vint, take
from maintainer.hudi.hfile.model import HFileCell

LATEST_TIMESTAMP = (1 << 63) - 1
PUT = 4
MAXIMUM_TYPE = 255  # KeyValue.Type.Maximum, the type of a "first on row" index key
KEY_OVERHEAD = 12  # row length, family length, timestamp, type
MAX_ROW_LENGTH = 0x7FFF  # KeyValue rows are measured by a Java short
_LENGTHS = struct.Struct(">ii")
_KEY_TAIL = struct.Struct(">bqB")


def kv_key(row: bytes, key_type: int = PUT) -> bytes:
    """The KeyValue key of ``row`` with empty family and qualifier."""
    return USHORT.pack(len(row)) + row + _KEY_TAIL.pack(0, LATEST_TIMESTAMP, key_type)


def cell_size(cell: HFileCell) -> int:
    """Bytes the cell takes in an uncompressed data block."""
    return _LENGTHS.size + len(cell.key) + KEY_OVERHEAD + len(cell.value) + 1


def encode_cells(cells: Iterable[HFileCell]) -> bytes:
    """The uncompressed content of a data block holding ``cells``."""
    out = bytearray()
    for cell in cells:
        key = kv_key(cell.key)
        out += _LENGTHS.pack(len(key), len(cell.value))
        out += key
        out += cell.value
        out.append(0)
    return bytes(out)


def decode_cells(content: bytes, where: str) -> list[HFileCell]:
    """Every cell of an uncompressed data block."""
    cells: list[HFileCell] = []
    pos = 0
    while pos < len(content):
        key_length, value_length = _LENGTHS.unpack(take(content, pos, _LENGTHS.size, where, "a cell header"))
        key = take(content, pos + _LENGTHS.size, key_length, where, f"cell {len(cells)}'s key")
        value_start = pos + _LENGTHS.size + key_length
        value = take(content, value_start, value_length, where, f"cell {len(cells)}'s value")
        memstore_ts, pos = decode_hadoop_vint(content, value_start + value_length, where)
        row = _row_of(key, where, len(cells))
        if memstore_ts != 0:
            raise corrupt(where, f"cell {len(cells)} has memstore timestamp {memstore_ts}, Hudi writes 0")
        cells.append(HFileCell(row, value))
    return cells


def cells_with_prefixes(content: bytes, where: str, prefixes: tuple[bytes, ...]) -> list[HFileCell]:
    """The cells of an uncompressed data block whose key starts with one of ``prefixes``; the
    other cells are stepped over (their lengths read, nothing built), and the walk stops at the
    first key past every prefix (cells are sorted). Each cell's lengths and memstore timestamp
    are checked as :func:`decode_cells` checks them, and the cells kept whole."""
    cells: list[HFileCell] = []
    last = max(prefixes, default=b"")
    end = len(content)
    pos = index = 0
    while pos < end and prefixes:
        if pos + _LENGTHS.size + 2 > end:
            raise corrupt(where, f"cell {index}'s header runs past the end of its block")
        key_length, value_length = _LENGTHS.unpack_from(content, pos)
        key_start = pos + _LENGTHS.size
        row_start = key_start + 2
        row_end = row_start + USHORT.unpack_from(content, key_start)[0]
        memstore = key_start + key_length + value_length
        if key_length < 0 or value_length < 0 or memstore >= end:
            raise corrupt(where, f"cell {index} runs past the end of its block")
        if content[memstore] != 0:
            raise corrupt(where, f"cell {index} has a memstore timestamp other than 0, which Hudi writes")
        if content.startswith(prefixes, row_start, row_end):
            key = content[key_start : key_start + key_length]
            cells.append(HFileCell(_row_of(key, where, index), content[key_start + key_length : memstore]))
        elif content[row_start:row_end] > last:
            break
        pos = memstore + 1
        index += 1
    return cells


def _row_of(key: bytes, where: str, index: int) -> bytes:
    if len(key) < KEY_OVERHEAD:
        raise corrupt(where, f"cell {index}'s key is {len(key)} bytes, too short for a KeyValue key")
    row_length: int = USHORT.unpack(key[:2])[0]
    if row_length + KEY_OVERHEAD != len(key):
        raise corrupt(where, f"cell {index}'s key has a family or qualifier; Hudi writes neither")
    family_length, timestamp, key_type = _KEY_TAIL.unpack(key[2 + row_length :])
    if family_length != 0 or timestamp != LATEST_TIMESTAMP or key_type != PUT:
        raise corrupt(
            where,
            f"cell {index}'s key has family length {family_length}, timestamp {timestamp}, "
            f"type {key_type}; Hudi writes 0, Long.MAX_VALUE and Put",
        )
    return key[2 : 2 + row_length]
