"""HFiles of many data blocks and multi-level data indexes (HBase's leaf and intermediate
index blocks), with the settings of the Hudi-written HFiles in apache/hudi-rs's test data
(``crates/core/tests/data/hfile``: 1 KB and 16 KB blocks, large keys, a deep index): written
by our writer and read back whole and by key prefix. With ``MAINTAINER_HUDI_RS_HFILES``
pointing at a folder holding those files, each is also read and rewritten byte for byte."""

from __future__ import annotations

import os
import re
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError
from maintainer.hudi.hfile import HFileCell, HFileStyle, read_hfile, write_hfile
from maintainer.hudi.hfile.blocks import BlockType, read_block
from maintainer.hudi.hfile.cells import cells_with_prefixes, encode_cells
from maintainer.hudi.hfile.model import CREATE_TIME_TS, GZ_CODEC, HFile
from maintainer.hudi.hfile.reader import read_cells_with_prefixes
from maintainer.hudi.hfile.trailer import TRAILER_SIZE, decode_trailer, encode_trailer

HUDI_RS_ENV = "MAINTAINER_HUDI_RS_HFILES"
CREATED = struct.pack(">q", 1_772_900_000_000)
LARGE_KEY_PAD = "a" * 100


def _large_key_cells(count: int) -> list[HFileCell]:
    """Keys of 119 bytes and values of 20, as in hudi-rs's ``large_keys`` files."""
    return [
        HFileCell(f"hudi-key-{LARGE_KEY_PAD}{n:010d}".encode(), f"hudi-value-{n:09d}".encode())
        for n in range(count)
    ]


def _kinds(data: bytes, style: HFileStyle) -> list[BlockType]:
    kinds, offset, end = [], 0, len(data) - TRAILER_SIZE
    while offset < end:
        block = read_block(data, offset, end, style.checksum_type, "test")
        kinds.append(block.kind)
        offset += block.size
    return kinds


def _rewrite(hfile: HFile, **sizes: int) -> bytes:
    return write_hfile(
        hfile.cells,
        style=hfile.style,
        file_info=hfile.user_file_info(),
        meta_blocks=hfile.meta_blocks,
        **sizes,
    )


