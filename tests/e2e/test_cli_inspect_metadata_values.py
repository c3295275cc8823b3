"""``maintainer inspect --check-metadata`` compares the values of every index partition with the
data (issue 31): a record edited by hand in ``column_stats``, ``partition_stats`` or a secondary
index, or missing from one, makes it exit 1 naming the metadata partition, the data partition
and file (or key), and what to do. The records are edited in place (the log block decoded,
changed and written again), so only the values disagree: the metadata table's files, timeline
and listing are as Hudi left them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from maintainer.cli import main
from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.secondary_index import split_key
from maintainer.hudi.parquet import bloom
from tests.support.fixtures import FixtureTable, base_files
from tests.support.metadata_edit import (
    add_bloom_filters_partition,
    append_records,
    base_records,
    newest_log_with,
    rewrite_log_records,
)

pytestmark = pytest.mark.fixtures
COW_V9 = "sample_table_cow_v9_txns_simple_meta"
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
STATS = "ColumnStatsMetadata"
REBUILD = "set `metadata_table: drop` for this table"


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["inspect", str(path), "--check-metadata", "--format", "json"]) == 1
    check: dict[str, Any] = json.loads(capsys.readouterr().out)["metadata_table"]["check"]
    assert check["damaged_files"] == [], check["damaged_files"]  # the files are all there
    return check


def _newest_base_file(table: FixtureTable) -> Path:
    return max(base_files(table), key=lambda p: p.name.rsplit("_", 1)[1])


def _differs(victim: Path, what: str) -> str:
    """The start of the column_stats finding on base file ``victim``."""
    where = f"{victim.parent.name}/{victim.name}"
    return f"column_stats: {where}: its statistics differ from the file's footer: {what}"


def _metadata(table: FixtureTable, partition: str) -> Path:
    return table.path / ".hoodie" / "metadata" / partition


def test_an_edited_column_stats_value_is_named_with_its_file_and_column(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    table = fixture_copy(COW_V9)
    victim = _newest_base_file(table)
    key = keys.column_stats_key("txn_id", victim.parent.name, victim.name)

    def raise_max(record_key: str, record: MetadataRecord) -> MetadataRecord:
        if record_key != key:
            return record
        wrapper, value = record[STATS]["maxValue"]
        return {**record, STATS: {**record[STATS], "maxValue": (wrapper, {"value": value["value"] + "~"})}}

    log = newest_log_with(_metadata(table, "column_stats"), lambda k, _: k == key)
    assert rewrite_log_records(log, raise_max) == [key]
    problems = _check(table.path, capsys)["problems"]
    expected = _differs(victim, "'txn_id' max")
    named = [p for p in problems if p.startswith(expected)]
    assert len(named) == 1 and REBUILD in named[0], problems
    assert main(["inspect", str(table.path), "--check-metadata"]) == 1
    assert victim.name in capsys.readouterr().out.replace("\n", "")


def test_an_edited_column_stats_count_is_named(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    table = fixture_copy(COW_V9)
    victim = _newest_base_file(table)
    key = keys.column_stats_key("merchant_name", victim.parent.name, victim.name)

    def more_nulls(record_key: str, record: MetadataRecord) -> MetadataRecord:
        if record_key != key:
            return record
        return {**record, STATS: {**record[STATS], "nullCount": record[STATS]["nullCount"] + 1}}

    rewrite_log_records(newest_log_with(_metadata(table, "column_stats"), lambda k, _: k == key), more_nulls)
    problems = _check(table.path, capsys)["problems"]
    expected = _differs(victim, "'merchant_name' null count")
    assert any(p.startswith(expected) for p in problems), problems


def test_a_column_stats_record_deleted_is_named_with_its_column(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """One column's statistics of a file are deleted (the file keeps the others'): the presence
    check, which looks at files, does not see it; the comparison with the footer does."""
    table = fixture_copy(COW_V9)
    victim = _newest_base_file(table)
    key = keys.column_stats_key("currency", victim.parent.name, victim.name)
    log = newest_log_with(_metadata(table, "column_stats"), lambda k, _: k == key)

    def delete(record_key: str, record: MetadataRecord) -> MetadataRecord:
        return {**record, STATS: {**record[STATS], "isDeleted": True}} if record_key == key else record

    assert rewrite_log_records(log, delete) == [key]
    problems = _check(table.path, capsys)["problems"]
    expected = _differs(victim, "'currency' has none")
    assert any(p.startswith(expected) for p in problems), problems


def test_partition_stats_that_no_longer_cover_the_partition_are_named(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """The partition's max of ``txn_id`` is lowered below its files' largest value: pruning
    would skip the partition for rows it holds."""
    table = fixture_copy(COW_V9)
    partition = _newest_base_file(table).parent.name
    key = keys.partition_stats_key("txn_id", partition)

    def lower_max(record_key: str, record: MetadataRecord) -> MetadataRecord:
        if record_key != key:
            return record
        wrapper, _ = record[STATS]["maxValue"]
        return {**record, STATS: {**record[STATS], "maxValue": (wrapper, {"value": "A"})}}

    log = newest_log_with(_metadata(table, "partition_stats"), lambda k, _: k == key)
    assert rewrite_log_records(log, lower_max) == [key]
    problems = _check(table.path, capsys)["problems"]
    expected = (
        f"partition_stats: partition {partition} column 'txn_id': the partition's statistics do not "
        "cover its latest files' column stats: max 'A' is below"
    )
    named = [p for p in problems if p.startswith(expected)]
    assert len(named) == 1 and REBUILD in named[0], problems


SECONDARY = "SecondaryIndexMetadata"


def _first_entry(folder: Path) -> tuple[str, str, MetadataRecord]:
    """(file id, key, record) of the first live entry of the index's base files."""
    for base in sorted(folder.glob("*.hfile")):
        file_id = base.name.split("_")[0]
        for key, record in base_records(folder, file_id):
            if not record[SECONDARY]["isDeleted"]:
                return file_id, key, record
    raise AssertionError(f"{folder}: no live entry")


