"""The latest records the index checks read: values as Hudi's Avro records hold them, and a
slice of a base file alone read for the wanted columns only."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.hudi.metadata.latest_records import raw_values, read_latest_records
from maintainer.hudi.records.reader import read_base_file, read_file_slice
from maintainer.hudi.table.state import open_table
from maintainer.storage import Storage
from tests.support.fixtures import FixtureTable


def test_dates_and_timestamps_are_their_integer_counts() -> None:
    dates = pa.chunked_array([pa.array([dt.date(2024, 1, 15), None], pa.date32())])
    assert raw_values(dates) == [19737, None]
    stamps = pa.chunked_array([pa.array([1_700_000_000_000_000], pa.timestamp("us", tz="UTC"))])
    assert raw_values(stamps) == [1_700_000_000_000_000]
    assert raw_values(pa.chunked_array([pa.array(["a", None])])) == ["a", None]


def test_a_base_file_is_read_for_the_columns_it_has(tmp_path: Path) -> None:
    pq.write_table(pa.table({"a": [1], "b": ["x"], "c": [2.0]}), tmp_path / "f.parquet")
    table = read_base_file(Storage(str(tmp_path)), "f.parquet", ["b", "absent", "a"])
    assert sorted(table.column_names) == ["a", "b"]


@pytest.mark.fixtures
@pytest.mark.parametrize(
    "name", ["sample_table_mor_avro_v9_txns_simple_meta", "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
)
def test_the_records_are_those_of_the_merged_latest_slices(
    fixture_table: Callable[[str], FixtureTable], name: str
) -> None:
    table = open_table(str(fixture_table(name).path), verify=False)
    column = "rider" if "trips" in name else "merchant_name"
    latest = read_latest_records(table, [column])
    assert latest is not None
    expected: dict[str, object] = {}
    for file_slice in table.view.latest_slices():
        rows = read_file_slice(table.storage, table.snapshot.config, table.view.timeline, file_slice)
        assert rows is not None
        expected.update(
            zip(rows.column("_hoodie_record_key").to_pylist(), rows.column(column).to_pylist(), strict=True)
        )
    assert set(latest.locations) == set(expected)
    assert {key: value for key, value, _ in latest.values[column]} == expected
