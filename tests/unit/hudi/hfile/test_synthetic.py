"""Write then read generated HFiles in both styles: any cells, several data blocks, no cells at all."""

from __future__ import annotations

import struct
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.hfile import DEFAULT_BLOCK_SIZE, HFileCell, HFileStyle, read_hfile, write_hfile
from maintainer.hudi.hfile.blocks import BlockType, read_block
from maintainer.hudi.hfile.cells import MAXIMUM_TYPE, kv_key
from maintainer.hudi.hfile.index import decode_index
from maintainer.hudi.hfile.model import COMPUTED_FILE_INFO_KEYS, CREATE_TIME_TS
from maintainer.hudi.hfile.trailer import TRAILER_SIZE, decode_trailer

CREATED = struct.pack(">q", 1_772_900_000_000)


def _cells(keys: list[bytes], values: list[bytes]) -> list[HFileCell]:
    return [HFileCell(key, value) for key, value in zip(sorted(keys), values, strict=False)]


cells_strategy = st.lists(st.binary(max_size=24), unique=True, max_size=60).flatmap(
    lambda keys: st.lists(st.binary(max_size=300), min_size=len(keys), max_size=len(keys)).map(
        lambda values: _cells(keys, values)
    )
)
info_names = st.text(min_size=1, max_size=20).map(str.encode)
info_strategy = st.dictionaries(
    info_names.filter(lambda name: not name.startswith(b"hfile.") and name not in COMPUTED_FILE_INFO_KEYS),
    st.binary(max_size=40),
    max_size=12,
)
meta_strategy = st.dictionaries(st.text(max_size=12), st.binary(max_size=200), max_size=4).map(
    lambda blocks: list(blocks.items())
)


@settings(max_examples=60, deadline=None)
@given(
    cells=cells_strategy,
    info=info_strategy,
    meta=meta_strategy,
    style=st.sampled_from(HFileStyle),
    block_size=st.sampled_from([1, 64, 700, DEFAULT_BLOCK_SIZE]),
)
def test_written_hfiles_read_back_and_rewrite_identically(
    cells: list[HFileCell],
    info: dict[bytes, bytes],
    meta: list[tuple[str, bytes]],
    style: HFileStyle,
    block_size: int,
) -> None:
    file_info = {**info, CREATE_TIME_TS: CREATED}
    data = write_hfile(cells, style=style, file_info=file_info, meta_blocks=meta, block_size=block_size)
    hfile = read_hfile(data, "generated")
    assert hfile.style is style
    assert hfile.cells == tuple(cells)
    assert hfile.user_file_info() == file_info
    assert sorted(hfile.meta_blocks) == sorted(meta)
    assert all(hfile.get(cell.key) == cell.value for cell in cells)
    rewritten = write_hfile(
        hfile.cells,
        style=style,
        file_info=hfile.user_file_info(),
        meta_blocks=hfile.meta_blocks,
        block_size=block_size,
    )
    assert rewritten == data


def _data_blocks(data: bytes, style: HFileStyle) -> list[tuple[int, int]]:
    """(offset, previous-block offset) of each data block."""
    blocks, offset = [], 0
    while offset < len(data) - TRAILER_SIZE:
        block = read_block(data, offset, len(data) - TRAILER_SIZE, style.checksum_type, "test")
        if block.kind is BlockType.DATA:
            blocks.append((block.offset, block.prev_offset))
        offset += block.size
    return blocks


@pytest.mark.parametrize("style", list(HFileStyle))
def test_more_than_a_block_of_cells_spans_several_data_blocks(style: HFileStyle) -> None:
    cells = [HFileCell(f"record-{n:05d}".encode(), f"{n:07d}".encode() * 140) for n in range(2500)]
    data = write_hfile(cells, style=style, file_info={CREATE_TIME_TS: CREATED})
    hfile = read_hfile(data, "generated")
    assert hfile.cells == tuple(cells)
    assert hfile.get(b"record-01234") == cells[1234].value
    trailer = decode_trailer(data, "generated")
    blocks = _data_blocks(data, style)
    assert trailer.data_index_count == len(blocks) == 3
    if style is HFileStyle.HBASE:
        assert [prev for _, prev in blocks] == [-1, blocks[0][0], blocks[1][0]]
    else:
        assert [prev for _, prev in blocks] == [-1, blocks[1][0], blocks[2][0]]


def test_hbase_index_keys_after_the_first_block_are_midpoints() -> None:
    cells = [HFileCell(f"k{n:03d}".encode(), bytes(500)) for n in range(100)]
    data = write_hfile(cells, style=HFileStyle.HBASE, block_size=2000)
    trailer = decode_trailer(data, "generated")
    index = read_block(data, trailer.load_on_open_offset, len(data), 2, "generated")
    entries = decode_index(index.content, trailer.data_index_count, HFileStyle.HBASE, "generated")
    assert entries[0].key == kv_key(b"k000")
    # blocks of four 525-byte cells: block 2 starts at k004, after k003 -> first-on-row "k004"
    assert entries[1].key == kv_key(b"k004", MAXIMUM_TYPE)


@pytest.mark.parametrize("style", list(HFileStyle))
def test_an_hfile_without_cells(style: HFileStyle) -> None:
    data = write_hfile([], style=style, file_info={b"schema": b"{}"}, meta_blocks=[("bloomFilter", b"")])
    hfile = read_hfile(data, "generated")
    assert hfile.cells == ()
    assert hfile.get(b"") is None
    trailer = decode_trailer(data, "generated")
    assert trailer.first_data_block_offset == -1
    assert trailer.last_data_block_offset == (0 if style is HFileStyle.HUDI else -1)
    info = dict(hfile.file_info)
    assert info.get(b"hfile.LASTKEY") == (b"" if style is HFileStyle.HUDI else None)
    assert info[b"hfile.AVG_KEY_LEN"] == bytes(4)


def test_the_creation_time_defaults_to_now_for_hudi_and_zero_for_hbase() -> None:
    before = int(time.time() * 1000)
    hudi = dict(read_hfile(write_hfile([], style=HFileStyle.HUDI), "t").file_info)[CREATE_TIME_TS]
    assert before <= struct.unpack(">q", hudi)[0] <= int(time.time() * 1000)
    hbase = dict(read_hfile(write_hfile([], style=HFileStyle.HBASE), "t").file_info)[CREATE_TIME_TS]
    assert hbase == bytes(8)


def test_average_lengths_follow_each_writer() -> None:
    cells = [HFileCell(b"ab", b"12345"), HFileCell(b"abcd", b"1")]
    hudi = dict(read_hfile(write_hfile(cells, style=HFileStyle.HUDI), "t").file_info)
    hbase = dict(read_hfile(write_hfile(cells, style=HFileStyle.HBASE), "t").file_info)
    assert hudi[b"hfile.AVG_KEY_LEN"] == struct.pack(">i", 3)  # record keys
    assert hbase[b"hfile.AVG_KEY_LEN"] == struct.pack(">i", 15)  # whole KeyValue keys
    assert hudi[b"hfile.AVG_VALUE_LEN"] == hbase[b"hfile.AVG_VALUE_LEN"] == struct.pack(">i", 3)
    assert hudi[b"hfile.LASTKEY"] == b"\x00\x04abcd"
    assert hbase[b"hfile.LASTKEY"] == kv_key(b"abcd")