def test_a_secondary_index_entry_deleted_is_named_with_its_record(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry marked deleted (as a later write would): the record it indexed is named, with
    its value and the file group that holds it."""
    table = fixture_copy(MOR_V9)
    index = "secondary_index_merchant_idx"
    file_id, key, record = _first_entry(_metadata(table, index))
    append_records(_metadata(table, index), file_id, [(key, {**record, SECONDARY: {"isDeleted": True}})])
    value, record_key = split_key(key) or ("?", "?")
    problems = _check(table.path, capsys)["problems"]
    expected = f"record {record_key!r} with merchant_name = {value!r} is not indexed"
    named = [p for p in problems if p.startswith(f"{index}: ") and expected in p]
    assert len(named) == 1 and REBUILD in named[0], problems
    region = next(p for p in table.path.glob("region=*") if record_key in _keys_in(p))
    assert named[0].startswith(f"{index}: {region.name}/"), named


def _keys_in(partition: Path) -> set[str]:
    found: set[str] = set()
    for path in partition.glob("*.parquet"):
        found |= {str(k) for k in pq.read_table(path, columns=["_hoodie_record_key"]).column(0).to_pylist()}
    return found


def test_a_secondary_index_entry_under_a_wrong_value_is_named_both_ways(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry moved to another value: the record is not indexed under its own value, and the
    index holds a value no record has (named by its key)."""
    table = fixture_copy(MOR_V9)
    index = "secondary_index_txn_date_idx"
    folder = _metadata(table, index)
    file_id, key, record = _first_entry(folder)
    day, record_key = split_key(key) or ("?", "?")
    wrong = f"1{day}${record_key}"
    append_records(folder, file_id, [(key, {**record, SECONDARY: {"isDeleted": True}}), (wrong, record)])
    problems = _check(table.path, capsys)["problems"]
    assert any(f"record {record_key!r} with txn_date = {day!r} is not indexed" in p for p in problems), (
        problems
    )
    expected = f"{index}: key {wrong!r}: indexes record {record_key!r} under txn_date = '1{day}'"
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize("damage", ["deleted", "truncated"])
def test_a_damaged_secondary_index_base_file_is_named(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """The secondary indexes of the fixtures hold their entries in base HFiles (their log files
    are empty)."""
    table = fixture_copy(MOR_V9)
    victim = max(_metadata(table, "secondary_index_merchant_idx").glob("*.hfile"))
    if damage == "deleted":
        victim.unlink()
    else:
        victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["metadata_table"]["check"]["problems"]
    assert any(f".hoodie/metadata/secondary_index_merchant_idx/{victim.name}" in p for p in problems), (
        problems
    )


def test_a_bloom_filters_partition_that_matches_the_footers_passes(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    table = fixture_copy(COW_V9)
    add_bloom_filters_partition(table.path)
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 0
    mdt = json.loads(capsys.readouterr().out)["metadata_table"]
    assert "bloom_filters" in {p["name"] for p in mdt["partitions"]}
    assert mdt["check"]["passed"] and mdt["check"]["indexes"]["footers_read"] > 0


@pytest.mark.parametrize("damage", ["deleted", "truncated"])
def test_a_damaged_bloom_filters_file_is_named(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    table = fixture_copy(COW_V9)
    hfile, indexed = add_bloom_filters_partition(table.path)
    if damage == "deleted":
        hfile.unlink()
    else:
        hfile.write_bytes(hfile.read_bytes()[: hfile.stat().st_size // 2])
    assert main(["inspect", str(table.path), "--check-metadata", "--format", "json"]) == 1
    problems = json.loads(capsys.readouterr().out)["metadata_table"]["check"]["problems"]
    assert any(
        f".hoodie/metadata/bloom_filters/{hfile.name}: metadata table base file" in p for p in problems
    )
    if damage == "deleted":  # read as an empty index: every base file is named
        for path in indexed:
            assert any(p.startswith(f"bloom_filters: {path}: no bloom filter for the file") for p in problems)


def test_a_wrong_bloom_filter_is_named_with_its_file(
    fixture_copy: Callable[[str], FixtureTable], capsys: pytest.CaptureFixture[str]
) -> None:
    """A filter of other keys stands for one base file: Hudi's bloom index would not find the
    file's keys there, and its next upsert of them writes duplicates."""
    table = fixture_copy(COW_V9)
    victim = _newest_base_file(table)
    key = keys.bloom_filter_key(victim.parent.name, victim.name)
    other = bloom.build_bloom_filter(["not a key of the file"]).serialize().encode()

    def wrong(record_key: str, record: MetadataRecord) -> MetadataRecord:
        if record_key != key:
            return record
        return {**record, "BloomFilterMetadata": {**record["BloomFilterMetadata"], "bloomFilter": other}}

    add_bloom_filters_partition(table.path, wrong)
    problems = _check(table.path, capsys)["problems"]
    expected = (
        f"bloom_filters: {victim.parent.name}/{victim.name}: its bloom filter differs from the file's footer"
    )
    named = [p for p in problems if p.startswith(expected)]
    assert len(named) == 1 and REBUILD in named[0], problems
    assert len(problems) == 1, problems
