"""The index record keys (:mod:`maintainer.hudi.metadata.keys`) equal every key of every
column_stats and partition_stats record in the fixtures' metadata tables."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest

from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable, metadata_fixture_names

METADATA_FIXTURES = metadata_fixture_names()


def test_hashes_are_base64_of_big_endian_xxh64_with_the_sign_extended_seed() -> None:
    assert keys.XXH64_SEED == 0xFFFFFFFFDABADABA
    assert keys.column_id("currency") == "/m6lxu4Dh5w="
    assert keys.partition_id("region=apac") == "OOL0+QGXAHU="
    assert len(base64.b64decode(keys.column_id("x"))) == 8
    assert len(base64.b64decode(keys.file_id("f.parquet"))) == 16


def test_the_non_partitioned_partition_hashes_as_a_dot() -> None:
    assert keys.partition_id("") == keys.partition_id(".") == "FXThHwelITM="


def test_keys_concatenate_the_hashes() -> None:
    name = "c3b646cc-8602-47c5-b010-3fe002241298-0_1-236-591_20260307162618152.parquet"
    assert (
        keys.column_stats_key("currency", "region=apac", name)
        == "/m6lxu4Dh5w=OOL0+QGXAHU=d4u6QZ8mqyj6M57+hGuHpA=="
    )
    assert keys.partition_stats_key("currency", "region=apac") == "/m6lxu4Dh5w=OOL0+QGXAHU="
    assert keys.bloom_filter_key("region=apac", name) == "OOL0+QGXAHU=d4u6QZ8mqyj6M57+hGuHpA=="


@pytest.mark.fixtures
@pytest.mark.parametrize("name", METADATA_FIXTURES)
def test_every_fixture_index_key_is_computed(name: str, fixture_table: Callable[[str], FixtureTable]) -> None:
    table = fixture_table(name)
    state = open_table(str(table.path), verify=False)
    mdt = open_metadata_table(state)
    assert mdt is not None
    where = {f.name: partition for partition, files in state.snapshot.listings.items() for f in files}
    checked = 0
    for key, record in mdt.read_partition("column_stats").items():
        stats = record["ColumnStatsMetadata"]
        partition = where[stats["fileName"]]
        assert key == keys.column_stats_key(stats["columnName"], partition, stats["fileName"])
        checked += 1
    if mdt.partition("partition_stats") is not None:
        for key, record in mdt.read_partition("partition_stats").items():
            stats = record["ColumnStatsMetadata"]
            assert key == keys.partition_stats_key(stats["columnName"], stats["fileName"])
            checked += 1
    assert checked > 0 or table.is_lance  # Hudi indexes no column of a Lance file
