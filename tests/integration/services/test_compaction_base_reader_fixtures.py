"""Compaction's base file reader on the real Hudi fixtures: a file read with its listed size
(a dataset fragment, no request for the size) reads as the file opened does."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maintainer.executors.common.slice_read import BaseFileReader
from maintainer.storage import Storage
from tests.support.fixtures import FixtureTable, base_files, fixture_names

pytestmark = pytest.mark.fixtures

NON_LANCE = [n for n in fixture_names() if "lance" not in n]


@pytest.mark.parametrize("name", NON_LANCE)
def test_a_base_file_read_with_its_listed_size_reads_as_it_does_opened(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    """Compaction reads a base file whose size the listing gave as a dataset fragment of that
    size (no request for the size on object stores): every row group, its schema and its codec
    are what opening the file gives, on every Parquet file Hudi wrote here."""
    table = fixture_table(name)
    storage = Storage(str(table.path))
    files = list(base_files(table))
    if not files:
        pytest.skip(f"{name}: no Parquet base file")
    for path in files:
        relative = str(path.relative_to(table.path))
        with BaseFileReader(storage, relative) as opened:
            expected = list(opened.row_groups())
            codec = opened.codec
        with BaseFileReader(storage, relative, path.stat().st_size) as sized:
            assert sized.codec == codec
            got = list(sized.row_groups())
        assert len(got) == len(expected)
        for mine, theirs in zip(got, expected, strict=True):
            assert mine.schema == theirs.schema and mine.equals(theirs), relative
