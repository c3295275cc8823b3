"""Read an HFile written by either of Hudi's writers into an :class:`HFile`.

The file is read block by block from offset 0 to the trailer, so every byte is accounted for,
in the layout both writers produce: data blocks (with HBase's leaf index blocks written inline
between them once its data index outgrows one block), meta blocks, the intermediate index
blocks of a deeper index, then the load-on-open section: the root data index, the meta index
and the file info. The trailer and the index tree are then checked against the blocks found
(the leaf level lists exactly the data blocks, in order), checksums are verified where the file
has them, and the cells must be sorted.

:func:`read_cells_with_prefixes` reads only the data blocks whose key range can hold a key
starting with one of the given prefixes, found through the index (HFile cells are sorted), and
:func:`read_file_info` only the file info.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from maintainer.hudi.hfile.binary import USHORT, corrupt
from maintainer.hudi.hfile.blocks import Block, BlockType, read_block
from maintainer.hudi.hfile.cells import cells_with_prefixes, decode_cells
from maintainer.hudi.hfile.index import (
    MID_KEY_METADATA_SIZE,
    IndexEntry,
    decode_file_info,
    decode_index,
    decode_non_root_index,
)
from maintainer.hudi.hfile.model import (
    COMPARATOR_CLASS_NAME,
    GZ_CODEC,
    KV_COMPARATOR_CLASS_NAME,
    NONE_CODEC,
    HFile,
    HFileCell,
    HFileStyle,
)
from maintainer.hudi.hfile.trailer import TRAILER_SIZE, Trailer, decode_trailer

_ChildReader = Callable[[IndexEntry, BlockType, str], Block]
"""The index block (or data block) an index entry points at, checked to be of the kind given."""
_COMPARATORS = (COMPARATOR_CLASS_NAME, KV_COMPARATOR_CLASS_NAME)
_CODECS = {GZ_CODEC: "GZ", NONE_CODEC: "NONE"}
_MAX_INDEX_LEVELS = 16  # HBase's writer never goes deeper (BlockIndexWriter.writeIndexBlocks)


@dataclass(frozen=True, slots=True)
class _Layout:
    data: list[Block]
    leaves: list[Block]
    meta: list[Block]
    intermediates: list[Block]
    data_index: Block
    meta_index: Block
    file_info: Block


@dataclass(frozen=True, slots=True)
class _Format:
    """What the trailer says about reading the blocks."""

    style: HFileStyle
    compressed: bool

    @classmethod
    def of(cls, trailer: Trailer) -> _Format:
        style = HFileStyle.HUDI if trailer.minor_version == 0 else HFileStyle.HBASE
        return cls(style, trailer.compression_codec == GZ_CODEC)

    def block(self, data: bytes, offset: int, end: int, where: str) -> Block:
        return read_block(data, offset, end, self.style.checksum_type, where, self.compressed)


def read_hfile(data: bytes, where: str) -> HFile:
    """Decode the HFile ``data``; ``where`` names it (and the log block it came from) in errors."""
    trailer = decode_trailer(data, where)
    _check_trailer(trailer, where)
    fmt = _Format.of(trailer)
    layout = _layout(_read_blocks(data, fmt, where), trailer, where)
    by_offset = {block.offset: block for block in [*layout.leaves, *layout.intermediates]}
    data_entries, used = _walk_index(
        _root_entries(layout.data_index, trailer, fmt.style, where),
        trailer.num_data_index_levels,
        lambda entry, kind, here: _indexed_block(by_offset, entry, kind, here),
        where,
    )
    if used != len(by_offset):
        raise corrupt(where, f"{len(by_offset) - used} index block(s) are not part of the data index")
    _check_index(data_entries, layout.data, "data", where)
    meta_entries = decode_index(
        layout.meta_index.content, trailer.meta_index_count, fmt.style, f"{where} (meta index)"
    )
    _check_index(meta_entries, layout.meta, "meta", where)
    cells = _cells(layout.data, trailer, where)
    return HFile(
        cells=cells,
        file_info=tuple(decode_file_info(layout.file_info.content, f"{where} (file info)")),
        meta_blocks=tuple(
            (_name(entry.key, where), block.content)
            for entry, block in zip(meta_entries, layout.meta, strict=True)
        ),
        style=fmt.style,
    )


def read_cells_with_prefixes(data: bytes, where: str, prefixes: Sequence[bytes]) -> list[HFileCell]:
    """The cells whose key starts with one of ``prefixes``, in key order. Only the trailer, the
    index blocks on the way and the data blocks whose key range meets a prefix are read (each
    checked as :func:`read_hfile` checks it); the rest of the file is not decoded."""
    trailer = decode_trailer(data, where)
    _check_trailer(trailer, where)
    fmt = _Format.of(trailer)
    end = len(data) - TRAILER_SIZE
    root = fmt.block(data, trailer.load_on_open_offset, end, where)
    if root.kind is not BlockType.ROOT_INDEX:
        raise corrupt(where, "the trailer's load-on-open offset does not point at the root data index")

    def child(entry: IndexEntry, kind: BlockType, here: str) -> Block:
        block = fmt.block(data, entry.offset, end, here)
        return _checked_child(block, entry, kind, here)

    entries, _ = _walk_index(
        _root_entries(root, trailer, fmt.style, where), trailer.num_data_index_levels, child, where
    )
    rows = [_index_row(entry.key, where) for entry in entries]
    chosen: dict[int, list[bytes]] = {}
    for prefix in sorted(set(prefixes)):
        for index in _blocks_for_prefix(rows, prefix):
            chosen.setdefault(index, []).append(prefix)
    cells: list[HFileCell] = []
    for index in sorted(chosen):
        block = child(entries[index], BlockType.DATA, where)
        here = f"{where} (DATA block at offset {block.offset})"
        cells += cells_with_prefixes(block.content, here, tuple(chosen[index]))
    return cells


def read_file_info(data: bytes, where: str) -> list[tuple[bytes, bytes]]:
    """The file-info entries of the HFile ``data``, reading only the trailer and that block."""
    trailer = decode_trailer(data, where)
    _check_trailer(trailer, where)
    block = _Format.of(trailer).block(data, trailer.file_info_offset, len(data) - TRAILER_SIZE, where)
    if block.kind is not BlockType.FILE_INFO:
        raise corrupt(where, "the trailer's file-info offset does not point at the file-info block")
    return decode_file_info(block.content, f"{where} (file info)")


def _blocks_for_prefix(rows: list[bytes], prefix: bytes) -> range:
    """The data blocks whose rows can start with ``prefix``: block i holds the rows from its
    index row (its first row, or HBase's shorter fake key before it) up to the next block's."""
    if not rows:
        return range(0)
    first = max(bisect.bisect_right(rows, prefix) - 1, 0)
    last = first
    while last + 1 < len(rows) and (rows[last + 1].startswith(prefix) or rows[last + 1] < prefix):
        last += 1
    return range(first, last + 1)


def _index_row(key: bytes, where: str) -> bytes:
    """The row of a data index key: both writers start it with the row's length as a short
    (Hudi's writer then has just the row, HBase's a whole KeyValue key)."""
    if len(key) < USHORT.size:
        raise corrupt(where, f"a data index key of {len(key)} bytes has no row length")
    length: int = USHORT.unpack(key[: USHORT.size])[0]
    if USHORT.size + length > len(key):
        raise corrupt(where, "a data index key is shorter than its row length")
    return key[USHORT.size : USHORT.size + length]


def _check_trailer(trailer: Trailer, where: str) -> None:
    if trailer.comparator not in _COMPARATORS:
        raise corrupt(where, f"its comparator is {trailer.comparator!r}, not Hudi's {COMPARATOR_CLASS_NAME}")
    if trailer.compression_codec not in _CODECS:
        raise corrupt(
            where,
            f"its compression codec is {trailer.compression_codec}; only GZ ({GZ_CODEC}) and NONE "
            f"({NONE_CODEC}) are read",
        )
    if not 1 <= trailer.num_data_index_levels <= _MAX_INDEX_LEVELS:
        raise corrupt(where, f"its data index has {trailer.num_data_index_levels} levels")


def _root_entries(root: Block, trailer: Trailer, style: HFileStyle, where: str) -> list[IndexEntry]:
    """The root data index entries; a multi-level root ends with the mid-key metadata."""
    content = root.content
    if trailer.num_data_index_levels > 1:
        if len(content) < MID_KEY_METADATA_SIZE:
            raise corrupt(where, "the multi-level root data index has no mid-key metadata")
        content = content[:-MID_KEY_METADATA_SIZE]
    return decode_index(content, trailer.data_index_count, style, f"{where} (data index)")


def _walk_index(
    root: list[IndexEntry],
    levels: int,
    child: _ChildReader,
    where: str,
) -> tuple[list[IndexEntry], int]:
    """The leaf level of the data index below ``root`` (entries pointing at data blocks), and
    how many index blocks were read on the way."""
    entries, used = root, 0
    for below in range(levels - 1, 0, -1):
        kind = BlockType.LEAF_INDEX if below == 1 else BlockType.INTERMEDIATE_INDEX
        level: list[IndexEntry] = []
        for entry in entries:
            block = child(entry, kind, where)
            level += decode_non_root_index(
                block.content, f"{where} ({kind.name} block at offset {entry.offset})"
            )
            used += 1
        entries = level
    return entries, used


def _indexed_block(by_offset: dict[int, Block], entry: IndexEntry, kind: BlockType, where: str) -> Block:
    block = by_offset.get(entry.offset)
    if block is None:
        raise corrupt(where, f"the data index points at offset {entry.offset}, where no index block starts")
    return _checked_child(block, entry, kind, where)


def _checked_child(block: Block, entry: IndexEntry, kind: BlockType, where: str) -> Block:
    if block.kind is not kind or block.size != entry.size:
        raise corrupt(
            where,
            f"the data index expects a {kind.name} block of {entry.size} bytes at offset {entry.offset}, "
            f"the file has a {block.kind.name} block of {block.size}",
        )
    return block


def _read_blocks(data: bytes, fmt: _Format, where: str) -> list[Block]:
    end = len(data) - TRAILER_SIZE
    blocks: list[Block] = []
    offset = 0
    while offset < end:
        block = fmt.block(data, offset, end, where)
        blocks.append(block)
        offset += block.size
    return blocks


def _layout(blocks: list[Block], trailer: Trailer, where: str) -> _Layout:
    kinds = [block.kind for block in blocks]
    inline = _run_length(kinds, 0, (BlockType.DATA, BlockType.LEAF_INDEX))
    meta = _run_length(kinds, inline, (BlockType.META,))
    intermediate = _run_length(kinds, inline + meta, (BlockType.INTERMEDIATE_INDEX,))
    start = inline + meta + intermediate
    if kinds[start:] != [BlockType.ROOT_INDEX, BlockType.ROOT_INDEX, BlockType.FILE_INFO]:
        found = ", ".join(kind.name for kind in kinds)
        raise corrupt(
            where,
            f"its blocks are [{found}], not data (and leaf index), meta, intermediate index, "
            "two root indexes and file info",
        )
    data_index, meta_index, file_info = blocks[start:]
    if trailer.load_on_open_offset != data_index.offset or trailer.file_info_offset != file_info.offset:
        raise corrupt(where, "the trailer's load-on-open or file-info offset does not point at those blocks")
    data = [block for block in blocks[:inline] if block.kind is BlockType.DATA]
    first, last = (data[0].offset, data[-1].offset) if data else (-1, trailer.last_data_block_offset)
    if (trailer.first_data_block_offset, trailer.last_data_block_offset) != (first, last):
        raise corrupt(where, "the trailer's first or last data block offset does not match the data blocks")
    return _Layout(
        data=data,
        leaves=[block for block in blocks[:inline] if block.kind is BlockType.LEAF_INDEX],
        meta=blocks[inline : inline + meta],
        intermediates=blocks[inline + meta : start],
        data_index=data_index,
        meta_index=meta_index,
        file_info=file_info,
    )


def _run_length(kinds: list[BlockType], start: int, allowed: tuple[BlockType, ...]) -> int:
    count = 0
    while start + count < len(kinds) and kinds[start + count] in allowed:
        count += 1
    return count


def _check_index(entries: list[IndexEntry], blocks: list[Block], what: str, where: str) -> None:
    expected = [(block.offset, block.size) for block in blocks]
    if [(entry.offset, entry.size) for entry in entries] != expected:
        raise corrupt(where, f"the {what} index does not list the file's {len(blocks)} {what} blocks")


def _cells(blocks: list[Block], trailer: Trailer, where: str) -> tuple[HFileCell, ...]:
    cells: list[HFileCell] = []
    for block in blocks:
        cells += decode_cells(block.content, f"{where} (DATA block at offset {block.offset})")
    if len(cells) != trailer.entry_count:
        raise corrupt(where, f"it holds {len(cells)} cells, its trailer says {trailer.entry_count}")
    for index in range(1, len(cells)):
        if cells[index - 1].key >= cells[index].key:
            raise corrupt(
                where, f"cell {index}'s key {cells[index].key!r} does not sort after the one before"
            )
    return tuple(cells)


def _name(key: bytes, where: str) -> str:
    try:
        return key.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise corrupt(where, f"meta block name {key!r} is not UTF-8") from exc
