"""Write an HFile byte for byte as Hudi 1.1's own writer or HBase's writer (Hudi 1.0) would.

Layout of both: data blocks, meta blocks, then the load-on-open section (root data index, meta
index, file info) and the trailer. The block-level differences between the styles are in
:mod:`maintainer.hudi.hfile.styles`; the ones decided while writing are here:

* previous-block offsets: HBase links each block to the last block of the same type
  (``HFileBlock.Writer.prevOffsetByType``). Hudi writes -1 everywhere except in the second and
  later data blocks, which get their own offset (``flushCurrentDataBlock`` creates the next
  block with the offset after the block just written).
* trailer field 3: HBase the root data index's uncompressed size, Hudi the data blocks'
  uncompressed size. Field 4 (HBase only): uncompressed sizes with headers of every block but
  the root data index, plus the trailer (``finishClose``). Empty file: last data block offset
  -1 (HBase) or 0 (Hudi).
* HBase turns to a multi-level data index once the index outgrows ``index_chunk_size``
  (``hfile.index.block.max.size``, 128 KiB; ``HFileBlockIndex.BlockIndexWriter``): after a data
  block, once the pending index entries reach that size in the non-root format, they are
  written as a leaf index block, inline (``shouldWriteBlock``), and the root indexes the leaf
  blocks. At close a last leaf block takes the remaining entries (none was written before: the
  entries form a single-level root), and while the root outgrows the chunk size (and has more
  than 16 entries) a level of intermediate index blocks is written in front of it
  (``writeIntermediateLevel``). A multi-level root ends with the mid-key metadata. Hudi's own
  writer always writes a single-level root index.
"""

from __future__ import annotations

import bisect
import struct
import time
from collections.abc import Mapping, Sequence

from maintainer.hudi.hfile.binary import encode_hadoop_vint
from maintainer.hudi.hfile.blocks import HEADER_SIZE, BlockType, encode_block
from maintainer.hudi.hfile.cells import MAX_ROW_LENGTH, encode_cells
from maintainer.hudi.hfile.index import IndexEntry, encode_file_info, encode_index, encode_non_root_index
from maintainer.hudi.hfile.model import (
    COMPARATOR_CLASS_NAME,
    COMPUTED_FILE_INFO_KEYS,
    CREATE_TIME_TS,
    GZ_CODEC,
    HFileCell,
    HFileStyle,
)
from maintainer.hudi.hfile.styles import (
    LONG,
    check_user_file_info,
    file_info_entries,
    index_key,
    meta_block_order,
    split_into_blocks,
)
from maintainer.hudi.hfile.trailer import TRAILER_SIZE, Trailer, encode_trailer

DEFAULT_BLOCK_SIZE = 1024 * 1024  # hoodie.hfile.block.size; HoodieHFileDataBlock's block size
HBASE_MAX_INDEX_CHUNK = 128 * 1024  # HFileBlockIndex.DEFAULT_MAX_CHUNK_SIZE
HBASE_MIN_INDEX_ENTRIES = 16  # HFileBlockIndex.DEFAULT_MIN_INDEX_NUM_ENTRIES
_MAX_LEVELS = 16
_NO_OFFSET = -1
_MID_KEY = struct.Struct(">qii")


class _Output:
    """The file being written: its blocks so far and what the trailer needs to know of them."""

    def __init__(self, style: HFileStyle, index_chunk_size: int, index_min_entries: int) -> None:
        self.style = style
        self.index_chunk_size = index_chunk_size
        self.index_min_entries = index_min_entries
        self.leaf_chunk: list[IndexEntry] = []  # data index entries not yet in a leaf block
        self.root_chunk: list[IndexEntry] = []  # the leaf blocks, once there is one
        self.entries_at: list[int] = []  # data blocks indexed up to each root entry (mid-key)
        self.levels = 1
        self.index_bytes = 0  # HBase's totalBlockUncompressedSize of the data index
        self.chunks: list[bytes] = []
        self.offset = 0
        self.last_of_type: dict[BlockType, int] = {}
        self.counted_bytes = 0  # HBase's totalUncompressedBytes, before the trailer
        self.data_bytes = 0  # Hudi's trailer field 3
        self.data_entries: list[IndexEntry] = []
        self.meta_entries: list[IndexEntry] = []
        self.load_on_open_offset = 0
        self.file_info_offset = 0

    def write(self, kind: BlockType, content: bytes, *, counted: bool = True) -> int:
        """Append a block; returns its on-disk size."""
        block = encode_block(kind, content, self._prev_offset(kind), self.style.checksum_type)
        self.last_of_type[kind] = self.offset
        self.chunks.append(block)
        self.offset += len(block)
        if counted:
            self.counted_bytes += HEADER_SIZE + len(content)
        return len(block)

    def _prev_offset(self, kind: BlockType) -> int:
        previous = self.last_of_type.get(kind, _NO_OFFSET)
        if self.style is HFileStyle.HBASE:
            return previous
        return self.offset if kind is BlockType.DATA and previous != _NO_OFFSET else _NO_OFFSET

    def trailer(self, entry_count: int) -> Trailer:
        hbase = self.style is HFileStyle.HBASE
        data = self.data_entries
        return Trailer(
            file_info_offset=self.file_info_offset,
            load_on_open_offset=self.load_on_open_offset,
            uncompressed_data_index_size=self.index_bytes if hbase else self.data_bytes,
            total_uncompressed_bytes=self.counted_bytes + TRAILER_SIZE if hbase else None,
            data_index_count=len(self.root_chunk) if self.levels > 1 else len(data),
            meta_index_count=len(self.meta_entries),
            entry_count=entry_count,
            num_data_index_levels=self.levels,
            first_data_block_offset=data[0].offset if data else _NO_OFFSET,
            last_data_block_offset=data[-1].offset if data else (_NO_OFFSET if hbase else 0),
            comparator=COMPARATOR_CLASS_NAME,
            compression_codec=GZ_CODEC,
            minor_version=self.style.minor_version,
        )


