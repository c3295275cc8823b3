"""Every HFile of the fixture tables' metadata tables decodes: base files and HFILE_DATA log blocks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maintainer.hudi.hfile import HFileStyle, read_hfile
from maintainer.hudi.hfile.trailer import decode_trailer
from tests.support.fixtures import missing_reason
from tests.unit.hudi.hfile.fixture_hfiles import FixtureHFile, metadata_fixture_names

NAMES: list[str | None] = [*metadata_fixture_names()] or [None]
HFiles = Callable[[str], list[FixtureHFile]]


def _style_of(table_version: int) -> HFileStyle:
    return HFileStyle.HBASE if table_version == 8 else HFileStyle.HUDI


@pytest.mark.parametrize("name", NAMES)
def test_every_hfile_of_the_metadata_table_reads(name: str | None, hfiles_of: HFiles) -> None:
    if name is None:
        pytest.skip(missing_reason())
    hfiles = hfiles_of(name)
    assert any(".hfile" in item.where and " block " not in item.where for item in hfiles)
    assert any(" block " in item.where for item in hfiles)
    for item in hfiles:
        hfile = read_hfile(item.data, item.where)
        assert hfile.style is _style_of(item.table_version), item.where
        keys = hfile.keys()
        assert list(keys) == sorted(set(keys)), item.where
        assert len(keys) == decode_trailer(item.data, item.where).entry_count
        assert all(hfile.get(cell.key) == cell.value for cell in hfile.cells), item.where
        assert hfile.get(b"\xff" * 3 + b"not a key") is None


@pytest.mark.parametrize("name", NAMES)
def test_metadata_hfiles_carry_the_schema_and_hudi_file_info(name: str | None, hfiles_of: HFiles) -> None:
    if name is None:
        pytest.skip(missing_reason())
    for item in hfiles_of(name):
        hfile = read_hfile(item.data, item.where)
        info = dict(hfile.file_info)
        assert b"HoodieMetadataRecord" in info[b"schema"], item.where
        assert info[b"KEY_VALUE_VERSION"] == b"\x00\x00\x00\x01"
        assert info[b"MAX_MEMSTORE_TS_KEY"] == bytes(8)
        assert set(hfile.user_file_info()) <= set(info) - {b"hfile.LASTKEY", b"hfile.AVG_KEY_LEN"}
        if item.where.endswith(".hfile"):
            assert [name for name, _ in hfile.meta_blocks] == ["bloomFilter"], item.where
            assert {b"minRecordKey", b"maxRecordKey", b"bloomFilterTypeCode"} <= set(info)
        else:
            assert hfile.meta_blocks == ()