@pytest.mark.parametrize(
    ("chunk", "min_entries", "levels"),
    [(128 * 1024, 16, 2), (2048, 2, 3)],
    ids=["large-keys-two-levels", "deep-index-three-levels"],
)
def test_hbase_multi_level_indexes_read_back_whole_and_by_prefix(
    chunk: int, min_entries: int, levels: int
) -> None:
    cells = _large_key_cells(20_000 if levels == 2 else 3_000)
    meta = [("bloomFilter", b"\x00" * 64)]
    data = write_hfile(
        cells,
        style=HFileStyle.HBASE,
        file_info={CREATE_TIME_TS: CREATED},
        meta_blocks=meta,
        block_size=1024,
        index_chunk_size=chunk,
        index_min_entries=min_entries,
    )
    trailer = decode_trailer(data, "generated")
    assert trailer.num_data_index_levels == levels
    kinds = _kinds(data, HFileStyle.HBASE)
    assert kinds.count(BlockType.LEAF_INDEX) > 1
    assert (BlockType.INTERMEDIATE_INDEX in kinds) == (levels == 3)
    hfile = read_hfile(data, "generated")
    assert hfile.cells == tuple(cells)
    assert hfile.meta_blocks == tuple(meta)
    assert _rewrite(hfile, block_size=1024, index_chunk_size=chunk, index_min_entries=min_entries) == data
    for key in (cells[0].key, cells[len(cells) // 2].key, cells[-1].key):
        for prefix in (key, key[:-1], key[:-3], b"hudi-key-", b"zz", b""):
            expected = [cell for cell in cells if cell.key.startswith(prefix)]
            assert read_cells_with_prefixes(data, "generated", [prefix]) == expected, prefix


@pytest.mark.parametrize("style", list(HFileStyle))
def test_many_16kb_blocks_read_back_in_both_styles(style: HFileStyle) -> None:
    cells = [HFileCell(f"hudi-key-{n:09d}".encode(), f"hudi-value-{n:09d}".encode()) for n in range(20_000)]
    data = write_hfile(cells, style=style, file_info={CREATE_TIME_TS: CREATED}, block_size=16 * 1024)
    trailer = decode_trailer(data, "generated")
    assert trailer.num_data_index_levels == 1 and trailer.data_index_count > 40
    assert read_hfile(data, "generated").cells == tuple(cells)
    wanted = [b"hudi-key-00001", b"hudi-key-000019999", b"hudi-key-0000000"]
    assert read_cells_with_prefixes(data, "generated", wanted) == [
        cell for cell in cells if cell.key.startswith(tuple(wanted))
    ]


_BYTES = st.sampled_from([b"a", b"b", b"\x00", b"\xff"])
keys_strategy = st.lists(st.lists(_BYTES, min_size=1, max_size=12).map(b"".join), unique=True, max_size=120)


@settings(max_examples=80, deadline=None)
@given(
    keys=keys_strategy,
    prefixes=st.lists(st.lists(_BYTES, max_size=4).map(b"".join), min_size=1, max_size=4),
    style=st.sampled_from(HFileStyle),
    block_size=st.sampled_from([1, 40, 200]),
    chunk=st.sampled_from([64, 300, 128 * 1024]),
)
def test_a_prefix_read_is_the_cells_a_filter_keeps(
    keys: list[bytes], prefixes: list[bytes], style: HFileStyle, block_size: int, chunk: int
) -> None:
    cells = [HFileCell(key, key * 3) for key in sorted(keys)]
    data = write_hfile(cells, style=style, block_size=block_size, index_chunk_size=chunk, index_min_entries=2)
    assert read_hfile(data, "generated").cells == tuple(cells)
    expected = [cell for cell in cells if cell.key.startswith(tuple(prefixes))]
    assert read_cells_with_prefixes(data, "generated", prefixes) == expected


def test_a_damaged_data_block_a_prefix_read_needs_is_named() -> None:
    cells = _large_key_cells(400)
    data = bytearray(write_hfile(cells, style=HFileStyle.HBASE, block_size=1024))
    start = data.index(b"DATABLK*", 5000)
    data[start + 60 : start + 64] = b"\xff\xff\xff\xff"
    with pytest.raises(CorruptFileError, match=f"DATA block at offset {start}"):
        read_cells_with_prefixes(bytes(data), "damaged", [b"hudi-key-"])


# hudi-rs's test HFiles: the writer settings that reproduce each (block size from the name; the
# deep index is written with a 2 KB index chunk and fewer than 16 entries an intermediate block).
HUDI_RS_SETTINGS = {"deep_index": {"index_chunk_size": 2048, "index_min_entries": 2}}


def _hudi_rs_files() -> list[Path]:
    folder = os.environ.get(HUDI_RS_ENV)
    return sorted(Path(folder).glob("*.hfile")) if folder else []


@pytest.mark.skipif(not _hudi_rs_files(), reason=f"set {HUDI_RS_ENV} to apache/hudi-rs's test HFiles")
@pytest.mark.parametrize("path", _hudi_rs_files(), ids=lambda path: path.name)
def test_hudi_rs_hfiles_read_and_rewrite_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    if "non_unique" in path.name:  # a metadata table never repeats a key; its reader refuses that
        with pytest.raises(CorruptFileError, match="does not sort after"):
            read_hfile(data, path.name)
        return
    hfile = read_hfile(data, path.name)
    count = re.search(r"_(?:GZ|NONE)_(\d+)", path.name)
    assert len(hfile.cells) == (int(count.group(1)) if count else 0)
    theirs = decode_trailer(data, path.name)
    if theirs.compression_codec != GZ_CODEC:
        return  # our writer writes GZ only
    block_kb = re.search(r"_(\d+)KB_", path.name)
    sizes = {"block_size": int(block_kb.group(1)) * 1024} if block_kb else {}
    sizes |= next((v for k, v in HUDI_RS_SETTINGS.items() if k in path.name), {})
    ours = _rewrite(hfile, **sizes)
    assert ours[:-TRAILER_SIZE] == data[:-TRAILER_SIZE]
    ours_trailer = decode_trailer(ours, "ours")  # the same but for the comparator's class name
    assert ours_trailer == replace(theirs, comparator=ours_trailer.comparator)


@pytest.mark.parametrize(
    ("levels", "error"),
    [
        (3, "expects a INTERMEDIATE_INDEX block"),  # the root's children are leaf blocks
        (1, "bytes after its"),  # the root's mid-key metadata is not an entry
    ],
)
def test_a_trailer_that_misstates_the_index_depth_is_corrupt(levels: int, error: str) -> None:
    data = write_hfile(_large_key_cells(300), style=HFileStyle.HBASE, block_size=1024, index_chunk_size=2048)
    trailer = decode_trailer(data, "generated")
    assert trailer.num_data_index_levels == 2
    forged = data[:-TRAILER_SIZE] + encode_trailer(replace(trailer, num_data_index_levels=levels))
    with pytest.raises(CorruptFileError, match=error):
        read_hfile(forged, "forged")
    with pytest.raises(CorruptFileError, match=error):
        read_cells_with_prefixes(forged, "forged", [b"hudi-key-"])


def test_a_prefix_read_of_a_block_cut_short_is_corrupt() -> None:
    cells = [HFileCell(f"k{n:03d}".encode(), b"v" * 20) for n in range(10)]
    content = encode_cells(cells)
    assert cells_with_prefixes(content, "block", (b"k00",)) == cells[:10]
    with pytest.raises(CorruptFileError, match="runs past the end"):
        cells_with_prefixes(content[:-5], "block", (b"k009",))