def write_hfile(
    cells: Sequence[HFileCell],
    *,
    style: HFileStyle,
    file_info: Mapping[bytes, bytes] | None = None,
    meta_blocks: Sequence[tuple[str, bytes]] = (),
    block_size: int = DEFAULT_BLOCK_SIZE,
    index_chunk_size: int = HBASE_MAX_INDEX_CHUNK,
    index_min_entries: int = HBASE_MIN_INDEX_ENTRIES,
) -> bytes:
    """The bytes of an HFile holding ``cells``, written as ``style``'s writer would.

    ``cells`` must be sorted by key with no key twice (``ValueError`` otherwise). ``file_info``
    holds the caller's entries (``schema``, ``minRecordKey``, ...); the writer adds the ones it
    derives from the cells (``hfile.LASTKEY``, averages, ``MAX_MEMSTORE_TS_KEY``,
    ``KEY_VALUE_VERSION``). ``hfile.CREATE_TIME_TS`` may be given (8 bytes, milliseconds); without
    it HBASE writes 0, as Hudi 1.0 does, and HUDI the current time, as Hudi 1.1 does.

    Order: HBASE sorts file info and meta blocks by name. HUDI puts them into Java ``HashMap``s
    in the given order, which decides the order only between names sharing a bucket; passing
    :meth:`HFile.user_file_info` and :attr:`HFile.meta_blocks` of a read file reproduces it.
    ``block_size`` is ``hoodie.hfile.block.size`` (1 MiB, also the log blocks' size).
    ``index_chunk_size``, ``index_min_entries``: HBASE's ``hfile.index.block.max.size``, past
    which its data index has more than one level, and ``hfile.index.block.min.entries``, the
    fewest entries of an intermediate index block but the last (HUDI writes one level whatever
    the size).
    """
    user = dict(file_info or {})
    create_time = user.pop(CREATE_TIME_TS, None) or _default_create_time(style)
    _check_inputs(cells, style, user, create_time, meta_blocks)
    out = _Output(style, index_chunk_size, index_min_entries)
    _write_data_blocks(out, split_into_blocks(cells, style, block_size))
    for name, content in meta_block_order(style, meta_blocks):
        offset = out.offset
        out.meta_entries.append(IndexEntry(offset, out.write(BlockType.META, content), name.encode()))
    _write_data_index(out)
    out.write(BlockType.ROOT_INDEX, encode_index(out.meta_entries, style))
    out.file_info_offset = out.offset
    out.write(BlockType.FILE_INFO, encode_file_info(file_info_entries(style, cells, user, create_time)))
    return b"".join(out.chunks) + encode_trailer(out.trailer(len(cells)))


def _write_data_blocks(out: _Output, groups: list[list[HFileCell]]) -> None:
    previous: HFileCell | None = None
    for number, group in enumerate(groups):
        offset = out.offset
        content = encode_cells(group)
        size = out.write(BlockType.DATA, content)
        out.data_bytes += len(content)
        entry = IndexEntry(offset, size, index_key(out.style, previous, group[0]))
        out.data_entries.append(entry)
        previous = group[-1]
        if out.style is HFileStyle.HBASE:
            out.leaf_chunk.append(entry)
            if number == len(groups) - 1:  # closing: a leaf for the rest, unless there is none yet
                if out.root_chunk:
                    _write_leaf_block(out)
            elif _non_root_size(out.leaf_chunk) >= out.index_chunk_size:
                _write_leaf_block(out)


