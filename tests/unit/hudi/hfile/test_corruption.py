"""Damaged or foreign bytes raise CorruptFileError naming the file and what is wrong; bad input to
the writer raises ValueError."""

from __future__ import annotations

import struct

import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi.hfile import HFileCell, HFileStyle, read_hfile, write_hfile
from maintainer.hudi.hfile.blocks import HEADER_SIZE
from maintainer.hudi.hfile.trailer import TRAILER_SIZE

WHERE = "tables/t/.hoodie/metadata/files/.files-0000-0_20260101.log.1_0-1-2 block 1"
CELLS = [HFileCell(f"key-{n:04d}".encode(), bytes([n % 251]) * (n % 97)) for n in range(300)]
INFO = {b"schema": b'{"type":"record"}', b"hfile.CREATE_TIME_TS": bytes(8)}


def _file(style: HFileStyle, block_size: int = 4096) -> bytes:
    return write_hfile(
        CELLS, style=style, file_info=INFO, meta_blocks=[("bloomFilter", b"bits")], block_size=block_size
    )


def _flipped(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0x01]) + data[position + 1 :]


def _read_error(data: bytes) -> str:
    with pytest.raises(CorruptFileError) as caught:
        read_hfile(data, WHERE)
    assert caught.value.where is not None
    assert caught.value.where.startswith(WHERE)
    assert "written by something other than Hudi" in str(caught.value)
    return str(caught.value)


def test_the_samples_read_back() -> None:
    for style in HFileStyle:
        assert read_hfile(_file(style), WHERE).cells == tuple(CELLS)


@pytest.mark.parametrize("position", [HEADER_SIZE + 20, 12, 20, 30])
def test_a_flipped_byte_in_a_checksummed_block_is_caught(position: int) -> None:
    message = _read_error(_flipped(_file(HFileStyle.HBASE), position))
    assert "DATA block at offset 0" in message


def test_a_flipped_checksum_byte_is_caught() -> None:
    data = _file(HFileStyle.HBASE)
    data_size = struct.unpack(">i", data[29:33])[0]
    assert "CRC32C checksum does not match" in _read_error(_flipped(data, data_size))


def test_a_flipped_byte_in_hudi_compressed_data_is_caught() -> None:
    _read_error(_flipped(_file(HFileStyle.HUDI), HEADER_SIZE + 40))


@pytest.mark.parametrize("style", list(HFileStyle))
@pytest.mark.parametrize("keep", [0, 100, TRAILER_SIZE - 1, TRAILER_SIZE + 50, -1, -TRAILER_SIZE - 3])
def test_a_truncated_file_is_corrupt(style: HFileStyle, keep: int) -> None:
    _read_error(_file(style)[:keep])


@pytest.mark.parametrize("style", list(HFileStyle))
def test_a_wrong_block_magic_is_corrupt(style: HFileStyle) -> None:
    data = _file(style)
    assert "no HFile block magic at offset 0" in _read_error(b"DATABLK!" + data[8:])


def test_a_block_hbase_writes_but_hudi_never_does_is_named() -> None:
    data = _file(HFileStyle.HUDI)
    assert "an encoded data block" in _read_error(b"DATABLKE" + data[8:])


def test_a_leaf_index_block_where_the_index_expects_a_data_block_is_corrupt() -> None:
    data = _file(HFileStyle.HUDI)
    assert "data block offset does not match" in _read_error(b"IDXLEAF2" + data[8:])


@pytest.mark.parametrize("style", list(HFileStyle))
def test_a_wrong_trailer_magic_is_corrupt(style: HFileStyle) -> None:
    data = bytearray(_file(style))
    data[-TRAILER_SIZE] = ord("X")
    assert "trailer magic" in _read_error(bytes(data))


def test_an_unknown_version_is_corrupt() -> None:
    data = _file(HFileStyle.HUDI)
    assert "version 2.0" in _read_error(data[:-4] + struct.pack(">i", 2))
    assert "version 3.1" in _read_error(data[:-4] + struct.pack(">i", 1 << 24 | 3))


def test_a_checksum_type_that_disagrees_with_the_version_is_corrupt() -> None:
    data = _file(HFileStyle.HUDI)
    assert "checksum type" in _read_error(data[:-4] + struct.pack(">i", 3 << 24 | 3))


def test_a_wrong_entry_count_is_corrupt() -> None:
    data = write_hfile(CELLS[:4], style=HFileStyle.HUDI, file_info=INFO)
    tail = bytearray(data[-TRAILER_SIZE:])
    position = tail.index(b"\x38\x04")  # entry_count (field 7) = 4
    tail[position + 1] = 3
    assert "holds 4 cells, its trailer says 3" in _read_error(data[:-TRAILER_SIZE] + bytes(tail))


@pytest.mark.parametrize("style", list(HFileStyle))
def test_unsorted_or_repeated_keys_are_refused(style: HFileStyle) -> None:
    with pytest.raises(ValueError, match="does not sort after"):
        write_hfile([HFileCell(b"b", b""), HFileCell(b"a", b"")], style=style)
    with pytest.raises(ValueError, match="does not sort after"):
        write_hfile([HFileCell(b"a", b"1"), HFileCell(b"a", b"2")], style=style)


@pytest.mark.parametrize("style", list(HFileStyle))
def test_file_info_the_writer_computes_is_refused(style: HFileStyle) -> None:
    with pytest.raises(ValueError, match="computed by the writer"):
        write_hfile(CELLS, style=style, file_info={b"hfile.LASTKEY": b"x"})
    with pytest.raises(ValueError, match="8 bytes"):
        write_hfile(CELLS, style=style, file_info={b"hfile.CREATE_TIME_TS": b"x"})
    with pytest.raises(ValueError, match="longer than"):
        write_hfile([HFileCell(b"k" * 40000, b"")], style=style)


def test_style_specific_input_rules() -> None:
    with pytest.raises(ValueError, match=r"reserves the hfile\. prefix"):
        write_hfile(CELLS, style=HFileStyle.HBASE, file_info={b"hfile.mine": b""})
    with pytest.raises(ValueError, match="not UTF-8"):
        write_hfile(CELLS, style=HFileStyle.HUDI, file_info={b"\xff": b""})
    with pytest.raises(ValueError, match="repeat"):
        write_hfile(CELLS, style=HFileStyle.HUDI, meta_blocks=[("a", b""), ("a", b"")])
    repeated = write_hfile(CELLS, style=HFileStyle.HBASE, meta_blocks=[("b", b"2"), ("a", b"1"), ("b", b"3")])
    assert read_hfile(repeated, WHERE).meta_blocks == (("a", b"1"), ("b", b"2"), ("b", b"3"))
