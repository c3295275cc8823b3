"""hudi-rs lists a table through a metadata table whose ``files`` base HFile our writer wrote
with many data blocks (Hudi 1.1's style, table version 9) or with HBase's two-level data index
(Hudi 1.0's style, table version 8): the same file slices as through Hudi's own HFile and as a
storage listing. Damaging one of those blocks makes hudi-rs fail, so it did read them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.hudi.hfile import HFileStyle, read_hfile, write_hfile
from maintainer.hudi.hfile.trailer import decode_trailer
from tests.support import oracle
from tests.support.fixtures import FixtureTable
from tests.support.metadata_tables import MOR_V9, TRIPS_V8, without_metadata_table

pytestmark = pytest.mark.fixtures


def _latest_files_base(path: Path) -> Path:
    bases = (path / ".hoodie" / "metadata" / "files").glob("*.hfile")
    return max(bases, key=lambda base: base.name.rsplit("_", 1)[-1])


@pytest.mark.parametrize(
    ("name", "style", "levels"), [(MOR_V9, HFileStyle.HUDI, 1), (TRIPS_V8, HFileStyle.HBASE, 2)]
)
def test_hudi_lists_the_table_through_a_multi_block_files_base_file_we_wrote(
    name: str, style: HFileStyle, levels: int, fixture_copy: Callable[[str], FixtureTable], tmp_path: Path
) -> None:
    path = fixture_copy(name).path
    listed = oracle.file_slices(path)
    base = _latest_files_base(path)
    hfile = read_hfile(base.read_bytes(), str(base))
    assert hfile.style is style
    rewritten = write_hfile(
        hfile.cells,
        style=style,
        file_info=hfile.user_file_info(),
        meta_blocks=hfile.meta_blocks,
        block_size=100,  # about one record a block
        index_chunk_size=60,  # HBase's index goes multi-level after two blocks
        index_min_entries=2,
    )
    trailer = decode_trailer(rewritten, "rewritten")
    assert trailer.num_data_index_levels == levels
    assert trailer.entry_count == len(hfile.cells) > 1
    assert read_hfile(rewritten, "rewritten").cells == hfile.cells
    base.write_bytes(rewritten)
    assert oracle.file_slices(path) == listed == oracle.file_slices(without_metadata_table(path, tmp_path))

    damaged = bytearray(rewritten)
    block = damaged.index(b"DATABLK*", 1)  # the second data block
    damaged[block + 40 : block + 48] = b"\xff" * 8
    base.write_bytes(bytes(damaged))
    with pytest.raises(AssertionError, match="hudi could not list"):
        oracle.file_slices(path)
