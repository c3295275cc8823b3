"""Every fixture's metadata table read with :mod:`maintainer.hudi.metadata`: it is in step
with its data table, its ``files`` partition equals the storage listing, and every record sits
in the file group its key maps to (which proves the hash mapping and the merge on real data)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.partitions import file_group_index
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.metadata.updates import partition_stats_prefixes
from maintainer.hudi.metadata.updates.indexes import COLUMN_STATS
from maintainer.hudi.table.state import open_table
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


@pytest.mark.parametrize("name", METADATA_FIXTURES)
def test_a_prefix_read_of_column_stats_is_the_whole_read_restricted_to_the_prefixes(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    """Per data partition (column id + partition id, as partition stats look them up), and one
    column over every partition: the records read by prefix are those of the whole read."""
    path = fixture_table(name).path
    if _open(path).partition(COLUMN_STATS) is None:
        pytest.skip("no column_stats partition")
    whole = _open(path).read_partition(COLUMN_STATS)
    columns = sorted({r["ColumnStatsMetadata"]["columnName"] for r in whole.values()})
    partitions = sorted(metadata_file_listing(_open(path)))
    lookups = [partition_stats_prefixes(columns, [p]) for p in partitions]
    lookups.append([keys.column_id(columns[0])] if columns else [])
    for prefixes in lookups:
        mdt = _open(path)  # nothing read yet: the lookup goes through the HFile indexes
        expected = {k: v for k, v in whole.items() if k.startswith(tuple(prefixes))}
        assert mdt.read_prefixes(COLUMN_STATS, prefixes) == expected
    assert sum(len(_open(path).read_prefixes(COLUMN_STATS, p)) for p in lookups[:-1]) == len(whole)


@pytest.mark.parametrize("name", METADATA_FIXTURES)
def test_every_partition_of_each_fixture_verifies_block_by_block(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    mdt = _open(fixture_table(name).path)
    for partition in mdt.partitions:
        mdt.verify_partition(partition.name)
