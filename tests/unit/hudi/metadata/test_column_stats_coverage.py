"""Which listed files ``column_stats`` must cover: every one but Lance base files and Parquet
base files of no rows (Hudi writes no statistics for them)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.hudi.metadata import keys
from maintainer.hudi.metadata.column_stats import (
    describe_missing,
    describe_partition_without_stats,
    files_without_column_stats,
    partitions_without_stats,
)
from maintainer.storage import Storage

P = "region=eu"
BASE = "694491b7-ed54-402d-ad59-c36ed6c1d6a2-0_0-263-694_20260307162620509.parquet"
EMPTY = "5fa27133-7a82-4124-9a6b-8a94c18ff8ef-0_0-176-417_20260307162612542.parquet"
LOG = ".c86b1f8f-af9f-4b56-83e7-26cb80673368-0_20260307162614221.log.1_0-52-126"
LANCE = "00667125-fd40-47a4-9aef-e5f065e3f29e-0_1-248-636_20260307162619269.lance"


def _stats(partition: str, name: str, deleted: bool = False) -> tuple[str, dict[str, object]]:
    key = keys.column_stats_key("amount", partition, name)
    stats = {"fileName": name, "columnName": "amount", "isDeleted": deleted}
    return key, {"type": 3, "ColumnStatsMetadata": stats}


def _table(tmp_path: Path) -> Storage:
    (tmp_path / P).mkdir()
    pq.write_table(pa.table({"amount": [1.0, 2.0]}), tmp_path / P / BASE)
    pq.write_table(pa.table({"amount": pa.array([], pa.float64())}), tmp_path / P / EMPTY)
    return Storage(str(tmp_path))


def test_files_with_live_statistics_are_covered(tmp_path: Path) -> None:
    records = dict([_stats(P, BASE), _stats(P, LOG)])
    listed = {P: {BASE: 10, LOG: 20}}
    assert files_without_column_stats(_table(tmp_path), listed, records) == []


def test_a_file_without_or_with_only_deleted_statistics_is_named(tmp_path: Path) -> None:
    records = dict([_stats(P, BASE, deleted=True)])
    listed = {P: {BASE: 10, LOG: 20}}
    assert files_without_column_stats(_table(tmp_path), listed, records) == [(P, LOG), (P, BASE)]
    assert describe_missing(P, LOG).startswith(f"{P}/{LOG}: column_stats has no statistics for it")
    assert describe_missing("", LOG).startswith(f"(non-partitioned)/{LOG}:")


def test_lance_files_and_empty_parquet_files_need_none(tmp_path: Path) -> None:
    listed = {P: {EMPTY: 10, LANCE: 20}}
    assert files_without_column_stats(_table(tmp_path), listed, {}) == []


def test_statistics_of_the_same_file_name_in_another_partition_do_not_count(tmp_path: Path) -> None:
    records = dict([_stats("region=us", BASE)])
    assert files_without_column_stats(_table(tmp_path), {P: {BASE: 10}}, records) == [(P, BASE)]


def _partition_stats(partition: str, column: str, deleted: bool = False) -> tuple[str, dict[str, object]]:
    key = keys.partition_stats_key(column, partition)
    return key, {"type": 6, "ColumnStatsMetadata": {"fileName": partition, "isDeleted": deleted}}


def test_partition_stats_cover_each_column_the_latest_files_have_statistics_for() -> None:
    column_stats = dict([_stats(P, BASE), _stats("region=us", LOG)])
    latest = {P: [BASE, LOG], "region=us": [LOG], "region=apac": [EMPTY]}
    assert partitions_without_stats(latest, column_stats, dict([_partition_stats(P, "amount")])) == [
        ("region=us", "amount")
    ]
    deleted = dict([_partition_stats(P, "amount", deleted=True), _partition_stats("region=us", "amount")])
    assert partitions_without_stats(latest, column_stats, deleted) == [(P, "amount")]
    assert describe_partition_without_stats("", "amount").startswith(
        "partition_stats: no statistics for column 'amount' of partition (non-partitioned)"
    )
