"""Byte identity: rewriting every fixture HFile from its decoded parts gives back the same bytes.

The table-version 9 fixtures hold Hudi 1.1 native-writer files (HUDI style), the version 8 one
HBase-writer files (HBASE style); both styles are exercised.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maintainer.hudi.hfile import HFileStyle, read_hfile, write_hfile
from tests.support.fixtures import missing_reason
from tests.unit.hudi.hfile.fixture_hfiles import FixtureHFile, metadata_fixture_names

NAMES: list[str | None] = [*metadata_fixture_names()] or [None]


def _first_difference(left: bytes, right: bytes) -> int:
    return next(
        (i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b), min(len(left), len(right))
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_fixture_hfile_is_rewritten_byte_for_byte(
    name: str | None, hfiles_of: Callable[[str], list[FixtureHFile]]
) -> None:
    if name is None:
        pytest.skip(missing_reason())
    for item in hfiles_of(name):
        hfile = read_hfile(item.data, item.where)
        written = write_hfile(
            hfile.cells, style=hfile.style, file_info=hfile.user_file_info(), meta_blocks=hfile.meta_blocks
        )
        assert written == item.data, (
            f"{item.where}: first difference at byte {_first_difference(written, item.data)}"
        )


def test_both_styles_are_among_the_fixtures(hfiles_of: Callable[[str], list[FixtureHFile]]) -> None:
    names = metadata_fixture_names()
    if not names:
        pytest.skip(missing_reason())
    styles = {read_hfile(item.data, item.where).style for name in names for item in hfiles_of(name)}
    assert styles == {HFileStyle.HUDI, HFileStyle.HBASE}
