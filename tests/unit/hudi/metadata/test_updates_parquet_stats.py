"""Column ranges from Parquet footers (files written here with pyarrow), per index version."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.updates.parquet_stats import _bounds, read_parquet_ranges
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.values import (
    V1,
    IndexVersion,
    ValueMeta,
    ValueType,
    Wrapped,
    java_bytes,
)
from maintainer.storage import Storage


def ranges_of(
    tmp_path: Path, table: pa.Table, version: IndexVersion, **options: Any
) -> dict[str, ColumnRange]:
    pq.write_table(table, tmp_path / "f.parquet", **options)
    found = read_parquet_ranges(Storage(str(tmp_path)), "f.parquet", table.column_names, version)
    return {r.column: r for r in found}


def test_row_groups_merge_into_one_range(tmp_path: Path) -> None:
    table = pa.table({"n": pa.array([5, None, 1, 9, None, 3], pa.int64())})
    (single,) = read_row_groups(tmp_path, table)
    assert (single.min, single.max) == (Wrapped("LongWrapper", 1), Wrapped("LongWrapper", 9))
    assert (single.null_count, single.value_count) == (2, 6)
    metadata = pq.ParquetFile(tmp_path / "f.parquet").metadata
    chunks = [metadata.row_group(g).column(0) for g in range(metadata.num_row_groups)]
    assert len(chunks) == 3
    assert single.total_size == sum(c.total_compressed_size for c in chunks)
    assert single.total_uncompressed_size == sum(c.total_uncompressed_size for c in chunks)
    assert single.file == "f.parquet" and single.meta == ValueMeta(ValueType.LONG)


def read_row_groups(tmp_path: Path, table: pa.Table) -> list[ColumnRange]:
    pq.write_table(table, tmp_path / "f.parquet", row_group_size=2)
    return read_parquet_ranges(Storage(str(tmp_path)), "f.parquet", ["n", "absent"], IndexVersion.V2)


def test_v2_values_take_the_primitive_wrapper_of_their_type(tmp_path: Path) -> None:
    when = dt.datetime(2024, 1, 15, 10, 30, tzinfo=dt.timezone.utc)
    table = pa.table({
        "s": pa.array(["b", "a"]),
        "d": pa.array([dt.date(2024, 1, 15), dt.date(2024, 1, 16)]),
        "ts": pa.array([when, when], pa.timestamp("us", tz="UTC")),
        "local": pa.array([when.replace(tzinfo=None)] * 2, pa.timestamp("ms")),
        "dec": pa.array([Decimal("-1.50"), Decimal("25.00")], pa.decimal128(10, 2)),
        "flag": pa.array([True, False]),
        "raw": pa.array([b"\x80", b"\x01"]),
        "t": pa.array([1000, 2000], pa.time32("ms")),
    })  # fmt: skip
    got = ranges_of(tmp_path, table, IndexVersion.V2)
    micros = int(when.timestamp() * 1_000_000)
    assert (got["s"].min, got["s"].meta) == (Wrapped("StringWrapper", "a"), ValueMeta(ValueType.STRING))
    assert (got["d"].min, got["d"].meta) == (Wrapped("IntWrapper", 19737), ValueMeta(ValueType.DATE))
    assert (got["ts"].max, got["ts"].meta) == (
        Wrapped("LongWrapper", micros),
        ValueMeta(ValueType.TIMESTAMP_MICROS),
    )
    assert got["local"].meta == ValueMeta(ValueType.LOCAL_TIMESTAMP_MILLIS)
    assert got["dec"].meta == ValueMeta(ValueType.DECIMAL, 10, 2)
    assert (got["dec"].min, got["dec"].max) == (
        Wrapped("BytesWrapper", java_bytes(-150)),
        Wrapped("BytesWrapper", b"\t\xc4"),
    )
    assert (got["flag"].min, got["flag"].max) == (
        Wrapped("BooleanWrapper", False),
        Wrapped("BooleanWrapper", True),
    )
    assert got["raw"].meta == ValueMeta(ValueType.BYTES)
    assert got["t"].meta == ValueMeta(ValueType.TIME_MILLIS) and got["t"].min == Wrapped("IntWrapper", 1000)


def test_v1_values_take_the_wrapper_of_their_java_class(tmp_path: Path) -> None:
    table = pa.table({
        "s": pa.array(["b", "a"]),
        "d": pa.array([dt.date(2024, 1, 15), dt.date(2024, 1, 16)]),
        "ts": pa.array([1, 2], pa.timestamp("us", tz="UTC")),
        "dec": pa.array([Decimal("1.25"), Decimal("2.50")], pa.decimal128(10, 2)),
        "i": pa.array([1, 2], pa.int8()),
    })  # fmt: skip
    got = ranges_of(tmp_path, table, IndexVersion.V1)
    assert all(r.meta == V1 for r in got.values())
    assert got["s"].min == Wrapped("StringWrapper", "a")
    assert got["d"].min == Wrapped("DateWrapper", 19737)
    assert got["ts"].max == Wrapped("LongWrapper", 2)
    assert got["dec"].min == Wrapped("DecimalWrapper", java_bytes(125 * 10**13))
    assert got["i"].min == Wrapped("IntWrapper", 1)


def test_decimals_stored_as_integers(tmp_path: Path) -> None:
    table = pa.table({"dec": pa.array([Decimal("-3.5"), Decimal("7.25")], pa.decimal128(9, 2))})
    got = ranges_of(tmp_path, table, IndexVersion.V2, store_decimal_as_integer=True)
    assert pq.ParquetFile(tmp_path / "f.parquet").metadata.schema.column(0).physical_type == "INT32"
    assert (got["dec"].min, got["dec"].max) == (
        Wrapped("BytesWrapper", java_bytes(-350)),
        Wrapped("BytesWrapper", java_bytes(725)),
    )


def test_an_all_null_column_has_no_bounds(tmp_path: Path) -> None:
    got = ranges_of(tmp_path, pa.table({"s": pa.array([None, None], pa.string())}), IndexVersion.V2)
    assert (got["s"].min, got["s"].max, got["s"].null_count, got["s"].value_count) == (None, None, 2, 2)


def test_v2_refuses_types_hudi_cannot_type(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedTableError, match="'i'"):
        ranges_of(tmp_path, pa.table({"i": pa.array([1], pa.int8())}), IndexVersion.V2)


def test_v1_refuses_fixed_bytes_hudi_cannot_wrap(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedTableError, match="'u'"):
        ranges_of(tmp_path, pa.table({"u": pa.array([b"0123456789abcdef"], pa.binary(16))}), IndexVersion.V1)


def test_floating_point_bounds_read_as_parquet_mr_reads_them() -> None:
    def stats(low: float, high: float) -> Any:
        return SimpleNamespace(has_min_max=True, min_raw=low, max_raw=high)

    bounds = _bounds(stats(0.0, -0.0), "DOUBLE")
    assert bounds is not None
    low, high = bounds
    assert math.copysign(1.0, low) < 0 and math.copysign(1.0, high) > 0
    assert _bounds(stats(float("nan"), 1.0), "FLOAT") is None
    assert _bounds(stats(0, 0), "INT64") == (0, 0)
