"""Which columns and index versions a table's metadata records use; the value types Hudi derives
from the Avro schema; stored column stats read back; partition stats merging rules."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from maintainer.errors import UnsupportedTableError
from maintainer.hudi.metadata.updates import TableIndexes, table_indexes
from maintainer.hudi.metadata.updates.indexes import read_index_definitions
from maintainer.hudi.metadata.updates.partition_stats import partition_stats_records
from maintainer.hudi.metadata.updates.ranges import ColumnRange
from maintainer.hudi.metadata.updates.schema_types import default_columns, is_supported, value_meta
from maintainer.hudi.metadata.updates.stored import stored_range
from maintainer.hudi.metadata.updates.values import (
    V1,
    IndexVersion,
    ValueMeta,
    ValueType,
    Wrapped,
    java_bytes,
)
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable, metadata_fixture_names

V9 = "sample_table_mor_avro_v9_txns_simple_meta"
V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


@pytest.mark.fixtures
@pytest.mark.parametrize("name", metadata_fixture_names())
def test_default_columns_are_the_ones_hudi_registered(
    name: str, fixture_table: Callable[[str], FixtureTable]
) -> None:
    state = open_table(str(fixture_table(name).path), verify=False)
    config = state.snapshot.config
    registered = read_index_definitions(state.storage, config)["column_stats"]["sourceFields"]
    assert config.create_schema is not None
    assert list(default_columns(config.create_schema, config.populate_meta_fields)) == registered


@pytest.mark.fixtures
@pytest.mark.parametrize(("name", "version"), [(V9, IndexVersion.V2), (V8, IndexVersion.V1)])
def test_index_versions_and_columns_of_a_fixture(
    name: str, version: IndexVersion, fixture_table: Callable[[str], FixtureTable]
) -> None:
    state = open_table(str(fixture_table(name).path), verify=False)
    indexes = table_indexes(state.storage, state.snapshot.config, state.snapshot.config.create_schema)
    assert indexes.column_stats_version is indexes.partition_stats_version is version
    assert indexes.columns[:3] == ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")
    assert {"files", "column_stats", "partition_stats"} <= indexes.partitions
    assert indexes.bloom_filter_type == "DYNAMIC_V0"
    assert set(indexes.column_types) == set(indexes.columns)


@pytest.mark.fixtures
def test_expression_indexes_and_indexes_being_built_are_refused(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    state = open_table(str(fixture_table(V9).path), verify=False)
    config = state.snapshot.config
    expression = dataclasses.replace(
        config, metadata_partitions=(*config.metadata_partitions, "expr_index_x")
    )
    with pytest.raises(UnsupportedTableError, match="expression index"):
        table_indexes(state.storage, expression, None)
    building = dataclasses.replace(config, metadata_partitions_inflight=("bloom_filters",))
    with pytest.raises(UnsupportedTableError, match="being built"):
        table_indexes(state.storage, building, None)


@pytest.mark.parametrize(
    ("avro_type", "expected"),
    [
        (["null", "string"], ValueMeta(ValueType.STRING)),
        ({"type": "int", "logicalType": "date"}, ValueMeta(ValueType.DATE)),
        (
            ["null", {"type": "long", "logicalType": "timestamp-micros"}],
            ValueMeta(ValueType.TIMESTAMP_MICROS),
        ),
        (
            {"type": "long", "logicalType": "local-timestamp-millis"},
            ValueMeta(ValueType.LOCAL_TIMESTAMP_MILLIS),
        ),
        (
            {"type": "fixed", "name": "f", "size": 7, "logicalType": "decimal", "precision": 15, "scale": 2},
            ValueMeta(ValueType.DECIMAL, 15, 2),
        ),
        ({"type": "fixed", "name": "g", "size": 4}, ValueMeta(ValueType.FIXED)),
        ("double", ValueMeta(ValueType.DOUBLE)),
    ],
)
def test_value_types_from_the_avro_schema(avro_type: Any, expected: ValueMeta) -> None:
    assert value_meta(avro_type, "c") == expected


def test_supported_columns() -> None:
    assert is_supported({"type": "bytes", "logicalType": "decimal", "precision": 15, "scale": 2})
    assert not is_supported({"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 2})
    assert not is_supported({"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 16})
    assert not is_supported(["null", {"type": "array", "items": "int"}])
    assert is_supported(["null", "bytes"])


def test_default_columns_stop_at_32_and_skip_meta_and_nested_fields() -> None:
    fields = [
        {"name": "_hoodie_record_key", "type": "string"},
        {"name": "nested", "type": {"type": "map", "values": "int"}},
    ]
    fields += [{"name": f"c{i}", "type": "int"} for i in range(40)]
    schema = json.dumps({"type": "record", "name": "r", "fields": fields})
    columns = default_columns(schema)
    assert columns[:4] == ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "c0")
    assert len(columns) == 35 and columns[-1] == "c31"
    assert default_columns(schema, populate_meta_fields=False)[0] == "c0"


def stats(min_value: Any, max_value: Any, value_type: Any = None, deleted: bool = False) -> dict[str, Any]:
    return {
        "ColumnStatsMetadata": {
            "fileName": "f.parquet", "columnName": "c", "minValue": min_value, "maxValue": max_value,
            "valueCount": 3, "nullCount": 1, "totalSize": 10, "totalUncompressedSize": 20,
            "isDeleted": deleted, "isTightBound": False, "valueType": value_type,
        }
    }  # fmt: skip


def test_stored_values_keep_their_wrapper() -> None:
    stored = stored_range(stats(("org.apache.hudi.avro.model.DateWrapper", {"value": 3}), None))
    assert stored is not None and stored.min == Wrapped("DateWrapper", 3) and stored.meta == V1
    decimal = stored_range(
        stats(("org.apache.hudi.avro.model.DecimalWrapper", {"value": Decimal("1.5")}), None)
    )
    assert decimal is not None and decimal.min == Wrapped("DecimalWrapper", java_bytes(15 * 10**14))
    assert stored_range(stats(None, None, deleted=True)) is None


def test_plain_stored_values_take_the_wrapper_of_their_type_or_hint() -> None:
    v2 = stored_range(stats({"value": 1}, {"value": 2}, {"typeOrdinal": 12, "additionalInfo": None}))
    assert v2 is not None and v2.max == Wrapped("IntWrapper", 2) and v2.meta == ValueMeta(ValueType.DATE)
    hinted = stored_range(stats({"value": 1}, {"value": 2}), hint="LongWrapper")
    assert hinted is not None and hinted.min == Wrapped("LongWrapper", 1)
    with pytest.raises(UnsupportedTableError, match="which wrapper"):
        stored_range(stats({"value": 1}, {"value": 2}))


def column_range(low: int, high: int, meta: ValueMeta, wrapper: str = "LongWrapper") -> ColumnRange:
    return ColumnRange("f", "c", Wrapped(wrapper, low), Wrapped(wrapper, high), 1, 5, 10, 20, meta)


def test_partition_stats_merge_the_files_of_a_partition() -> None:
    meta = ValueMeta(ValueType.LONG)
    indexes = TableIndexes(frozenset(), ("c",), IndexVersion.V2, IndexVersion.V2, {"c": meta})
    ((_, record),) = partition_stats_records(
        "p", [column_range(3, 9, meta), column_range(1, 4, meta)], indexes
    )
    merged = record["ColumnStatsMetadata"]
    assert merged["fileName"] == "p" and merged["isTightBound"] is True
    assert (merged["minValue"], merged["maxValue"]) == (
        Wrapped("LongWrapper", 1).to_avro(),
        Wrapped("LongWrapper", 9).to_avro(),
    )
    assert [merged[f] for f in ("nullCount", "valueCount", "totalSize", "totalUncompressedSize")] == [
        2,
        10,
        20,
        40,
    ]
    assert merged["valueType"] == {"typeOrdinal": 4, "additionalInfo": None}


def test_partition_stats_refuse_a_file_typed_unlike_the_schema() -> None:
    indexes = TableIndexes(
        frozenset(), ("c",), IndexVersion.V2, IndexVersion.V2, {"c": ValueMeta(ValueType.LONG)}
    )
    with pytest.raises(UnsupportedTableError, match="schema evolved"):
        partition_stats_records("p", [column_range(1, 2, ValueMeta(ValueType.INT), "IntWrapper")], indexes)


def test_v1_partition_stats_keep_each_values_wrapper() -> None:
    indexes = TableIndexes(frozenset(), ("c",), IndexVersion.V1, IndexVersion.V1)
    ((_, record),) = partition_stats_records("p", [column_range(1, 2, V1, "DateWrapper")], indexes)
    assert record["ColumnStatsMetadata"]["minValue"] == Wrapped("DateWrapper", 1).to_avro()
    assert record["ColumnStatsMetadata"]["valueType"] is None
