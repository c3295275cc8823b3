"""Base files whose gzip pages libdeflate deflated, read by the JVM's Parquet reader (Spark's, on
parquet-mr's codecs, as Hudi's readers are): the same rows as written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.hudi.parquet import basefile
from maintainer.hudi.parquet import gzip as parquet_gzip
from maintainer.storage import Storage

pytestmark = pytest.mark.spark

AVRO = json.dumps(
    {
        "type": "record",
        "name": "trips_record",
        "namespace": "hoodie.trips",
        "fields": [
            {"name": "uuid", "type": ["null", "string"], "default": None},
            {"name": "ts", "type": "long"},
            {"name": "fare", "type": ["null", "double"], "default": None},
            {"name": "city", "type": ["null", "string"], "default": None},
        ],
    }
)


def trips(start: int, count: int) -> pa.Table:
    ids = range(start, start + count)
    return pa.table(
        {
            "uuid": pa.array([f"id-{i:07d}" for i in ids]),
            "ts": pa.array([1_700_000_000_000 + i for i in ids], pa.int64()),
            "fare": pa.array([None if i % 13 == 0 else i / 4 for i in ids], pa.float64()),
            "city": pa.array([None if i % 17 == 0 else f"city_{i % 9}" for i in ids]),
        }
    )


@pytest.mark.parametrize("level", [1, 6])
def test_spark_reads_libdeflate_gzip_base_files_as_written(tmp_path: Path, spark: Any, level: int) -> None:
    assert parquet_gzip.sink_supported()  # the pages below are libdeflate's, not pyarrow's
    target = basefile.BaseFileTarget(
        path="city=sf/abc-0_3-10-20_20250101120000123.parquet",
        partition_path="city=sf",
        instant_time="20250101120000123",
    )
    settings = basefile.ParquetSettings(compression_level=level, page_size=8192, row_group_bytes=256 * 1024)
    with basefile.BaseFileWriter(Storage(str(tmp_path)), target, AVRO, settings) as writer:
        for start in range(0, 40_000, 10_000):
            chunk = trips(start, 10_000)
            writer.write(chunk, chunk.column("uuid"))
    path = tmp_path / target.path
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_row_groups > 1
    assert {metadata.row_group(0).column(c).compression for c in range(metadata.num_columns)} == {"GZIP"}

    expected = pq.read_table(path).to_pylist()
    rows = spark.read.parquet(str(path)).collect()
    assert sorted((r.asDict() for r in rows), key=lambda r: r["uuid"]) == expected
    assert len(expected) == 40_000
