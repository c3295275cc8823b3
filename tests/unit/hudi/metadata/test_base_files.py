"""``column_stats`` and ``bloom_filters`` against base files' footers (files written here with
pyarrow, records built by the writer's own record builders, then edited)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.base_files import IndexRecords, check_base_files, range_differences
from maintainer.hudi.metadata.findings import REBUILD_HINT
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.updates.build import bloom_filter_record, column_stats_record
from maintainer.hudi.metadata.updates.indexes import TableIndexes
from maintainer.hudi.metadata.updates.parquet_stats import read_parquet_ranges
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.values import IndexVersion, ValueMeta, ValueType, Wrapped
from maintainer.hudi.parquet import bloom
from maintainer.storage import Storage

PARTITION = "region=us"
FILE_A = "a1b2c3d4-0000-0000-0000-000000000001-0_0-1-2_20260101000000000.parquet"
FILE_B = "a1b2c3d4-0000-0000-0000-000000000002-0_0-1-2_20260101000000000.parquet"
COLUMNS = ("_hoodie_record_key", "amount")
INDEXES = TableIndexes(
    partitions=frozenset({"files", "column_stats", "bloom_filters"}),
    columns=COLUMNS,
    column_stats_version=IndexVersion.V2,
    partition_stats_version=IndexVersion.V2,
)
STATS = "ColumnStatsMetadata"


def write_base_file(
    folder: Path, name: str, keys: list[str], amounts: list[float | None], with_bloom: bool = True
) -> int:
    table = pa.table({"_hoodie_record_key": keys, "amount": pa.array(amounts, pa.float64())})
    if with_bloom:
        text = bloom.build_bloom_filter(keys).serialize()
        table = table.replace_schema_metadata(
            {bloom.BLOOM_FILTER_KEY: text, bloom.TYPE_CODE_KEY: bloom.DYNAMIC_V0}
        )
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / name)
    return (folder / name).stat().st_size


@pytest.fixture
def table(tmp_path: Path) -> tuple[Storage, dict[str, dict[str, int]]]:
    sizes = {
        FILE_A: write_base_file(tmp_path / PARTITION, FILE_A, ["k1", "k2"], [1.5, None]),
        FILE_B: write_base_file(tmp_path / PARTITION, FILE_B, ["k3"], [7.0]),
    }
    return Storage(str(tmp_path)), {PARTITION: sizes}


def records_from_footers(storage: Storage, listing: Mapping[str, Mapping[str, int]]) -> IndexRecords:
    """The records the writer builds for these files."""
    stats: dict[str, MetadataRecord] = {}
    blooms: dict[str, MetadataRecord] = {}
    for partition, files in listing.items():
        for name in files:
            path = f"{partition}/{name}"
            for column_range in read_parquet_ranges(storage, path, COLUMNS, IndexVersion.V2):
                key, record = column_stats_record(partition, column_range)
                stats[key] = record
            footer = pq.read_metadata(storage.uri(path)).metadata or {}
            if bloom.BLOOM_FILTER_KEY.encode() in footer:
                text = bloom.parse_bloom_filter(
                    footer[bloom.BLOOM_FILTER_KEY.encode()], bloom.DYNAMIC_V0
                ).serialize()
                key, record = bloom_filter_record(
                    partition, name, "20260101000000000", "DYNAMIC_V0", text.encode(), False
                )
                blooms[key] = record
    return IndexRecords(stats, blooms)


def test_records_built_from_the_footers_agree(table: tuple[Storage, dict[str, dict[str, int]]]) -> None:
    storage, listing = table
    check = check_base_files(storage, listing, listing, INDEXES, records_from_footers(storage, listing))
    assert check.findings == () and check.files_read == 2 and check.not_compared == ()


def test_an_edited_value_names_the_file_column_and_field(
    table: tuple[Storage, dict[str, dict[str, int]]],
) -> None:
    storage, listing = table
    stored = records_from_footers(storage, listing)
    assert stored.column_stats is not None
    edited = dict(stored.column_stats)
    for key, record in edited.items():
        if record[STATS]["fileName"] == FILE_A and record[STATS]["columnName"] == "amount":
            edited[key] = {
                **record,
                STATS: {**record[STATS], "maxValue": ("DoubleWrapper", {"value": 99.0}), "nullCount": 0},
            }
    check = check_base_files(storage, listing, listing, INDEXES, IndexRecords(edited, stored.bloom_filters))
    (finding,) = check.findings
    assert finding.partition == "column_stats" and finding.where == f"{PARTITION}/{FILE_A}"
    assert "'amount' max 99.0 (footer: 1.5), null count 0 (footer: 1)" in finding.problem
    assert finding.describe().endswith(f"({REBUILD_HINT})")


def test_a_deleted_column_record_and_one_of_a_column_the_file_lacks_are_named(
    table: tuple[Storage, dict[str, dict[str, int]]],
) -> None:
    storage, listing = table
    stored = records_from_footers(storage, listing)
    assert stored.column_stats is not None
    edited = dict(stored.column_stats)
    for key, record in edited.items():
        if record[STATS]["fileName"] == FILE_B and record[STATS]["columnName"] == "amount":
            edited[key] = {**record, STATS: {**record[STATS], "isDeleted": True}}
    wider = TableIndexes(INDEXES.partitions, (*COLUMNS, "absent"), IndexVersion.V2, IndexVersion.V2)
    (key, record) = column_stats_record(
        PARTITION, read_parquet_ranges(storage, f"{PARTITION}/{FILE_B}", COLUMNS, IndexVersion.V2)[0]
    )
    edited[keys.column_stats_key("absent", PARTITION, FILE_B)] = {
        **record,
        STATS: {**record[STATS], "columnName": "absent"},
    }
    check = check_base_files(storage, listing, listing, wider, IndexRecords(edited, None))
    (finding,) = check.findings
    assert finding.where == f"{PARTITION}/{FILE_B}"
    assert "'amount' has none" in finding.problem
    assert "'absent' has some, but the file has no such column" in finding.problem


def test_a_file_without_any_statistics_is_left_to_the_presence_check(
    table: tuple[Storage, dict[str, dict[str, int]]],
) -> None:
    storage, listing = table
    stored = records_from_footers(storage, listing)
    assert stored.column_stats is not None
    kept = {k: r for k, r in stored.column_stats.items() if r[STATS]["fileName"] != FILE_A}
    assert check_base_files(storage, listing, listing, INDEXES, IndexRecords(kept, None)).findings == ()


def test_bloom_filters_differing_missing_extra_and_for_a_gone_file_are_named(
    table: tuple[Storage, dict[str, dict[str, int]]], tmp_path: Path
) -> None:
    storage, listing = table
    stored = records_from_footers(storage, listing)
    assert stored.bloom_filters is not None
    blooms = dict(stored.bloom_filters)
    key_a, key_b = keys.bloom_filter_key(PARTITION, FILE_A), keys.bloom_filter_key(PARTITION, FILE_B)
    other = bloom.build_bloom_filter(["someone else"]).serialize().encode()
    blooms[key_a] = {
        **blooms[key_a],
        "BloomFilterMetadata": {**blooms[key_a]["BloomFilterMetadata"], "bloomFilter": other},
    }
    del blooms[key_b]
    gone = "a1b2c3d4-0000-0000-0000-000000000009-0_0-1-2_20260101000000000.parquet"
    gone_key, gone_record = bloom_filter_record(
        PARTITION, gone, "20260101000000000", "DYNAMIC_V0", other, False
    )
    blooms[gone_key] = gone_record
    check = check_base_files(storage, listing, listing, INDEXES, IndexRecords(None, blooms))
    problems = {f.where: f.problem for f in check.findings}
    assert all(f.partition == "bloom_filters" for f in check.findings)
    assert problems[f"{PARTITION}/{FILE_A}"].startswith("its bloom filter differs from the file's footer")
    assert problems[f"{PARTITION}/{FILE_B}"].startswith("no bloom filter for the file")
    assert problems[f"key {gone_key}"].startswith(
        "a live bloom filter of a base file the files partition does not list"
    )
    # a deleted record of a gone file (a clean's) is right
    blooms[gone_key] = bloom_filter_record(PARTITION, gone, "20260102000000000", "", b"", True)[1]
    check = check_base_files(storage, listing, listing, INDEXES, IndexRecords(None, blooms))
    assert f"key {gone_key}" not in {f.where for f in check.findings}


def test_a_bloom_filter_for_a_file_whose_footer_has_none_is_named(tmp_path: Path) -> None:
    size = write_base_file(tmp_path / PARTITION, FILE_A, ["k1"], [1.0], with_bloom=False)
    storage, listing = Storage(str(tmp_path)), {PARTITION: {FILE_A: size}}
    key, record = bloom_filter_record(PARTITION, FILE_A, "20260101000000000", "DYNAMIC_V0", b"x", False)
    (finding,) = check_base_files(
        storage, listing, listing, INDEXES, IndexRecords(None, {key: record})
    ).findings
    assert finding.problem.startswith("a bloom filter for the file, whose footer has none")


def test_files_not_on_storage_at_the_listed_size_are_not_read(
    table: tuple[Storage, dict[str, dict[str, int]]],
) -> None:
    """The files comparison names them; their footer may not even read."""
    storage, listing = table
    present = {PARTITION: {FILE_A: listing[PARTITION][FILE_A]}}
    listed = {PARTITION: {**listing[PARTITION], FILE_B: 1}}
    check = check_base_files(storage, listed, present, INDEXES, records_from_footers(storage, listing))
    assert check.files_read == 1 and check.findings == ()


def test_an_unreadable_footer_is_noted_not_failed(tmp_path: Path) -> None:
    (tmp_path / PARTITION).mkdir()
    (tmp_path / PARTITION / FILE_A).write_bytes(b"not parquet")
    listing = {PARTITION: {FILE_A: 11}}
    check = check_base_files(Storage(str(tmp_path)), listing, listing, INDEXES, IndexRecords({}, {}))
    assert check.findings == () and check.files_read == 0
    assert check.not_compared[0].startswith(
        f"column_stats and bloom_filters of {PARTITION}/{FILE_A}: its footer cannot be read"
    )


def test_an_undecodable_footer_bloom_filter_is_noted_not_failed(tmp_path: Path) -> None:
    table = pa.table({"_hoodie_record_key": ["k1"], "amount": [1.0]})
    table = table.replace_schema_metadata(
        {bloom.BLOOM_FILTER_KEY: "not base64!", bloom.TYPE_CODE_KEY: "DYNAMIC_V0"}
    )
    (tmp_path / PARTITION).mkdir()
    pq.write_table(table, tmp_path / PARTITION / FILE_A)
    listing = {PARTITION: {FILE_A: (tmp_path / PARTITION / FILE_A).stat().st_size}}
    key, record = bloom_filter_record(PARTITION, FILE_A, "20260101000000000", "DYNAMIC_V0", b"other", False)
    check = check_base_files(
        Storage(str(tmp_path)), listing, listing, INDEXES, IndexRecords(None, {key: record})
    )
    assert check.findings == ()
    assert check.not_compared[0].startswith(f"bloom_filters of {PARTITION}/{FILE_A} (cannot decode")


def test_a_stored_filter_equal_to_the_footer_text_needs_no_parsing(tmp_path: Path) -> None:
    """Hudi's stored filter is most often the footer's text itself."""
    table = pa.table({"_hoodie_record_key": ["k1"], "amount": [1.0]})
    table = table.replace_schema_metadata(
        {bloom.BLOOM_FILTER_KEY: "opaque", bloom.TYPE_CODE_KEY: "DYNAMIC_V0"}
    )
    (tmp_path / PARTITION).mkdir()
    pq.write_table(table, tmp_path / PARTITION / FILE_A)
    listing = {PARTITION: {FILE_A: (tmp_path / PARTITION / FILE_A).stat().st_size}}
    key, record = bloom_filter_record(PARTITION, FILE_A, "20260101000000000", "DYNAMIC_V0", b"opaque", False)
    check = check_base_files(
        Storage(str(tmp_path)), listing, listing, INDEXES, IndexRecords(None, {key: record})
    )
    assert check.findings == () and check.not_compared == ()


def test_differences_show_values_bytes_and_types() -> None:
    decimal, long = ValueMeta(ValueType.DECIMAL, 10, 2), ValueMeta(ValueType.LONG)
    footer = ColumnRange("f", "c", Wrapped("BytesWrapper", b"\x01"), None, 0, 1, 5, 6, decimal)
    stored = ColumnRange("f", "c", Wrapped("BytesWrapper", b"\x02"), None, 0, 1, 5, 6, long)
    assert range_differences(stored, footer) == "min 0x02 (footer: 0x01), meta LONG (footer: DECIMAL)"
    assert range_differences(footer, footer) == ""
    assert range_differences(None, footer) == "has none"
