"""The record index of every Hudi fixture that has one, read by maintainer, holds exactly the
record keys hudi-rs reads from the table, each at a file group hudi-rs lists in its partition:
the ``--check-metadata`` record index check compares with the same keys (read by maintainer's
reader) and so judges Hudi's own tables as hudi-rs sees them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maintainer.hudi.metadata.record_index import RECORD_INDEX, data_key_locations, indexed_location
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.state import open_table
from tests.support import oracle
from tests.support.fixtures import FixtureTable, metadata_fixture_names

pytestmark = pytest.mark.fixtures
WITH_RECORD_INDEX = [n for n in metadata_fixture_names() if "lance" not in n]
"""Lance base files are read by neither reader here (hudi-rs lists them, maintainer refuses)."""


@pytest.mark.parametrize("name", WITH_RECORD_INDEX)
def test_the_record_index_holds_the_keys_hudi_reads(
    fixture_table: Callable[[str], FixtureTable], name: str
) -> None:
    path = fixture_table(name).path
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    if mdt.partition(RECORD_INDEX) is None:
        pytest.skip(f"{name} has no record_index")
    indexed = {k: indexed_location(r) for k, r in mdt.read_partition(RECORD_INDEX).items()}
    hudi_keys = {str(row["_hoodie_record_key"]) for row in oracle.snapshot_rows(path)}
    assert set(indexed) == hudi_keys
    hudi_groups = {(partition, file_id) for partition, file_id, *_ in oracle.file_slices(path)}
    assert set(indexed.values()) <= hudi_groups
    ours = data_key_locations(table)
    assert ours is not None and set(ours) == hudi_keys