def _write_leaf_block(out: _Output) -> None:
    """The pending data index entries as an inline leaf index block, indexed by the root."""
    offset = out.offset
    content = encode_non_root_index(out.leaf_chunk)
    size = out.write(BlockType.LEAF_INDEX, content)
    out.index_bytes += len(content)
    out.root_chunk.append(IndexEntry(offset, size, out.leaf_chunk[0].key))
    out.entries_at.append(len(out.data_entries))
    out.leaf_chunk = []
    out.levels = 2


def _write_data_index(out: _Output) -> None:
    """The intermediate levels a multi-level index needs, then the root data index."""
    if out.levels == 1:
        out.load_on_open_offset = out.offset
        root = encode_index(out.data_entries, out.style)
        out.index_bytes += len(root)
        out.write(BlockType.ROOT_INDEX, root, counted=False)
        return
    mid_key = _mid_key_metadata(out.root_chunk, out.entries_at)
    level = out.root_chunk
    while (
        _root_size(level) > out.index_chunk_size
        and len(level) > out.index_min_entries
        and out.levels < _MAX_LEVELS
    ):
        level = _write_intermediate_level(out, level)
        out.levels += 1
    out.root_chunk = level
    out.load_on_open_offset = out.offset
    root = encode_index(level, out.style) + mid_key
    out.index_bytes += len(root)
    out.write(BlockType.ROOT_INDEX, root, counted=False)


def _write_intermediate_level(out: _Output, level: list[IndexEntry]) -> list[IndexEntry]:
    """``writeIntermediateLevel``: ``level`` cut into intermediate index blocks; their entries."""
    parent: list[IndexEntry] = []
    chunk: list[IndexEntry] = []
    for number, entry in enumerate(level):
        chunk.append(entry)
        if number >= out.index_min_entries and _root_size(chunk) >= out.index_chunk_size:
            parent.append(_write_intermediate_block(out, chunk))
            chunk = []
    if chunk:
        parent.append(_write_intermediate_block(out, chunk))
    return parent


def _write_intermediate_block(out: _Output, chunk: list[IndexEntry]) -> IndexEntry:
    offset = out.offset
    content = encode_non_root_index(chunk)
    size = out.write(BlockType.INTERMEDIATE_INDEX, content, counted=False)
    out.index_bytes += len(content)
    return IndexEntry(offset, size, chunk[0].key)


def _mid_key_metadata(root: list[IndexEntry], entries_at: list[int]) -> bytes:
    """``BlockIndexChunk.getMidKeyMetadata``: the leaf block holding the middle data block's
    entry (its offset and on-disk size) and that entry's place in it."""
    middle = (entries_at[-1] - 1) // 2
    found = bisect.bisect_left(entries_at, middle)
    leaf = found + 1 if found < len(entries_at) and entries_at[found] == middle else found
    before = entries_at[leaf - 1] if leaf > 0 else 0
    return _MID_KEY.pack(root[leaf].offset, root[leaf].size, middle - before)


def _non_root_size(entries: list[IndexEntry]) -> int:
    """``BlockIndexChunk.getNonRootSize``."""
    return 4 + 4 * (len(entries) + 1) + sum(12 + len(entry.key) for entry in entries)


def _root_size(entries: list[IndexEntry]) -> int:
    """``BlockIndexChunk.getRootSize``."""
    return sum(12 + len(encode_hadoop_vint(len(entry.key))) + len(entry.key) for entry in entries)


def _check_inputs(
    cells: Sequence[HFileCell],
    style: HFileStyle,
    user: Mapping[bytes, bytes],
    create_time: bytes,
    meta_blocks: Sequence[tuple[str, bytes]],
) -> None:
    for index in range(1, len(cells)):
        if cells[index - 1].key >= cells[index].key:
            raise ValueError(f"cell {index}'s key {cells[index].key!r} does not sort after the one before")
    too_long = [cell.key for cell in cells if len(cell.key) > MAX_ROW_LENGTH]
    if too_long:
        raise ValueError(f"key {too_long[0][:40]!r}... is longer than {MAX_ROW_LENGTH} bytes")
    computed = sorted(COMPUTED_FILE_INFO_KEYS & set(user))
    if computed:
        raise ValueError(f"file-info entries {computed} are computed by the writer")
    check_user_file_info(style, list(user))
    if len(create_time) != LONG.size:
        raise ValueError(f"hfile.CREATE_TIME_TS must be 8 bytes, not {len(create_time)}")
    names = [name for name, _ in meta_blocks]
    if style is HFileStyle.HUDI and len(set(names)) != len(names):
        raise ValueError(f"meta block names {names} repeat; Hudi's writer keeps one block per name")


def _default_create_time(style: HFileStyle) -> bytes:
    return LONG.pack(0 if style is HFileStyle.HBASE else time.time_ns() // 1_000_000)
