"""Damaged or out-of-step metadata tables: the check names each difference, and what cannot be
read is a clear error naming the file or partition."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.metadata.check import MetadataCheck, check_metadata_table
from maintainer.hudi.metadata.fitness import open_fit_for_sync
from maintainer.hudi.metadata.partitions import FILES
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.updates.indexes import COLUMN_STATS
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


def _check(path: Path) -> MetadataCheck:
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    return check_metadata_table(table, mdt)


def _a_listed_file(path: Path) -> Path:
    return sorted(p for p in path.rglob("*.parquet") if ".hoodie" not in p.parts)[0]


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_a_data_file_deleted_behind_the_metadata_tables_back_is_reported(
    name: str, fixture_copy: Callable[[str], FixtureTable]
) -> None:
    table = fixture_copy(name)
    victim = _a_listed_file(table.path)
    victim.unlink()
    check = _check(table.path)
    assert not check.passed
    assert [d.name for d in check.differences] == [victim.name]
    assert "listed by the metadata table" in check.problems()[0]
    assert "but not on storage" in check.problems()[0]


def test_a_file_whose_size_changed_is_reported_with_both_sizes(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    victim = _a_listed_file(table.path)
    size = victim.stat().st_size
    with victim.open("ab") as handle:
        handle.write(b"x" * 10)
    (difference,) = _check(table.path).differences
    assert (difference.in_metadata, difference.on_storage) == (size, size + 10)
    assert f"{size} bytes in the metadata table, {size + 10} on storage" in difference.describe()


def test_a_committed_file_missing_from_the_metadata_table_is_reported(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    victim = _a_listed_file(table.path)
    twin = victim.with_name(
        victim.name.replace("_0-", "_9-", 1).replace("_1-", "_9-", 1).replace("_2-", "_9-", 1)
    )
    twin.write_bytes(victim.read_bytes())
    (difference,) = _check(table.path).differences
    assert difference.name == twin.name
    assert "on storage" in difference.describe() and "not in the metadata table" in difference.describe()


def test_a_metadata_table_behind_the_data_timeline_is_out_of_sync(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    timeline = table.path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    data_timeline = table.path / ".hoodie" / "timeline"
    instant = sorted(data_timeline.glob("2*_*.deltacommit"))[-1].name.split("_")[0]
    for state_file in timeline.glob(f"{instant}*"):
        state_file.unlink()  # as if the data instant had been written with the metadata table disabled
    check = _check(table.path)
    assert not check.sync.in_sync
    assert check.sync.behind[0].timestamp == instant
    assert check.problems()[0] == f"data instant {instant} (deltacommit) is not in the metadata table"
    assert check.differences  # and its files are missing from the listing


def test_a_failed_metadata_deltacommit_is_out_of_sync(fixture_copy: Callable[[str], FixtureTable]) -> None:
    table = fixture_copy(MOR_V9)
    timeline = table.path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    (timeline / "20260307162700000.deltacommit.requested").write_bytes(b"")
    check = _check(table.path)
    assert [i.timestamp for i in check.sync.failed] == ["20260307162700000"]
    assert (
        "metadata deltacommit 20260307162700000 is requested but its data instant is not pending"
        in " ".join(check.problems())
    )


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_a_corrupt_hfile_block_names_the_log_file(
    name: str, fixture_copy: Callable[[str], FixtureTable]
) -> None:
    table = fixture_copy(name)
    folder = table.path / ".hoodie" / "metadata" / FILES
    log = max((p for p in folder.glob(".files-*") if p.stat().st_size > 1000), key=lambda p: p.name)
    data = bytearray(log.read_bytes())
    start = data.index(b"DATABLK*")
    data[start + 60 : start + 64] = b"\xff\xff\xff\xff"  # inside the compressed cells
    log.write_bytes(bytes(data))
    mdt = open_metadata_table(open_table(str(table.path), verify=False))
    assert mdt is not None
    with pytest.raises(CorruptFileError) as error:
        mdt.read_partition(FILES)
    assert log.name in str(error.value)


def test_an_unknown_metadata_partition_is_refused_naming_it(
    fixture_copy: Callable[[str], FixtureTable],
) -> None:
    table = fixture_copy(MOR_V9)
    properties = table.path / ".hoodie" / "hoodie.properties"
    text = properties.read_text(encoding="latin-1")
    properties.write_text(
        text.replace("hoodie.table.metadata.partitions=", "hoodie.table.metadata.partitions=vector_index,"),
        encoding="latin-1",
    )
    with pytest.raises(UnsupportedTableError) as error:
        open_metadata_table(open_table(str(table.path), verify=False))
    assert "unknown metadata table partition 'vector_index'" in str(error.value)
    assert ".hoodie/metadata" in str(error.value)


@pytest.mark.parametrize("name", [MOR_V9, TRIPS_V8])
def test_the_fitness_check_reads_every_partition_asked_and_names_a_damaged_one(
    name: str, fixture_copy: Callable[[str], FixtureTable]
) -> None:
    """A damaged column_stats block is not seen when only ``files`` is read; reading the
    partitions a node updates finds it, naming the file and hinting at ``metadata_table: drop``."""
    table = fixture_copy(name)
    log = max((table.path / ".hoodie" / "metadata" / "column_stats").glob(".*.log.*"),
              key=lambda p: p.name.split("_")[1])  # fmt: skip
    data = bytearray(log.read_bytes())
    start = data.index(b"DATABLK*")
    data[start + 60 : start + 64] = b"\xff\xff\xff\xff"
    log.write_bytes(bytes(data))
    state = open_table(str(table.path), verify=False)
    open_fit_for_sync(state)
    with pytest.raises(CorruptFileError) as raised:
        open_fit_for_sync(state, (FILES, COLUMN_STATS))
    assert log.name in (raised.value.where or "")
    assert "column_stats partition cannot be read" in raised.value.message
    assert "metadata_table: drop" in (raised.value.hint or "")
