"""Read an HFile written by either of Hudi's writers into an :class:`HFile`.

The file is read block by block from offset 0 to the trailer, so every byte is accounted for:
data blocks, meta blocks, the root data index, the meta index and the file info, in that order
(the layout both writers produce). The trailer and the two indexes are then checked against the
blocks found, checksums are verified where the file has them, and the cells must be sorted.
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.hfile.binary import corrupt
from maintainer.hudi.hfile.blocks import Block, BlockType, read_block
from maintainer.hudi.hfile.cells import decode_cells
from maintainer.hudi.hfile.index import IndexEntry, decode_file_info, decode_index
from maintainer.hudi.hfile.model import COMPARATOR_CLASS_NAME, GZ_CODEC, HFile, HFileCell, HFileStyle
from maintainer.hudi.hfile.trailer import TRAILER_SIZE, Trailer, decode_trailer


@dataclass(frozen=True, slots=True)
class _Layout:
    data: list[Block]
    meta: list[Block]
    data_index: Block
    meta_index: Block
    file_info: Block


def read_hfile(data: bytes, where: str) -> HFile:
    """Decode the HFile ``data``; ``where`` names it (and the log block it came from) in errors."""
    trailer = decode_trailer(data, where)
    style = HFileStyle.HUDI if trailer.minor_version == 0 else HFileStyle.HBASE
    _check_trailer(trailer, where)
    layout = _layout(_read_blocks(data, style, where), trailer, where)
    data_entries = decode_index(
        layout.data_index.content, trailer.data_index_count, style, f"{where} (data index)"
    )
    _check_index(data_entries, layout.data, "data", where)
    meta_entries = decode_index(
        layout.meta_index.content, trailer.meta_index_count, style, f"{where} (meta index)"
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
        style=style,
    )


def _check_trailer(trailer: Trailer, where: str) -> None:
    if trailer.comparator != COMPARATOR_CLASS_NAME:
        raise corrupt(where, f"its comparator is {trailer.comparator!r}, not Hudi's {COMPARATOR_CLASS_NAME}")
    if trailer.compression_codec != GZ_CODEC:
        raise corrupt(
            where, f"its compression codec is {trailer.compression_codec}; only GZ ({GZ_CODEC}) is read"
        )
    if trailer.num_data_index_levels != 1:
        raise corrupt(where, f"its data index has {trailer.num_data_index_levels} levels; only 1 is read")


def _read_blocks(data: bytes, style: HFileStyle, where: str) -> list[Block]:
    end = len(data) - TRAILER_SIZE
    blocks: list[Block] = []
    offset = 0
    while offset < end:
        block = read_block(data, offset, end, style.checksum_type, where)
        blocks.append(block)
        offset += block.size
    return blocks


def _layout(blocks: list[Block], trailer: Trailer, where: str) -> _Layout:
    kinds = [block.kind for block in blocks]
    data_count = _run_length(kinds, 0, BlockType.DATA)
    meta_count = _run_length(kinds, data_count, BlockType.META)
    tail = kinds[data_count + meta_count :]
    if tail != [BlockType.ROOT_INDEX, BlockType.ROOT_INDEX, BlockType.FILE_INFO]:
        found = ", ".join(kind.name for kind in kinds)
        raise corrupt(where, f"its blocks are [{found}], not data, meta, two root indexes and file info")
    data_index, meta_index, file_info = blocks[data_count + meta_count :]
    if trailer.load_on_open_offset != data_index.offset or trailer.file_info_offset != file_info.offset:
        raise corrupt(where, "the trailer's load-on-open or file-info offset does not point at those blocks")
    data = blocks[:data_count]
    first, last = (data[0].offset, data[-1].offset) if data else (-1, trailer.last_data_block_offset)
    if (trailer.first_data_block_offset, trailer.last_data_block_offset) != (first, last):
        raise corrupt(where, "the trailer's first or last data block offset does not match the data blocks")
    return _Layout(data, blocks[data_count : data_count + meta_count], data_index, meta_index, file_info)


def _run_length(kinds: list[BlockType], start: int, kind: BlockType) -> int:
    count = 0
    while start + count < len(kinds) and kinds[start + count] is kind:
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
