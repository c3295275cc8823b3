"""Merging base rows with log records and deletes, per merge mode."""

from __future__ import annotations

import pyarrow as pa

from maintainer.hudi.config.properties import MergeMode
from maintainer.hudi.records.merge import (
    LogDeletes,
    LogItem,
    LogRecords,
    MergeRules,
    format_record_key,
    merge_file_slice,
)

SCHEMA = pa.schema([("_hoodie_record_key", pa.string()), ("ts", pa.int64()), ("v", pa.string())])
EVENT = MergeRules(MergeMode.EVENT_TIME_ORDERING, "ts", ("k",), True)
COMMIT = MergeRules(MergeMode.COMMIT_TIME_ORDERING, "ts", ("k",), True)


def base(*rows: tuple[str, int, str]) -> pa.Table:
    return pa.Table.from_pylist(
        [{"_hoodie_record_key": k, "ts": t, "v": v} for k, t, v in rows], schema=SCHEMA
    )


def rec(key: str, ts: int, value: str) -> dict[str, object]:
    return {"_hoodie_record_key": key, "ts": ts, "v": value}


def merged(table: pa.Table) -> dict[str, tuple[int, str]]:
    return {r["_hoodie_record_key"]: (r["ts"], r["v"]) for r in table.to_pylist()}


def test_log_record_replaces_base_row_with_same_key() -> None:
    result = merge_file_slice(
        base(("a", 1, "x"), ("b", 1, "y")), [LogRecords("2", [rec("a", 2, "x2")])], EVENT, SCHEMA
    )
    assert merged(result) == {"a": (2, "x2"), "b": (1, "y")}


def test_event_time_keeps_the_greater_ordering_value() -> None:
    result = merge_file_slice(base(("a", 5, "new")), [LogRecords("2", [rec("a", 3, "old")])], EVENT, SCHEMA)
    assert merged(result) == {"a": (5, "new")}


def test_event_time_tie_goes_to_the_later_write() -> None:
    result = merge_file_slice(
        base(("a", 5, "first")), [LogRecords("2", [rec("a", 5, "second")])], EVENT, SCHEMA
    )
    assert merged(result) == {"a": (5, "second")}


def test_commit_time_later_write_wins_whatever_the_ordering() -> None:
    result = merge_file_slice(base(("a", 5, "new")), [LogRecords("2", [rec("a", 3, "old")])], COMMIT, SCHEMA)
    assert merged(result) == {"a": (3, "old")}


def test_delete_without_ordering_value_always_deletes() -> None:
    result = merge_file_slice(
        base(("a", 5, "x"), ("b", 1, "y")), [LogDeletes("2", [("a", None)])], EVENT, SCHEMA
    )
    assert merged(result) == {"b": (1, "y")}


def test_event_time_delete_with_lower_ordering_keeps_the_record() -> None:
    result = merge_file_slice(base(("a", 5, "x")), [LogDeletes("2", [("a", 3)])], EVENT, SCHEMA)
    assert merged(result) == {"a": (5, "x")}


def test_record_after_a_delete_is_merged_with_the_base_row_by_ordering() -> None:
    # as Hudi: the log combines to the later record, which then meets the base row
    items: list[LogItem] = [LogDeletes("2", [("a", None)]), LogRecords("3", [rec("a", 1, "older")])]
    assert merged(merge_file_slice(base(("a", 5, "x")), items, EVENT, SCHEMA)) == {"a": (5, "x")}
    items = [LogDeletes("2", [("a", None)]), LogRecords("3", [rec("a", 9, "back")])]
    assert merged(merge_file_slice(base(("a", 5, "x")), items, EVENT, SCHEMA)) == {"a": (9, "back")}


def test_commit_time_record_after_a_delete_reinserts() -> None:
    items: list[LogItem] = [LogDeletes("2", [("a", None)]), LogRecords("3", [rec("a", 1, "back")])]
    assert merged(merge_file_slice(base(("a", 5, "x")), items, COMMIT, SCHEMA)) == {"a": (1, "back")}


def test_log_only_slice_has_no_base() -> None:
    items = [LogRecords("1", [rec("a", 1, "x"), rec("b", 1, "y")]), LogRecords("2", [rec("a", 2, "x2")])]
    assert merged(merge_file_slice(None, items, EVENT, SCHEMA)) == {"a": (2, "x2"), "b": (1, "y")}


def test_record_key_of_one_field_is_its_value_and_of_several_is_name_value_pairs() -> None:
    assert format_record_key(["id"], {"id": 7}) == "7"
    assert format_record_key(["a", "b"], {"a": 1, "b": "x"}) == "a:1,b:x"


def test_tables_without_meta_fields_key_by_record_key_fields() -> None:
    schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
    rules = MergeRules(MergeMode.COMMIT_TIME_ORDERING, None, ("id",), False)
    base_rows = pa.Table.from_pylist([{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], schema=schema)
    result = merge_file_slice(
        base_rows, [LogRecords("2", [{"id": 2, "v": "c"}]), LogDeletes("3", [("1", None)])], rules, schema
    )
    assert result.to_pylist() == [{"id": 2, "v": "c"}]
