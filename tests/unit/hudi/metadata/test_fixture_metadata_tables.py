"""Every fixture's metadata table read with :mod:`maintainer.hudi.metadata`: it is in step
with its data table, its ``files`` partition equals the storage listing, and every record sits
in the file group its key maps to (which proves the hash mapping and the merge on real data)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.hudi.loading import open_table
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.partitions import file_group_index
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from tests.support.fixtures import FixtureTable, metadata_fixture_names

pytestmark = pytest.mark.fixtures
METADATA_FIXTURES = metadata_fixture_names()


def _open(path: Path) -> MetadataTable:
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None
    return mdt


def test_the_fixtures_with_a_metadata_table_are_the_twenty_expected() -> None:
    if not METADATA_FIXTURES:
        pytest.skip("no fixtures")
    assert len(METADATA_FIXTURES) == 20
    assert "quickstart_trips_table_mor_avro_v8_trips_8i3u1d" in METADATA_FIXTURES


@pytest.mark.parametrize("name", METADATA_FIXTURES)
def test_each_fixture_metadata_table_is_in_sync_and_lists_storage(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    table = open_table(str(fixture_table(name).path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    check = check_metadata_table(table, mdt)
    assert check.problems() == []
    assert check.passed
    assert check.files_checked > 0
    assert sum(len(files) for files in metadata_file_listing(mdt).values()) == check.files_checked


@pytest.mark.parametrize("name", METADATA_FIXTURES)
def test_each_record_sits_in_the_file_group_its_key_maps_to(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    mdt = _open(fixture_table(name).path)
    checked = 0
    for partition in mdt.partitions:
        if partition.kind.name == "SECONDARY_INDEX":
            continue  # v9 maps secondary-index keys differently; maintainer never writes them
        groups = sorted(g.file_id for g in mdt.file_groups(partition.name))
        for group in mdt.file_groups(partition.name):
            for key in mdt.read_file_group(group):
                assert groups[file_group_index(key, len(groups))] == group.file_id, (partition.name, key)
                checked += 1
    assert checked > 0
