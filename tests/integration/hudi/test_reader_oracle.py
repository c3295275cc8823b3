"""Our merged reader against the independent oracle (hudi-rs) on every real Hudi table:
latest snapshot, time travel to every completed commit, and read-optimized for MOR."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.records.reader import read_table
from maintainer.hudi.table.state import open_table
from tests.support import oracle
from tests.support.fixtures import FixtureTable, fixture_names

pytestmark = pytest.mark.fixtures

READABLE = [n for n in fixture_names() if "lance" not in n]
LANCE = [n for n in fixture_names() if "lance" in n]


def our_rows(path: str, as_of: str | None = None, read_optimized: bool = False) -> list[dict[str, object]]:
    table = read_table(open_table(path), as_of, read_optimized)
    return oracle.rows(table) if table is not None else []


@pytest.mark.parametrize("name", READABLE)
def test_snapshot_equals_hudi_at_latest_and_every_completed_commit(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    path = str(fixture_table(name).path)
    assert our_rows(path) == oracle.snapshot_rows(path)
    for instant in oracle.completed_commit_times(path):
        assert our_rows(path, as_of=instant) == oracle.snapshot_rows(path, as_of=instant), instant


@pytest.mark.parametrize("name", [n for n in READABLE if "_mor_" in n])
def test_read_optimized_equals_hudi(name: str, fixture_table: Callable[[str], FixtureTable]) -> None:
    path = str(fixture_table(name).path)
    assert our_rows(path, read_optimized=True) == oracle.snapshot_rows(path, read_optimized=True)


@pytest.mark.parametrize("name", LANCE)
def test_lance_records_are_refused_with_a_clear_message(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = open_table(str(fixture_table(name).path))
    assert table.view.latest_slices(), "Lance tables are still listed at file level"
    with pytest.raises(UnsupportedTableError, match="Lance base files cannot be read"):
        read_table(table)
