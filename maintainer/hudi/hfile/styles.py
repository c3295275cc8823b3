"""Where Hudi 1.1's own writer and HBase's writer lay out the same cells differently.

Each function takes the style and returns what that writer would produce; the sources named are
``org.apache.hudi.io.hfile.HFileWriterImpl`` (HUDI) and HBase 2.4's ``HFileWriterImpl`` (HBASE,
as bundled by Hudi 1.0).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

from maintainer.hudi.hfile.cells import MAXIMUM_TYPE, cell_size, kv_key
from maintainer.hudi.hfile.javamap import hashmap_order
from maintainer.hudi.hfile.model import (
    AVG_KEY_LEN,
    AVG_VALUE_LEN,
    CREATE_TIME_TS,
    KEY_VALUE_VERSION,
    LAST_KEY,
    MAX_MEMSTORE_TS_KEY,
    HFileCell,
    HFileStyle,
)

INT = struct.Struct(">i")
LONG = struct.Struct(">q")
RESERVED_PREFIX = b"hfile."  # HBase HFileInfo.isReservedFileInfoKey


def split_into_blocks(
    cells: Sequence[HFileCell], style: HFileStyle, block_size: int
) -> list[list[HFileCell]]:
    """The cells of each data block.

    HBASE (``checkBlockBoundary``): a block is closed before the next cell once it holds at least
    ``block_size`` bytes. HUDI (``append``): a block is closed before a cell that would take it
    past ``block_size``. Hudi's source counts key + value + 9 bytes a cell, but its files' trailer
    field 3 (the same running total) equals the data blocks' real uncompressed size, so the full
    cell size is counted here. No fixture file has more than one data block to confirm this.
    """
    blocks: list[list[HFileCell]] = []
    current: list[HFileCell] = []
    used = 0
    for cell in cells:
        size = cell_size(cell)
        full = used >= block_size if style is HFileStyle.HBASE else used + size > block_size
        if current and full:
            blocks.append(current)
            current, used = [], 0
        current.append(cell)
        used += size
    if current:
        blocks.append(current)
    return blocks


def index_key(style: HFileStyle, previous: HFileCell | None, first: HFileCell) -> bytes:
    """The data index key of a block starting with ``first`` after a block ending with ``previous``."""
    if style is HFileStyle.HUDI:
        return struct.pack(">H", len(first.key)) + first.key
    if previous is None:
        return kv_key(first.key)
    return kv_key(_midpoint_row(previous.key, first.key), MAXIMUM_TYPE)


def _midpoint_row(left: bytes, right: bytes) -> bytes:
    """``getMinimumMidpointArray`` of HBase 2.4 for ``left < right``; Java bytes are signed."""
    common = min(len(left), len(right))
    diff = 0
    while diff < common and left[diff] == right[diff]:
        diff += 1
    if diff >= common:
        return right[: diff + 1]
    signed = left[diff] - 256 if left[diff] >= 128 else left[diff]
    if left[diff] < 0xFF and signed + 1 < right[diff]:
        return left[:diff] + bytes([(signed + 1) & 0xFF])
    return right[: diff + 1]


def file_info_entries(
    style: HFileStyle, cells: Sequence[HFileCell], user: Mapping[bytes, bytes], create_time: bytes
) -> list[tuple[bytes, bytes]]:
    """All file-info entries in the order the writer serializes them."""
    count = len(cells)
    if style is HFileStyle.HUDI:
        last = struct.pack(">H", len(cells[-1].key)) + cells[-1].key if cells else b""
        key_total = sum(len(cell.key) for cell in cells)
    else:
        last = kv_key(cells[-1].key) if cells else b""
        key_total = sum(len(kv_key(cell.key)) for cell in cells)
    value_total = sum(len(cell.value) for cell in cells)
    averages = [
        (AVG_KEY_LEN, INT.pack(key_total // count if count else 0)),
        (CREATE_TIME_TS, create_time),
        (AVG_VALUE_LEN, INT.pack(value_total // count if count else 0)),
    ]
    version = (KEY_VALUE_VERSION, INT.pack(1))
    memstore = (MAX_MEMSTORE_TS_KEY, LONG.pack(0))
    if style is HFileStyle.HBASE:
        last_entries = [(LAST_KEY, last)] if cells else []
        return sorted([*user.items(), memstore, version, *last_entries, *averages])
    inserted = [memstore, *user.items(), (LAST_KEY, last), *averages, version]
    return [inserted[index] for index in hashmap_order([name.decode() for name, _ in inserted])]


def check_user_file_info(style: HFileStyle, names: Sequence[bytes]) -> None:
    """Raise ``ValueError`` for names this style's writer would not accept as given."""
    for name in names:
        if style is HFileStyle.HBASE and name.startswith(RESERVED_PREFIX):
            raise ValueError(f"file-info key {name!r}: HBase reserves the hfile. prefix")
        if style is HFileStyle.HUDI:
            try:
                name.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"file-info key {name!r} is not UTF-8; Hudi keys are Java strings") from exc


def meta_block_order(style: HFileStyle, blocks: Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Meta blocks in written order: HashMap order (HUDI), or sorted by name bytes (HBASE)."""
    if style is HFileStyle.HBASE:
        return sorted(blocks, key=lambda block: block[0].encode())
    return [blocks[index] for index in hashmap_order([name for name, _ in blocks])]
